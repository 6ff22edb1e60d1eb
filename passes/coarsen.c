/*
 * coarsen.c - thread coarsening of a grid-stride loop with 16-byte loads.
 *
 * A loop that hands the indices 0..n-1 out over the whole grid,
 *
 *   for (i = gtid; i < n; i += S) body(i, P[i])     gtid = ctaid.x*ntid.x
 *                                                   + tid.x, S =
 * nctaid.x*ntid.x
 *
 * whose body reads element i of an argument P (E bytes, W = 16 / E) and
 * otherwise only updates memory by commutative atomics, becomes
 *
 *   nv = (P % 16 == 0 && n > 0 && nctaid.x*ntid.x < 2^31) ? n / W : 0
 *   for (v = gtid; v < nv; v += S) {             one 16-byte load of P[W*v..]
 *     q = P16[v];  body(W*v, q[0]); ...; body(W*v + W-1, q[W-1]);
 *   }
 *   for (i = W*nv + gtid; i < n; i += S) body(i, P[i])       the old loop
 *
 * Across the grid the first loop covers [0, W*nv) and the second [W*nv, n),
 * each index once: gtid takes every value of [0, S) once per (y, z) thread
 * and block coordinate (nctaid.x*ntid.x < 2^31 is checked at run time, so
 * nothing wraps), v runs over the residues of gtid modulo S below nv, and
 * the second loop over those of W*nv + gtid below n. nv depends on
 * uniform values only, so every thread agrees on the split. Where P is not
 * 16-byte aligned nv is 0 and the old loop runs as before.
 *
 * This moves an index to another thread, which is only sound because
 * nothing can tell which thread processed it:
 *  - the body is straight-line or branching code without calls other than
 *    side-effect-free intrinsics, without stores, barriers or other
 *    convergent operations, and depends on the thread only through i;
 *  - the only memory the kernel writes (anywhere) is through noalias
 *    arguments Q that the kernel touches only by integer atomicrmw of one
 *    commutative kind (add/sub, and, or, xor, min, max, umin, umax) whose
 *    results are unused, so Q's final contents do not depend on which
 *    thread applies which update, in which order; no other memory is
 *    written, so the atomics' ordering orders nothing observable;
 *  - the body reads only global memory, and none of it is written (Q is
 *    noalias, so no other pointer reaches what the atomics update): the
 *    16-byte load sees what the element loads saw, and can take the
 *    non-coherent path (!invariant.load).
 * Atomics on shared memory are declined: a block's shared copy is read
 * back by that block, and the index split changes which block counts
 * what. That is why this stage runs before smem_promote, which then
 * privatizes the coarsened loop's atomics like the original's.
 *
 * The vector load reads P[W*v .. W*v+W-1], all below n: elements the
 * original loop reads too (the element load sits in the loop's first
 * block, which runs for every index).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"
#include "passes/coarsen.h"
#include "passes/ks_passes.h"
/* ---- small helpers ------------------------------------------------------- */

static const char *name_of(LLVMValueRef v) {
  size_t len = 0;
  const char *s = LLVMGetValueName2(v, &len);
  return len ? s : "(unnamed)";
}

static LLVMValueRef callee_of(LLVMValueRef v) {
  if (!v || !LLVMIsACallInst(v))
    return NULL;
  LLVMValueRef f = LLVMGetCalledValue(v);
  return f && LLVMIsAFunction(f) ? f : NULL;
}

static int is_sreg(LLVMValueRef v, const char *which) {
  const char *s = ks_ir_sreg(v);
  return s && strcmp(s, which) == 0;
}

/* Registers that are the same in every thread of the grid. */
static int uniform_sreg(const char *s) {
  return strncmp(s, "ntid.", 5) == 0 || strncmp(s, "nctaid.", 7) == 0 ||
         strcmp(s, "warpsize") == 0;
}

static int has_fn_attr(LLVMValueRef fn, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) !=
         NULL;
}

