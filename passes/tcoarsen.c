/*
 * tcoarsen.c - thread coarsening inside the block, invisible to the user.
 *
 * A kernel specialized for a fixed block of B_x x B_y x B_z threads is
 * compiled to run with a real block of B_x/K x B_y x B_z threads; each real
 * thread runs the K virtual threads K*tid.x + j, j = 0..K-1, of the block
 * the user launches (ks_launch substitutes the real block; the grid is the
 * user's). The virtual block size is what %ntid.x reads: bind has already
 * folded it to B_x.
 *
 * Why it is sound. The kernel has no barrier, no warp-level operation
 * (shuffle, vote, match, ..., every convergent call), reads no %laneid or
 * %warpid, uses no shared memory, has no fence, atomic load or store,
 * cmpxchg, volatile access, inline assembly or call other than pure
 * intrinsics, no local memory (alloca) and no loop. Threads of such a
 * kernel interact only through plain memory and atomic updates, and none
 * can wait for another; running the K virtual threads of a real thread
 * interleaved, instruction by instruction, or one after the other is one
 * of the schedules the original allows.
 *
 * The code. First the K virtual threads run in lockstep: one copy of the
 * control-flow graph, each instruction repeated for j = 0..K-1 (instcombine
 * and CSE then merge what the virtual threads share: conv1d's x[i+k] of
 * thread j is x[i+(k+1)] of thread j-1, its taps are the same for all). A
 * conditional branch is taken in lockstep when the K conditions agree. When
 * they do not, the real thread leaves the lockstep copy for a second, serial
 * copy: a loop over j that runs the original body for virtual thread j, its
 * `ret` going on to virtual thread j+1 (the body with its loops still
 * rolled, when the pipeline kept it: see "the rolled body"). That exit is only
 * taken where no instruction that writes memory can have run before the branch
 * (checked: otherwise the kernel is declined), so the lockstep copy has done
 * nothing but compute and load, exactly as each virtual thread would have, and
 * starting again from scratch is invisible.
 *
 * K is 4 when some load of a virtual thread reads what another load of a
 * neighbouring virtual thread (tid.x + 1 .. K-1) reads, as window_expr.c's
 * normal forms prove; otherwise the kernel is declined ("no reuse between
 * neighbouring threads"), as it is when B_x % K != 0, when the real block
 * would hold less than a warp, or when its rows would be narrower than a
 * warp in a 2-D or 3-D block.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

#define PASS "tcoarsen"

enum { FACTOR = 4, FACTOR_MAX = 8, WARP = 32 };

static int is_sreg(LLVMValueRef i, const char *reg) {
  const char *s = ks_ir_sreg(i);
  return s && !strcmp(s, reg);
}

static int convergent(LLVMValueRef call) {
  unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
  LLVMValueRef f = LLVMGetCalledValue(call);
  return LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind) ||
         (f && LLVMIsAFunction(f) &&
          LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind));
}

/* Why instruction i rules coarsening out, or NULL. */
static const char *forbidden(LLVMValueRef i, char *buf, size_t cap) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMAlloca:
    return "local memory (an alloca)";
  case LLVMFence:
    return "a fence";
  case LLVMAtomicCmpXchg:
    return "an atomic compare-and-swap (a thread may wait on another)";
  case LLVMLoad:
  case LLVMStore:
    if (LLVMGetVolatile(i))
      return "a volatile access";
    if (LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
      return "an atomic load or store (a thread may wait on another)";
    return NULL;
  case LLVMAtomicRMW:
    return LLVMGetVolatile(i) ? "a volatile access" : NULL;
  case LLVMInvoke:
  case LLVMCallBr:
  case LLVMVAArg:
  case LLVMIndirectBr:
  case LLVMSwitch:
    return "control flow other than branches";
  case LLVMCall: {
    LLVMValueRef f = LLVMGetCalledValue(i);
    if (f && LLVMIsAInlineAsm(f))
      return "inline assembly";
    const char *n = ks_ir_callee_name(i);
    const char *r = ks_ir_sreg(i);
    if (r) {
      if (ks_ir_sreg_launch(r))
        return NULL;
      snprintf(buf, cap, "reads %%%s", r);
      return buf;
    }
    if (ks_ir_is_barrier(i) || convergent(i)) {
      snprintf(buf, cap, "a barrier or warp-level operation (%s)",
               *n ? n : "a call");
      return buf;
    }
    if (!ks_ir_pure_call(i)) {
      snprintf(buf, cap, "a call to %s", *n ? n : "a function pointer");
      return buf;
    }
    return NULL;
  }
  default:
    break;
  }
  /* shared memory, through a pointer of its own address space or a
   * generic one cast from it (clang's constant addrspacecast) */
  for (int k = 0; k < LLVMGetNumOperands(i); k++) {
    LLVMValueRef p = LLVMGetOperand(i, (unsigned)k);
    if (LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind &&
        ks_ir_addrspace(p) == 3)
      return "shared memory";
  }
  return NULL;
}

static int writes(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore:
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
    return 1;
  case LLVMCall:
    return !ks_ir_pure_call(i);
  default:
    return 0;
  }
}

/* ---- the function's blocks ------------------------------------------------
 */

