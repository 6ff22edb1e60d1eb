/*
 * shfl_find.c - the shfl stage's reading of a kernel: values as functions
 * of the thread index, and the steps of a tree reduction (guarded by tid < s
 * or run by the first warp alone) found in its blocks. shfl.c says what
 * the stage does with them and why the rewrite keeps the result.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/shfl.h"

/* ---- values as functions of the thread index --------------------------- */

int ks_shfl_opcode_of(LLVMValueRef v) {
  if (LLVMIsAInstruction(v))
    return LLVMGetInstructionOpcode(v);
  if (LLVMIsAConstantExpr(v))
    return LLVMGetConstOpcode(v);
  return 0;
}

static int is_tid(LLVMValueRef v) {
  const char *r = ks_ir_sreg(v);
  return r && strcmp(r, "tid.x") == 0;
}

unsigned ks_shfl_int_width(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

static uint64_t trim(uint64_t x, unsigned w) {
  return w >= 64 ? x : x & ((1ull << w) - 1);
}

static int64_t widen(uint64_t x, unsigned w) {
  return w >= 64 ? (int64_t)x : (int64_t)(x << (64 - w)) >> (64 - w);
}

static int icmp_eval(LLVMValueRef v, uint64_t a, uint64_t b, unsigned w,
                     uint64_t *out) {
  int64_t sa = widen(a, w), sb = widen(b, w);
  switch (LLVMGetICmpPredicate(v)) {
  case LLVMIntEQ:
    *out = a == b;
    break;
  case LLVMIntNE:
    *out = a != b;
    break;
  case LLVMIntULT:
    *out = a < b;
    break;
  case LLVMIntULE:
    *out = a <= b;
    break;
  case LLVMIntUGT:
    *out = a > b;
    break;
  case LLVMIntUGE:
    *out = a >= b;
    break;
  case LLVMIntSLT:
    *out = sa < sb;
    break;
  case LLVMIntSLE:
    *out = sa <= sb;
    break;
  case LLVMIntSGT:
    *out = sa > sb;
    break;
  case LLVMIntSGE:
    *out = sa >= sb;
    break;
  default:
    return 0;
  }
  return 1;
}

/* The arithmetic of two operands of width w; 0 where it is undefined. */
static int binary_eval(int op, uint64_t a, uint64_t b, unsigned w,
                       uint64_t *out) {
  uint64_t r;
  switch (op) {
  case LLVMAdd:
    r = a + b;
    break;
  case LLVMSub:
    r = a - b;
    break;
  case LLVMMul:
    r = a * b;
    break;
  case LLVMAnd:
    r = a & b;
    break;
  case LLVMOr:
    r = a | b;
    break;
  case LLVMXor:
    r = a ^ b;
    break;
  case LLVMShl:
    if (b >= w)
      return 0;
    r = a << b;
    break;
  case LLVMLShr:
    if (b >= w)
      return 0;
    r = a >> b;
    break;
  case LLVMAShr:
    if (b >= w)
      return 0;
    r = (uint64_t)(widen(a, w) >> b);
    break;
  case LLVMUDiv:
    if (!b)
      return 0;
    r = a / b;
    break;
  case LLVMURem:
    if (!b)
      return 0;
    r = a % b;
    break;
  default:
    return 0;
  }
  *out = trim(r, w);
  return 1;
}

/* v's value in thread tid, where it depends on nothing but constants and
 * the thread index along x: 1 and *out (v's bits, zero-extended), else 0. */
int ks_shfl_eval(LLVMValueRef v, unsigned tid, uint64_t *out, int depth) {
  unsigned w = ks_shfl_int_width(v);
  if (!w || w > 64 || depth > 24)
    return 0;
  if (LLVMIsAConstantInt(v)) {
    *out = trim(LLVMConstIntGetZExtValue(v), w);
    return 1;
  }
  if (is_tid(v)) {
    *out = tid;
    return 1;
  }
  int op = ks_shfl_opcode_of(v);
  uint64_t a, b;
  if (!op || LLVMGetNumOperands(v) < 1)
    return 0;
  if (op == LLVMSelect) {
    if (!ks_shfl_eval(LLVMGetOperand(v, 0), tid, &a, depth + 1))
      return 0;
    return ks_shfl_eval(LLVMGetOperand(v, a ? 1 : 2), tid, out, depth + 1);
  }
  LLVMValueRef x = LLVMGetOperand(v, 0);
  unsigned wx = ks_shfl_int_width(x);
  if (!ks_shfl_eval(x, tid, &a, depth + 1))
    return 0;
  if (op == LLVMZExt || op == LLVMTrunc) {
    *out = trim(a, w);
    return 1;
  }
  if (op == LLVMSExt) {
    *out = trim((uint64_t)widen(a, wx), w);
    return 1;
  }
  if (LLVMGetNumOperands(v) != 2 ||
      !ks_shfl_eval(LLVMGetOperand(v, 1), tid, &b, depth + 1))
    return 0;
  if (op == LLVMICmp)
    return icmp_eval(v, a, b, wx, out);
  return binary_eval(op, a, b, w, out);
}

/* Where pointer p points in thread tid: its object (*base) and the byte
 * offset in it, through casts and GEPs whose indices eval reads. */
static int addr(tree *t, LLVMValueRef p, unsigned tid, LLVMValueRef *base,
                int64_t *off, int depth) {
  if (depth > 16)
    return 0;
  if (LLVMIsAGlobalVariable(p)) {
    *base = p;
    *off = 0;
    return 1;
  }
  int op = ks_shfl_opcode_of(p);
  if (op == LLVMAddrSpaceCast || op == LLVMBitCast)
    return addr(t, LLVMGetOperand(p, 0), tid, base, off, depth + 1);
  if (op != LLVMGetElementPtr ||
      !addr(t, LLVMGetOperand(p, 0), tid, base, off, depth + 1))
    return 0;
  LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
  unsigned n = LLVMGetNumOperands(p);
  for (unsigned i = 1; i < n; i++) {
    uint64_t x;
    LLVMValueRef ix = LLVMGetOperand(p, i);
    if (!ks_shfl_eval(ix, tid, &x, 0))
      return 0;
    int64_t sx = widen(x, ks_shfl_int_width(ix));
    if (i > 1) {
      LLVMTypeKind k = LLVMGetTypeKind(ty);
      if (k == LLVMStructTypeKind) {
        *off += (int64_t)LLVMOffsetOfElement(t->dl, ty, (unsigned)sx);
        ty = LLVMStructGetTypeAtIndex(ty, (unsigned)sx);
        continue;
      }
      if (k != LLVMArrayTypeKind)
        return 0;
      ty = LLVMGetElementType(ty);
    }
    *off += sx * (int64_t)LLVMABISizeOfType(t->dl, ty);
  }
  return 1;
}

/* The element of t->g that pointer p reaches in thread tid; -1 when it is
 * not a whole element of it within MAX_ELEMS. */
int ks_shfl_elem_at(tree *t, LLVMValueRef p, unsigned tid) {
  LLVMValueRef base = NULL;
  int64_t off = 0;
  if (!addr(t, p, tid, &base, &off, 0) || base != t->g || off < 0 ||
      off % t->esize || off / t->esize >= MAX_ELEMS)
    return -1;
  return (int)(off / t->esize);
}

/* ---- recognizing steps ------------------------------------------------- */

/* Does i neither access memory nor order it (arithmetic, special
 * registers, intrinsics that write nothing)? */
int ks_shfl_plain(LLVMValueRef i) {
  if (LLVMIsALoadInst(i) || LLVMIsAStoreInst(i) || LLVMIsAAtomicRMWInst(i) ||
      LLVMIsAAtomicCmpXchgInst(i) || LLVMIsAFenceInst(i))
    return 0;
  if (LLVMIsACallInst(i))
    return !ks_ir_is_barrier(i) && (ks_ir_sreg(i) || ks_ir_pure_call(i));
  return 1;
}

static int one_use(LLVMValueRef v) {
  LLVMUseRef u = LLVMGetFirstUse(v);
  return u && !LLVMGetNextUse(u);
}

LLVMValueRef ks_shfl_shared_base(LLVMValueRef p) {
  LLVMValueRef b = ks_ir_base_of(p);
  return b && LLVMIsAGlobalVariable(b) &&
                 LLVMGetPointerAddressSpace(LLVMTypeOf(b)) == 3
             ? b
             : NULL;
}

static int simple_load(LLVMValueRef v, LLVMBasicBlockRef bb) {
  return v && LLVMIsALoadInst(v) && LLVMGetInstructionParent(v) == bb &&
         LLVMGetOrdering(v) == LLVMAtomicOrderingNotAtomic;
}

/* The operation of a step: a binary operator or a call of an intrinsic
 * of two arguments, whose operands are two loads of bb. */
static int step_op(LLVMValueRef op, LLVMBasicBlockRef bb) {
  if (!op || !LLVMIsAInstruction(op) || LLVMGetInstructionParent(op) != bb)
    return 0;
  if (LLVMIsACallInst(op)) {
    LLVMValueRef f = LLVMGetCalledValue(op);
    if (!f || !LLVMIsAFunction(f) || !LLVMGetIntrinsicID(f) ||
        LLVMGetNumArgOperands(op) != 2 || !ks_ir_pure_call(op))
      return 0;
  } else if (!LLVMIsABinaryOperator(op)) {
    return 0;
  }
  return simple_load(LLVMGetOperand(op, 0), bb) &&
         simple_load(LLVMGetOperand(op, 1), bb) &&
         LLVMGetOperand(op, 0) != LLVMGetOperand(op, 1);
}

/* Is store st a step, sh[i] = op(sh[j], sh[k]) on one shared array, each
 * value used once? Fills o's st, op, la, lb. */
static int match_step(LLVMValueRef st, step *o) {
  if (!LLVMIsAStoreInst(st) ||
      LLVMGetOrdering(st) != LLVMAtomicOrderingNotAtomic)
    return 0;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(st);
  LLVMValueRef op = LLVMGetOperand(st, 0);
  if (!step_op(op, bb))
    return 0;
  LLVMValueRef la = LLVMGetOperand(op, 0), lb = LLVMGetOperand(op, 1);
  LLVMValueRef g = ks_shfl_shared_base(LLVMGetOperand(st, 1));
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(op));
  unsigned w = ks_shfl_int_width(op);
  if (!g || ks_shfl_shared_base(LLVMGetOperand(la, 0)) != g ||
      ks_shfl_shared_base(LLVMGetOperand(lb, 0)) != g ||
      !(k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind || w == 32 ||
        w == 64))
    return 0;
  if (!one_use(op) || !one_use(la) || !one_use(lb))
    return 0;
  *o = (step){.st = st, .op = op, .la = la, .lb = lb};
  return 1;
}

