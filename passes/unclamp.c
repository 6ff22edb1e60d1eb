/*
 * unclamp.c - the unclamp stage: a copy of a kernel's busiest block for the
 * blocks of the grid whose threads are all inside its clamps.
 *
 * A clamped index (the separable filters' ks_clamp(x + k, 0, w - 1)) costs
 * two compares and two selects per load, and hides from the later passes
 * that the loads are neighbours: after thread coarsening, sepfilter_rows
 * spends more instructions on its 20 clamps than on its 68 multiply-adds.
 * In most blocks of the grid no thread is near the edge, and every clamp is
 * the identity.
 *
 * What is rewritten. A select S = select(C, A, B) in one basic block, with
 * C = icmp P (e, W) (or (W, e)), where
 *   - e is affine in one thread coordinate: e = e0 + c*tid[d], with e0
 *     uniform over the block (no other thread coordinate),
 *   - W and exactly one of the arms are uniform; the other arm, D, depends
 *     on the thread (or all are uniform, as after coarsening along the
 *     clamped coordinate, and D is the arm that is not a constant, or the
 *     compared value; e is then its own range),
 *   - P is a signed order (slt, sle, sgt, sge) and e is 32 bits wide.
 * Over the block's real threads, tid[d] in [0, B_d), e runs from e0 to
 * e0 + c*(B_d-1) in steps of c; computed in 64 bits, if both ends lie in
 * the 32-bit range, e never wraps and takes only values between them, so
 * "P(e, W) selects D for every thread" holds exactly when it holds at the
 * end where it is hardest (the top for slt/sle, the bottom for sgt/sge);
 * lanes whose e differ by constants share one such test (see "the check"
 * below). The block B gets a copy F where every such S is D; a new block
 * before B tests the conjunction of those conditions, the same for every
 * thread of the block (the ends depend on uniform values only), and runs F
 * when it holds, else B. F computes what B computes: each S it replaced
 * would have been D.
 *
 * smax(e, W) and smin(e, W) (32 bits) are such selects too, keeping e
 * where e >= W (e <= W) for every thread.
 *
 * In F, sext(X + C) to 64 bits, X thread-affine and C a constant, whose
 * operand is such a select's arm (the clamped index) becomes sext(X) + C,
 * the check also testing that X and X + C stay in the 32-bit range over
 * the block (then X + C does not wrap, and the two are equal): the address
 * is then P + k*tid + c to window_expr, not an extension of a sum. A zext
 * (X + C) likewise, C = 0 included, the check also testing X + C >= 0.
 *
 * Where. The block with the most such selects (at least 4, at most 512),
 * not the entry block, with no phi, whose values are used only in it (or
 * by phis of its successors); nothing when the bounds fall into more than
 * 16 groups of lanes or 8 bounds in a group. Window
 * staging (smem_promote, later) then sees F's loads at P + k*tid + c, a
 * window it can stage, while B keeps the clamped loads for the edge blocks.
 * The copy doubles the block's code: the later stages and codegen take
 * longer on such kernels.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

#define PASS "unclamp"

enum { MIN_SELECTS = 4, MAX_SELECTS = 512 };

typedef struct cand {
  LLVMValueRef sel;  /* S */
  LLVMValueRef keep; /* D, the arm that stays */
  LLVMValueRef e, w; /* the compare, as e P w with P what must hold */
  LLVMIntPredicate p;
  int dim;
  int64_t coef;
} cand;

/* A sext or zext (X + C) of the copy that becomes sext(X) + C. */
typedef struct widen {
  LLVMValueRef ext, x;
  int64_t k;
  int dim;
  int64_t coef;
  int zext; /* X + C must not be negative too */
} widen;

typedef struct uc {
  LLVMModuleRef m;
  LLVMValueRef fn;
  ks_diag *d;
  ks_wx *x;
  unsigned block[3]; /* the real block */
  cand *c;
  int n;
  size_t cap;
  widen *w;
  int nw;
  size_t capw;
} uc;

static int signed_order(LLVMIntPredicate p) {
  return p == LLVMIntSLT || p == LLVMIntSLE || p == LLVMIntSGT ||
         p == LLVMIntSGE;
}

/* The thread coordinates v depends on (bit d: tid[d]); -1 when window_expr
 * does not understand v. */