typedef struct tc {
  ks_stage_ctx *st; /* the stage: what else runs, LLVM's passes */
  LLVMModuleRef m;
  LLVMValueRef fn;
  const ks_spec *s;
  ks_diag *d;
  LLVMContextRef lc;
  LLVMBuilderRef b;
  LLVMTypeRef i32;
  int nb;
  LLVMBasicBlockRef *bbs; /* the original blocks, in reverse post-order */
  /* the original instructions, numbered */
  LLVMValueRef *inst;
  int ninst;
  int *slot; /* open addressing over inst: index + 1, 0 empty */
  int nslot;
  int dim; /* the coordinate coarsened: 0 (x) or 1 (y) */
  int k;   /* virtual threads per real thread */
} tc;

static const char *const tid_reg[2] = {"tid.x", "tid.y"};
static const char *const ntid_reg[2] = {"ntid.x", "ntid.y"};

static int bb_index(const tc *c, LLVMBasicBlockRef bb) {
  for (int i = 0; i < c->nb; i++)
    if (c->bbs[i] == bb)
      return i;
  return -1;
}

static int inst_index(const tc *c, LLVMValueRef v) {
  unsigned h = ks_ir_hash_ptr(v) & (unsigned)(c->nslot - 1);
  for (;; h = (h + 1) & (unsigned)(c->nslot - 1)) {
    int s = c->slot[h];
    if (!s)
      return -1;
    if (c->inst[s - 1] == v)
      return s - 1;
  }
}

/* The blocks the entry reaches, in reverse post-order (ir/cfg.c); *cyclic
 * when the walk met a back edge. 1 when out of memory. */
static int order(tc *c, int *cyclic) {
  ks_cfg g;
  if (ks_cfg_build(&g, c->fn))
    return 1;
  c->bbs = calloc(g.nrpo ? g.nrpo : 1, sizeof *c->bbs);
  for (unsigned k = 0; c->bbs && k < g.nrpo; k++)
    c->bbs[k] = g.bb[g.rpo[k]];
  c->nb = (int)g.nrpo;
  *cyclic = g.nback > 0;
  ks_cfg_free(&g);
  return !c->bbs;
}

static int number(tc *c) {
  int n = 0;
  for (int b = 0; b < c->nb; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bbs[b]); i;
         i = LLVMGetNextInstruction(i))
      n++;
  c->nslot = 16;
  while (c->nslot < 2 * n)
    c->nslot *= 2;
  c->inst = calloc((size_t)n + 1, sizeof *c->inst);
  c->slot = calloc((size_t)c->nslot, sizeof *c->slot);
  if (!c->inst || !c->slot)
    return 1;
  for (int b = 0; b < c->nb; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bbs[b]); i;
         i = LLVMGetNextInstruction(i)) {
      unsigned h = ks_ir_hash_ptr(i) & (unsigned)(c->nslot - 1);
      while (c->slot[h])
        h = (h + 1) & (unsigned)(c->nslot - 1);
      c->inst[c->ninst] = i;
      c->slot[h] = ++c->ninst;
    }
  return 0;
}

/* ---- the checks ------------------------------------------------------------
 */

/* Is v used by an instruction of fn, directly or through constants? */
static int used_in(LLVMValueRef fn, LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user)) {
      if (LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn)
        return 1;
    } else if (depth > 8 || used_in(fn, user, depth + 1)) {
      return 1; /* a constant used too deep is taken as used */
    }
  }
  return 0;
}

/* Why an instruction of c's blocks rules coarsening out, or NULL. */
static const char *body(tc *c, char *buf, size_t cap) {
  for (int b = 0; b < c->nb; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bbs[b]); i;
         i = LLVMGetNextInstruction(i)) {
      const char *why = forbidden(i, buf, cap);
      if (why)
        return why;
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (LLVMIsATerminatorInst(i) && op != LLVMBr && op != LLVMRet &&
          op != LLVMUnreachable)
        return "control flow other than branches";
      if (op == LLVMRet && LLVMGetNumOperands(i))
        return "a return value";
    }
  return NULL;
}

/* Why the kernel cannot be coarsened, or NULL. */
static const char *check(tc *c, char *buf, size_t cap) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(c->m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 3 && used_in(c->fn, g, 0))
      return "shared memory";
  int cyclic = 0;
  if (order(c, &cyclic))
    return "out of memory";
  if (cyclic)
    return "a loop remains";
  const char *bad = body(c, buf, cap);
  if (bad)
    return bad;
  /* A conditional branch where the lockstep copy may leave for the serial
   * one: no write may come before it. */
  int *dirty = calloc((size_t)c->nb, sizeof *dirty);
  if (!dirty)
    return "out of memory";
  const char *why = NULL;
  for (int b = 0; b < c->nb && !why; b++) { /* reverse post-order */
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bbs[b]); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsATerminatorInst(i) && LLVMIsConditional(i) && dirty[b] &&
          LLVMGetCondition(i) !=
              LLVMConstInt(LLVMInt1TypeInContext(c->lc), 1, 0) &&
          LLVMGetSuccessor(i, 0) != LLVMGetSuccessor(i, 1))
        why = "a branch after a write to memory";
      if (writes(i))
        dirty[b] = 1;
    }
    LLVMValueRef t = LLVMGetBasicBlockTerminator(c->bbs[b]);
    for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
      int s = bb_index(c, LLVMGetSuccessor(t, k));
      if (s >= 0 && dirty[b])
        dirty[s] = 1;
    }
  }
  free(dirty);
  return why;
}