static int is_noalias(LLVMValueRef fn, LLVMValueRef arg) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (unsigned i = 0; i < LLVMCountParams(fn); i++)
    if (LLVMGetParam(fn, i) == arg)
      return LLVMGetEnumAttributeAtIndex(fn, i + 1, kind) != NULL;
  return 0;
}

/* Does the intrinsic call v neither touch memory nor synchronize? */
static int pure_intrinsic(LLVMValueRef v) {
  LLVMValueRef f = callee_of(v);
  if (!f || !LLVMGetIntrinsicID(f) || has_fn_attr(f, "convergent"))
    return 0;
  unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
  if (LLVMGetCallSiteEnumAttribute(v, LLVMAttributeFunctionIndex, conv))
    return 0;
  unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef a =
      LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, mem);
  return a && LLVMGetEnumAttributeValue(a) == 0; /* memory(none) */
}

static int is_convergent(LLVMValueRef v) {
  LLVMValueRef f = callee_of(v);
  unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
  return ks_ir_is_barrier(v) || (f && has_fn_attr(f, "convergent")) ||
         LLVMGetCallSiteEnumAttribute(v, LLVMAttributeFunctionIndex, conv);
}

static int in_loop(const gsloop *l, LLVMBasicBlockRef bb) {
  for (unsigned i = 0; i < l->nblocks; i++)
    if (l->blocks[i] == bb)
      return 1;
  return 0;
}

static int defined_in_loop(const gsloop *l, LLVMValueRef v) {
  return LLVMIsAInstruction(v) && in_loop(l, LLVMGetInstructionParent(v));
}

/* Is v the same in every thread of the grid? Constants, arguments,
 * uniform special registers and pure arithmetic on them. */
static int uniform(LLVMValueRef v, unsigned depth) {
  if (LLVMIsAConstant(v) || LLVMIsAArgument(v))
    return 1;
  if (!LLVMIsAInstruction(v) || depth == MAX_DEPTH)
    return 0;
  if (LLVMIsACallInst(v)) {
    const char *s = ks_ir_sreg(v);
    return s && uniform_sreg(s);
  }
  if (LLVMIsALoadInst(v) || LLVMIsAPHINode(v) || LLVMIsAAllocaInst(v) ||
      LLVMGetInstructionOpcode(v) == LLVMFreeze ||
      !(LLVMIsABinaryOperator(v) || LLVMIsACastInst(v) || LLVMIsACmpInst(v) ||
        LLVMIsASelectInst(v) || LLVMIsAGetElementPtrInst(v)))
    return 0;
  for (int i = 0; i < LLVMGetNumOperands(v); i++)
    if (!uniform(LLVMGetOperand(v, i), depth + 1))
      return 0;
  return 1;
}

/* ---- the shape of the loop ----------------------------------------------- */

/* v = sreg * scale (mul either way round, or shl by a constant); stores
 * the register read in *reg. */