static int dep_of(uc *u, LLVMValueRef v) {
  int nf = ks_wx_norm(u->x, v, -1, 0);
  return nf < 0 ? -1 : (int)ks_wx_dep(u->x, nf);
}

/* Is v e0 + coef*tid[d], e0 uniform, d its only coordinate (or uniform,
 * coef 0)? */
static int affine_one(uc *u, LLVMValueRef v, int *dim, int64_t *coef) {
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMTypeOf(v)) != 32)
    return 0;
  int nf = ks_wx_norm(u->x, v, -1, 0);
  if (nf < 0)
    return 0;
  unsigned dep = ks_wx_dep(u->x, nf);
  if (!dep) { /* uniform: its one value */
    *dim = 0;
    *coef = 0;
    return 1;
  }
  for (int d = 0; d < 2; d++) {
    unsigned tz;
    if (dep == 1u << d && ks_wx_tid_linear(u->x, nf, d, coef, &tz) &&
        *coef != 0 && *coef > -(1 << 20) && *coef < (1 << 20)) {
      *dim = d;
      return 1;
    }
  }
  return 0;
}

static int push(uc *u, const cand *c) {
  if (!ks_ir_room(&u->c, &u->cap, (size_t)u->n, sizeof *u->c, 32))
    return 0;
  u->c[u->n++] = *c;
  return 1;
}

/* A call of llvm.smax or llvm.smin (32 bits): 1 or -1; else 0. */
static int minmax(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  const char *n = ks_ir_callee_name(i);
  if (!n)
    return 0;
  if (!strcmp(n, "llvm.smax.i32"))
    return 1;
  if (!strcmp(n, "llvm.smin.i32"))
    return -1;
  return 0;
}

/* Which of a and b is e, affine in one coordinate of the thread (its
 * dimension and coefficient in out), where the other, w, is the same for
 * every thread: 1 a, -1 b (out->e and out->w set), 0 neither. */
static int affine_side(uc *u, LLVMValueRef a, LLVMValueRef b, cand *out) {
  if (affine_one(u, a, &out->dim, &out->coef) && dep_of(u, b) == 0) {
    out->e = a;
    out->w = b;
    return 1;
  }
  if (affine_one(u, b, &out->dim, &out->coef) && dep_of(u, a) == 0) {
    out->e = b;
    out->w = a;
    return -1;
  }
  return 0;
}

/* smax(e, W) or smin(e, W) as a candidate: e stays where e >= W (smax) or
 * e <= W (smin) for every thread. */
static int candidate_minmax(uc *u, LLVMValueRef s, int kind, cand *out) {
  LLVMValueRef a = LLVMGetOperand(s, 0), b = LLVMGetOperand(s, 1);
  if (LLVMIsAConstant(a)) { /* keep the operand that is not a constant */
    LLVMValueRef t = a;
    a = b;
    b = t;
  }
  if (!affine_side(u, a, b, out))
    return 0;
  out->sel = s;
  out->keep = out->e;
  out->p = kind > 0 ? LLVMIntSGE : LLVMIntSLE;
  return 1;
}

/* S as a candidate (see the top of the file), or 0. */
static int candidate(uc *u, LLVMValueRef s, cand *out) {
  int mm = minmax(s);
  if (mm)
    return candidate_minmax(u, s, mm, out);
  if (!LLVMIsASelectInst(s))
    return 0;
  LLVMValueRef cnd = LLVMGetOperand(s, 0);
  if (!LLVMIsAICmpInst(cnd))
    return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(cnd);
  if (!signed_order(p))
    return 0;
  LLVMValueRef a = LLVMGetOperand(s, 1), b = LLVMGetOperand(s, 2);
  int da = dep_of(u, a), db = dep_of(u, b);
  if (da < 0 || db < 0 || (da && db))
    return 0;
  if (!da && !db) {
    /* both uniform (a coarsened coordinate): keep the arm that is not a
     * constant, or the compared value itself */
    LLVMValueRef l = LLVMGetOperand(cnd, 0), r = LLVMGetOperand(cnd, 1);
    int ca = LLVMIsAConstant(a) != NULL, cb = LLVMIsAConstant(b) != NULL;
    if (ca != cb)
      da = cb;
    else if (a == l || a == r)
      da = 1;
    else if (!(b == l || b == r))
      return 0;
  }
  int side =
      affine_side(u, LLVMGetOperand(cnd, 0), LLVMGetOperand(cnd, 1), out);
  if (!side)
    return 0;
  if (side < 0)
    p = ks_ir_icmp_swap(p);
  /* D is the true arm: C must hold; the false arm: C must fail */
  out->sel = s;
  out->keep = da ? a : b;
  out->p = da ? p : ks_ir_icmp_inverse(p);
  return 1;
}

