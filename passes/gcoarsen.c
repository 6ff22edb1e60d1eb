/*
 * gcoarsen.c - grid coarsening of block-additive kernels.
 *
 * A kernel whose blocks only add into global memory (reduce_sum: each block
 * loads BLOCK values, reduces them by a shared-memory tree, and thread 0
 * adds the block's sum atomically) spends most of its time in the tree, the
 * barriers and the atomic, once per BLOCK elements. Here each real block
 * does the work of C consecutive blocks of the user's grid (virtual blocks
 * ctaid.x*C + j), but runs only the region R that computes the block's
 * per-thread input value v C times, summing, and the rest (tree, atomic)
 * once:
 *
 *   acc = 0
 *   for (j = 0; j < C; j++) {
 *     vb = ctaid.x*C + j
 *     if (vb < G) acc += R evaluated with ctaid.x := vb
 *   }
 *   v := acc; the rest of the kernel as it was
 *
 * G, the user's grid.x, is a hidden trailing i32 parameter that ks_launch
 * appends; it launches ceil(G/C) blocks (d->plan.grid_coarsen = C).
 *
 * Why it is sound. The kernel
 *  1. has a fixed block, reads %ctaid.x once and no %ctaid.y/z, %nctaid.*
 *     or other special register that tells blocks or SMs apart;
 *  2. writes global memory only by atomicrmw fadd/add whose old value is
 *     unused, at addresses computed from arguments, constants and thread
 *     coordinates (no loaded data, no %ctaid.x); it has no other store to
 *     global memory, no other atomic, fence, local memory, and calls only
 *     side-effect-free intrinsics, barriers and warp shuffles;
 *  3. R, from the %ctaid.x read to v, is straight-line code in one block, or
 *     that block's tail with a diamond or triangle closing in a block whose
 *     phi is v; R only computes and loads (no store, barrier, shared
 *     memory); every value outside R that depends on %ctaid.x (through
 *     operands, or through R's branch for the closing block's phis) does so
 *     only through v. So branch conditions, shared addresses and the
 *     atomics' addresses outside R are the same in every block;
 *  4. v and every value loaded from shared memory are "additive"; so are
 *     fadd/add of additive values or 0.0/0, phis and selects between them
 *     (their conditions do not depend on additive values) and warp shuffles
 *     of them; additive values are used only in those ways, stored to
 *     shared memory, or added by the atomics; every store to shared memory
 *     stores an additive value and every atomic adds one.
 * By induction over a block's execution, every additive value, every
 * shared memory cell once written, and so every atomic's operand is
 * sum_t k_t * v_t over the block's threads t, with integer coefficients k_t
 * fixed by control flow and addresses that (3) makes the same in every
 * block. The total a group of C blocks adds is then
 *   sum_j sum_t k_t v_t(vb_j) = sum_t k_t (sum_j v_t(vb_j)) = sum_t k_t acc_t,
 * what the real block adds with v := acc (virtual blocks past G add nothing
 * as they do not exist). Integer sums are equal (mod 2^n; nsw/nuw come off
 * the adds); float sums differ only in rounding order, which the blocks'
 * atomics already leave unspecified (and nnan/ninf come off, since the
 * sums are larger). The loads of R for block vb are those block vb made;
 * they move relative to other blocks' atomics only as a schedule of the
 * original could (the C blocks load before any of them adds).
 *
 * A guarded region. Where R branches (reduce_sum: if (i < n) load) on a
 * condition that only computes from %ctaid.x, the thread coordinates and
 * the arguments (no load, call or division; at most MAX_CHECK
 * instructions), a loop first evaluates it for each of the C blocks;
 * where all go the same way (a triangle's arm, a diamond's first side),
 * the C copies run that side without the branch: straight-line code, C
 * loads in flight, and far fewer blocks for codegen (reduce_sum's kernel:
 * 31 instead of 61). The copies compute what they would have computed:
 * every branch goes the way the check saw it go. The check runs the
 * condition's instructions ahead of the blocks' loads, as the blocks
 * compute them before they branch (and nothing in them can trap). A group
 * that fails the check runs the checked loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"
#include "passes/ks_passes.h"

#define PASS "gcoarsen"

enum {
  AS_SHARED = 3,
  MAX_INSTS = 8192, /* of the kernel */
  MAX_RANGE = 256,  /* of the region */
  MAX_DEPTH = 32,   /* of the address check */
  MAX_CHECK = 16,   /* instructions of the condition checked ahead */
  MAX_ROLLED = 32,  /* region instructions of a fast loop kept rolled */
  MAX_WALK = 4,     /* loads of the region that walk by a fixed step */
};

/* ---- a set of values ------------------------------------------------------
 */

typedef struct vset {
  LLVMValueRef *slot;
  unsigned cap; /* a power of two */
} vset;

static int vset_init(vset *s, unsigned n) {
  s->cap = 16;
  while (s->cap < 2 * n + 2)
    s->cap *= 2;
  s->slot = calloc(s->cap, sizeof *s->slot);
  return s->slot ? 0 : 1;
}

static int vset_has(const vset *s, LLVMValueRef v) {
  for (unsigned h = ks_ir_hash_ptr(v) & (s->cap - 1);;
       h = (h + 1) & (s->cap - 1)) {
    if (!s->slot[h])
      return 0;
    if (s->slot[h] == v)
      return 1;
  }
}

/* Adds v; 1 when it was new. The set is sized for every instruction. */
static int vset_add(vset *s, LLVMValueRef v) {
  unsigned h = ks_ir_hash_ptr(v) & (s->cap - 1);
  for (; s->slot[h]; h = (h + 1) & (s->cap - 1))
    if (s->slot[h] == v)
      return 0;
  s->slot[h] = v;
  return 1;
}

/* ---- the kernel -----------------------------------------------------------
 */

/* The fast loop kept rolled: each load of the region reads
 * base[sext(idx)] or base[zext(idx)], idx a 32-bit value that grows by a fixed
 * step from one virtual block to the next; in the loop it reads through a
 * pointer that starts at block ctaid*C's address and moves by step * size
 * bytes. */
typedef struct walk {
  LLVMValueRef load[MAX_WALK], base[MAX_WALK], idx[MAX_WALK];
  LLVMTypeRef elem[MAX_WALK];
  int32_t step[MAX_WALK];
  int zext[MAX_WALK]; /* base[zext(idx)]: unsigned, step >= 0 */
  /* no index of the group wraps: idx(vb0) pred[k] limit[k] */
  LLVMIntPredicate pred[MAX_WALK];
  long long limit[MAX_WALK];
  LLVMValueRef start[MAX_WALK]; /* the first address, in the fast block */
  int n;
} walk;

/* Region values to their copies in the loop (blocks as values too). */
typedef struct vmap {
  LLVMValueRef from[MAX_RANGE + 8], to[MAX_RANGE + 8];
  int n;
} vmap;

typedef struct gc {
  LLVMModuleRef m;
  LLVMValueRef fn;
  ks_cfg cfg; /* fn's, before the transformation */
  const ks_spec *s;
  LLVMContextRef lc;
  LLVMValueRef *inst; /* every instruction */
  int ninst;
  LLVMValueRef ctaid; /* the one %ctaid.x read */
  int natomics;
  /* the region: bs from ctaid on, the diamond's arms t and f (or NULL),
   * the closing block be's phis (be NULL: straight-line, up to v) */
  LLVMBasicBlockRef bs, t, f, be;
  LLVMValueRef v;
  LLVMValueRef range[MAX_RANGE];
  int nrange;
  vset in_range, tainted, additive;
  char buf[256];
  char name[96]; /* describe()'s */
  vmap map;
  int checked; /* the branch's condition checked for the group first */
  int want;    /* its value there: 1 (the first successor) or 0 */
  int walked;  /* loads of the fast loop that walk (kept rolled) */
} gc;