static int scaled(LLVMValueRef v, const char *sreg, LLVMValueRef *scale,
                  LLVMValueRef *reg) {
  if (!LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode opc = LLVMGetInstructionOpcode(v);
  LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
  if (opc == LLVMShl && is_sreg(a, sreg) && LLVMIsAConstantInt(b) &&
      LLVMConstIntGetZExtValue(b) < 31) {
    *scale =
        LLVMConstInt(LLVMTypeOf(v), 1ull << LLVMConstIntGetZExtValue(b), 0);
    *reg = a;
    return 1;
  }
  if (opc != LLVMMul)
    return 0;
  if (is_sreg(b, sreg)) {
    LLVMValueRef t = a;
    a = b;
    b = t;
  }
  if (!is_sreg(a, sreg))
    return 0;
  *scale = b;
  *reg = a;
  return 1;
}

static int same_scale(LLVMValueRef a, LLVMValueRef b) {
  if (LLVMIsAConstantInt(a) && LLVMIsAConstantInt(b))
    return LLVMConstIntGetZExtValue(a) == LLVMConstIntGetZExtValue(b);
  return a == b || (is_sreg(a, "ntid.x") && is_sreg(b, "ntid.x"));
}

/* Is the scale ntid.x, or the block's bound width? */
static int block_width(LLVMValueRef scale, const ks_spec *s) {
  if (is_sreg(scale, "ntid.x"))
    return 1;
  return LLVMIsAConstantInt(scale) && s->block[0] &&
         LLVMConstIntGetZExtValue(scale) == s->block[0];
}

/* gtid = ctaid.x * ntid.x + tid.x, S = nctaid.x * ntid.x. */
static const char *check_gtid(gsloop *l, const ks_spec *s) {
  static const char start[] = "it does not start at ctaid.x * ntid.x + tid.x";
  LLVMValueRef v = l->gtid, scale = NULL, reg = NULL;
  if (!LLVMIsAInstruction(v) ||
      !(LLVMGetInstructionOpcode(v) == LLVMAdd ||
        (LLVMGetInstructionOpcode(v) == LLVMOr && LLVMGetIsDisjoint(v))))
    return start;
  LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
  if (is_sreg(a, "tid.x")) {
    LLVMValueRef t = a;
    a = b;
    b = t;
  }
  if (!is_sreg(b, "tid.x") || !scaled(a, "ctaid.x", &scale, &reg))
    return start;
  if (!scaled(l->stride, "nctaid.x", &l->scale, &l->nctaid))
    return "it does not step by nctaid.x * ntid.x (the grid's threads)";
  if (!same_scale(scale, l->scale) || !block_width(l->scale, s))
    return "its start and step do not scale by the block's width ntid.x";
  return NULL;
}

/* Does terminator t continue to yes exactly when a < x (signed), for an x
 * it stores in *x? */
static int continues_if_slt(LLVMValueRef t, LLVMValueRef a,
                            LLVMBasicBlockRef yes, LLVMValueRef *x) {
  if (!t || LLVMGetInstructionOpcode(t) != LLVMBr || !LLVMIsConditional(t))
    return 0;
  LLVMValueRef c = LLVMGetCondition(t);
  if (!LLVMIsAICmpInst(c))
    return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(c);
  LLVMValueRef l = LLVMGetOperand(c, 0), r = LLVMGetOperand(c, 1);
  if (r == a && l != a) { /* x > a is a < x */
    r = l;
    l = a;
    p = p == LLVMIntSGT ? LLVMIntSLT : p == LLVMIntSLE ? LLVMIntSGE : LLVMIntEQ;
  }
  if (l != a)
    return 0;
  int on_true = LLVMGetSuccessor(t, 0) == yes;
  if (LLVMGetSuccessor(t, 0) == LLVMGetSuccessor(t, 1))
    return 0;
  if (!((p == LLVMIntSLT && on_true) || (p == LLVMIntSGE && !on_true)))
    return 0;
  *x = r;
  return 1;
}

/* Depth-first from the header, never back to it: the body's blocks in
 * reverse post-order. An edge to a block still on the path is an inner
 * loop. */
static const char *dfs(gsloop *l, LLVMBasicBlockRef bb, LLVMBasicBlockRef *all,
                       unsigned nall, int *state, LLVMBasicBlockRef *post,
                       unsigned *npost) {
  unsigned me = 0;
  while (all[me] != bb)
    me++;
  state[me] = 1;
  LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
  for (unsigned i = 0; i < LLVMGetNumSuccessors(t); i++) {
    LLVMBasicBlockRef s = LLVMGetSuccessor(t, i);
    unsigned k = 0;
    while (k < nall && all[k] != s)
      k++;
    if (k == nall || s == l->head)
      continue; /* the exit, or the back edge */
    if (state[k] == 1)
      return "it has an inner loop";
    if (state[k] == 0) {
      const char *why = dfs(l, s, all, nall, state, post, npost);
      if (why)
        return why;
    }
  }
  state[me] = 2;
  post[(*npost)++] = bb;
  return NULL;
}

/* The blocks that reach the latch without passing the header. */
static const char *collect(gsloop *l) {
  LLVMBasicBlockRef all[MAX_BLOCKS], p[MAX_BLOCKS + 1];
  unsigned nall = 0;
  all[nall++] = l->head;
  if (l->latch != l->head)
    all[nall++] = l->latch;
  for (unsigned i = 1; i < nall; i++) {
    unsigned np = ks_cfg_preds(l->cfg, all[i], p, MAX_BLOCKS + 1);
    if (np > MAX_BLOCKS)
      return "its body has too many branches";
    for (unsigned j = 0; j < np; j++) {
      unsigned k = 0;
      while (k < nall && all[k] != p[j])
        k++;
      if (k < nall)
        continue;
      if (nall == MAX_BLOCKS)
        return "its body has too many blocks";
      if (p[j] == LLVMGetEntryBasicBlock(l->fn))
        return "its body can be entered other than through its header";
      all[nall++] = p[j];
    }
  }
  int state[MAX_BLOCKS] = {0};
  LLVMBasicBlockRef post[MAX_BLOCKS];
  unsigned npost = 0;
  const char *why = dfs(l, l->head, all, nall, state, post, &npost);
  if (why)
    return why;
  if (npost != nall)
    return "its body can be entered other than through its header";
  for (unsigned i = 0; i < npost; i++)
    l->blocks[i] = post[npost - 1 - i];
  l->nblocks = npost;
  return NULL;
}

/* Entries, exits and terminators of the loop's blocks. */
static const char *check_edges(gsloop *l) {
  LLVMBasicBlockRef p[MAX_BLOCKS + 1];
  for (unsigned i = 0; i < l->nblocks; i++) {
    LLVMBasicBlockRef bb = l->blocks[i];
    unsigned np = ks_cfg_preds(l->cfg, bb, p, MAX_BLOCKS + 1);
    for (unsigned j = 0; j < np && j <= MAX_BLOCKS; j++)
      if (!in_loop(l, p[j]) && !(bb == l->head && p[j] == l->pre))
        return "its body can be entered other than through its header";
    if (np > MAX_BLOCKS)
      return "its body has too many branches";
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    LLVMOpcode opc = LLVMGetInstructionOpcode(t);
    if (opc != LLVMBr && opc != LLVMSwitch)
      return "its body leaves the loop other than by its exit test";
    for (unsigned j = 0; j < LLVMGetNumSuccessors(t); j++) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(t, j);
      if (!in_loop(l, s) && !(bb == l->latch && s == l->exit))
        return "it has more than one exit";
    }
  }
  return NULL;
}