static int count_in(uc *u, LLVMBasicBlockRef bb, int collect) {
  int n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    cand c;
    if (!candidate(u, i, &c))
      continue;
    if (collect && !push(u, &c))
      return -1;
    n++;
  }
  return n;
}

/* May bb be copied: not the entry block, no phi, its values used in it or
 * by its successors' phis, a plain branch or return at its end. */
static int copyable(LLVMBasicBlockRef bb) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(LLVMGetBasicBlockParent(bb));
  if (bb == entry) /* the check must come first: not in the entry block */
    return 0;
  if (!term || !(LLVMIsABranchInst(term) || LLVMIsAReturnInst(term)))
    return 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    if (LLVMIsAPHINode(i))
      return 0;
    for (LLVMUseRef use = LLVMGetFirstUse(i); use; use = LLVMGetNextUse(use)) {
      LLVMValueRef user = LLVMGetUser(use);
      if (LLVMGetInstructionParent(user) != bb && !LLVMIsAPHINode(user))
        return 0;
    }
  }
  return 1;
}

/* ---- the rewrite ----------------------------------------------------------
 */

/* ---- the check ------------------------------------------------------------
 *
 * The candidates' compared values and the widened sums fall into groups of
 * forms that differ by constants only (the lanes' x + k): e = e_r + d, e_r
 * the group's first. With v the 32-bit value of e_r at tid[dim] = 0,
 * sign-extended, every member is v + d + coef*t (t < B) exactly, without
 * wrapping, when the group's extremes v + dmin + min(0, span) and v + dmax
 * + max(0, span) lie in the 32-bit range (span = coef*(B-1)). A compare "e
 * P W for every thread" then holds exactly when it holds at its hardest
 * member's hardest end: the largest d and the top end for slt/sle, the
 * smallest d and the bottom end for sgt/sge. So the check has one range
 * test per group and one compare per bound, however many lanes share it. */

enum { MAX_GROUPS = 16, MAX_BOUNDS = 8 };

typedef struct bound {
  LLVMValueRef w;
  LLVMIntPredicate p;
  int64_t d;
} bound;

typedef struct group {
  LLVMValueRef rep;
  int nf, dim;
  int64_t coef, dmin, dmax;
  bound b[MAX_BOUNDS];
  int nb;
} group;

static int upper(LLVMIntPredicate p) {
  return p == LLVMIntSLT || p == LLVMIntSLE;
}

/* The group of e (made when new), with e = rep + *d; NULL when full. */
static group *group_of(uc *u, group *g, int *ng, LLVMValueRef e, int dim,
                       int64_t coef, int64_t *d) {
  int nf = ks_wx_norm(u->x, e, -1, 0);
  if (nf < 0)
    return NULL;
  for (int i = 0; i < *ng; i++)
    if (g[i].dim == dim && g[i].coef == coef &&
        ks_wx_const_diff(u->x, nf, g[i].nf, d) && *d > -(1 << 20) &&
        *d < (1 << 20))
      return &g[i];
  if (*ng == MAX_GROUPS)
    return NULL;
  *d = 0;
  g[*ng] = (group){.rep = e, .nf = nf, .dim = dim, .coef = coef};
  return &g[(*ng)++];
}

static void widen_range(group *g, int64_t d) {
  if (d < g->dmin)
    g->dmin = d;
  if (d > g->dmax)
    g->dmax = d;
}

/* e + d P w for every thread: kept at the group's hardest d. */
static int add_bound(group *g, LLVMValueRef w, LLVMIntPredicate p, int64_t d) {
  widen_range(g, d);
  for (int i = 0; i < g->nb; i++)
    if (g->b[i].w == w && g->b[i].p == p) {
      if (upper(p) ? d > g->b[i].d : d < g->b[i].d)
        g->b[i].d = d;
      return 1;
    }
  if (g->nb == MAX_BOUNDS)
    return 0;
  g->b[g->nb++] = (bound){w, p, d};
  return 1;
}

