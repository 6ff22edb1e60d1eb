/*
 * const_nc.c - the read-only path of the const_promote stage: loads from a
 * kernel's read-only pointer arguments get !invariant.load, which the NVPTX
 * backend emits as ld.global.nc (the non-coherent, read-only data cache).
 *
 * ld.global.nc is only right for data that does not change while the
 * kernel runs, and !invariant.load lets LLVM move the load across any
 * write. A load L of argument x is marked only when
 *
 *  1. x is read-only in the kernel: every pointer derived from it is only
 *     loaded from (ks_const_readonly);
 *  2. the kernel cannot synchronize: no fence, atomic, volatile access,
 *     inline asm with side effects or memory operands, or call other than
 *     side-effect-free intrinsics and warp-level exchanges of registers
 *     (shuffles, votes: PTX orders no memory by them), and no barrier of
 *     any form (ks_ir_barrier_kind) that a write to global memory can
 *     reach (a barrier that only follows shared-memory writes, as window
 *     staging's does or a tile's store through clang's constant
 *     addrspacecast, orders no global write before anything). Then a write
 *     by another thread to an element L reads would be a data race in the
 *     original program, whatever the order;
 *  3. no write to global memory (through any pointer: arguments may
 *     overlap) can execute before L in the same thread (CFG reachability),
 *     so L reads what was there at launch;
 *  4. every write that can execute after L in the same thread uses L's
 *     value (data dependence), so that neither LLVM nor ptxas can move L
 *     below a write that may overlap what it reads.
 *
 * Writes to allocas and to shared or local memory cannot overlap a global
 * buffer and are ignored.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

static const char pass[] = "const_promote";

enum { AS_GENERIC = 0, AS_GLOBAL = 1, AS_SHARED = 3, AS_LOCAL = 5 };

/* Where an instruction is: its block's index and its place in the kernel. */
typedef struct site {
  LLVMValueRef inst;
  unsigned block, pos;
} site;

typedef struct scan {
  LLVMBasicBlockRef *blocks;
  size_t nblocks;
  unsigned char *reach; /* reach[a * nblocks + b]: a path a -> b exists */
  site *loads, *writes; /* loads sorted by inst */
  size_t nloads, nwrites;
  site *barriers; /* block-wide barriers, judged once writes are known */
  size_t nbarriers, barriers_cap;
  const char *blocker; /* what lets the kernel synchronize, or NULL */
  char blocker_buf[96];
} scan;

/* ---- the CFG ---------------------------------------------------------------
 */

typedef struct bb_at {
  LLVMBasicBlockRef bb;
  size_t i;
} bb_at;

static int by_bb(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const bb_at *)a)->bb;
  uintptr_t y = (uintptr_t)((const bb_at *)b)->bb;
  return (x > y) - (x < y);
}

/* Fills the reachability matrix (paths of one edge or more) of blocks[];
 * 1 when out of memory. Only asked for when no blocker was found. */
static int build_reach(scan *sc) {
  size_t n = sc->nblocks, nsucc = 0;
  for (size_t a = 0; a < n; a++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(sc->blocks[a]);
    nsucc += t ? LLVMGetNumSuccessors(t) : 0;
  }
  sc->reach = calloc(n * n, 1);
  bb_at *at = malloc(n * sizeof *at);
  size_t *first = malloc((n + 1) * sizeof *first);
  size_t *succ = malloc((nsucc + 1) * sizeof *succ);
  size_t *stack = malloc(n * sizeof *stack);
  int rc = !sc->reach || !at || !first || !succ || !stack;
  if (!rc) {
    for (size_t a = 0; a < n; a++)
      at[a] = (bb_at){sc->blocks[a], a};
    qsort(at, n, sizeof *at, by_bb);
    size_t k = 0; /* successors as indices, block a's from first[a] on */
    for (size_t a = 0; a < n; a++) {
      first[a] = k;
      LLVMValueRef t = LLVMGetBasicBlockTerminator(sc->blocks[a]);
      unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
      for (unsigned i = 0; i < ns; i++) {
        bb_at key = {LLVMGetSuccessor(t, i), 0};
        const bb_at *f = bsearch(&key, at, n, sizeof *at, by_bb);
        if (f)
          succ[k++] = f->i;
      }
    }
    first[n] = k;
    for (size_t a = 0; a < n; a++) {
      unsigned char *row = sc->reach + a * n;
      size_t top = 0;
      stack[top++] = a;
      while (top) {
        size_t v = stack[--top];
        for (size_t e = first[v]; e < first[v + 1]; e++)
          if (!row[succ[e]]) {
            row[succ[e]] = 1;
            stack[top++] = succ[e];
          }
      }
    }
  }
  free(at);
  free(first);
  free(succ);
  free(stack);
  return rc;
}