/* Is v = phi + x? */
static int adds_to(LLVMValueRef v, LLVMValueRef phi) {
  return LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMAdd &&
         (LLVMGetOperand(v, 0) == phi || LLVMGetOperand(v, 1) == phi);
}

/* The header phi, the latch and its test, the body and its one exit. */
static const char *find_loop(gsloop *l) {
  LLVMBasicBlockRef head = LLVMGetInstructionParent(l->phi), p[3];
  if (LLVMCountIncoming(l->phi) != 2 || ks_cfg_preds(l->cfg, head, p, 3) != 2)
    return "its header does not have one preheader and one latch";
  LLVMBasicBlockRef b0 = LLVMGetIncomingBlock(l->phi, 0);
  LLVMBasicBlockRef b1 = LLVMGetIncomingBlock(l->phi, 1);
  if (b0 == b1 || !((b0 == p[0] && b1 == p[1]) || (b0 == p[1] && b1 == p[0])))
    return "its header does not have one preheader and one latch";
  unsigned back = adds_to(LLVMGetIncomingValue(l->phi, 0), l->phi) ? 0 : 1;
  l->head = head;
  l->next = LLVMGetIncomingValue(l->phi, back);
  l->latch = LLVMGetIncomingBlock(l->phi, back);
  l->gtid = LLVMGetIncomingValue(l->phi, !back);
  l->pre = LLVMGetIncomingBlock(l->phi, !back);
  if (LLVMGetTypeKind(LLVMTypeOf(l->phi)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMTypeOf(l->phi)) != 32)
    return "its index is not a 32-bit integer";
  LLVMValueRef t = LLVMGetBasicBlockTerminator(l->latch);
  if (!t || LLVMGetNumSuccessors(t) != 2)
    return "it does not test i + step < n at its latch (not a rotated loop)";
  l->exit = LLVMGetSuccessor(t, LLVMGetSuccessor(t, 0) == head ? 1 : 0);
  if (!continues_if_slt(t, l->next, head, &l->n))
    return "it does not test i + step < n at its latch (not a rotated loop)";
  const char *why = collect(l);
  return why ? why : check_edges(l);
}