static int simple_global_load(LLVMValueRef i) {
  if (!LLVMIsALoadInst(i) || LLVMGetVolatile(i) ||
      LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
    return 0;
  LLVMTypeRef pt = LLVMTypeOf(LLVMGetOperand(i, 0));
  return LLVMGetPointerAddressSpace(pt) != 3;
}

static int by_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Loads whose address another load's, shifted by 1..K-1 threads along x,
 * equals: what a virtual thread shares with its neighbours. *n_tid gets the
 * loads whose address depends on tid.x. -1: out of memory.
 *
 * Along x, loads narrower than 4 bytes do not count: where a warp's
 * threads read consecutive bytes (box3x3_u8's 32 threads one 32-byte
 * row), coarsened threads K apart spread each load instruction over K
 * times the bytes, and the K loads of a thread are not merged into a
 * wider one (their addresses' alignment is unknown): the corpus's 3x3 box
 * filter on bytes ran 1.06-1.14x its generic kernel's time coarsened. */
static int reused_loads(tc *c, int *n_tid) {
  unsigned block[3];
  for (int i = 0; i < 3; i++)
    block[i] = c->s->block[i] ? c->s->block[i] : 1;
  ks_wx *x = ks_wx_create(c->m, block);
  LLVMValueRef *ld = calloc((size_t)c->ninst + 1, sizeof *ld);
  int *nf = calloc((size_t)c->ninst + 1, sizeof *nf);
  int *sorted = calloc((size_t)c->ninst + 1, sizeof *sorted);
  int n = 0, reused = 0;
  if (!x || !ld || !nf || !sorted) {
    ks_wx_destroy(x);
    free(ld), free(nf), free(sorted);
    return -1;
  }
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(c->m);
  for (int k = 0; k < c->ninst; k++) {
    LLVMValueRef i = c->inst[k];
    if (!simple_global_load(i) ||
        (c->dim == 0 && LLVMABISizeOfType(dl, LLVMTypeOf(i)) < 4))
      continue;
    int f = ks_wx_norm(x, LLVMGetOperand(i, 0), -1, 0);
    if (f < 0 || !(ks_wx_dep(x, f) & (1u << c->dim)))
      continue;
    ld[n] = i;
    nf[n] = f;
    sorted[n++] = f;
  }
  qsort(sorted, (size_t)n, sizeof *sorted, by_int);
  for (int a = 0; a < n; a++) {
    int hit = 0;
    for (int delta = 1; delta < c->k && !hit; delta++) {
      int f = ks_wx_norm(x, LLVMGetOperand(ld[a], 0), c->dim, delta);
      hit = f >= 0 && bsearch(&f, sorted, (size_t)n, sizeof *sorted, by_int);
    }
    reused += hit;
  }
  *n_tid = n;
  ks_wx_destroy(x);
  free(ld), free(nf), free(sorted);
  return reused;
}

/* ---- the copies ------------------------------------------------------------
 */

typedef struct copy {
  LLVMValueRef dst;   /* the function the copy goes into */
  int nk;             /* lanes: virtual threads run in lockstep */
  LLVMValueRef *vtid; /* their tid.x; NULL: tid.x is read (a plain clone) */
  LLVMValueRef *map;  /* [lane * ninst + index] */
  LLVMBasicBlockRef *head, *tail;
  LLVMBasicBlockRef bail; /* where diverging lanes go (nk > 1) */
  LLVMBasicBlockRef ret;  /* NULL: `ret void` */
  /* The lockstep copy's loads by address (forms of window_expr.c, lane l's
   * address read with %tid + l), since the last write: see shared_load. */
  ks_wx *wx;
  struct seen_load {
    int form;
    LLVMTypeRef ty;
    LLVMValueRef v;
  } *seen;
  int nseen;
} copy;

/* The argument of dst at the place of v's in v's function. */
static LLVMValueRef mapped_arg(const tc *c, const copy *k, LLVMValueRef v) {
  LLVMValueRef p = LLVMGetFirstParam(c->fn), q = LLVMGetFirstParam(k->dst);
  for (; p && q; p = LLVMGetNextParam(p), q = LLVMGetNextParam(q))
    if (p == v)
      return q;
  return v;
}

static LLVMValueRef mapped(const tc *c, const copy *k, int lane,
                           LLVMValueRef v) {
  if (LLVMIsAArgument(v))
    return c->fn == k->dst ? v : mapped_arg(c, k, v);
  if (!LLVMIsAInstruction(v))
    return v;
  int i = inst_index(c, v);
  return i < 0 ? v : k->map[(size_t)lane * (size_t)c->ninst + (size_t)i];
}

/* Is lane l's copy of i lane 0's: the same operands, no write, no phi?
 * The lanes' copies of an instruction are adjacent, so a load reads what
 * lane 0's read (a write of another thread in between would race). CSE
 * would merge the copies after tidy's instcombine; not making them spares
 * both (conv1d: its taps f[k] and their addresses, the same in every lane):
 * the same PTX, sooner (BENCHMARKS.md, "Why the pipeline is as it is"). */
static int same_in_lanes(const tc *c, const copy *k, int l, LLVMValueRef i) {
  if (writes(i) || LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind)
    return 0;
  for (int o = 0; o < LLVMGetNumOperands(i); o++) {
    LLVMValueRef v = LLVMGetOperand(i, (unsigned)o);
    if (mapped(c, k, l, v) != mapped(c, k, 0, v))
      return 0;
  }
  return 1;
}

/* Lane l's load i where a load of the same block since its last write
 * (this lane's or another's) read the same address, which window_expr's
 * forms prove (lane l reads with %tid + l), else NULL; otherwise i's copy
 * is to be recorded (note_load). reused_loads counted these loads; CSE
 * would merge most of them after tidy, but not where instcombine had
 * already moved a tap's offset out of its clamp (stencil_const's
 * smax(i, 8) - 8 for min(max(i - 8, 0), n - 1)): the lanes' copies then
 * differ in form, and coarsening gained no load (1.18x the generic
 * kernel's time on the H100). Within a thread, no write between; another
 * thread's write between would race. */
static LLVMValueRef shared_load(copy *k, LLVMValueRef i, int dim, int l,
                                int *form) {
  *form = -1;
  if (!k->wx || !simple_global_load(i))
    return NULL;
  *form = ks_wx_norm(k->wx, LLVMGetOperand(i, 0), dim, l);
  for (int e = 0; *form >= 0 && e < k->nseen; e++)
    if (k->seen[e].form == *form && k->seen[e].ty == LLVMTypeOf(i))
      return k->seen[e].v;
  return NULL;
}

static void note_load(copy *k, LLVMValueRef i, int form, LLVMValueRef r,
                      int cap) {
  if (form >= 0 && k->nseen < cap)
    k->seen[k->nseen++] = (struct seen_load){form, LLVMTypeOf(i), r};
}

/* Copies the blocks of c->fn (reverse post-order: a value's definition is
 * copied before its uses but for phis, completed at the end) into k->dst,
 * each instruction once per lane. A loop's latch gets a new loop ID that
 * keeps it rolled (the copies of loops are the serial copy's). */
static int emit_copy(tc *c, copy *k, const char *tag) {
  char name[64];
  unsigned loop = LLVMGetMDKindIDInContext(c->lc, "llvm.loop", 9);
  for (int b = 0; b < c->nb; b++) {
    snprintf(name, sizeof name, "ks.tc.%s%d", tag, b);
    k->head[b] = LLVMAppendBasicBlockInContext(c->lc, k->dst, name);
    k->tail[b] = k->head[b];
  }
  unsigned bd = c->s->block[c->dim];
  for (int b = 0; b < c->nb; b++) {
    LLVMPositionBuilderAtEnd(c->b, k->head[b]);
    k->nseen = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bbs[b]); i;
         i = LLVMGetNextInstruction(i)) {
      int idx = inst_index(c, i);
      LLVMValueRef *out = &k->map[idx];
      if (LLVMIsATerminatorInst(i))
        break;
      if (writes(i))
        k->nseen = 0;
      for (int l = 0; l < k->nk; l++) {
        LLVMValueRef r;
        int form = -1;
        if (k->vtid && is_sreg(i, tid_reg[c->dim]))
          r = k->vtid[l];
        else if (k->vtid && is_sreg(i, ntid_reg[c->dim]))
          r = LLVMConstInt(LLVMTypeOf(i), bd, 0);
        else if (LLVMIsAPHINode(i))
          r = LLVMBuildPhi(c->b, LLVMTypeOf(i), "");
        else if (l > 0 && same_in_lanes(c, k, l, i))
          r = out[0];
        else if ((r = shared_load(k, i, c->dim, l, &form)) == NULL) {
          r = LLVMInstructionClone(i);
          LLVMInsertIntoBuilder(c->b, r);
          for (int o = 0; o < LLVMGetNumOperands(i); o++)
            LLVMSetOperand(r, (unsigned)o,
                           mapped(c, k, l, LLVMGetOperand(i, (unsigned)o)));
          note_load(k, i, form, r, c->ninst * k->nk);
        }
        out[(size_t)l * (size_t)c->ninst] = r;
      }
    }
    LLVMValueRef t = LLVMGetBasicBlockTerminator(c->bbs[b]), br = NULL;
    switch (LLVMGetInstructionOpcode(t)) {
    case LLVMRet:
      if (k->ret)
        LLVMBuildBr(c->b, k->ret);
      else
        LLVMBuildRetVoid(c->b);
      break;
    case LLVMUnreachable:
      LLVMBuildUnreachable(c->b);
      break;
    default: {
      int s0 = bb_index(c, LLVMGetSuccessor(t, 0));
      if (!LLVMIsConditional(t)) {
        br = LLVMBuildBr(c->b, k->head[s0]);
        break;
      }
      int s1 = bb_index(c, LLVMGetSuccessor(t, 1));
      LLVMValueRef c0 = mapped(c, k, 0, LLVMGetCondition(t));
      LLVMValueRef same = NULL;
      for (int l = 1; l < k->nk; l++) {
        LLVMValueRef cl = mapped(c, k, l, LLVMGetCondition(t));
        if (cl == c0)
          continue;
        LLVMValueRef e = LLVMBuildICmp(c->b, LLVMIntEQ, cl, c0, "");
        same = same ? LLVMBuildAnd(c->b, same, e, "") : e;
      }
      if (same && s0 != s1) {
        snprintf(name, sizeof name, "ks.tc.%s%d.agree", tag, b);
        LLVMBasicBlockRef go =
            LLVMAppendBasicBlockInContext(c->lc, k->dst, name);
        LLVMBuildCondBr(c->b, same, go, k->bail);
        LLVMPositionBuilderAtEnd(c->b, go);
        k->tail[b] = go;
      }
      br = LLVMBuildCondBr(c->b, c0, k->head[s0], k->head[s1]);
    }
    }
    LLVMValueRef id = br ? LLVMGetMetadata(t, loop) : NULL;
    if (id) {
      LLVMSetMetadata(br, loop, id);
      if (ks_loops_keep_rolled(br))
        return ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
    }
  }
  /* the phis' incoming values, now that every block has its copy */
  for (int b = 0; b < c->nb; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bbs[b]);
         i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i)) {
      int idx = inst_index(c, i);
      for (int l = 0; l < k->nk; l++) {
        LLVMValueRef p = k->map[(size_t)l * (size_t)c->ninst + (size_t)idx];
        for (unsigned e = 0; e < LLVMCountIncoming(i); e++) {
          int pb = bb_index(c, LLVMGetIncomingBlock(i, e));
          if (pb < 0)
            continue; /* from an unreachable block */
          LLVMValueRef v = mapped(c, k, l, LLVMGetIncomingValue(i, e));
          LLVMBasicBlockRef from = k->tail[pb];
          LLVMAddIncoming(p, &v, &from, 1);
        }
      }
    }
  return 0;
}