static int is_barrier(const char *n) {
  return !strcmp(n, "llvm.nvvm.barrier0") || !strcmp(n, "llvm.nvvm.bar.sync") ||
         !strcmp(n, "llvm.nvvm.barrier.sync") ||
         !strcmp(n, "llvm.nvvm.barrier.sync.cnt");
}

/* A warp shuffle: operand 1 is the value, moved between lanes. */
static int is_shuffle(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  const char *n = ks_ir_callee_name(i);
  return !strncmp(n, "llvm.nvvm.shfl.sync.", 20) &&
         (!strcmp(n + 20, "down.f32") || !strcmp(n + 20, "down.i32") ||
          !strcmp(n + 20, "up.f32") || !strcmp(n + 20, "up.i32") ||
          !strcmp(n + 20, "bfly.f32") || !strcmp(n + 20, "bfly.i32") ||
          !strcmp(n + 20, "idx.f32") || !strcmp(n + 20, "idx.i32"));
}

/* Memory a pointer reaches: shared, global (an argument or a global
 * variable), or not known. */
enum { MEM_UNKNOWN, MEM_SHARED, MEM_GLOBAL };

static int mem_of(LLVMValueRef p) {
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == AS_SHARED)
    return MEM_SHARED;
  LLVMValueRef b = ks_ir_base_of(p);
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(b)) == AS_SHARED)
    return MEM_SHARED;
  if (LLVMIsAArgument(b) || LLVMIsAGlobalVariable(b))
    return MEM_GLOBAL;
  return MEM_UNKNOWN;
}

/* What a value is, for the explanations: "%name" or the opcode. */
static const char *describe(gc *c, LLVMValueRef v) {
  size_t len = 0;
  const char *n = LLVMGetValueName2(v, &len);
  if (len) {
    snprintf(c->name, sizeof c->name, "%%%.*s", (int)(len > 64 ? 64 : len), n);
    return c->name;
  }
  switch (LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : 0) {
  case LLVMStore:
    return "a store";
  case LLVMAtomicRMW:
    return "an atomic";
  case LLVMBr:
  case LLVMSwitch:
    return "a branch";
  case LLVMCall:
    snprintf(c->name, sizeof c->name, "a call to %s", ks_ir_callee_name(v));
    return c->name;
  case LLVMLoad:
    return "a load";
  default:
    return "an instruction";
  }
}

/* Why a call rules the kernel out, or NULL. */
static const char *screen_call(gc *c, LLVMValueRef i) {
  LLVMValueRef f = LLVMGetCalledValue(i);
  if (f && LLVMIsAInlineAsm(f))
    return "inline assembly";
  const char *r = ks_ir_sreg(i);
  if (r) {
    if (!strcmp(r, "ctaid.x")) {
      if (c->ctaid)
        return "reads %ctaid.x more than once";
      c->ctaid = i;
      return NULL;
    }
    if (!strncmp(r, "tid.", 4) || !strncmp(r, "ntid.", 5) ||
        !strcmp(r, "laneid"))
      return NULL;
    snprintf(c->buf, sizeof c->buf, "reads %%%s (the grid's shape%s)", r,
             strncmp(r, "nctaid.", 7) && strncmp(r, "ctaid.", 6)
                 ? " or the hardware"
                 : "");
    return c->buf;
  }
  const char *n = ks_ir_callee_name(i);
  if (is_barrier(n) || is_shuffle(i) || ks_ir_pure_call(i))
    return NULL;
  snprintf(c->buf, sizeof c->buf, "a call to %s", *n ? n : "a pointer");
  return c->buf;
}

/* Why instruction i rules the kernel out (conditions 1 and 2), or NULL. */
static const char *screen(gc *c, LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMAlloca:
    return "local memory (an alloca)";
  case LLVMFence:
    return "a fence";
  case LLVMAtomicCmpXchg:
    return "an atomic compare-and-swap";
  case LLVMInvoke:
  case LLVMCallBr:
  case LLVMIndirectBr:
  case LLVMVAArg:
    return "control flow other than branches";
  case LLVMRet:
    return LLVMGetNumOperands(i) ? "a return value" : NULL;
  case LLVMLoad:
    if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
      return "a volatile or atomic load";
    return mem_of(LLVMGetOperand(i, 0)) == MEM_UNKNOWN
               ? "a load through a pointer it cannot follow"
               : NULL;
  case LLVMStore:
    if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
      return "a volatile or atomic store";
    return mem_of(LLVMGetOperand(i, 1)) == MEM_SHARED
               ? NULL
               : "a store to global memory";
  case LLVMAtomicRMW: {
    LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(i);
    if (LLVMGetVolatile(i))
      return "a volatile atomic";
    if (mem_of(LLVMGetOperand(i, 0)) == MEM_SHARED)
      return "an atomic on shared memory";
    if (mem_of(LLVMGetOperand(i, 0)) != MEM_GLOBAL)
      return "an atomic through a pointer it cannot follow";
    if (op != LLVMAtomicRMWBinOpAdd && op != LLVMAtomicRMWBinOpFAdd)
      return "an atomic other than add";
    if (LLVMGetFirstUse(i))
      return "an atomic whose old value is used";
    c->natomics++;
    return NULL;
  }
  case LLVMCall:
    return screen_call(c, i);
  default:
    return NULL;
  }
}

static const char *collect(gc *c) {
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      n++;
  if (n > MAX_INSTS)
    return "too large";
  c->inst = calloc((size_t)n + 1, sizeof *c->inst);
  if (!c->inst || vset_init(&c->in_range, (unsigned)n) ||
      vset_init(&c->tainted, (unsigned)n) ||
      vset_init(&c->additive, (unsigned)n))
    return "out of memory";
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      c->inst[c->ninst++] = i;
      const char *why = screen(c, i);
      if (why)
        return why;
    }
  if (!c->ctaid)
    return "does not read %ctaid.x";
  if (!c->natomics)
    return "no atomic add to global memory";
  return NULL;
}

/* ---- the region -----------------------------------------------------------
 */

/* The only successor of bb, or NULL. */
static LLVMBasicBlockRef single_succ(LLVMBasicBlockRef bb) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
  return t && LLVMGetNumSuccessors(t) == 1 ? LLVMGetSuccessor(t, 0) : NULL;
}

/* Is arm a block entered only from bs that goes on only to be? */
static int is_arm(gc *c, LLVMBasicBlockRef arm, LLVMBasicBlockRef be) {
  LLVMBasicBlockRef p[2];
  return single_succ(arm) == be && ks_cfg_preds(&c->cfg, arm, p, 2) == 1 &&
         p[0] == c->bs;
}

static int add_range(gc *c, LLVMValueRef i) {
  if (c->nrange == MAX_RANGE)
    return 1;
  c->range[c->nrange++] = i;
  vset_add(&c->in_range, i);
  return 0;
}

/* Does i write memory or synchronize (the region must not)? */
static int writes_or_waits(LLVMValueRef i) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  return op == LLVMStore || op == LLVMAtomicRMW ||
         (op == LLVMCall && !ks_ir_sreg(i) && !ks_ir_pure_call(i));
}

/* Straight-line: the tainted values of bs after the %ctaid.x read, before
 * anything that writes or synchronizes; v is the one used beyond them. */