/* i = [gtid, pre], [i + S, latch] while i < n, entered when gtid < n. */
static const char *check_bounds(gsloop *l, const ks_spec *s) {
  LLVMValueRef nx = l->next;
  if (!LLVMIsAInstruction(nx) || LLVMGetInstructionOpcode(nx) != LLVMAdd)
    return "it does not step by adding to its index";
  l->stride = LLVMGetOperand(nx, 0) == l->phi ? LLVMGetOperand(nx, 1)
                                              : LLVMGetOperand(nx, 0);
  if (LLVMGetOperand(nx, 0) != l->phi && LLVMGetOperand(nx, 1) != l->phi)
    return "it does not step by adding to its index";
  if (defined_in_loop(l, l->n) || !uniform(l->n, 0))
    return "its bound n is not the same in every thread";
  if (defined_in_loop(l, l->stride))
    return "its step changes in the loop";
  const char *why = check_gtid(l, s);
  if (why)
    return why;
  LLVMBasicBlockRef p[2];
  LLVMValueRef t = LLVMGetBasicBlockTerminator(l->pre), n2 = NULL;
  if (LLVMGetInstructionOpcode(t) != LLVMBr || LLVMIsConditional(t) ||
      LLVMIsAPHINode(LLVMGetFirstInstruction(l->pre)))
    return "it has no preheader";
  /* rotated: the first index runs before the test, so a guard must hold */
  if (ks_cfg_preds(l->cfg, l->pre, p, 2) != 1 ||
      !continues_if_slt(LLVMGetBasicBlockTerminator(p[0]), l->gtid, l->pre,
                        &n2) ||
      n2 != l->n)
    return "it is not entered exactly when gtid < n";
  if (LLVMGetFirstInstruction(l->exit) &&
      LLVMIsAPHINode(LLVMGetFirstInstruction(l->exit)))
    return "its exit block has phis";
  return NULL;
}

/* ---- the body ------------------------------------------------------------ */

/* Atomics of one kind commute with each other (add and sub together). */
static int commutative_kind(LLVMValueRef a) {
  switch (LLVMGetAtomicRMWBinOp(a)) {
  case LLVMAtomicRMWBinOpAdd:
  case LLVMAtomicRMWBinOpSub:
    return 0;
  case LLVMAtomicRMWBinOpAnd:
    return 1;
  case LLVMAtomicRMWBinOpOr:
    return 2;
  case LLVMAtomicRMWBinOpXor:
    return 3;
  case LLVMAtomicRMWBinOpMax:
    return 4;
  case LLVMAtomicRMWBinOpMin:
    return 5;
  case LLVMAtomicRMWBinOpUMax:
    return 6;
  case LLVMAtomicRMWBinOpUMin:
    return 7;
  default:
    return -1;
  }
}