/* The lockstep copy from c, the serial copy from sc (c, or the kernel's
 * body before unrolling). */
static int transform(tc *c, tc *sc) {
  size_t cells = (size_t)c->ninst * (size_t)c->k + 1;
  copy lock = {.dst = c->fn, .nk = c->k}, serial = {.dst = c->fn, .nk = 1};
  LLVMValueRef vtid[FACTOR_MAX];
  lock.map = calloc(cells, sizeof *lock.map);
  serial.map = calloc((size_t)sc->ninst + 1, sizeof *serial.map);
  lock.head = calloc((size_t)c->nb, sizeof *lock.head);
  lock.tail = calloc((size_t)c->nb, sizeof *lock.tail);
  serial.head = calloc((size_t)sc->nb + 1, sizeof *serial.head);
  serial.tail = calloc((size_t)sc->nb + 1, sizeof *serial.tail);
  int rc = 0, nold = (int)LLVMCountBasicBlocks(c->fn);
  LLVMBasicBlockRef *old = calloc((size_t)nold, sizeof *old);
  if (old)
    LLVMGetBasicBlocks(c->fn, old);
  if (!old || !lock.map || !serial.map || !lock.head || !lock.tail ||
      !serial.head || !serial.tail) {
    rc = ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
    goto done;
  }
  LLVMBasicBlockRef old_entry = LLVMGetEntryBasicBlock(c->fn);
  LLVMBasicBlockRef entry =
      LLVMInsertBasicBlockInContext(c->lc, old_entry, "ks.tc.entry");
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMValueRef t =
      ks_ir_call_intrinsic(c->m, c->b,
                           c->dim ? "llvm.nvvm.read.ptx.sreg.tid.y"
                                  : "llvm.nvvm.read.ptx.sreg.tid.x",
                           NULL, 0);
  LLVMSetValueName2(t, "ks.tc.tid", 9);
  /* K*t + j < B_dim <= 1024: no wrap */
  LLVMValueRef kt = LLVMBuildNUWMul(
      c->b, t, LLVMConstInt(c->i32, (unsigned)c->k, 0), "ks.tc.kt");
  LLVMSetNSW(kt, 1);
  for (int j = 0; j < c->k; j++) {
    vtid[j] =
        j ? LLVMBuildNUWAdd(c->b, kt, LLVMConstInt(c->i32, j, 0), "") : kt;
    if (j)
      LLVMSetNSW(vtid[j], 1);
  }
  lock.vtid = vtid;
  unsigned wblock[3];
  for (int i = 0; i < 3; i++)
    wblock[i] = c->s->block[i] ? c->s->block[i] : 1;
  lock.wx = ks_wx_create(c->m, wblock);
  lock.seen = calloc(cells, sizeof *lock.seen);
  if (!lock.wx || !lock.seen) {
    rc = ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
    goto done;
  }
  LLVMBasicBlockRef sentry =
      LLVMAppendBasicBlockInContext(c->lc, c->fn, "ks.tc.serial");
  lock.bail = sentry;
  if ((rc = emit_copy(c, &lock, "lock")))
    goto done;
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMBuildBr(c->b, lock.head[0]);
  if (!LLVMGetFirstUse(LLVMBasicBlockAsValue(sentry))) {
    LLVMDeleteBasicBlock(sentry); /* no branch can diverge */
  } else {
    /* the serial copy: a loop over the virtual threads */
    LLVMBasicBlockRef shead =
        LLVMAppendBasicBlockInContext(c->lc, c->fn, "ks.tc.serial.thread");
    LLVMBasicBlockRef slatch =
        LLVMAppendBasicBlockInContext(c->lc, c->fn, "ks.tc.serial.next");
    LLVMBasicBlockRef sexit =
        LLVMAppendBasicBlockInContext(c->lc, c->fn, "ks.tc.serial.done");
    LLVMPositionBuilderAtEnd(c->b, sentry);
    LLVMBuildBr(c->b, shead);
    LLVMPositionBuilderAtEnd(c->b, shead);
    LLVMValueRef j = LLVMBuildPhi(c->b, c->i32, "ks.tc.j");
    LLVMValueRef sv = LLVMBuildNUWAdd(c->b, kt, j, "ks.tc.vtid");
    LLVMSetNSW(sv, 1);
    serial.vtid = &sv;
    serial.ret = slatch;
    LLVMPositionBuilderAtEnd(c->b, slatch);
    LLVMValueRef j1 =
        LLVMBuildNUWAdd(c->b, j, LLVMConstInt(c->i32, 1, 0), "ks.tc.j1");
    LLVMValueRef latch = LLVMBuildCondBr(
        c->b,
        LLVMBuildICmp(c->b, LLVMIntULT, j1,
                      LLVMConstInt(c->i32, (unsigned)c->k, 0), ""),
        shead, sexit);
    if (sc != c && ks_loops_keep_rolled(latch)) {
      rc = ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
      goto done;
    }
    LLVMPositionBuilderAtEnd(c->b, sexit);
    LLVMBuildRetVoid(c->b);
    if ((rc = emit_copy(sc, &serial, "serial")))
      goto done;
    LLVMPositionBuilderAtEnd(c->b, shead);
    LLVMBuildBr(c->b, serial.head[0]);
    LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0);
    LLVMAddIncoming(j, &zero, &sentry, 1);
    LLVMAddIncoming(j, &j1, &slatch, 1);
  }
  /* the original body goes: uses first, then instructions, then blocks */
  for (int i = 0; i < nold; i++)
    for (LLVMValueRef v = LLVMGetFirstInstruction(old[i]); v;
         v = LLVMGetNextInstruction(v))
      if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVoidTypeKind)
        LLVMReplaceAllUsesWith(v, LLVMGetPoison(LLVMTypeOf(v)));
  for (int i = 0; i < nold; i++)
    for (LLVMValueRef v = LLVMGetFirstInstruction(old[i]), nx; v; v = nx) {
      nx = LLVMGetNextInstruction(v);
      LLVMInstructionEraseFromParent(v);
    }
  for (int i = 0; i < nold; i++)
    LLVMDeleteBasicBlock(old[i]);
  /* the real block in the launch-bound annotations: reqntid B/K */
  if (ks_ir_set_reqntid(c->m, c->fn, c->dim,
                        c->s->block[c->dim] / (unsigned)c->k))
    rc = ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