static const char *straight_region(gc *c) {
  vset_add(&c->tainted, c->ctaid);
  LLVMValueRef stop = NULL;
  for (LLVMValueRef i = LLVMGetNextInstruction(c->ctaid); i && !stop;
       i = LLVMGetNextInstruction(i)) {
    if (LLVMIsATerminatorInst(i) || writes_or_waits(i)) {
      stop = i;
      break;
    }
    for (int k = 0; k < LLVMGetNumOperands(i); k++)
      if (vset_has(&c->tainted, LLVMGetOperand(i, (unsigned)k)))
        vset_add(&c->tainted, i);
  }
  /* the tainted values used at or after stop, or in other blocks */
  for (LLVMValueRef i = c->ctaid; i != stop; i = LLVMGetNextInstruction(i)) {
    if (!vset_has(&c->tainted, i))
      continue;
    int escapes = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(i); u && !escapes;
         u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMGetInstructionParent(user) != c->bs)
        escapes = 1;
      for (LLVMValueRef k = stop; k && !escapes; k = LLVMGetNextInstruction(k))
        escapes = k == user;
    }
    if (escapes && c->v)
      return "several values depend on %ctaid.x";
    if (escapes)
      c->v = i;
  }
  if (!c->v)
    return "nothing the block computes depends on %ctaid.x";
  /* check_taint starts again from the read, with v as the cut */
  memset(c->tainted.slot, 0, c->tainted.cap * sizeof *c->tainted.slot);
  for (LLVMValueRef i = c->ctaid;; i = LLVMGetNextInstruction(i)) {
    if (add_range(c, i))
      return "the region is too large";
    if (i == c->v)
      return NULL;
  }
}

/* A branch on %ctaid.x at the end of bs, closing in be: v is be's phi. */
static const char *diamond_region(gc *c, LLVMValueRef br) {
  LLVMBasicBlockRef s0 = LLVMGetSuccessor(br, 0), s1 = LLVMGetSuccessor(br, 1);
  LLVMBasicBlockRef p[4];
  if (is_arm(c, s0, s1)) { /* triangle */
    c->t = s0, c->be = s1;
  } else if (is_arm(c, s1, s0)) {
    c->t = s1, c->be = s0;
  } else if (single_succ(s0) && single_succ(s0) == single_succ(s1) &&
             is_arm(c, s0, single_succ(s0)) && is_arm(c, s1, single_succ(s0))) {
    c->t = s0, c->f = s1, c->be = single_succ(s0);
  } else {
    return "the branch on %ctaid.x does not close in a diamond or triangle";
  }
  unsigned np = ks_cfg_preds(&c->cfg, c->be, p, 4);
  for (unsigned k = 0; k < np; k++)
    if (k >= 4 || (p[k] != c->bs && p[k] != c->t && p[k] != c->f))
      return "the block where the branch on %ctaid.x closes has other "
             "predecessors";
  if (c->be == c->bs || LLVMGetEntryBasicBlock(c->fn) == c->be)
    return "the branch on %ctaid.x loops";
  for (LLVMValueRef i = c->ctaid; i; i = LLVMGetNextInstruction(i))
    if (add_range(c, i))
      return "the region is too large";
  LLVMBasicBlockRef arms[2] = {c->t, c->f};
  for (int a = 0; a < 2; a++)
    for (LLVMValueRef i = arms[a] ? LLVMGetFirstInstruction(arms[a]) : NULL; i;
         i = LLVMGetNextInstruction(i))
      if (add_range(c, i))
        return "the region is too large";
  /* be's phis: all depend on the branch; v is the one used */
  for (LLVMValueRef i = LLVMGetFirstInstruction(c->be); i && LLVMIsAPHINode(i);
       i = LLVMGetNextInstruction(i)) {
    if (add_range(c, i))
      return "the region is too large";
    vset_add(&c->tainted, i);
    if (LLVMGetFirstUse(i) && c->v)
      return "several values depend on %ctaid.x";
    if (LLVMGetFirstUse(i))
      c->v = i;
  }
  return c->v ? NULL
              : "the branch on %ctaid.x guards more than the computation of "
                "a value";
}

/* Condition 3: the region, v, and the values depending on %ctaid.x only
 * there or through v. */
static const char *find_region(gc *c) {
  c->bs = LLVMGetInstructionParent(c->ctaid);
  /* is the branch that ends bs on %ctaid.x? (data dependence within bs) */
  vset_add(&c->tainted, c->ctaid);
  for (LLVMValueRef i = LLVMGetNextInstruction(c->ctaid); i;
       i = LLVMGetNextInstruction(i))
    for (int k = 0; k < LLVMGetNumOperands(i); k++)
      if (vset_has(&c->tainted, LLVMGetOperand(i, (unsigned)k)))
        vset_add(&c->tainted, i);
  LLVMValueRef br = LLVMGetBasicBlockTerminator(c->bs);
  int on_ctaid = br && vset_has(&c->tainted, br), clean = 1;
  for (LLVMValueRef i = c->ctaid; i != br; i = LLVMGetNextInstruction(i))
    clean &= !writes_or_waits(i);
  on_ctaid &= clean; /* otherwise the branch lies beyond the region */
  memset(c->tainted.slot, 0, c->tainted.cap * sizeof *c->tainted.slot);
  if (on_ctaid && (!LLVMIsABranchInst(br) || !LLVMIsConditional(br)))
    return "a switch on %ctaid.x";
  const char *why = on_ctaid ? diamond_region(c, br) : straight_region(c);
  if (why)
    return why;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(c->v));
  unsigned w =
      k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(LLVMTypeOf(c->v)) : 0;
  if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind && w != 32 && w != 64)
    return "the value that depends on %ctaid.x is not a float, double, i32 "
           "or i64";
  /* the region only computes and loads global memory */
  for (int r = 0; r < c->nrange; r++) {
    LLVMValueRef i = c->range[r];
    LLVMOpcode op = LLVMGetInstructionOpcode(i);
    if (writes_or_waits(i)) {
      snprintf(c->buf, sizeof c->buf,
               "the region that depends on %%ctaid.x has %s",
               op == LLVMCall ? "a barrier or a call" : "a store or atomic");
      return c->buf;
    }
    if (op == LLVMLoad && mem_of(LLVMGetOperand(i, 0)) != MEM_GLOBAL)
      return "the region that depends on %ctaid.x reads shared memory";
  }
  return NULL;
}

/* Every value depending on %ctaid.x lies in the region, except those that
 * depend on it through v only. */
static const char *check_taint(gc *c) {
  LLVMValueRef *work = calloc((size_t)c->ninst + 1, sizeof *work);
  if (!work)
    return "out of memory";
  int n = 0;
  vset_add(&c->tainted, c->ctaid);
  for (int k = 0; k < c->ninst; k++)
    if (vset_has(&c->tainted, c->inst[k]))
      work[n++] = c->inst[k]; /* the ctaid read, be's phis */
  const char *why = NULL;
  while (n && !why) {
    LLVMValueRef x = work[--n];
    if (!vset_has(&c->in_range, x)) {
      snprintf(c->buf, sizeof c->buf,
               "%s depends on %%ctaid.x other than through the block's "
               "value",
               describe(c, x));
      why = c->buf;
    }
    if (x == c->v)
      continue; /* the cut */
    for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsAInstruction(user) && vset_add(&c->tainted, user))
        work[n++] = user;
    }
  }
  free(work);
  return why;
}

/* ---- additivity ------------------------------------------------------------
 */

static int zero_or_additive(gc *c, LLVMValueRef x) {
  return vset_has(&c->additive, x) || (LLVMIsAConstant(x) && !LLVMIsUndef(x) &&
                                       !LLVMIsPoison(x) && LLVMIsNull(x));
}