/* Can the instruction at a execute before the one at b in one thread? */
static int reaches(const scan *sc, const site *a, const site *b) {
  if (a->block == b->block && a->pos < b->pos)
    return 1;
  return sc->reach[a->block * sc->nblocks + b->block];
}

/* ---- what each instruction does
 * ---------------------------------------------- */

/* Can pointer p address global memory? Not when it is, or is computed
 * from, a shared or local pointer or an alloca. */
static int may_be_global(LLVMValueRef p) {
  unsigned as = ks_ir_addrspace(p); /* casts seen through, constant too */
  return as != AS_SHARED && as != AS_LOCAL;
}

static int name_starts(const char *name, const char *prefix) {
  return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* A call's effect: 0 none that matters, 1 a write through operand 0
 * (memcpy, memmove, memset), -1 anything else (it may synchronize). */
static int call_effect(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (ks_ir_asm_pure(call) || ks_ir_warp_exchange(call))
    return 0; /* registers only: no memory, no ordering */
  if (!callee || !LLVMIsAFunction(callee))
    return -1; /* inline asm, indirect */
  const char *name = LLVMGetValueName(callee);
  if (name_starts(name, "llvm.memcpy") || name_starts(name, "llvm.memmove") ||
      name_starts(name, "llvm.memset"))
    return 1;
  if (name_starts(name, "llvm.lifetime.") || name_starts(name, "llvm.dbg.") ||
      strcmp(name, "llvm.assume") == 0 ||
      strcmp(name, "llvm.experimental.noalias.scope.decl") == 0)
    return 0;
  if (!name_starts(name, "llvm.") &&
      !ks_ir_outlined(LLVMGetGlobalParent(callee), callee))
    return -1; /* a libdevice function called out of line: as an intrinsic */
  unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
  unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
  LLVMAttributeRef a =
      LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, mem);
  /* memory(...) holds 2 bits (ref, mod) per location: no mod bit, no write */
  int writes = !a || (LLVMGetEnumAttributeValue(a) & 0x2a) != 0;
  int convergent = LLVMGetEnumAttributeAtIndex(
                       callee, LLVMAttributeFunctionIndex, conv) != NULL;
  return writes || convergent ? -1 : 0;
}

static void set_blocker(scan *sc, const char *what, LLVMValueRef inst) {
  if (sc->blocker)
    return;
  const char *name = NULL;
  if (LLVMIsACallInst(inst)) {
    LLVMValueRef callee = LLVMGetCalledValue(inst);
    name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName(callee)
                                             : "inline asm or indirect";
  }
  snprintf(sc->blocker_buf, sizeof sc->blocker_buf, "%s%s%.60s%s", what,
           name ? " (" : "", name ? name : "", name ? ")" : "");
  sc->blocker = sc->blocker_buf;
}

static int is_plain(LLVMValueRef mem) {
  return !LLVMGetVolatile(mem) &&
         LLVMGetOrdering(mem) == LLVMAtomicOrderingNotAtomic;
}

static int add_site(site **a, size_t *n, size_t *cap, site s) {
  if (!ks_ir_room(a, cap, *n, sizeof **a, 64))
    return 1;
  (*a)[(*n)++] = s;
  return 0;
}

/* Sorts one instruction into loads, writes or blockers; 1 when out of
 * memory. */
static int classify(scan *sc, site s, size_t caps[2]) {
  LLVMValueRef i = s.inst;
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op == LLVMFence || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
    set_blocker(sc, "a fence or an atomic", i);
  } else if (op == LLVMLoad) {
    if (!is_plain(i))
      set_blocker(sc, "a volatile or atomic load", i);
    return add_site(&sc->loads, &sc->nloads, &caps[0], s);
  } else if (op == LLVMStore) {
    if (!is_plain(i))
      set_blocker(sc, "a volatile or atomic store", i);
    if (may_be_global(LLVMGetOperand(i, 1)))
      return add_site(&sc->writes, &sc->nwrites, &caps[1], s);
  } else if (op == LLVMCall && ks_ir_is_barrier(i)) {
    return add_site(&sc->barriers, &sc->nbarriers, &sc->barriers_cap, s);
  } else if (op == LLVMCall) {
    int e = call_effect(i);
    if (e < 0)
      set_blocker(sc, "a barrier or a call that may write", i);
    if (e > 0 && may_be_global(LLVMGetOperand(i, 0)))
      return add_site(&sc->writes, &sc->nwrites, &caps[1], s);
  } else if (LLVMIsATerminatorInst(i) && op != LLVMBr && op != LLVMRet &&
             op != LLVMSwitch && op != LLVMUnreachable) {
    set_blocker(sc, "an unusual terminator", i);
  }
  return 0;
}