/* Does bb enter at a block-wide barrier (it has no phis then)? */
static int starts_with_barrier(LLVMBasicBlockRef bb) {
  LLVMValueRef i = LLVMGetFirstInstruction(bb);
  return i && ks_ir_barrier_kind(i) == KS_BARRIER_BLOCK;
}

int ks_shfl_has_block_barrier(LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (ks_ir_barrier_kind(i) == KS_BARRIER_BLOCK)
      return 1;
  return 0;
}

/* Is body a guarded step's block: entered by one branch, one step and
 * plain instructions used in it alone, then on to join? */
static int step_body(LLVMBasicBlockRef body, LLVMBasicBlockRef join, step *o) {
  LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(body));
  LLVMValueRef term = LLVMGetBasicBlockTerminator(body);
  if (!u || LLVMGetNextUse(u) || !term || !LLVMIsABranchInst(term) ||
      LLVMIsConditional(term) || LLVMGetNumSuccessors(term) != 1 ||
      LLVMGetSuccessor(term, 0) != join)
    return 0;
  LLVMValueRef st = NULL;
  for (LLVMValueRef i = LLVMGetFirstInstruction(body); i != term;
       i = LLVMGetNextInstruction(i)) {
    if (LLVMIsAStoreInst(i)) {
      if (st)
        return 0;
      st = i;
    } else if (!ks_shfl_plain(i) && !LLVMIsALoadInst(i)) {
      return 0;
    }
    for (LLVMUseRef w = LLVMGetFirstUse(i); w; w = LLVMGetNextUse(w))
      if (LLVMGetInstructionParent(LLVMGetUser(w)) != body)
        return 0;
  }
  return st && match_step(st, o);
}