/* Is user u of additive value w a use that keeps sums sums? *more: u is
 * additive itself. */
static int additive_use(LLVMValueRef u, LLVMValueRef w, int *more) {
  *more = 0;
  switch (LLVMGetInstructionOpcode(u)) {
  case LLVMFAdd:
  case LLVMAdd:
  case LLVMPHI:
    return *more = 1;
  case LLVMSelect:
    return LLVMGetOperand(u, 0) != w && (*more = 1);
  case LLVMStore: /* to shared memory: screen() refused the others */
    return LLVMGetOperand(u, 1) != w;
  case LLVMAtomicRMW:
    return LLVMGetOperand(u, 0) != w;
  case LLVMCall:
    if (!is_shuffle(u))
      return 0;
    for (int k = 0; k < LLVMGetNumOperands(u); k++)
      if (k != 1 && LLVMGetOperand(u, (unsigned)k) == w)
        return 0;
    return *more = 1;
  default:
    return 0;
  }
}

/* Does the additive value u combine only additive values or zeros? */
static int additive_operands(gc *c, LLVMValueRef u) {
  switch (LLVMGetInstructionOpcode(u)) {
  case LLVMFAdd:
  case LLVMAdd:
    return zero_or_additive(c, LLVMGetOperand(u, 0)) &&
           zero_or_additive(c, LLVMGetOperand(u, 1));
  case LLVMPHI:
    for (unsigned k = 0; k < LLVMCountIncoming(u); k++)
      if (!zero_or_additive(c, LLVMGetIncomingValue(u, k)))
        return 0;
    return 1;
  case LLVMSelect:
    return zero_or_additive(c, LLVMGetOperand(u, 1)) &&
           zero_or_additive(c, LLVMGetOperand(u, 2));
  default: /* a shuffle */
    return zero_or_additive(c, LLVMGetOperand(u, 1));
  }
}

/* Condition 4. */
static const char *check_additive(gc *c) {
  LLVMValueRef *work = calloc((size_t)c->ninst + 1, sizeof *work);
  if (!work)
    return "out of memory";
  int n = 0;
  vset_add(&c->additive, c->v);
  work[n++] = c->v;
  for (int k = 0; k < c->ninst; k++) {
    LLVMValueRef i = c->inst[k];
    if (LLVMIsALoadInst(i) && mem_of(LLVMGetOperand(i, 0)) == MEM_SHARED &&
        vset_add(&c->additive, i))
      work[n++] = i;
  }
  const char *why = NULL;
  while (n && !why) {
    LLVMValueRef w = work[--n];
    for (LLVMUseRef u = LLVMGetFirstUse(w); u && !why; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      int more = 0;
      if (!LLVMIsAInstruction(user) || !additive_use(user, w, &more)) {
        snprintf(c->buf, sizeof c->buf,
                 "%s uses a sum of the blocks' values other than by adding "
                 "(not additive)",
                 describe(c, user));
        why = c->buf;
      } else if (more && vset_add(&c->additive, user)) {
        work[n++] = user;
      }
    }
  }
  free(work);
  for (int k = 0; k < c->ninst && !why; k++) {
    LLVMValueRef i = c->inst[k];
    LLVMOpcode op = LLVMGetInstructionOpcode(i);
    if (vset_has(&c->additive, i) && i != c->v && !LLVMIsALoadInst(i) &&
        !additive_operands(c, i)) {
      snprintf(c->buf, sizeof c->buf,
               "%s combines a sum of the blocks' values with another value "
               "(not additive)",
               describe(c, i));
      why = c->buf;
    } else if (op == LLVMStore && !zero_or_additive(c, LLVMGetOperand(i, 0))) {
      why = "a shared array also holds a value that is not a sum of the "
            "blocks' values";
    } else if (op == LLVMAtomicRMW &&
               !zero_or_additive(c, LLVMGetOperand(i, 1))) {
      why = "an atomic adds a value that is not a sum of the blocks' values";
    }
  }
  return why;
}

/* Is address p computed from arguments, constants and thread coordinates,
 * without loaded data? */
static int plain_address(LLVMValueRef p, int depth) {
  if (!LLVMIsAInstruction(p))
    return LLVMIsAArgument(p) || LLVMIsAConstant(p);
  if (depth > MAX_DEPTH)
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(p);
  if (op == LLVMLoad || op == LLVMPHI)
    return 0;
  if (op == LLVMCall)
    return ks_ir_sreg(p) != NULL;
  for (int k = 0; k < LLVMGetNumOperands(p); k++)
    if (!plain_address(LLVMGetOperand(p, (unsigned)k), depth + 1))
      return 0;
  return 1;
}

static const char *check_atomics(gc *c) {
  for (int k = 0; k < c->ninst; k++)
    if (LLVMIsAAtomicRMWInst(c->inst[k]) &&
        !plain_address(LLVMGetOperand(c->inst[k], 0), 0))
      return "an atomic's address depends on loaded data";
  return NULL;
}

/* ---- the transformation ----------------------------------------------------
 */

/* Replaces c->fn by a copy with a trailing i32 parameter, the user's
 * grid.x; the blocks move over. NULL on no memory. */
static LLVMValueRef add_grid_param(gc *c) {
  LLVMValueRef old = c->fn;
  LLVMTypeRef ft = LLVMGlobalGetValueType(old);
  unsigned n = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = calloc(n + 1, sizeof *pt);
  size_t len = 0;
  char *name = strdup(LLVMGetValueName2(old, &len));
  if (!pt || !name) {
    free(pt), free(name);
    return NULL;
  }
  LLVMGetParamTypes(ft, pt);
  pt[n] = LLVMInt32TypeInContext(c->lc);
  LLVMTypeRef nft = LLVMFunctionType(LLVMGetReturnType(ft), pt, n + 1,
                                     LLVMIsFunctionVarArg(ft));
  free(pt);
  LLVMSetValueName2(old, "ks.gc.old", 9);
  LLVMValueRef nf = LLVMAddFunction(c->m, name, nft);
  free(name);
  LLVMSetLinkage(nf, LLVMGetLinkage(old));
  LLVMSetVisibility(nf, LLVMGetVisibility(old));
  LLVMSetFunctionCallConv(nf, LLVMGetFunctionCallConv(old));
  for (int idx = -1; idx <= (int)n; idx++) {
    unsigned na = LLVMGetAttributeCountAtIndex(old, (LLVMAttributeIndex)idx);
    LLVMAttributeRef a[64];
    if (!na || na > 64)
      continue;
    LLVMGetAttributesAtIndex(old, (LLVMAttributeIndex)idx, a);
    for (unsigned k = 0; k < na; k++)
      LLVMAddAttributeAtIndex(nf, (LLVMAttributeIndex)idx, a[k]);
  }
  size_t nmd = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(old, &nmd);
  for (size_t k = 0; k < nmd; k++)
    LLVMGlobalSetMetadata(nf, LLVMValueMetadataEntriesGetKind(md, (unsigned)k),
                          LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
  if (md)
    LLVMDisposeValueMetadataEntries(md);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetParam(old, k), b = LLVMGetParam(nf, k);
    const char *an = LLVMGetValueName2(a, &len);
    LLVMSetValueName2(b, an, len);
    LLVMReplaceAllUsesWith(a, b);
  }
  LLVMSetValueName2(LLVMGetParam(nf, n), "ks.grid_x", 9);
  LLVMBasicBlockRef bb;
  while ((bb = LLVMGetFirstBasicBlock(old))) {
    LLVMRemoveBasicBlockFromParent(bb);
    LLVMAppendExistingBasicBlock(nf, bb);
  }
  LLVMReplaceAllUsesWith(old, nf); /* nvvm.annotations, annotations */
  LLVMDeleteFunction(old);
  return nf;
}