static int by_inst(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const site *)a)->inst;
  uintptr_t y = (uintptr_t)((const site *)b)->inst;
  return (x > y) - (x < y);
}

static int scan_kernel(scan *sc, LLVMValueRef fn) {
  sc->nblocks = LLVMCountBasicBlocks(fn);
  sc->blocks = malloc((sc->nblocks ? sc->nblocks : 1) * sizeof *sc->blocks);
  if (!sc->blocks)
    return 1;
  LLVMGetBasicBlocks(fn, sc->blocks);
  size_t caps[2] = {0, 0};
  unsigned pos = 0;
  for (size_t b = 0; b < sc->nblocks; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(sc->blocks[b]); i;
         i = LLVMGetNextInstruction(i))
      if (classify(sc, (site){i, (unsigned)b, pos++}, caps))
        return 1;
  if (sc->blocker) /* the pass declines: no order between sites needed */
    return 0;
  if (build_reach(sc))
    return 1;
  if (sc->nloads)
    qsort(sc->loads, sc->nloads, sizeof *sc->loads, by_inst);
  for (size_t b = 0; b < sc->nbarriers; b++)
    for (size_t w = 0; w < sc->nwrites; w++)
      if (reaches(sc, &sc->writes[w], &sc->barriers[b]))
        set_blocker(sc, "a barrier after a write to global memory",
                    sc->barriers[b].inst);
  return 0;
}

static void scan_free(scan *sc) {
  free(sc->blocks);
  free(sc->reach);
  free(sc->loads);
  free(sc->writes);
  free(sc->barriers);
}

/* ---- data dependence -------------------------------------------------------
 */

/* A set of instructions (open addressing; the size a power of two). */
typedef struct vset {
  LLVMValueRef *slot;
  size_t cap, n;
} vset;

static size_t vhash(LLVMValueRef v, size_t cap) {
  uintptr_t h = (uintptr_t)v;
  h ^= h >> 17;
  h *= (uintptr_t)0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 7) & (cap - 1);
}