/* Is load ld P[i] of an integer element, with i extended to 64 bits? */
int ks_coarsen_element_load(gsloop *l, LLVMValueRef ld) {
  LLVMValueRef g = LLVMGetOperand(ld, 0);
  LLVMTypeRef t = LLVMTypeOf(ld);
  if (!LLVMIsAGetElementPtrInst(g) || LLVMGetNumOperands(g) != 2 ||
      LLVMGetGEPSourceElementType(g) != t ||
      LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
      !LLVMIsAArgument(LLVMGetOperand(g, 0)))
    return 0;
  unsigned bits = LLVMGetIntTypeWidth(t);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return 0;
  LLVMValueRef x = LLVMGetOperand(g, 1);
  if (!LLVMIsASExtInst(x) && !LLVMIsAZExtInst(x))
    return 0;
  if (LLVMGetOperand(x, 0) != l->phi)
    return 0;
  if (l->arg)
    return l->arg == LLVMGetOperand(g, 0) && l->ety == t;
  if (LLVMGetInstructionParent(ld) != l->head)
    return 0; /* the first must run for every index */
  l->arg = LLVMGetOperand(g, 0);
  l->ety = t;
  l->esize = bits / 8;
  l->w = VEC_BYTES / l->esize;
  return 1;
}

static const char *check_atomic(gsloop *l, LLVMValueRef a) {
  int kind = commutative_kind(a);
  LLVMTypeRef t = LLVMTypeOf(a);
  if (kind < 0 || LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
    return "its body has an atomic that does not commute (not an integer "
           "add/sub/and/or/xor/min/max)";
  if (LLVMGetFirstUse(a))
    return "the result of an atomic in its body is used";
  if (LLVMGetVolatile(a))
    return "its body has a volatile atomic";
  if (l->kind >= 0 && l->kind != kind)
    return "its body mixes atomics of different kinds";
  l->kind = kind;
  LLVMValueRef q = ks_ir_base_of(LLVMGetOperand(a, 0));
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(a, 0)));
  if (as == AS_SHARED ||
      (LLVMIsAGlobalVariable(q) &&
       LLVMGetPointerAddressSpace(LLVMTypeOf(q)) == AS_SHARED))
    return "its atomics update shared memory, which each block reads back "
           "for itself";
  if (!LLVMIsAArgument(q) || !is_noalias(l->fn, q))
    return "its atomics do not update a noalias (__restrict__) pointer "
           "argument";
  for (unsigned i = 0; i < l->ntargets; i++)
    if (l->targets[i] == q)
      return NULL;
  if (l->ntargets == MAX_TARGETS)
    return "its atomics update too many arguments";
  l->targets[l->ntargets++] = q;
  return NULL;
}

static const char *check_call(LLVMValueRef v) {
  if (is_convergent(v))
    return "its body has a barrier or warp-synchronous operation";
  const char *s = ks_ir_sreg(v);
  if (s && !uniform_sreg(s))
    return "its body reads a register that differs between threads";
  if (!pure_intrinsic(v))
    return "its body calls a function with side effects";
  return NULL;
}

/* Loads in the body read global memory through an argument or global. */
static const char *check_load(gsloop *l, LLVMValueRef ld) {
  if (LLVMGetVolatile(ld) || LLVMGetOrdering(ld) != LLVMAtomicOrderingNotAtomic)
    return "its body has a volatile or atomic load";
  if (ks_coarsen_element_load(l, ld))
    return NULL;
  LLVMValueRef p = LLVMGetOperand(ld, 0), base = ks_ir_base_of(p);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  if (as == AS_SHARED || as == AS_LOCAL)
    return "its body loads shared or thread-private memory";
  if (LLVMIsAArgument(base) ||
      (LLVMIsAGlobalVariable(base) &&
       LLVMGetPointerAddressSpace(LLVMTypeOf(base)) != AS_SHARED &&
       LLVMGetPointerAddressSpace(LLVMTypeOf(base)) != AS_LOCAL))
    return NULL;
  return "its body loads through a pointer kspec cannot trace to an "
         "argument";
}