/* Is land a block of plain instructions, used there or in its other
 * successor, that branches on a second condition to join or elsewhere? */
static LLVMBasicBlockRef land_block(LLVMBasicBlockRef land,
                                    LLVMBasicBlockRef join, step *o) {
  LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(land));
  LLVMValueRef term = LLVMGetBasicBlockTerminator(land);
  if (!u || LLVMGetNextUse(u) || !term || !LLVMIsABranchInst(term) ||
      !LLVMIsConditional(term))
    return NULL;
  int side = LLVMGetSuccessor(term, 1) == join;
  LLVMBasicBlockRef body = LLVMGetSuccessor(term, !side);
  if (LLVMGetSuccessor(term, side) != join || body == join)
    return NULL;
  for (LLVMValueRef i = LLVMGetFirstInstruction(land); i != term;
       i = LLVMGetNextInstruction(i)) {
    if (!ks_shfl_plain(i))
      return NULL;
    for (LLVMUseRef w = LLVMGetFirstUse(i); w; w = LLVMGetNextUse(w)) {
      LLVMBasicBlockRef ub = LLVMGetInstructionParent(LLVMGetUser(w));
      if (ub != land && ub != body)
        return NULL;
    }
  }
  o->cond2 = LLVMGetCondition(term);
  o->on_true2 = side; /* body is successor !side */
  return body;
}