/* The groups and bounds of every candidate and widened sum; 0 when there
 * are too many. */
static int gather(uc *u, group *g, int *ng) {
  for (int k = 0; k < u->n; k++) {
    const cand *c = &u->c[k];
    int64_t d;
    group *gr = group_of(u, g, ng, c->e, c->dim, c->coef, &d);
    if (!gr || !add_bound(gr, c->w, c->p, d))
      return 0;
  }
  for (int k = 0; k < u->nw; k++) {
    const widen *w = &u->w[k];
    int64_t d;
    group *gr = group_of(u, g, ng, w->x, w->dim, w->coef, &d);
    if (!gr)
      return 0;
    widen_range(gr, d);
    widen_range(gr, d + w->k);
    LLVMValueRef zero =
        LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(u->m)), 0, 0);
    if (w->zext && !add_bound(gr, zero, LLVMIntSGE, d + w->k))
      return 0;
  }
  return 1;
}

static LLVMValueRef i64c(LLVMContextRef lc, int64_t v) {
  return LLVMConstInt(LLVMInt64TypeInContext(lc), (unsigned long long)v, 1);
}

/* The check of one group, at b. */
static LLVMValueRef group_check(uc *u, LLVMBuilderRef b, LLVMValueRef tid[3],
                                const group *g) {
  LLVMContextRef lc = LLVMGetModuleContext(u->m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(lc);
  LLVMValueRef t0[3] = {tid[0], tid[1], tid[2]};
  t0[g->dim] = LLVMConstInt(LLVMInt32TypeInContext(lc), 0, 0);
  LLVMValueRef v = ks_wx_clone(u->x, b, g->rep, t0);
  if (!v)
    return NULL;
  v = LLVMBuildSExt(b, v, i64, "");
  int64_t span = g->coef * (int64_t)(u->block[g->dim] - 1);
  int64_t down = span < 0 ? span : 0, up = span > 0 ? span : 0;
  LLVMValueRef ok = LLVMBuildAnd(
      b,
      LLVMBuildICmp(b, LLVMIntSGE,
                    LLVMBuildAdd(b, v, i64c(lc, g->dmin + down), ""),
                    i64c(lc, INT32_MIN), ""),
      LLVMBuildICmp(b, LLVMIntSLE,
                    LLVMBuildAdd(b, v, i64c(lc, g->dmax + up), ""),
                    i64c(lc, INT32_MAX), ""),
      "");
  for (int i = 0; i < g->nb && ok; i++) {
    const bound *bd = &g->b[i];
    LLVMValueRef w = ks_wx_clone(u->x, b, bd->w, tid);
    if (!w)
      return NULL;
    w = LLVMBuildSExt(b, w, i64, "");
    LLVMValueRef at =
        LLVMBuildAdd(b, v, i64c(lc, bd->d + (upper(bd->p) ? up : down)), "");
    ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, bd->p, at, w, ""), "");
  }
  return ok;
}

static int is_replaced(const uc *u, LLVMValueRef i, LLVMValueRef *keep) {
  for (int k = 0; k < u->n; k++)
    if (u->c[k].sel == i) {
      *keep = u->c[k].keep;
      return 1;
    }
  return 0;
}

/* What v is in the copy, the selects replaced by their arms. */
static LLVMValueRef resolved(const uc *u, LLVMValueRef v) {
  LLVMValueRef keep;
  for (int guard = 0; guard < 64 && is_replaced(u, v, &keep); guard++)
    v = keep;
  return v;
}

/* Is v X + C, an add or a disjoint or with a constant? */
static int plus_const(LLVMValueRef v, LLVMValueRef *x, int64_t *k) {
  if (!LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op != LLVMAdd && !(op == LLVMOr && LLVMGetIsDisjoint(v)))
    return 0;
  LLVMValueRef c = LLVMGetOperand(v, 1);
  if (!LLVMIsAConstantInt(c))
    return 0;
  *x = LLVMGetOperand(v, 0);
  *k = LLVMConstIntGetSExtValue(c);
  return 1;
}