static LLVMValueRef first_non_phi(LLVMBasicBlockRef bb) {
  LLVMValueRef i = LLVMGetFirstInstruction(bb);
  while (i && LLVMIsAPHINode(i))
    i = LLVMGetNextInstruction(i);
  return i;
}

/* Moves the instructions of bb before p into a new block that takes bb's
 * place (predecessors, entry); returns it, without a terminator. */
static LLVMBasicBlockRef split_before(gc *c, LLVMBuilderRef b,
                                      LLVMBasicBlockRef bb, LLVMValueRef p) {
  LLVMBasicBlockRef head =
      LLVMInsertBasicBlockInContext(c->lc, bb, "ks.gc.head");
  for (LLVMBasicBlockRef q = LLVMGetFirstBasicBlock(c->fn); q;
       q = LLVMGetNextBasicBlock(q)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(q);
    for (unsigned k = 0; t && q != head && k < LLVMGetNumSuccessors(t); k++)
      if (LLVMGetSuccessor(t, k) == bb)
        LLVMSetSuccessor(t, k, head);
  }
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef i;
  while ((i = LLVMGetFirstInstruction(bb)) != p) {
    size_t len = 0;
    char name[128];
    snprintf(name, sizeof name, "%s", LLVMGetValueName2(i, &len));
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilderWithName(b, i, name); /* "" would drop it */
  }
  return head;
}

static LLVMValueRef mapped(const vmap *mp, LLVMValueRef v) {
  for (int k = 0; k < mp->n; k++)
    if (mp->from[k] == v)
      return mp->to[k];
  return v;
}

static void map_add(vmap *mp, LLVMValueRef from, LLVMValueRef to) {
  mp->from[mp->n] = from;
  mp->to[mp->n++] = to;
}

static LLVMBasicBlockRef mapped_bb(const vmap *mp, LLVMBasicBlockRef bb) {
  return LLVMValueAsBasicBlock(mapped(mp, LLVMBasicBlockAsValue(bb)));
}

/* A copy of region instruction i at b, its operands mapped. */
static LLVMValueRef clone_inst(LLVMBuilderRef b, LLVMValueRef i, vmap *mp) {
  LLVMValueRef x;
  if (LLVMIsAPHINode(i)) {
    x = LLVMBuildPhi(b, LLVMTypeOf(i), "ks.gc.phi");
    for (unsigned k = 0; k < LLVMCountIncoming(i); k++) {
      LLVMValueRef v = mapped(mp, LLVMGetIncomingValue(i, k));
      LLVMBasicBlockRef bb = mapped_bb(mp, LLVMGetIncomingBlock(i, k));
      LLVMAddIncoming(x, &v, &bb, 1);
    }
  } else {
    x = LLVMInstructionClone(i);
    LLVMInsertIntoBuilderWithName(
        b, x,
        LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVoidTypeKind ? "" : "ks.gc");
    for (int k = 0; k < LLVMGetNumOperands(x); k++) {
      LLVMValueRef o = LLVMGetOperand(x, (unsigned)k);
      if (!LLVMValueIsBasicBlock(o))
        LLVMSetOperand(x, (unsigned)k, mapped(mp, o));
    }
    for (unsigned k = 0;
         LLVMIsATerminatorInst(x) && k < LLVMGetNumSuccessors(x); k++)
      LLVMSetSuccessor(x, k, mapped_bb(mp, LLVMGetSuccessor(x, k)));
  }
  map_add(mp, i, x);
  return x;
}

/* Sums can grow where the parts did not: no overflow or inf/NaN promises. */
static void drop_flags(gc *c) {
  for (int k = 0; k < c->ninst; k++) {
    LLVMValueRef i = c->inst[k];
    if (!vset_has(&c->additive, i) || LLVMIsALoadInst(i) || LLVMIsACallInst(i))
      continue;
    if (LLVMGetInstructionOpcode(i) == LLVMAdd) {
      LLVMSetNSW(i, 0);
      LLVMSetNUW(i, 0);
    } else if (LLVMCanValueUseFastMathFlags(i)) {
      LLVMSetFastMathFlags(i, LLVMGetFastMathFlags(i) &
                                  ~(LLVMFastMathNoNaNs | LLVMFastMathNoInfs));
    }
  }
}

/* ---- the fast loop kept rolled -------------------------------------------
 *
 * Unrolled by the optimize stage, the C copies of the region were most of
 * what it and codegen then worked on (reduce_sum: 6 M of 31 M instructions
 * a specialization). Kept rolled, ptxas unrolls the loop itself, but it
 * cannot fold the copies' addresses into one base and constant offsets:
 * base[sext(idx)] with a 32-bit idx that may wrap from one block to the
 * next. Where each load's idx grows by a constant step per virtual block
 * and the group's 32-bit indices provably do not wrap (checked at run time,
 * from the first block's), the loop reads through a pointer that moves by
 * that step instead, and ptxas makes the same machine code as from the
 * unrolled copies (reduce_sum BLOCK=256: as many instructions).
 *
 * Why it is exact. idx is built from %ctaid.x by add, sub, disjoint or,
 * and mul or shl by a constant, with values the same for every block, so
 * mod 2^32 idx(vb0 + j) = idx(vb0) + j*step for the group's blocks vb0 + j.
 * Where idx(vb0) + (C-1)*step, as an integer, stays in the 32-bit signed
 * range, so do all the group's (they lie between), no 32-bit value wraps,
 * and sext(idx(vb0 + j)) = sext(idx(vb0)) + j*step: the pointer reads the
 * address the copy would have read. A group where it would wrap takes the
 * checked loop. (A disjoint or whose operands share a bit is poison in the
 * copy; the pointer then reads some address, which poison allows.) */

/* x's step per virtual block in *st (mod 2^32), where x is an i32 built
 * from %ctaid.x as above; 0 where it is not. Values outside the region are
 * the same for every block: step 0. */
static int step_of(gc *c, LLVMValueRef x, int depth, uint32_t *st) {
  if (x == c->ctaid) {
    *st = 1;
    return 1;
  }
  if (!vset_has(&c->in_range, x)) {
    *st = 0;
    return 1;
  }
  LLVMTypeRef t = LLVMTypeOf(x);
  if (depth > MAX_DEPTH || LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(t) != 32 || LLVMGetNumOperands(x) != 2)
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(x);
  LLVMValueRef y = LLVMGetOperand(x, 1);
  int scaled = op == LLVMMul || op == LLVMShl; /* by a constant */
  if (scaled ? !LLVMIsAConstantInt(y) ||
                   (op == LLVMShl && LLVMConstIntGetZExtValue(y) >= 32)
             : op != LLVMAdd && op != LLVMSub &&
                   (op != LLVMOr || !LLVMGetIsDisjoint(x)))
    return 0;
  uint32_t a, b;
  if (!step_of(c, LLVMGetOperand(x, 0), depth + 1, &a))
    return 0;
  if (scaled) {
    unsigned long long k = LLVMConstIntGetZExtValue(y);
    *st = op == LLVMMul ? a * (uint32_t)k : a << k;
    return 1;
  }
  if (!step_of(c, y, depth + 1, &b))
    return 0;
  *st = op == LLVMSub ? a - b : a + b;
  return 1;
}

/* The region's loads as a walk (see above); 0 where one is not so, the
 * region is long, its fast copies branch (taken: they do not), or no load
 * moves. */