/* Does h branch into a guarded step (a block with the step, perhaps
 * behind a second condition, then a block that starts with a barrier and
 * that h also branches to)? */
static int guarded_step(LLVMBasicBlockRef h, step *o) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(h);
  if (!term || !LLVMIsABranchInst(term) || !LLVMIsConditional(term))
    return 0;
  for (int side = 0; side < 2; side++) {
    LLVMBasicBlockRef body = LLVMGetSuccessor(term, side), land = NULL;
    LLVMBasicBlockRef join = LLVMGetSuccessor(term, !side);
    step two = {0};
    if (body == join || !starts_with_barrier(join))
      continue;
    if (!step_body(body, join, o)) {
      land = body;
      body = land_block(land, join, &two);
      if (!body || !step_body(body, join, o))
        continue;
      o->cond2 = two.cond2;
      o->on_true2 = two.on_true2;
    }
    o->cond = LLVMGetCondition(term);
    o->on_true = side == 0;
    o->head = h;
    o->land = land;
    o->body = body;
    o->join = join;
    return 1;
  }
  return 0;
}

/* Does join lead from one guarded step to the next: the barrier, plain
 * instructions, the next step's branch? */
static int link_ok(LLVMBasicBlockRef join) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(join);
  for (LLVMValueRef i = LLVMGetNextInstruction(LLVMGetFirstInstruction(join));
       i && i != term; i = LLVMGetNextInstruction(i))
    if (!ks_shfl_plain(i))
      return 0;
  return 1;
}

/* Keeps the last MAX_STEPS of chain[0..n) that access one array in t. */
static void take_steps(tree *t, const step *chain, unsigned n) {
  unsigned k = n;
  LLVMValueRef g = ks_shfl_shared_base(LLVMGetOperand(chain[n - 1].st, 1));
  LLVMTypeRef ty = LLVMTypeOf(chain[n - 1].op);
  while (k > 0 && n - k < MAX_STEPS &&
         ks_shfl_shared_base(LLVMGetOperand(chain[k - 1].st, 1)) == g &&
         LLVMTypeOf(chain[k - 1].op) == ty)
    k--;
  t->n = n - k;
  memcpy(t->st, chain + k, t->n * sizeof *chain);
  t->g = g;
  t->ty = ty;
  t->esize = (unsigned)LLVMABISizeOfType(t->dl, ty);
}