static const char *check_inst(gsloop *l, LLVMValueRef v) {
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMPHI:
    if (LLVMGetInstructionParent(v) == l->head && v != l->phi)
      return "it carries a second value from one iteration to the next";
    return NULL;
  case LLVMStore:
    return "its body stores to memory";
  case LLVMLoad:
    return check_load(l, v);
  case LLVMAtomicRMW:
    return check_atomic(l, v);
  case LLVMCall:
    return check_call(v);
  case LLVMBr:
  case LLVMSwitch:
  case LLVMGetElementPtr:
  case LLVMICmp:
  case LLVMSelect:
  case LLVMFreeze:
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMExtractValue:
  case LLVMInsertValue:
    return NULL;
  default:
    if (LLVMIsABinaryOperator(v) || LLVMIsACastInst(v) || LLVMIsAFCmpInst(v))
      return NULL;
    return "its body has an instruction kspec does not model (fence, "
           "cmpxchg, alloca, ...)";
  }
}

/* Every instruction of the loop, its operands and its uses. */
static const char *check_body(gsloop *l) {
  for (unsigned b = 0; b < l->nblocks; b++)
    for (LLVMValueRef v = LLVMGetFirstInstruction(l->blocks[b]); v;
         v = LLVMGetNextInstruction(v)) {
      if (++l->ninsts > MAX_INSTS)
        return "its body is too large";
      const char *why = check_inst(l, v);
      if (why)
        return why;
      for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
        if (!defined_in_loop(l, LLVMGetUser(u)))
          return "a value computed in the loop is used after it";
      for (int i = 0; v != l->phi && i < LLVMGetNumOperands(v); i++) {
        LLVMValueRef op = LLVMGetOperand(v, i);
        if (LLVMIsAInstruction(op) && !defined_in_loop(l, op) &&
            !uniform(op, 0))
          return "its body uses a value that differs between threads "
                 "other than its index";
      }
    }
  if (!l->arg)
    return "its body loads no integer element P[i] of an argument in its "
           "first block";
  if (l->ntargets == 0)
    return "its body updates nothing by atomics";
  if (l->w * l->ninsts > MAX_CLONED)
    return "its body is too large to copy";
  return NULL;
}

/* ---- the kernel as a whole ----------------------------------------------- */

/* Are all uses of v (a target or a pointer derived from it) atomics of
 * the loop's kind with unused results? */
static int only_atomics(const gsloop *l, LLVMValueRef v, unsigned depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef x = LLVMGetUser(u);
    if (depth < 16 &&
        ((LLVMIsAGetElementPtrInst(x) && LLVMGetOperand(x, 0) == v) ||
         LLVMIsAAddrSpaceCastInst(x) || LLVMIsABitCastInst(x))) {
      if (!only_atomics(l, x, depth + 1))
        return 0;
    } else if (!LLVMIsAAtomicRMWInst(x) || LLVMGetOperand(x, 0) != v ||
               LLVMGetOperand(x, 1) == v || LLVMGetFirstUse(x) ||
               LLVMGetVolatile(x) || commutative_kind(x) != l->kind) {
      return 0;
    }
  }
  return 1;
}

/* Does the write through p go to thread-private memory? */
static int private_write(LLVMValueRef p) {
  LLVMValueRef base = ks_ir_base_of(p);
  return LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == AS_LOCAL ||
         LLVMIsAAllocaInst(base);
}

static int is_target(const gsloop *l, LLVMValueRef p) {
  LLVMValueRef base = ks_ir_base_of(p);
  for (unsigned i = 0; i < l->ntargets; i++)
    if (l->targets[i] == base)
      return 1;
  return 0;
}

