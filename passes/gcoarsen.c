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
 * loads in flight, and far fewer blocks for codegen (reduce_sum's kernel
 * about half as many). The copies compute what they would have computed:
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
#include "passes/gcoarsen.h"
#include "passes/ks_passes.h"
/* ---- a set of values ------------------------------------------------------
 */

static int vset_init(vset *s, unsigned n) {
  s->cap = 16;
  while (s->cap < 2 * n + 2)
    s->cap *= 2;
  s->slot = calloc(s->cap, sizeof *s->slot);
  return s->slot ? 0 : 1;
}

int ks_gc_vset_has(const vset *s, LLVMValueRef v) {
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

/* A barrier within the block (every form: ir/inst.c) that returns
 * nothing (barrier0.popc and the like combine the threads' values). Not
 * a cluster's, whose blocks the coarsened grid would group otherwise. */
static int is_barrier(LLVMValueRef i) {
  int k = ks_ir_barrier_kind(i);
  return (k == KS_BARRIER_BLOCK || k == KS_BARRIER_WARP) &&
         LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind;
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
  if (is_barrier(i) || is_shuffle(i) || ks_ir_pure_call(i))
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
      if (ks_gc_vset_has(&c->tainted, LLVMGetOperand(i, (unsigned)k)))
        vset_add(&c->tainted, i);
  }
  /* the tainted values used at or after stop, or in other blocks */
  for (LLVMValueRef i = c->ctaid; i != stop; i = LLVMGetNextInstruction(i)) {
    if (!ks_gc_vset_has(&c->tainted, i))
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
      if (ks_gc_vset_has(&c->tainted, LLVMGetOperand(i, (unsigned)k)))
        vset_add(&c->tainted, i);
  LLVMValueRef br = LLVMGetBasicBlockTerminator(c->bs);
  int on_ctaid = br && ks_gc_vset_has(&c->tainted, br), clean = 1;
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
    if (ks_gc_vset_has(&c->tainted, c->inst[k]))
      work[n++] = c->inst[k]; /* the ctaid read, be's phis */
  const char *why = NULL;
  while (n && !why) {
    LLVMValueRef x = work[--n];
    if (!ks_gc_vset_has(&c->in_range, x)) {
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
  return ks_gc_vset_has(&c->additive, x) ||
         (LLVMIsAConstant(x) && !LLVMIsUndef(x) && !LLVMIsPoison(x) &&
          LLVMIsNull(x));
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
    if (ks_gc_vset_has(&c->additive, i) && i != c->v && !LLVMIsALoadInst(i) &&
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
    ks_diag_explain(d, PASS, "declined %s: block size not fixed", s->kernel);
    return 0;
  }
  if (d->plan.coarsen_x > 1 || d->plan.coarsen_y > 1) {
    ks_diag_explain(d, PASS, "declined %s: tcoarsen coarsened the block",
                    s->kernel);
    return 0;
  }
  gc *c = calloc(1, sizeof *c);
  if (!c)
    return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  c->m = m, c->fn = fn, c->s = s, c->lc = LLVMGetModuleContext(m);
  const char *why = analyze(c);
  if (!why && !(c->fn = ks_gc_add_grid_param(c)))
    why = "out of memory";
  if (why) {
    ks_diag_explain(d, PASS, "declined %s: %s", s->kernel, why);
  } else {
    unsigned factor = factor_for(s);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c->lc);
    LLVMBasicBlockRef tail = c->be ? c->be : c->bs;
    LLVMValueRef p =
        c->be ? ks_gc_first_non_phi(c->be) : LLVMGetNextInstruction(c->v);
    LLVMBasicBlockRef head = ks_gc_split_before(c, b, tail, p);
    if (c->be)
      c->be = head; /* with its phis, and the region's branches to it */
    else
      c->bs = head; /* the region moved there */
    int oom = ks_gc_build_loop(c, b, head, tail, factor);
    LLVMDisposeBuilder(b);
    if (oom) {
      ks_cfg_free(&c->cfg);
      free(c->inst);
      free(c->in_range.slot), free(c->tainted.slot), free(c->additive.slot);
      free(c);
      return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
    }
    ks_gc_drop_flags(c);
    d->plan.grid_coarsen = factor;
    int fp = LLVMGetTypeKind(LLVMTypeOf(c->v)) != LLVMIntegerTypeKind;
    ks_diag_explain(
        d, PASS,
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