done:
  free(old);
  ks_wx_destroy(lock.wx);
  free(lock.seen);
  free(lock.map), free(serial.map), free(lock.head), free(lock.tail);
  free(serial.head), free(serial.tail);
  return rc;
}

/* ld.global.nc, decided on the original: in the serial copy a virtual
 * thread's stores come before the next one's loads, which const_nc would
 * have to assume may write what they read; in the original those are other
 * threads' writes, unordered with the loads (a race were they to meet), as
 * const_nc reasons. The copies keep the loads' !invariant.load. */
static int read_only(tc *c) {
  if (!c->st->const_promote)
    return 0;
  ks_diag quiet = {0};
  int rc = ks_const_nc(c->m, c->fn, &quiet);
  free(quiet.explain);
  free(quiet.dump);
  if (rc)
    return ks_diag_fail(c->d, quiet.status, "%s", quiet.msg);
  return 0;
}

/* Lane j's index is  uniform + (K*t + j) + k: reassociation brings the
 * constants together, so that loads of different lanes at the same
 * element have one address, which CSE merges. */
static int tidy(ks_stage_ctx *st) {
  return ks_pipeline_llvm(
      st, "function(reassociate,instcombine<no-verify-fixpoint>,early-cse)");
}

/* Is a (X + C), an add or a disjoint or of an instruction and a constant? */
static int plus_const(LLVMValueRef a, LLVMValueRef *x, LLVMValueRef *k) {
  if (!LLVMIsAInstruction(a))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(a);
  if (op != LLVMAdd && !(op == LLVMOr && LLVMGetIsDisjoint(a)))
    return 0;
  *x = LLVMGetOperand(a, 0);
  *k = LLVMGetOperand(a, 1);
  return LLVMIsAConstantInt(*k) && !LLVMIsAConstant(*x);
}