/* Why instruction v may write memory other than the targets', or NULL. */
static const char *other_write(const gsloop *l, LLVMValueRef v) {
  if (LLVMIsAStoreInst(v) && !private_write(LLVMGetOperand(v, 1)))
    return "the kernel stores to memory";
  if (LLVMIsAAtomicCmpXchgInst(v) ||
      (LLVMIsAAtomicRMWInst(v) && !is_target(l, LLVMGetOperand(v, 0))))
    return "the kernel has other atomics";
  if (!LLVMIsACallInst(v))
    return NULL;
  LLVMValueRef f = callee_of(v);
  if (!f || !LLVMGetIntrinsicID(f))
    return "the kernel calls a function";
  for (unsigned i = 0; i < LLVMGetNumArgOperands(v); i++) {
    LLVMValueRef a = LLVMGetOperand(v, i);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind &&
        !private_write(a))
      return "the kernel passes a pointer to an intrinsic";
  }
  return NULL;
}

/* The targets are written only by the loop's kind of atomics, and nothing
 * else in the kernel writes memory other threads can see. */
static const char *check_kernel(const gsloop *l) {
  for (unsigned i = 0; i < l->ntargets; i++)
    if (!only_atomics(l, l->targets[i], 0))
      return "an argument its atomics update is also accessed otherwise";
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(l->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef v = LLVMGetFirstInstruction(bb); v;
         v = LLVMGetNextInstruction(v)) {
      const char *why = other_write(l, v);
      if (why)
        return why;
    }
  return NULL;
}

/* ---- the pass ------------------------------------------------------------ */

/* Is phi the index of a loop: one incoming value adds to it? */
static int looks_like_index(LLVMValueRef phi) {
  for (unsigned i = 0; i < LLVMCountIncoming(phi); i++)
    if (adds_to(LLVMGetIncomingValue(phi, i), phi))
      return 1;
  return 0;
}

static const char *analyze(gsloop *l, const ks_spec *s) {
  const char *why = find_loop(l);
  if (!why)
    why = check_bounds(l, s);
  if (!why)
    why = check_body(l);
  if (!why)
    why = check_kernel(l);
  if (!why && LLVMByteOrder(LLVMGetModuleDataLayout(
                  LLVMGetGlobalParent(l->fn))) != LLVMLittleEndian)
    why = "the target is big-endian";
  return why;
}

int ks_pass_coarsen(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "coarsen: no kernel '%s'", s->kernel);
  LLVMValueRef cand[64];
  unsigned ncand = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef v = LLVMGetFirstInstruction(bb);
         v && LLVMIsAPHINode(v) && ncand < 64; v = LLVMGetNextInstruction(v))
      if (looks_like_index(v))
        cand[ncand++] = v;
  if (ncand == 0) {
    ks_diag_explain(d, PASS, "no loop to coarsen");
    return 0;
  }
  ks_cfg cfg;
  if (ks_cfg_build(&cfg, fn))
    return ks_diag_fail(d, KS_ENOMEM, "coarsen: out of memory");
  int done = 0, rc = 0;
  for (unsigned i = 0; i < ncand && !rc; i++) {
    gsloop l = {.fn = fn, .cfg = &cfg, .phi = cand[i], .kind = -1};
    const char *why =
        done ? "only one loop per kernel is coarsened" : analyze(&l, s);
    if (why) {
      ks_diag_explain(d, PASS, "declined loop %s: %s", name_of(cand[i]), why);
      continue;
    }
    if (ks_coarsen_transform(LLVMGetModuleContext(m), &l)) {
      rc = ks_diag_fail(d, KS_ENOMEM, "coarsen: out of memory");
      break;
    }
    done = 1;
    ks_diag_explain(
        d, PASS,
        "coarsened loop %s: %u elements of %s (%u B) per 16-byte load, "
        "%u copies of the body (%u instructions); the loop itself "
        "runs on for the last n %% %u elements, or for all when %s is "
        "not 16-byte aligned",
        name_of(l.phi), l.w, name_of(l.arg), l.esize, l.w, l.ninsts, l.w,
        name_of(l.arg));
  }
  ks_cfg_free(&cfg);
  return rc;
}