/* The first chain of guarded steps (each step's join the next one's
 * head) whose last store is not in done, into t. */
int ks_shfl_find_guarded(tree *t, LLVMValueRef *done, unsigned ndone) {
  step c[MAX_CAND], chain[MAX_CAND];
  unsigned nc = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(t->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    if (nc < MAX_CAND && guarded_step(bb, &c[nc]))
      nc++;
  for (unsigned a = 0; a < nc; a++) {
    int first = 1; /* no step leads into this one */
    for (unsigned b = 0; b < nc; b++)
      first &= !(c[b].join == c[a].head && link_ok(c[b].join));
    if (!first)
      continue;
    unsigned n = 0;
    chain[n++] = c[a];
    for (int more = 1; more && n < MAX_CAND;) {
      more = 0;
      for (unsigned b = 0; b < nc && !more; b++)
        if (c[b].head == chain[n - 1].join && link_ok(c[b].head)) {
          chain[n++] = c[b];
          more = 1;
        }
    }
    if (!ks_ir_value_in(done, ndone, chain[n - 1].st)) {
      take_steps(t, chain, n);
      return 1;
    }
  }
  return 0;
}

/* The longest run of steps in bb, one after another with nothing between
 * them but plain instructions, into chain; its length. */
static unsigned block_run(LLVMBasicBlockRef bb, step *chain) {
  step run[MAX_CAND];
  unsigned n = 0, best = 0;
  LLVMValueRef pend[2] = {NULL, NULL};
  unsigned npend = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    if (ks_shfl_plain(i) && !LLVMIsATerminatorInst(i))
      continue;
    step s;
    if (LLVMIsALoadInst(i) && npend < 2) {
      pend[npend++] = i;
      continue;
    }
    if (match_step(i, &s) && npend == 2 &&
        ((s.la == pend[0] && s.lb == pend[1]) ||
         (s.la == pend[1] && s.lb == pend[0])) &&
        n < MAX_CAND) {
      run[n++] = s;
      npend = 0;
      continue;
    }
    if (n > best) {
      best = n;
      memcpy(chain, run, n * sizeof *run);
    }
    n = 0;
    npend = LLVMIsALoadInst(i) ? 1 : 0;
    pend[0] = i;
  }
  return best;
}

/* The first run of at least two steps in a block that one branch enters
 * (the warp-unrolled tail) or that every thread runs (it has a barrier),
 * whose last store is not in done, into t. */
int ks_shfl_find_warp(tree *t, LLVMValueRef *done, unsigned ndone) {
  step chain[MAX_CAND];
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(t->fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    /* entered by one conditional branch, or by every thread (a barrier) */
    LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb));
    LLVMValueRef br = u && !LLVMGetNextUse(u) ? LLVMGetUser(u) : NULL;
    int entered = br && LLVMIsABranchInst(br) && LLVMIsConditional(br) &&
                  LLVMGetSuccessor(br, 0) != LLVMGetSuccessor(br, 1);
    if (!entered && !ks_shfl_has_block_barrier(bb))
      continue;
    unsigned n = block_run(bb, chain);
    if (n < 2 || ks_ir_value_in(done, ndone, chain[n - 1].st))
      continue;
    for (unsigned k = 0; k < n; k++) {
      chain[k].cond = entered ? LLVMGetCondition(br) : NULL;
      chain[k].on_true = !entered || LLVMGetSuccessor(br, 0) == bb;
      chain[k].head = entered ? LLVMGetInstructionParent(br) : bb;
    }
    take_steps(t, chain, n);
    return 1;
  }
  return 0;
}
