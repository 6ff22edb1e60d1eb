/*
 * gcoarsen_emit.c - grid coarsening's transformation (gcoarsen.c finds the
 * region and argues why the sums stay the same): the grid.x parameter, the
 * loop over the group's virtual blocks that runs the region and sums its
 * value, the check of the region's branch ahead of the group, and the fast
 * loop kept rolled.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/gcoarsen.h"

/* ---- the transformation ----------------------------------------------------
 */

/* Replaces c->fn by a copy with a trailing i32 parameter, the user's
 * grid.x; the blocks move over. NULL on no memory. */
LLVMValueRef ks_gc_add_grid_param(gc *c) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->lc);
  const char *name = "ks.grid_x";
  return ks_ir_add_params(c->fn, &i32, &name, 1);
}

LLVMValueRef ks_gc_first_non_phi(LLVMBasicBlockRef bb) {
  LLVMValueRef i = LLVMGetFirstInstruction(bb);
  while (i && LLVMIsAPHINode(i))
    i = LLVMGetNextInstruction(i);
  return i;
}

/* Moves the instructions of bb before p into a new block that takes bb's
 * place (predecessors, entry); returns it, without a terminator. */
LLVMBasicBlockRef ks_gc_split_before(gc *c, LLVMBuilderRef b,
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
void ks_gc_drop_flags(gc *c) {
  for (int k = 0; k < c->ninst; k++) {
    LLVMValueRef i = c->inst[k];
    if (!ks_gc_vset_has(&c->additive, i) || LLVMIsALoadInst(i) ||
        LLVMIsACallInst(i))
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
 * Unrolled by the optimize stage, the C copies of the region were much of
 * what it and codegen then worked on (reduce_sum: about a fifth of a
 * specialization; BENCHMARKS.md). Kept rolled, ptxas unrolls the loop itself,
 * but it cannot fold the copies' addresses into one base and constant offsets:
 * base[sext(idx)] with a 32-bit idx that may wrap from one block to the
 * next. Where each load's idx grows by a constant step per virtual block
 * and the group's 32-bit indices provably do not wrap (checked at run time,
 * from the first block's), the loop reads through a pointer that moves by
 * that step instead, and ptxas makes the same machine code as from the
 * unrolled copies.
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
  if (!ks_gc_vset_has(&c->in_range, x)) {
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
    if (!ks_gc_vset_has(&c->in_range, p))
      continue; /* the same address in every block */
    if (w->n == MAX_WALK || LLVMGetVolatile(ld) ||
        LLVMGetOrdering(ld) != LLVMAtomicOrderingNotAtomic ||
        !LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2 ||
        ks_gc_vset_has(&c->in_range, LLVMGetOperand(p, 0)))
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
  if (y != x || !ks_gc_vset_has(&c->in_range, x))
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

/* Does i only compute: no memory, call, phi or division? */
static int computes_only(LLVMValueRef i) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (ks_ir_int_binop(op))
    return op != LLVMUDiv && op != LLVMSDiv && op != LLVMURem && op != LLVMSRem;
  return op == LLVMICmp || op == LLVMTrunc || op == LLVMZExt ||
         op == LLVMSExt || op == LLVMSelect || op == LLVMFreeze;
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
    if (i != br && (!computes_only(i) || ++n > MAX_CHECK))
      return 0;
    for (int k = 0; k < LLVMGetNumOperands(i); k++) {
      LLVMValueRef o = LLVMGetOperand(i, (unsigned)k);
      if (!ks_gc_vset_has(&c->in_range, o))
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
int ks_gc_build_loop(gc *c, LLVMBuilderRef b, LLVMBasicBlockRef head,
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