/*
 * coarsen_emit.c - grid-stride loop coarsening's transformation (coarsen.c
 * finds the loop and argues why it is sound): a vector loop before the
 * original, whose body is W copies of the original's, each taking its
 * element out of one 16-byte load; the original loop finishes the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/coarsen.h"

/* ---- the transformation -------------------------------------------------- */

typedef struct emit {
  LLVMContextRef c;
  LLVMBuilderRef b;
  LLVMTypeRef i32, i64;
  LLVMValueRef v, q, base; /* vector index, its 16 bytes, W * v */
  LLVMValueRef *from, *to; /* the current copy's value map */
  unsigned nmap;
} emit;

static LLVMValueRef c32(emit *E, unsigned long long v) {
  return LLVMConstInt(E->i32, v, 0);
}

static unsigned log2u(unsigned v) {
  unsigned k = 0;
  while ((1u << k) < v)
    k++;
  return k;
}

/* nv = (P % 16 == 0 && n > 0 && nctaid.x * ntid.x < 2^31) ? n / W : 0 */
static LLVMValueRef emit_nv(emit *E, const gsloop *l) {
  LLVMBuilderRef b = E->b;
  LLVMValueRef pi = LLVMBuildPtrToInt(b, l->arg, E->i64, "ks.p");
  LLVMValueRef mis =
      LLVMBuildAnd(b, pi, LLVMConstInt(E->i64, VEC_BYTES - 1, 0), "");
  LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, mis, LLVMConstInt(E->i64, 0, 0),
                                  "ks.aligned");
  LLVMValueRef pos = LLVMBuildICmp(b, LLVMIntSGT, l->n, c32(E, 0), "");
  ok = LLVMBuildAnd(b, ok, pos, "");
  LLVMValueRef nct = LLVMBuildZExt(b, l->nctaid, E->i64, "");
  LLVMValueRef nt = LLVMBuildZExt(b, l->scale, E->i64, "");
  LLVMValueRef t = LLVMBuildNUWMul(b, nct, nt, "ks.threads");
  LLVMValueRef fits =
      LLVMBuildICmp(b, LLVMIntULT, t, LLVMConstInt(E->i64, 1ull << 31, 0), "");
  ok = LLVMBuildAnd(b, ok, fits, "ks.vector");
  LLVMValueRef nw = LLVMBuildLShr(b, l->n, c32(E, log2u(l->w)), "");
  return LLVMBuildSelect(b, ok, nw, c32(E, 0), "ks.nv");
}

static LLVMValueRef lookup(emit *E, LLVMValueRef v) {
  for (unsigned i = 0; i < E->nmap; i++)
    if (E->from[i] == v)
      return E->to[i];
  return NULL;
}

static void map(emit *E, LLVMValueRef from, LLVMValueRef to) {
  E->from[E->nmap] = from;
  E->to[E->nmap++] = to;
}

/* Element b of the 16 bytes in q, as the element type. */
static LLVMValueRef emit_element(emit *E, const gsloop *l, unsigned b) {
  if (l->esize >= 4)
    return LLVMBuildExtractElement(E->b, E->q, c32(E, b), "ks.elem");
  unsigned per = 4 / l->esize; /* elements per 32-bit word, little-endian */
  LLVMValueRef word =
      LLVMBuildExtractElement(E->b, E->q, c32(E, b / per), "ks.word");
  if (b % per)
    word = LLVMBuildLShr(E->b, word, c32(E, 8 * l->esize * (b % per)), "");
  return LLVMBuildTrunc(E->b, word, l->ety, "ks.elem");
}

/* The copy of instruction v in the current copy of the body. */
static void clone_inst(emit *E, LLVMValueRef v,
                       LLVMBasicBlockRef (*bb_of)(void *, LLVMBasicBlockRef),
                       void *env) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(v, &len);
  LLVMValueRef c;
  if (LLVMIsAPHINode(v)) { /* incoming values once all are copied */
    c = LLVMBuildPhi(E->b, LLVMTypeOf(v), name);
  } else {
    c = LLVMInstructionClone(v);
    LLVMInsertIntoBuilderWithName(E->b, c, name);
    for (int i = 0; i < LLVMGetNumOperands(c); i++) {
      LLVMValueRef op = LLVMGetOperand(c, i), to = lookup(E, op);
      if (to)
        LLVMSetOperand(c, (unsigned)i, to);
    }
    if (LLVMIsATerminatorInst(c))
      for (unsigned i = 0; i < LLVMGetNumSuccessors(c); i++)
        LLVMSetSuccessor(c, i, bb_of(env, LLVMGetSuccessor(c, i)));
  }
  map(E, v, c);
}