/* Lane j's coordinate is (K*t + j) + base, and instcombine keeps the
 * constant inside where the inner sum has other uses (or folds it into
 * base as a disjoint or, or factors a common shift out of lane 0's): lane
 * j's coordinate + 1 and lane j+1's then differ in form, and the loads they
 * share stay apart (a clamped index, as the separable filters', hides the
 * sum from the GEP offsets where conv1d's are merged). Before tidy, sums are
 * rewritten with their constants outermost: a disjoint or with a constant
 * becomes an add, (X + C) + Y becomes (X + Y) + C and (X + C) + D becomes
 * X + (C + D), without poison flags (in modular arithmetic the same value),
 * until no such sum is left; early-cse then merges the lanes' equal rows
 * and what they load. */
static int float_constants(ks_stage_ctx *st, LLVMContextRef lc,
                           LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
  for (int round = 0, changed = 1; changed && round < 32; round++) {
    changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        LLVMValueRef r = NULL, x, k;
        if (op == LLVMOr && LLVMGetIsDisjoint(i) &&
            LLVMIsAConstantInt(LLVMGetOperand(i, 1))) {
          LLVMPositionBuilderBefore(b, i);
          r = LLVMBuildAdd(b, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), "");
        } else if (op == LLVMAdd) {
          for (unsigned side = 0; side < 2 && !r; side++) {
            LLVMValueRef y = LLVMGetOperand(i, 1 - side);
            if (!plus_const(LLVMGetOperand(i, side), &x, &k))
              continue;
            LLVMPositionBuilderBefore(b, i);
            if (LLVMIsAConstantInt(y))
              r = LLVMBuildAdd(b, x, LLVMConstAdd(k, y), "");
            else
              r = LLVMBuildAdd(b, LLVMBuildAdd(b, x, y, ""), k, "");
          }
        }
        if (r) {
          LLVMReplaceAllUsesWith(i, r);
          LLVMInstructionEraseFromParent(i);
          changed = 1;
        }
      }
  }
  LLVMDisposeBuilder(b);
  return ks_pipeline_llvm(st, "function(early-cse)");
}