static int vset_has(const vset *s, LLVMValueRef v) {
  for (size_t i = vhash(v, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
    if (s->slot[i] == v)
      return 1;
  return 0;
}

static void vset_put(vset *s, LLVMValueRef v) {
  size_t i = vhash(v, s->cap);
  while (s->slot[i] && s->slot[i] != v)
    i = (i + 1) & (s->cap - 1);
  s->n += !s->slot[i];
  s->slot[i] = v;
}

/* Fills deps with every instruction w's operands are computed from
 * (transitively, through phis); 1 when out of memory. The set is sized for
 * the whole kernel (ninsts), so it never fills. */
static int depends_set(LLVMValueRef w, size_t ninsts, vset *deps) {
  size_t cap = 16;
  while (cap < 2 * ninsts + 2)
    cap *= 2;
  deps->slot = calloc(cap, sizeof *deps->slot);
  LLVMValueRef *stack = malloc((ninsts + 1) * sizeof *stack);
  deps->cap = cap;
  deps->n = 0;
  if (!deps->slot || !stack) {
    free(stack);
    return 1;
  }
  size_t top = 0;
  stack[top++] = w;
  while (top) {
    LLVMValueRef v = stack[--top];
    int n = LLVMGetNumOperands(v);
    for (int k = 0; k < n; k++) {
      LLVMValueRef o = LLVMGetOperand(v, (unsigned)k);
      if (o && LLVMIsAInstruction(o) && !vset_has(deps, o)) {
        vset_put(deps, o);
        stack[top++] = o;
      }
    }
  }
  free(stack);
  return 0;
}

/* ---- marking ---------------------------------------------------------------
 */

typedef struct nc_count {
  size_t marked, after_write, undepended, joined;
} nc_count;

static const site *find_load(const scan *sc, LLVMValueRef ld) {
  site key = {.inst = ld};
  return bsearch(&key, sc->loads, sc->nloads, sizeof key, by_inst);
}

static void judge_load(const scan *sc, const vset *deps, LLVMValueRef arg,
                       LLVMValueRef ld, LLVMValueRef md, unsigned kind,
                       nc_count *c) {
  LLVMValueRef p = LLVMGetOperand(ld, 0);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  const site *l = find_load(sc, ld);
  if (!l || (as != AS_GENERIC && as != AS_GLOBAL))
    return;
  /* Through a phi or select the load may read another, written buffer. */
  if (ks_const_root(p) != arg) {
    c->joined++;
    return;
  }
  for (size_t i = 0; i < sc->nwrites; i++)
    if (reaches(sc, &sc->writes[i], l)) {
      c->after_write++;
      return;
    }
  for (size_t i = 0; i < sc->nwrites; i++)
    if (reaches(sc, l, &sc->writes[i]) && !vset_has(&deps[i], ld)) {
      c->undepended++;
      return;
    }
  LLVMSetMetadata(ld, kind, md);
  c->marked++;
}

static void nc_report(ks_diag *d, const char *name, const nc_count *c) {
  if (c->marked)
    ks_diag_explain(d, pass, "%s: %zu loads read-only, marked for ld.global.nc",
                    name, c->marked);
  if (c->after_write)
    ks_diag_explain(d, pass,
                    "%s: %zu loads kept coherent: a write to global memory can "
                    "execute before them",
                    name, c->after_write);
  if (c->joined)
    ks_diag_explain(d, pass,
                    "%s: %zu loads kept coherent: their address may also come "
                    "from another pointer (phi or select)",
                    name, c->joined);
  if (c->undepended)
    ks_diag_explain(d, pass,
                    "%s: %zu loads kept coherent: a later write does not use "
                    "their value",
                    name, c->undepended);
}

/* Marks the loads of every read-only pointer argument of fn. */
static int mark_args(LLVMContextRef c, LLVMValueRef fn, const scan *sc,
                     const vset *deps, ks_diag *d) {
  unsigned kind = LLVMGetMDKindIDInContext(c, "invariant.load", 14);
  LLVMValueRef md = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
  for (unsigned a = 0; a < LLVMCountParams(fn); a++) {
    LLVMValueRef arg = LLVMGetParam(fn, a);
    if (LLVMGetTypeKind(LLVMTypeOf(arg)) != LLVMPointerTypeKind ||
        !LLVMGetFirstUse(arg))
      continue;
    char name[64];
    ks_diag_arg_name(arg, name, sizeof name);
    LLVMValueRef *loads = NULL;
    size_t n = 0;
    const char *why = ks_const_readonly(arg, &loads, &n);
    if (why && strcmp(why, "out of memory") == 0)
      return ks_diag_fail(d, KS_ENOMEM, "const_promote: out of memory");
    if (why)
      ks_diag_explain(d, pass, "%s: not read-only: %s", name, why);
    nc_count cnt = {0};
    for (size_t i = 0; i < n; i++)
      judge_load(sc, deps, arg, loads[i], md, kind, &cnt);
    nc_report(d, name, &cnt);
    free(loads);
  }
  return 0;
}

int ks_const_nc(LLVMModuleRef m, LLVMValueRef fn, ks_diag *d) {
  scan sc = {0};
  vset *deps = NULL;
  int rc = 0;
  if (scan_kernel(&sc, fn)) {
    rc = ks_diag_fail(d, KS_ENOMEM, "const_promote: out of memory");
  } else if (sc.blocker) {
    ks_diag_explain(
        d, pass,
        "declined ld.global.nc: the kernel has %s, so other threads' "
        "writes may be ordered before its loads",
        sc.blocker);
  } else {
    size_t ninsts = 0;
    for (size_t b = 0; b < sc.nblocks; b++)
      for (LLVMValueRef i = LLVMGetFirstInstruction(sc.blocks[b]); i;
           i = LLVMGetNextInstruction(i))
        ninsts++;
    deps = calloc(sc.nwrites + 1, sizeof *deps);
    for (size_t i = 0; deps && i < sc.nwrites && !rc; i++)
      rc = depends_set(sc.writes[i].inst, ninsts, &deps[i]);
    if (!deps || rc)
      rc = ks_diag_fail(d, KS_ENOMEM, "const_promote: out of memory");
    else
      rc = mark_args(LLVMGetModuleContext(m), fn, &sc, deps, d);
  }
  for (size_t i = 0; deps && i < sc.nwrites; i++)
    free(deps[i].slot);
  free(deps);
  scan_free(&sc);
  return rc;
}