typedef struct copy {
  const gsloop *l;
  LLVMBasicBlockRef *bbs; /* the copies of l->blocks */
} copy;

static LLVMBasicBlockRef copy_bb(void *env, LLVMBasicBlockRef bb) {
  copy *k = env;
  for (unsigned i = 0; i < k->l->nblocks; i++)
    if (k->l->blocks[i] == bb)
      return k->bbs[i];
  return bb;
}

/* Copy b of the body at index W*v + b, into bbs, then on to after. */
static void emit_copy(emit *E, gsloop *l, unsigned b, LLVMBasicBlockRef *bbs,
                      LLVMBasicBlockRef after) {
  copy k = {l, bbs};
  E->nmap = 0;
  LLVMPositionBuilderAtEnd(E->b, bbs[0]);
  LLVMValueRef i = LLVMBuildNUWAdd(E->b, E->base, c32(E, b), "ks.i");
  LLVMSetNSW(i, 1);
  map(E, l->phi, i);
  LLVMValueRef elem = emit_element(E, l, b);
  for (unsigned x = 0; x < l->nblocks; x++) {
    LLVMPositionBuilderAtEnd(E->b, bbs[x]);
    for (LLVMValueRef v = LLVMGetFirstInstruction(l->blocks[x]); v;
         v = LLVMGetNextInstruction(v)) {
      if (v == l->phi)
        continue;
      if (LLVMIsALoadInst(v) && ks_coarsen_element_load(l, v)) {
        map(E, v, elem);
        continue;
      }
      if (v == LLVMGetBasicBlockTerminator(l->latch)) {
        LLVMBuildBr(E->b, after);
        continue;
      }
      clone_inst(E, v, copy_bb, &k);
    }
  }
  for (unsigned x = 0; x < l->nblocks; x++) /* the body's own phis */
    for (LLVMValueRef v = LLVMGetFirstInstruction(l->blocks[x]);
         v && LLVMIsAPHINode(v); v = LLVMGetNextInstruction(v)) {
      if (v == l->phi)
        continue;
      LLVMValueRef c = lookup(E, v);
      for (unsigned j = 0; j < LLVMCountIncoming(v); j++) {
        LLVMValueRef in = LLVMGetIncomingValue(v, j), to = lookup(E, in);
        LLVMBasicBlockRef from = copy_bb(&k, LLVMGetIncomingBlock(v, j));
        LLVMAddIncoming(c, to ? &to : &in, &from, 1);
      }
    }
}

/* The vector loop, between the preheader and a new block that enters the
 * old loop at W*nv + gtid. */