/* The copy's sext(X + C) to 64 bits, X + C thread-affine: sext(X) + C
 * where neither X nor X + C leaves the 32-bit range, which the check
 * tests. Then window_expr sees the sum, not an extension of it. */
static int collect_widen(uc *u, LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    LLVMOpcode op = LLVMGetInstructionOpcode(i);
    if ((op != LLVMSExt && op != LLVMZExt) ||
        LLVMGetIntTypeWidth(LLVMTypeOf(i)) != 64)
      continue;
    LLVMValueRef e = resolved(u, LLVMGetOperand(i, 0)), x = e;
    widen w = {.ext = i, .zext = op == LLVMZExt};
    if (!plus_const(e, &x, &w.k))
      w.k = 0;
    if (!affine_one(u, x, &w.dim, &w.coef) || (!w.k && !w.zext))
      continue;
    w.x = x;
    if (!ks_ir_room(&u->w, &u->capw, (size_t)u->nw, sizeof *u->w, 32))
      return 0;
    u->w[u->nw++] = w;
  }
  return 1;
}

static const widen *is_widened(const uc *u, LLVMValueRef i) {
  for (int k = 0; k < u->nw; k++)
    if (u->w[k].ext == i)
      return &u->w[k];
  return NULL;
}

/* 0: done; -1: failed (d says why); 1: too many bounds, nothing changed */
static int version(uc *u, LLVMBasicBlockRef bb) {
  group groups[MAX_GROUPS];
  int ng = 0;
  if (!gather(u, groups, &ng) || !ng)
    return 1;
  LLVMContextRef lc = LLVMGetModuleContext(u->m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
  LLVMBasicBlockRef check =
      LLVMInsertBasicBlockInContext(lc, bb, "ks.uc.check");
  LLVMBasicBlockRef fast = LLVMInsertBasicBlockInContext(lc, bb, "ks.uc.fast");
  /* the predecessors of bb now reach check */
  LLVMValueRef bbv = LLVMBasicBlockAsValue(bb);
  for (LLVMUseRef use = LLVMGetFirstUse(bbv), next; use; use = next) {
    next = LLVMGetNextUse(use);
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsATerminatorInst(user))
      continue;
    unsigned ns = LLVMGetNumSuccessors(user);
    for (unsigned s = 0; s < ns; s++)
      if (LLVMGetSuccessor(user, s) == bb)
        LLVMSetSuccessor(user, s, check);
  }
  LLVMPositionBuilderAtEnd(b, check);
  static const char *const names[2] = {"llvm.nvvm.read.ptx.sreg.tid.x",
                                       "llvm.nvvm.read.ptx.sreg.tid.y"};
  LLVMValueRef tid[3];
  LLVMTypeRef i32 = LLVMInt32TypeInContext(lc);
  for (int d = 0; d < 3; d++) {
    tid[d] = LLVMConstInt(i32, 0, 0);
    if (d < 2 && u->block[d] > 1)
      tid[d] = ks_ir_call_intrinsic(u->m, b, names[d], NULL, 0);
  }
  LLVMValueRef all = NULL;
  for (int k = 0; k < ng; k++) {
    LLVMValueRef h = group_check(u, b, tid, &groups[k]);
    if (!h) {
      all = NULL;
      break;
    }
    all = all ? LLVMBuildAnd(b, all, h, "") : h;
  }
  if (!all) { /* cannot happen: every form was normalized */
    LLVMDisposeBuilder(b);
    ks_diag_fail(u->d, KS_EPASS, PASS ": a bound could not be rebuilt");
    return -1;
  }
  LLVMBuildCondBr(b, all, fast, bb);
  /* the copy */
  unsigned n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    n++;
  ks_ir_vmap map;
  if (!ks_ir_vmap_init(&map, n)) {
    ks_ir_vmap_free(&map);
    LLVMDisposeBuilder(b);
    ks_diag_fail(u->d, KS_ENOMEM, PASS ": out of memory");
    return -1;
  }
  LLVMPositionBuilderAtEnd(b, fast);
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    LLVMValueRef keep;
    if (is_replaced(u, i, &keep)) {
      ks_ir_vmap_put(&map, i, ks_ir_vmap_get(&map, keep));
      continue;
    }
    const widen *w = is_widened(u, i);
    if (w) {
      LLVMValueRef x = ks_ir_vmap_get(&map, w->x);
      LLVMTypeRef i64 = LLVMInt64TypeInContext(lc);
      LLVMValueRef sx = LLVMBuildSExt(b, x, i64, "");
      LLVMValueRef sum = LLVMBuildNSWAdd(
          b, sx, LLVMConstInt(i64, (unsigned long long)w->k, 1), "");
      ks_ir_vmap_put(&map, i, sum);
      continue;
    }
    LLVMValueRef c = LLVMInstructionClone(i);
    unsigned nop = (unsigned)LLVMGetNumOperands(c);
    for (unsigned o = 0; o < nop; o++) {
      LLVMValueRef op = LLVMGetOperand(c, o), v = ks_ir_vmap_get(&map, op);
      if (v != op)
        LLVMSetOperand(c, o, v);
    }
    LLVMInsertIntoBuilder(b, c);
    ks_ir_vmap_put(&map, i, c);
  }
  /* the successors' phis get the copy's values */
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(succ);
         phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
      unsigned ni = LLVMCountIncoming(phi);
      for (unsigned k = 0; k < ni; k++)
        if (LLVMGetIncomingBlock(phi, k) == bb) {
          LLVMValueRef vals[1] = {
              ks_ir_vmap_get(&map, LLVMGetIncomingValue(phi, k))};
          LLVMBasicBlockRef blocks[1] = {fast};
          LLVMAddIncoming(phi, vals, blocks, 1);
          break;
        }
    }
  }
  ks_ir_vmap_free(&map);
  LLVMDisposeBuilder(b);
  return 0;
}