/* Rows per real thread along y: 8 where the block's rows allow (the loads
 * a column stencil shares grow with the rows), else 4. */
static int y_factor(const ks_spec *s) {
  unsigned bx = s->block[0], by = s->block[1] ? s->block[1] : 1,
           bz = s->block[2] ? s->block[2] : 1;
  return by % FACTOR_MAX == 0 && bx * (by / FACTOR_MAX) * bz >= WARP
             ? FACTOR_MAX
             : FACTOR;
}

/* Why the launch's block rules coarsening along dim out, or NULL. */
static const char *block_why(const ks_spec *s, int dim, char *buf, size_t cap) {
  if (!s->block[0])
    return "block size not fixed (use --block)";
  unsigned bx = s->block[0], by = s->block[1] ? s->block[1] : 1,
           bz = s->block[2] ? s->block[2] : 1;
  if (dim == 1) {
    if (by % FACTOR)
      snprintf(buf, cap, "block.y %u is not a multiple of %d", by, FACTOR);
    else if (bx * (by / FACTOR) * bz < WARP)
      snprintf(buf, cap, "a real block of %ux%ux%u would hold less than a warp",
               bx, by / FACTOR, bz);
    else
      return NULL;
    return buf;
  }
  if (bx % FACTOR)
    snprintf(buf, cap, "block.x %u is not a multiple of %d", bx, FACTOR);
  else if (bx / FACTOR * by * bz < WARP)
    snprintf(buf, cap, "a real block of %ux%ux%u would hold less than a warp",
             bx / FACTOR, by, bz);
  /* A real block narrower than a warp spreads each warp over rows: that
   * is fine once the lanes' shared loads are merged (sepfilter_rows' 32x8
   * coarsened to 8x8 runs faster; before the constants were floated out
   * for CSE, slower: BENCHMARKS.md, "Why the pipeline is as it is"). */
  else
    return NULL;
  return buf;
}

/* ---- the rolled body -------------------------------------------------------
 *
 * The serial copy only runs in the real threads whose K virtual threads
 * disagree on a branch (at the end of the data): its speed hardly counts,
 * its size does (every later stage and codegen work on it). It is made
 * from the kernel as the loops stage leaves it, before unrolling: a clone
 * of the kernel, <kernel>.ks.rolled, taken then, whose loops are marked
 * llvm.loop.unroll.disable, keeps them rolled through the unroll stage and
 * into the serial copy (and through the optimize stage). The clone is the
 * same function as the kernel (full unrolling preserves what a thread
 * does), so running it for virtual thread j is running the kernel's body
 * for j.
 */

static int rolled_name(const ks_spec *s, char *buf, size_t cap) {
  int n = snprintf(buf, cap, "%s.ks.rolled", s->kernel);
  return n > 0 && (size_t)n < cap;
}

int ks_tcoarsen_keep_rolled(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  char name[256], why[160];
  if (!fn || LLVMIsDeclaration(fn) ||
      (block_why(s, 0, why, sizeof why) &&
       (s->block[1] <= 1 || block_why(s, 1, why, sizeof why))) ||
      !rolled_name(s, name, sizeof name) || LLVMGetNamedFunction(m, name))
    return 0;
  tc c = {.m = m, .fn = fn, .s = s, .d = d, .lc = LLVMGetModuleContext(m)};
  c.i32 = LLVMInt32TypeInContext(c.lc);
  int cyclic = 0, rc = 0;
  if (order(&c, &cyclic) || number(&c)) {
    rc = ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  } else if (cyclic) { /* no loop: the unrolled body is as small */
    copy k = {.nk = 1};
    k.map = calloc((size_t)c.ninst + 1, sizeof *k.map);
    k.head = calloc((size_t)c.nb + 1, sizeof *k.head);
    k.tail = calloc((size_t)c.nb + 1, sizeof *k.tail);
    if (!k.map || !k.head || !k.tail) {
      rc = ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
    } else {
      k.dst = LLVMAddFunction(m, name, LLVMGlobalGetValueType(fn));
      LLVMSetLinkage(k.dst, LLVMInternalLinkage);
      c.b = LLVMCreateBuilderInContext(c.lc);
      rc = emit_copy(&c, &k, "rolled");
      LLVMDisposeBuilder(c.b);
      if (rc)
        LLVMDeleteFunction(k.dst);
    }
    free(k.map), free(k.head), free(k.tail);
  }
  free(c.bbs), free(c.inst), free(c.slot);
  return rc;
}

/* Deletes that clone if it is still there. */
static void drop_rolled(LLVMModuleRef m, const ks_spec *s) {
  char name[256];
  LLVMValueRef r =
      rolled_name(s, name, sizeof name) ? LLVMGetNamedFunction(m, name) : NULL;
  if (r)
    LLVMDeleteFunction(r);
}