static int find_walk(gc *c, unsigned factor, int taken, walk *w) {
  w->n = 0;
  if (c->nrange > MAX_ROLLED || (c->be && !taken))
    return 0;
  for (int r = 1; r < c->nrange; r++) {
    LLVMValueRef ld = c->range[r];
    if (!LLVMIsALoadInst(ld))
      continue;
    LLVMValueRef p = LLVMGetOperand(ld, 0);
    if (!vset_has(&c->in_range, p))
      continue; /* the same address in every block */
    if (w->n == MAX_WALK || LLVMGetVolatile(ld) ||
        LLVMGetOrdering(ld) != LLVMAtomicOrderingNotAtomic ||
        !LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2 ||
        vset_has(&c->in_range, LLVMGetOperand(p, 0)))
      return 0;
    LLVMValueRef sx = LLVMGetOperand(p, 1);
    int zext = LLVMIsAZExtInst(sx) != NULL;
    if (!zext && !LLVMIsASExtInst(sx))
      return 0;
    LLVMValueRef idx = LLVMGetOperand(sx, 0);
    uint32_t st;
    if (!step_of(c, idx, 0, &st))
      return 0;
    /* the group's span, (C-1)*step, within the 32-bit range: signed for
     * sext, unsigned (and not down) for zext */
    long long span = (long long)(factor - 1) * (int32_t)st;
    if (zext ? span < 0 || span > UINT32_MAX
             : span > INT32_MAX || span < -(long long)INT32_MAX)
      return 0;
    LLVMTypeRef elem = LLVMGetGEPSourceElementType(p);
    if (!LLVMTypeIsSized(elem))
      return 0;
    w->load[w->n] = ld;
    w->base[w->n] = LLVMGetOperand(p, 0);
    w->idx[w->n] = idx;
    w->elem[w->n] = elem;
    w->step[w->n] = (int32_t)st;
    w->zext[w->n] = zext;
    w->pred[w->n] = zext ? LLVMIntULE : span >= 0 ? LLVMIntSLE : LLVMIntSGE;
    w->limit[w->n] = zext        ? UINT32_MAX - span
                     : span >= 0 ? INT32_MAX - span
                                 : INT32_MIN - span;
    w->n++;
  }
  return w->n > 0;
}

/* A copy at b of region value x and what it needs from the region, with
 * the values mp maps already. */
static LLVMValueRef clone_slice(gc *c, LLVMBuilderRef b, LLVMValueRef x,
                                vmap *mp) {
  LLVMValueRef y = mapped(mp, x);
  if (y != x || !vset_has(&c->in_range, x))
    return y;
  for (int k = 0; k < LLVMGetNumOperands(x); k++)
    clone_slice(c, b, LLVMGetOperand(x, (unsigned)k), mp);
  return clone_inst(b, x, mp);
}

/* At the end of fast: each load's first address (block ctaid*C's) into
 * w->start, and whether no index of the group wraps. */
static LLVMValueRef walk_start(gc *c, LLVMBuilderRef b, unsigned factor,
                               walk *w) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->lc);
  vmap *mp = &c->map;
  mp->n = 0;
  map_add(mp, c->ctaid,
          LLVMBuildMul(b, c->ctaid, LLVMConstInt(i32, factor, 0), "ks.gc.vb0"));
  LLVMValueRef ok = NULL;
  for (int k = 0; k < w->n; k++) {
    LLVMValueRef i0 = clone_slice(c, b, w->idx[k], mp);
    LLVMValueRef in = LLVMBuildICmp(
        b, w->pred[k], i0,
        LLVMConstInt(i32, (unsigned long long)w->limit[k], 1), "ks.gc.nowrap");
    ok = ok ? LLVMBuildAnd(b, ok, in, "ks.gc.nowrap.all") : in;
    LLVMValueRef i = w->zext[k] ? LLVMBuildZExt(b, i0, i64, "ks.gc.i0")
                                : LLVMBuildSExt(b, i0, i64, "ks.gc.i0");
    w->start[k] = LLVMBuildGEP2(b, w->elem[k], w->base[k], &i, 1, "ks.gc.p0");
  }
  return ok;
}

/* The virtual block ctaid*C + j of a loop over the C of them. */
static LLVMValueRef virtual_block(gc *c, LLVMBuilderRef b, unsigned factor,
                                  LLVMValueRef j) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc);
  return LLVMBuildAdd(
      b, LLVMBuildMul(b, c->ctaid, LLVMConstInt(i32, factor, 0), "ks.gc.vb0"),
      j, "ks.gc.vb");
}

/* Such a loop's latch: j + 1, back to h while below C, else on to out. */
static LLVMValueRef next_block(gc *c, LLVMBuilderRef b, unsigned factor,
                               LLVMValueRef j, LLVMBasicBlockRef h,
                               LLVMBasicBlockRef out) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc);
  LLVMValueRef j1 =
      LLVMBuildNUWAdd(b, j, LLVMConstInt(i32, 1, 0), "ks.gc.j.next");
  LLVMBuildCondBr(b,
                  LLVMBuildICmp(b, LLVMIntULT, j1, LLVMConstInt(i32, factor, 0),
                                "ks.gc.more"),
                  h, out);
  return j1;
}

/* One loop over the C virtual blocks, entered from head, left for out;
 * guarded: virtual blocks from G on are skipped; taken: the region's branch
 * goes where its condition is c->want in every copy (the caller has checked
 * that it is, for every virtual block); w: its loads walk (NULL: none).
 * Its header is *first; the sum leaves through *sum_out from *latch. */
static void one_loop(gc *c, LLVMBuilderRef b, LLVMBasicBlockRef head,
                     LLVMBasicBlockRef out, unsigned factor, int guarded,
                     int taken, const walk *w, LLVMBasicBlockRef *first,
                     LLVMValueRef *sum_out, LLVMBasicBlockRef *latch) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc), ty = LLVMTypeOf(c->v);
  int fp = LLVMGetTypeKind(ty) != LLVMIntegerTypeKind;
  LLVMValueRef zero = LLVMConstNull(ty), j0 = LLVMConstInt(i32, 0, 0);
  LLVMValueRef grid = LLVMGetParam(c->fn, LLVMCountParams(c->fn) - 1);
  const char *tag = guarded ? "ks.gc.edge" : "ks.gc.loop";
  char name[32];
#define BLOCK_NAMED(suffix)                                                    \
  (snprintf(name, sizeof name, "%s%s", tag, suffix),                           \
   LLVMInsertBasicBlockInContext(c->lc, out, name))
  LLVMBasicBlockRef h = BLOCK_NAMED("");
  LLVMBasicBlockRef rs = BLOCK_NAMED(".r");
  LLVMBasicBlockRef rt = c->t ? BLOCK_NAMED(".r.t") : NULL;
  LLVMBasicBlockRef rf = c->f ? BLOCK_NAMED(".r.f") : NULL;
  LLVMBasicBlockRef re = c->be ? BLOCK_NAMED(".r.end") : rs;
  LLVMBasicBlockRef l = BLOCK_NAMED(".next");