int ks_coarsen_transform(LLVMContextRef c, gsloop *l) {
  emit E = {.c = c,
            .b = LLVMCreateBuilderInContext(c),
            .i32 = LLVMInt32TypeInContext(c),
            .i64 = LLVMInt64TypeInContext(c)};
  LLVMBasicBlockRef *bbs = malloc((size_t)l->w * l->nblocks * sizeof *bbs);
  E.from = malloc(2 * (l->ninsts + 1) * sizeof *E.from);
  E.to = E.from ? E.from + l->ninsts + 1 : NULL;
  if (!bbs || !E.from) {
    free(bbs);
    free(E.from);
    LLVMDisposeBuilder(E.b);
    return 1;
  }
  LLVMBasicBlockRef at = l->head;
  LLVMBasicBlockRef pre = LLVMInsertBasicBlockInContext(c, at, "ks.vec.pre");
  LLVMBasicBlockRef body = LLVMInsertBasicBlockInContext(c, at, "ks.vec");
  for (unsigned i = 0; i < l->w * l->nblocks; i++)
    bbs[i] = LLVMInsertBasicBlockInContext(c, at, "ks.vec.body");
  LLVMBasicBlockRef latch =
      LLVMInsertBasicBlockInContext(c, at, "ks.vec.latch");
  LLVMBasicBlockRef done = LLVMInsertBasicBlockInContext(c, at, "ks.vec.done");

  LLVMValueRef br = LLVMGetBasicBlockTerminator(l->pre);
  LLVMSetSuccessor(br, 0, pre);
  LLVMPositionBuilderAtEnd(E.b, pre);
  LLVMValueRef nv = emit_nv(&E, l);
  LLVMBuildCondBr(E.b, LLVMBuildICmp(E.b, LLVMIntULT, l->gtid, nv, ""), body,
                  done);

  LLVMPositionBuilderAtEnd(E.b, body);
  E.v = LLVMBuildPhi(E.b, E.i32, "ks.v");
  LLVMValueRef off = LLVMBuildShl(E.b, LLVMBuildZExt(E.b, E.v, E.i64, ""),
                                  LLVMConstInt(E.i64, 4, 0), "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(E.b, LLVMInt8TypeInContext(c), l->arg,
                                         &off, 1, "ks.vp");
  LLVMTypeRef vt =
      l->esize == 8 ? LLVMVectorType(E.i64, 2) : LLVMVectorType(E.i32, 4);
  E.q = LLVMBuildLoad2(E.b, vt, p, "ks.q");
  LLVMSetAlignment(E.q, VEC_BYTES);
  unsigned inv = LLVMGetMDKindIDInContext(c, "invariant.load", 14);
  LLVMSetMetadata(E.q, inv,
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0)));
  E.base = LLVMBuildNUWMul(E.b, E.v, c32(&E, l->w), "ks.base");
  LLVMSetNSW(E.base, 1);
  LLVMBuildBr(E.b, bbs[0]);
  for (unsigned b = 0; b < l->w; b++)
    emit_copy(&E, l, b, bbs + b * l->nblocks,
              b + 1 < l->w ? bbs[(b + 1) * l->nblocks] : latch);

  LLVMPositionBuilderAtEnd(E.b, latch);
  LLVMValueRef vn = LLVMBuildNUWAdd(E.b, E.v, l->stride, "ks.v.next");
  LLVMValueRef back = LLVMBuildCondBr(
      E.b, LLVMBuildICmp(E.b, LLVMIntULT, vn, nv, ""), body, done);
  LLVMAddIncoming(E.v, &l->gtid, &pre, 1);
  LLVMAddIncoming(E.v, &vn, &latch, 1);

  /* i0 = W*nv + gtid; with nv == 0 the old guard (gtid < n) held. */
  LLVMPositionBuilderAtEnd(E.b, done);
  LLVMValueRef i0 = LLVMBuildNUWAdd(
      E.b, LLVMBuildNUWMul(E.b, nv, c32(&E, l->w), ""), l->gtid, "ks.i0");
  LLVMValueRef none = LLVMBuildICmp(E.b, LLVMIntEQ, nv, c32(&E, 0), "");
  LLVMValueRef below = LLVMBuildICmp(E.b, LLVMIntULT, i0, l->n, "");
  LLVMValueRef go = LLVMBuildOr(E.b, none, below, "");
  LLVMBuildCondBr(E.b, go, l->head, l->exit);

  LLVMPositionBuilderBefore(E.b, l->phi);
  LLVMValueRef phi = LLVMBuildPhi(E.b, E.i32, "");
  LLVMAddIncoming(phi, &i0, &done, 1);
  LLVMAddIncoming(phi, &l->next, &l->latch, 1);
  LLVMReplaceAllUsesWith(l->phi, phi);
  size_t len = 0;
  const char *name = LLVMGetValueName2(l->phi, &len);
  char keep[128];
  snprintf(keep, sizeof keep, "%.*s", (int)(len < 127 ? len : 127), name);
  LLVMInstructionEraseFromParent(l->phi);
  LLVMSetValueName2(phi, keep, strlen(keep));
  l->phi = phi;
  free(bbs);
  free(E.from);
  LLVMDisposeBuilder(E.b);
  /* Both loops step by the grid's size, which only the launch tells: LLVM's
   * loop-unroll finds nothing to do in them (it would only put them in its
   * canonical form, a cost), ptxas unrolls them as it sees fit. */
  return ks_loops_keep_rolled_here(back) ||
         ks_loops_keep_rolled_here(LLVMGetBasicBlockTerminator(l->latch));
}