/* *sc: the source of the serial copy, the rolled clone when there is one
 * that can serve (r filled in; the caller frees its arrays), else c. */
static int serial_source(tc *c, tc *r, tc **sc) {
  char name[256], buf[160];
  LLVMValueRef fn = rolled_name(c->s, name, sizeof name)
                        ? LLVMGetNamedFunction(c->m, name)
                        : NULL;
  *sc = c;
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  *r = (tc){.st = c->st,
            .m = c->m,
            .fn = fn,
            .s = c->s,
            .d = c->d,
            .lc = c->lc,
            .b = c->b,
            .i32 = c->i32,
            .dim = c->dim,
            .k = c->k};
  int cyclic = 0;
  if (order(r, &cyclic) || number(r))
    return ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
  if (body(r, buf, sizeof buf))
    return 0;
  if (read_only(r))
    return 1;
  *sc = r;
  return 0;
}

int ks_pass_tcoarsen(ks_stage_ctx *st) {
  LLVMModuleRef m = st->m;
  const ks_spec *s = st->spec;
  ks_diag *d = st->diag;
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn)) {
    drop_rolled(m, s);
    return 0;
  }
  const char *name = s->kernel;
  char buf[160], xbuf[160], ybuf[160], msg[400];
  unsigned bx = s->block[0], by = s->block[1] ? s->block[1] : 1,
           bz = s->block[2] ? s->block[2] : 1;
  /* along x first; along y where x is ruled out and the block has rows */
  const char *xwhy = block_why(s, 0, xbuf, sizeof xbuf);
  const char *ywhy = by > 1 ? block_why(s, 1, ybuf, sizeof ybuf) : NULL;
  if (xwhy && (by <= 1 || ywhy)) {
    if (ywhy && strcmp(xwhy, ywhy))
      ks_diag_explain(d, PASS, "declined %s: %s; along y: %s", name, xwhy,
                      ywhy);
    else
      ks_diag_explain(d, PASS, "declined %s: %s", name, xwhy);
    drop_rolled(m, s);
    return 0;
  }
  tc c = {.st = st,
          .m = m,
          .fn = fn,
          .s = s,
          .d = d,
          .lc = LLVMGetModuleContext(m)};
  tc r = {0};
  c.i32 = LLVMInt32TypeInContext(c.lc);
  int rc = 0, n_tid = 0, reused = 0;
  const char *why = check(&c, buf, sizeof buf);
  if (!why && number(&c))
    why = "out of memory";
  static const char no_reuse[] = "no reuse between neighbouring threads";
  if (!why && !xwhy) {
    c.dim = 0;
    c.k = FACTOR;
    reused = reused_loads(&c, &n_tid);
    xwhy = reused < 0 ? "out of memory" : reused ? NULL : no_reuse;
  }
  if (!why && xwhy && strcmp(xwhy, "out of memory") && by > 1 && !ywhy) {
    c.dim = 1;
    c.k = y_factor(s);
    reused = reused_loads(&c, &n_tid);
    ywhy = reused < 0 ? "out of memory" : reused ? NULL : no_reuse;
    if (!ywhy)
      xwhy = NULL;
  }
  if (!why && xwhy) {
    if (!strcmp(xwhy, "out of memory") ||
        (ywhy && !strcmp(ywhy, "out of memory")))
      why = "out of memory";
    else if (ywhy && strcmp(xwhy, ywhy)) {
      snprintf(msg, sizeof msg, "%s; along y: %s", xwhy, ywhy);
      why = msg;
    } else
      why = xwhy;
  }
  if (why && !strcmp(why, "out of memory")) {
    rc = ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  } else if (why) {
    ks_diag_explain(d, PASS, "declined %s: %s", name, why);
  } else {
    rc = read_only(&c);
    c.b = LLVMCreateBuilderInContext(c.lc);
    tc *sc = &c;
    rc = rc ? rc : serial_source(&c, &r, &sc);
    rc = rc ? rc : transform(&c, sc);
    LLVMDisposeBuilder(c.b);
    drop_rolled(m, s); /* before tidy, which would work on it */
    /* not for 1-D blocks along x: conv1d's lanes share loads through
     * their GEP offsets already, and window staging wants its index form
     * (P + 4*tid.x + c) */
    if (!rc && (c.dim || by * bz > 1))
      rc = float_constants(st, c.lc, fn);
    if (!rc)
      rc = tidy(st);
    if (!rc) {
      if (c.dim)
        d->plan.coarsen_y = (unsigned)c.k;
      else
        d->plan.coarsen_x = (unsigned)c.k;
      ks_diag_explain(
          d, PASS,
          "coarsened %c by %d: real block %ux%ux%u runs the %u threads "
          "of the launch; %d of %d loads along tid.%c shared with a "
          "neighbouring thread%s",
          "xy"[c.dim], c.k, c.dim ? bx : bx / (unsigned)c.k,
          c.dim ? by / (unsigned)c.k : by, bz, bx * by * bz, reused, n_tid,
          "xy"[c.dim],
          sc != &c ? "; the serial copy keeps its loops rolled" : "");
    }
  }
  drop_rolled(m, s);
  free(c.bbs), free(c.inst), free(c.slot);
  free(r.bbs), free(r.inst), free(r.slot);
  return rc;
}