#undef BLOCK_NAMED
  /* header: j, acc; vb = ctaid*C + j (below the user's grid?) */
  LLVMPositionBuilderAtEnd(b, h);
  LLVMValueRef j = LLVMBuildPhi(b, i32, "ks.gc.j");
  LLVMValueRef acc = LLVMBuildPhi(b, ty, "ks.gc.acc");
  LLVMValueRef ptr[MAX_WALK];
  for (int k = 0; w && k < w->n; k++)
    ptr[k] = LLVMBuildPhi(b, LLVMTypeOf(w->start[k]), "ks.gc.p");
  LLVMValueRef vb = virtual_block(c, b, factor, j);
  if (guarded)
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, vb, grid, "ks.gc.in"), rs,
                    l);
  else
    LLVMBuildBr(b, rs);
  /* the region with %ctaid.x := vb */
  vmap *mp = &c->map;
  mp->n = 0;
  map_add(mp, c->ctaid, vb);
  map_add(mp, LLVMBasicBlockAsValue(c->bs), LLVMBasicBlockAsValue(rs));
  if (c->t)
    map_add(mp, LLVMBasicBlockAsValue(c->t), LLVMBasicBlockAsValue(rt));
  if (c->f)
    map_add(mp, LLVMBasicBlockAsValue(c->f), LLVMBasicBlockAsValue(rf));
  if (c->be)
    map_add(mp, LLVMBasicBlockAsValue(c->be), LLVMBasicBlockAsValue(re));
  for (int r = 1; r < c->nrange; r++) { /* range[0] is the ctaid read */
    LLVMValueRef i = c->range[r];
    LLVMPositionBuilderAtEnd(b, mapped_bb(mp, LLVMGetInstructionParent(i)));
    clone_inst(b, i, mp);
  }
  if (taken)
    LLVMSetCondition(mapped(mp, LLVMGetBasicBlockTerminator(c->bs)),
                     LLVMConstInt(LLVMInt1TypeInContext(c->lc),
                                  (unsigned long long)c->want, 0));
  for (int k = 0; w && k < w->n; k++)
    LLVMSetOperand(mapped(mp, w->load[k]), 0, ptr[k]);
  LLVMPositionBuilderAtEnd(b, re);
  LLVMValueRef vc = mapped(mp, c->v);
  LLVMValueRef sum = fp ? LLVMBuildFAdd(b, acc, vc, "ks.gc.sum")
                        : LLVMBuildAdd(b, acc, vc, "ks.gc.sum");
  LLVMBuildBr(b, l);
  /* latch */
  LLVMPositionBuilderAtEnd(b, l);
  LLVMValueRef acc2 = LLVMBuildPhi(b, ty, "ks.gc.acc.next");
  LLVMValueRef in[2] = {sum, acc};
  LLVMBasicBlockRef from[2] = {re, h};
  LLVMAddIncoming(acc2, in, from, guarded ? 2 : 1);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(c->m);
  for (int k = 0; w && k < w->n; k++) {
    long long bytes =
        (long long)w->step[k] * (long long)LLVMABISizeOfType(td, w->elem[k]);
    LLVMValueRef by = LLVMConstInt(LLVMInt64TypeInContext(c->lc),
                                   (unsigned long long)bytes, 1);
    LLVMValueRef next = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c->lc), ptr[k],
                                      &by, 1, "ks.gc.p.next");
    LLVMValueRef pv[2] = {w->start[k], next};
    LLVMBasicBlockRef pb[2] = {head, l};
    LLVMAddIncoming(ptr[k], pv, pb, 2);
  }
  LLVMValueRef j1 = next_block(c, b, factor, j, h, out);
  LLVMValueRef jv[2] = {j0, j1}, av[2] = {zero, acc2};
  LLVMBasicBlockRef jb[2] = {head, l};
  LLVMAddIncoming(j, jv, jb, 2);
  LLVMAddIncoming(acc, av, jb, 2);
  *first = h;
  *sum_out = acc2;
  *latch = l;
}

/* Which instructions of the region the condition of its branch (at the end
 * of bs) depends on, in pick[] by their place in range[]; 1 when they are
 * few and only compute (no memory, call, phi or division), so that they
 * can run for every virtual block before any of them loads: a block of
 * the user's grid computes the same values before it branches. */
static int cond_slice(gc *c, char *pick) {
  LLVMValueRef br = c->be ? LLVMGetBasicBlockTerminator(c->bs) : NULL;
  if (!br || !LLVMIsConditional(br))
    return 0;
  /* the side to run: a triangle's arm (its work), else the first */
  c->want = !(c->t && !c->f && LLVMGetSuccessor(br, 1) == c->t);
  memset(pick, 0, MAX_RANGE);
  int n = 0;
  for (int r = c->nrange - 1; r >= 1; r--) {
    LLVMValueRef i = c->range[r];
    if (i != br && !pick[r])
      continue;
    if (i != br) {
      switch (LLVMGetInstructionOpcode(i)) {
      case LLVMAdd:
      case LLVMSub:
      case LLVMMul:
      case LLVMShl:
      case LLVMLShr:
      case LLVMAShr:
      case LLVMAnd:
      case LLVMOr:
      case LLVMXor:
      case LLVMICmp:
      case LLVMTrunc:
      case LLVMZExt:
      case LLVMSExt:
      case LLVMSelect:
      case LLVMFreeze:
        break;
      default:
        return 0;
      }
      if (++n > MAX_CHECK)
        return 0;
    }
    for (int k = 0; k < LLVMGetNumOperands(i); k++) {
      LLVMValueRef o = LLVMGetOperand(i, (unsigned)k);
      if (!vset_has(&c->in_range, o))
        continue;
      for (int q = r - 1; q >= 1; q--)
        if (c->range[q] == o) {
          pick[q] = 1;
          break;
        }
    }
  }
  return 1;
}

/* A loop over the C virtual blocks, entered from head, left for out, that
 * evaluates the picked instructions and ands "the branch's condition is
 * c->want" over them: *all, from *latch; its header is *first. */
static void check_loop(gc *c, LLVMBuilderRef b, LLVMBasicBlockRef head,
                       LLVMBasicBlockRef out, unsigned factor, const char *pick,
                       LLVMBasicBlockRef *first, LLVMValueRef *all,
                       LLVMBasicBlockRef *latch) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc);
  LLVMTypeRef i1 = LLVMInt1TypeInContext(c->lc);
  LLVMBasicBlockRef h =
      LLVMInsertBasicBlockInContext(c->lc, out, "ks.gc.check");
  LLVMPositionBuilderAtEnd(b, h);
  LLVMValueRef j = LLVMBuildPhi(b, i32, "ks.gc.j");
  LLVMValueRef ok = LLVMBuildPhi(b, i1, "ks.gc.ok");
  LLVMValueRef vb = virtual_block(c, b, factor, j);
  vmap *mp = &c->map;
  mp->n = 0;
  map_add(mp, c->ctaid, vb);
  for (int r = 1; r < c->nrange; r++)
    if (pick[r])
      clone_inst(b, c->range[r], mp);
  LLVMValueRef cond =
      mapped(mp, LLVMGetCondition(LLVMGetBasicBlockTerminator(c->bs)));
  if (!c->want)
    cond = LLVMBuildNot(b, cond, "ks.gc.skip");
  LLVMValueRef ok2 = LLVMBuildAnd(b, ok, cond, "ks.gc.ok.next");
  LLVMValueRef j1 = next_block(c, b, factor, j, h, out);
  LLVMValueRef jv[2] = {LLVMConstInt(i32, 0, 0), j1};
  LLVMValueRef ov[2] = {LLVMConstInt(i1, 1, 0), ok2};
  LLVMBasicBlockRef from[2] = {head, h};
  LLVMAddIncoming(j, jv, from, 2);
  LLVMAddIncoming(ok, ov, from, 2);
  *first = h;
  *all = ok2;
  *latch = h;
}

/* The loops over the C virtual blocks, between head and tail: where the
 * whole group lies in the user's grid (every block but perhaps the last)
 * one without the check vb < G, whose copies of the region become
 * straight-line code with their loads in flight together; else one with
 * it, kept rolled. Where the region branches on a condition that only
 * computes (cond_slice), a first loop evaluates it for the whole group,
 * and the straight-line copies are those of the side taken (a triangle's
 * arm), without the branch; a group where it does not go that way for
 * every block (the one that straddles the end of the input, say) takes
 * the checked loop. v's uses take the sum. 1: out of memory. */