int ks_pass_unclamp(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  if (!s->block[0]) {
    ks_diag_explain(d, PASS, "declined %s: block size not fixed", s->kernel);
    return 0;
  }
  uc u = {.m = m, .fn = fn, .d = d};
  for (int i = 0; i < 3; i++)
    u.block[i] = s->block[i] ? s->block[i] : 1;
  if (d->plan.coarsen_x > 1)
    u.block[0] /= d->plan.coarsen_x;
  if (d->plan.coarsen_y > 1)
    u.block[1] /= d->plan.coarsen_y;
  if (u.block[2] > 1) {
    ks_diag_explain(d, PASS, "declined %s: a 3-D block", s->kernel);
    return 0;
  }
  u.x = ks_wx_create(m, u.block);
  if (!u.x)
    return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  for (int dim = 0; dim < 2; dim++)
    if (u.block[dim] > 1)
      ks_wx_set_range(u.x, dim, u.block[dim]);
  LLVMBasicBlockRef best = NULL;
  int most = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    int n = count_in(&u, bb, 0);
    if (n > most && copyable(bb)) {
      most = n;
      best = bb;
    }
  }
  int rc = 0;
  if (most < MIN_SELECTS) {
    if (most)
      ks_diag_explain(d, PASS,
                      "declined %s: %d clamp-like selects, fewer than %d",
                      s->kernel, most, MIN_SELECTS);
  } else if (most > MAX_SELECTS) {
    ks_diag_explain(d, PASS,
                    "declined %s: %d clamp-like selects in one block, over %d "
                    "(a copy that large costs more compile time than it saves)",
                    s->kernel, most, MAX_SELECTS);
  } else if (count_in(&u, best, 1) < 0 || !collect_widen(&u, best)) {
    rc = ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  } else {
    size_t len = 0;
    const char *name = LLVMGetBasicBlockName(best);
    len = name ? strlen(name) : 0;
    int v = version(&u, best);
    rc = v < 0;
    if (v > 0)
      ks_diag_explain(d, PASS,
                      "declined %s: the %d selects' bounds fall into over %d "
                      "groups of %d",
                      s->kernel, u.n, MAX_GROUPS, MAX_BOUNDS);
    if (!v)
      ks_diag_explain(
          d, PASS,
          "%d selects of thread-affine indices against uniform "
          "bounds (clamps) dropped in a copy of block %.*s, run where "
          "every thread of the block is inside them",
          u.n, (int)len, name ? name : "");
  }
  free(u.c);
  free(u.w);
  ks_wx_destroy(u.x);
  return rc;
}