static int build_loop(gc *c, LLVMBuilderRef b, LLVMBasicBlockRef head,
                      LLVMBasicBlockRef tail, unsigned factor) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc), ty = LLVMTypeOf(c->v);
  LLVMValueRef grid = LLVMGetParam(c->fn, LLVMCountParams(c->fn) - 1);
  LLVMBasicBlockRef join =
      LLVMInsertBasicBlockInContext(c->lc, tail, "ks.gc.join");
  LLVMValueRef sums[2];
  LLVMBasicBlockRef latches[2], fast, edge, check = NULL, slow = NULL;
  LLVMBasicBlockRef check_latch = NULL;
  char pick[MAX_RANGE];
  int taken = cond_slice(c, pick);
  LLVMValueRef all = NULL;
  /* the fast loop's loads walk: its first block checks they may */
  walk w;
  LLVMBasicBlockRef start = NULL;
  LLVMValueRef nowrap = NULL;
  if (find_walk(c, factor, taken, &w)) {
    start = LLVMInsertBasicBlockInContext(c->lc, join, "ks.gc.fast");
    LLVMPositionBuilderAtEnd(b, start);
    nowrap = walk_start(c, b, factor, &w);
  }
  const walk *wp = start ? &w : NULL;
  if (taken || start)
    slow = LLVMInsertBasicBlockInContext(c->lc, join, "ks.gc.slow");
  LLVMBasicBlockRef done = head;
  if (taken) {
    done = LLVMInsertBasicBlockInContext(c->lc, join, "ks.gc.checked");
    check_loop(c, b, head, done, factor, pick, &check, &all, &check_latch);
  }
  one_loop(c, b, start ? start : done, join, factor, 0, taken, wp, &fast,
           &sums[0], &latches[0]);
  one_loop(c, b, slow ? slow : head, join, factor, 1, 0, NULL, &edge, &sums[1],
           &latches[1]);
  if (taken) {
    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildCondBr(b, all, start ? start : fast, slow);
  }
  if (start) {
    LLVMPositionBuilderAtEnd(b, start);
    LLVMBuildCondBr(b, nowrap, fast, slow);
  }
  if (slow) {
    LLVMPositionBuilderAtEnd(b, slow);
    LLVMBuildBr(b, edge);
  }
  /* ctaid*C + C-1 < G: below 2^32, as ctaid < ceil(G/C) <= 2^31 / C */
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef last = LLVMBuildAdd(
      b, LLVMBuildMul(b, c->ctaid, LLVMConstInt(i32, factor, 0), "ks.gc.first"),
      LLVMConstInt(i32, factor - 1, 0), "ks.gc.last");
  LLVMBasicBlockRef fast_way = taken ? check : start ? start : fast;
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, last, grid, "ks.gc.full"),
                  fast_way, slow ? slow : edge);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef acc = LLVMBuildPhi(b, ty, "ks.gc.total");
  LLVMAddIncoming(acc, sums, latches, 2);
  LLVMBuildBr(b, tail);
  LLVMReplaceAllUsesWith(c->v, acc);
  c->checked = taken;
  c->walked = start ? w.n : 0;
  /* the checked loop runs in the grid's last block only: kept rolled, it
   * does not double the code that the optimize stage and codegen see; the
   * check is a few instructions a block, rolled too; the fast loop too
   * where its loads walk, until codegen (ptxas unrolls it) */
  int oom = ks_loops_keep_rolled(LLVMGetBasicBlockTerminator(latches[1]));
  if (check_latch && !oom)
    oom = ks_loops_keep_rolled(LLVMGetBasicBlockTerminator(check_latch));
  if (start && !oom)
    oom = ks_loops_keep_rolled_here(LLVMGetBasicBlockTerminator(latches[0]));
  return oom;
}

/* The virtual blocks per real block: 16 for blocks of up to 256 threads,
 * 8 above, so that a real block reduces at least 4096 elements per tree
 * and atomic, with at most 16 loads a thread in flight. */
static unsigned factor_for(const ks_spec *s) {
  unsigned long long threads = (unsigned long long)s->block[0] *
                               (s->block[1] ? s->block[1] : 1) *
                               (s->block[2] ? s->block[2] : 1);
  return threads <= 256 ? 16 : 8;
}

static const char *analyze(gc *c) {
  if (ks_cfg_build(&c->cfg, c->fn))
    return "out of memory";
  const char *why = collect(c);
  if (!why)
    why = find_region(c);
  if (!why)
    why = check_taint(c);
  if (!why)
    why = check_additive(c);
  if (!why)
    why = check_atomics(c);
  return why;
}

int ks_pass_gcoarsen(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || !LLVMGetFirstBasicBlock(fn))
    return 0;
  if (!s->block[0]) {
    ks_explain(d, PASS, "declined %s: block size not fixed", s->kernel);
    return 0;
  }
  if (d->plan.coarsen_x > 1 || d->plan.coarsen_y > 1) {
    ks_explain(d, PASS, "declined %s: tcoarsen coarsened the block", s->kernel);
    return 0;
  }
  gc *c = calloc(1, sizeof *c);
  if (!c)
    return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  c->m = m, c->fn = fn, c->s = s, c->lc = LLVMGetModuleContext(m);
  const char *why = analyze(c);
  if (!why && !(c->fn = add_grid_param(c)))
    why = "out of memory";
  if (why) {
    ks_explain(d, PASS, "declined %s: %s", s->kernel, why);
  } else {
    unsigned factor = factor_for(s);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c->lc);
    LLVMBasicBlockRef tail = c->be ? c->be : c->bs;
    LLVMValueRef p =
        c->be ? first_non_phi(c->be) : LLVMGetNextInstruction(c->v);
    LLVMBasicBlockRef head = split_before(c, b, tail, p);
    if (c->be)
      c->be = head; /* with its phis, and the region's branches to it */
    else
      c->bs = head; /* the region moved there */
    int oom = build_loop(c, b, head, tail, factor);
    LLVMDisposeBuilder(b);
    if (oom) {
      ks_cfg_free(&c->cfg);
      free(c->inst);
      free(c->in_range.slot), free(c->tainted.slot), free(c->additive.slot);
      free(c);
      return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
    }
    drop_flags(c);
    d->plan.grid_coarsen = factor;
    int fp = LLVMGetTypeKind(LLVMTypeOf(c->v)) != LLVMIntegerTypeKind;
    ks_explain(d, PASS,
               "coarsened the grid by %u: each block sums %s (%d "
               "instructions from %%ctaid.x on) for %u consecutive blocks of "
               "the user's grid, then runs the rest once; launched with "
               "ceil(grid.x/%u) blocks, grid.x a hidden last parameter; %s%s%s",
               factor, describe(c, c->v), c->nrange, factor, factor,
               fp ? "the float additions' order changes, as the blocks' "
                    "atomics already leave it open"
                  : "integer sums are exact",
               c->checked ? "; the region's branch condition is checked for "
                            "the whole group first, and where it holds for "
                            "all its blocks they run without the branch"
                          : "",
               c->walked ? "; that loop stays rolled, its loads reading "
                           "through pointers that move by a fixed step"
                         : "");
  }
  ks_cfg_free(&c->cfg);
  free(c->inst);
  free(c->in_range.slot), free(c->tainted.slot), free(c->additive.slot);
  free(c);
  return 0;
}
