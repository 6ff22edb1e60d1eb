/*
 * smem_guard.c - window staging's guard analysis: under which conditions
 * the group's loads run (the branches from the entry to their block), which
 * of them are uniform over the block, which use the other coordinate, and
 * the one on the window's coordinate that decides which tile elements are
 * read (smem_window.c's header argues why that suffices); for a coarsened
 * kernel, the boolean function of its lanes' conditions checked to be the
 * condition of an interval.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passes/smem_window.h"

/* ---- the guard -------------------------------------------------------------
 */

static int add_conj(wctx *c, wgroup *g, LLVMValueRef v, int pol, int depth);

static int is_const_bool(LLVMValueRef v, unsigned long long b) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == b;
}

/* The condition on tid[dim]: v(t) PRED W with v = t + uniform, W uniform. */
static int window_conj(wctx *c, wgroup *g, LLVMValueRef v, int pol) {
  if (g->wv) {
    ks_window_decline(c, g, "more than one condition on tid.%c",
                      ks_window_dimname(g->dim));
    return 0;
  }
  if (!LLVMIsAICmpInst(v))
    goto other;
  LLVMIntPredicate p = LLVMGetICmpPredicate(v);
  if (!pol)
    p = ks_ir_icmp_inverse(p);
  if (p == LLVMIntEQ || p == LLVMIntNE)
    goto other;
  for (int side = 0; side < 2; side++) {
    LLVMValueRef a = LLVMGetOperand(v, (unsigned)side);
    LLVMValueRef b = LLVMGetOperand(v, (unsigned)(1 - side));
    int na = ks_wx_norm(c->x, a, -1, 0);
    int nb = ks_wx_norm(c->x, b, -1, 0);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMIntegerTypeKind || na < 0 ||
        nb < 0 || ks_wx_dep(c->x, nb) ||
        !ks_wx_is_tid_plus_uniform(c->x, na, g->dim))
      continue;
    g->wv = a;
    g->ww = b;
    g->wpred = side ? ks_ir_icmp_swap(p) : p;
    return 1;
  }
other:
  ks_window_decline(c, g,
                    "guard on tid.%c of another form than tid.%c + uniform < "
                    "uniform",
                    ks_window_dimname(g->dim), ks_window_dimname(g->dim));
  return 0;
}

/* Does x hold (want 1) or fail (want 0) wherever the path's conditions do:
 * is it one of them, or a part of one that must hold with it (an operand
 * of a conjunction that holds, of a disjunction that fails)? */
static int implied_in(LLVMValueRef v, int pol, LLVMValueRef x, int want,
                      int depth) {
  if (v == x)
    return pol == want;
  if (depth > 8 || !LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if ((pol && op == LLVMAnd) || (!pol && op == LLVMOr))
    return implied_in(LLVMGetOperand(v, 0), pol, x, want, depth + 1) ||
           implied_in(LLVMGetOperand(v, 1), pol, x, want, depth + 1);
  return 0;
}

static int implied(const wctx *c, LLVMValueRef x, int want) {
  for (int i = 0; i < c->npath; i++)
    if (implied_in(c->path[i].v, c->path[i].pol, x, want, 0))
      return 1;
  return 0;
}

static int add_conj(wctx *c, wgroup *g, LLVMValueRef v, int pol, int depth) {
  if (depth > 16) {
    ks_window_decline(c, g, "guard too deep");
    return 0;
  }
  if (LLVMIsAInstruction(v)) {
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    LLVMValueRef a =
        op == LLVMAnd || op == LLVMOr || op == LLVMXor || op == LLVMSelect
            ? LLVMGetOperand(v, 0)
            : NULL;
    LLVMValueRef b = a ? LLVMGetOperand(v, 1) : NULL;
    /* a && b holding, a || b failing: both parts, each on its own. */
    int both = (pol && op == LLVMAnd) || (!pol && op == LLVMOr);
    if (op == LLVMSelect) {
      LLVMValueRef e = LLVMGetOperand(v, 2);
      if (pol && is_const_bool(e, 0))
        both = 1; /* a ? b : false */
      else if (!pol && is_const_bool(b, 1))
        both = 1, b = e; /* a ? true : e */
    }
    if (both) {
      /* a uniform conjunction (unclamp's check) is one condition */
      int whole = ks_wx_norm(c->x, v, -1, 0);
      if (whole >= 0 && !ks_wx_dep(c->x, whole)) {
        if (g->nuni == MAX_CONJ) {
          ks_window_decline(c, g, "guard of over %d conditions", MAX_CONJ);
          return 0;
        }
        g->uni[g->nuni++] = (conj){v, pol};
        return 1;
      }
      return add_conj(c, g, a, pol, depth + 1) &&
             add_conj(c, g, b, pol, depth + 1);
    }
    if (op == LLVMXor && is_const_bool(b, 1))
      return add_conj(c, g, a, !pol, depth + 1);
    /* !(a && b) where b holds on the path is !a; (a || b) where b fails
     * is a (tcoarsen's agreement test and'ed with a guard on tid.y) */
    int keep = (!pol && op == LLVMAnd) || (pol && op == LLVMOr);
    if (keep && implied(c, b, op == LLVMAnd))
      return add_conj(c, g, a, pol, depth + 1);
    if (keep && implied(c, a, op == LLVMAnd))
      return add_conj(c, g, b, pol, depth + 1);
  }
  if (is_const_bool(v, (unsigned long long)pol))
    return 1;
  int nf = ks_wx_norm(c->x, v, -1, 0);
  if (nf < 0) {
    ks_window_decline(c, g, "guard not understood: %s", ks_wx_why(c->x));
    return 0;
  }
  unsigned dep = ks_wx_dep(c->x, nf), wbit = 1u << g->dim;
  if (dep == wbit && c->k > 1 && g->dim == 0) {
    if (g->ntcj == MAX_CONJ) {
      ks_window_decline(c, g, "guard of over %d conditions", MAX_CONJ);
      return 0;
    }
    g->tcj[g->ntcj++] = (conj){v, pol};
    return 1;
  }
  if (dep == wbit)
    return window_conj(c, g, v, pol);
  if (dep & wbit) {
    ks_window_decline(c, g, "guard mixes tid.x and tid.y");
    return 0;
  }
  conj *list = dep ? g->oth : g->uni;
  int *n = dep ? &g->noth : &g->nuni;
  if (*n == MAX_CONJ) {
    ks_window_decline(c, g, "guard of over %d conditions", MAX_CONJ);
    return 0;
  }
  list[(*n)++] = (conj){v, pol};
  return 1;
}

/* The conditions of the branches from the entry to the loads' block. */
int ks_window_find_guard(wctx *c, wgroup *g) {
  /* first the conditions themselves, for add_conj's simplifications */
  const ks_cfg *cfg = &c->cfg;
  c->npath = 0;
  for (unsigned b = ks_cfg_index(cfg, g->bb), steps = 0, p;
       b != 0 && (p = ks_cfg_single_pred(cfg, b)) != KS_CFG_NONE &&
       steps <= cfg->n;
       steps++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(cfg->bb[p]);
    if (t && LLVMIsABranchInst(t) && LLVMIsConditional(t) &&
        LLVMGetSuccessor(t, 0) != LLVMGetSuccessor(t, 1) && c->npath < 64)
      c->path[c->npath++] =
          (conj){LLVMGetCondition(t), LLVMGetSuccessor(t, 0) == cfg->bb[b]};
    b = p;
  }
  unsigned b = ks_cfg_index(cfg, g->bb);
  for (unsigned steps = 0; b != 0; steps++) {
    unsigned p = ks_cfg_single_pred(cfg, b);
    if (p == KS_CFG_NONE || steps > cfg->n) {
      ks_window_decline(c, g,
                        "the loads' block is reached from several blocks");
      return 0;
    }
    LLVMValueRef t = LLVMGetBasicBlockTerminator(cfg->bb[p]);
    if (!LLVMIsABranchInst(t)) {
      ks_window_decline(c, g, "the loads are reached through a switch");
      return 0;
    }
    if (LLVMIsConditional(t) &&
        LLVMGetSuccessor(t, 0) != LLVMGetSuccessor(t, 1) &&
        !add_conj(c, g, LLVMGetCondition(t),
                  LLVMGetSuccessor(t, 0) == cfg->bb[b], 0))
      return 0;
    b = p;
  }
  return 1;
}

/* ---- the guard of coarsened kernels --------------------------------------
 *
 * The guard. The conditions on tid.x, whatever tcoarsen's lockstep test
 * made of them (x ^ y agreements), are a boolean function F of icmps
 * c_j = v_j PRED W (or their inverse), with v_j = v_0 + j, j < K, v_0 a
 * multiple of K, K*tid.x its only term in tid.x, and W independent of
 * tid.x. F is checked, over all 2^K assignments, to be c_0 && ... &&
 * c_{K-1}. v_0 being a multiple of K (a power of two dividing 2^(n-1)),
 * v_0 .. v_0 + K-1 do not wrap in either order, so they form an interval,
 * and an interval lies in the half-line {v PRED W} exactly when both ends
 * do; for a lower half-line (LT, LE) that is c_{K-1}, for an upper one
 * c_0: real thread t reads memory exactly when c(w(t)), w = v_jsel. Element
 * E is read by the real threads t in [lo, hi] = [max(0, ceil((E-D)/K)),
 * min(B-1, floor(E/K))] that pass (lo <= hi since D >= K-1). Over that
 * range w rises by K per thread and wraps at most once (K*B is far below
 * 2^(n-1)); its values are all = jsel (mod K), so when it wraps it passes
 * through the largest such value MAX-K+1+jsel and the smallest MIN+jsel.
 * Hence some w(t) lies in the half-line exactly when
 *   c(w(lo)) || c(w(hi)) || (w(hi) < w(lo) && (c(MIN+jsel) || c(MAX-K+1+jsel)))
 * and only those elements are staged. The serial copy (where the virtual
 * threads disagree) is another block, reached by other branches; its loads
 * stay global loads, reading the same unwritten values.
 */

enum { MAX_LEAF = 16 };

typedef struct leaf {
  LLVMValueRef icmp, v, w;
  int nv, nw;
  LLVMIntPredicate p; /* v p w */
  int j, neg;         /* icmp = c_j, or !c_j */
} leaf;

static int find_leaves(LLVMValueRef v, leaf *l, int *nl, int depth) {
  if (depth > 32 ||
      LLVMTypeOf(v) != LLVMInt1TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v))))
    return 0;
  if (LLVMIsAConstantInt(v))
    return 1;
  if (LLVMIsAICmpInst(v)) {
    for (int i = 0; i < *nl; i++)
      if (l[i].icmp == v)
        return 1;
    if (*nl == MAX_LEAF)
      return 0;
    l[(*nl)++] = (leaf){.icmp = v};
    return 1;
  }
  if (!LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op != LLVMAnd && op != LLVMOr && op != LLVMXor && op != LLVMSelect)
    return 0;
  for (int i = 0; i < LLVMGetNumOperands(v); i++)
    if (!find_leaves(LLVMGetOperand(v, (unsigned)i), l, nl, depth + 1))
      return 0;
  return 1;
}

/* F's value where c_j = bit j of bits. */
static int eval_f(LLVMValueRef v, const leaf *l, int nl, unsigned bits) {
  if (LLVMIsAConstantInt(v))
    return (int)(LLVMConstIntGetZExtValue(v) & 1);
  for (int i = 0; i < nl; i++)
    if (l[i].icmp == v)
      return (int)((bits >> l[i].j) & 1) ^ l[i].neg;
  LLVMValueRef o[3];
  for (int i = 0; i < LLVMGetNumOperands(v) && i < 3; i++)
    o[i] = LLVMGetOperand(v, (unsigned)i);
  int a = eval_f(o[0], l, nl, bits), b = eval_f(o[1], l, nl, bits);
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAnd:
    return a & b;
  case LLVMOr:
    return a | b;
  case LLVMXor:
    return a ^ b;
  default: /* select */
    return a ? b : eval_f(o[2], l, nl, bits);
  }
}

static int is_lower(LLVMIntPredicate p) {
  return p == LLVMIntSLT || p == LLVMIntSLE || p == LLVMIntULT ||
         p == LLVMIntULE;
}

/* Leaf i as  v p w  with v the side in tid.x. */
static int leaf_form(wctx *c, leaf *f) {
  LLVMIntPredicate p = LLVMGetICmpPredicate(f->icmp);
  for (int side = 0; side < 2; side++) {
    LLVMValueRef a = LLVMGetOperand(f->icmp, (unsigned)side);
    LLVMValueRef b = LLVMGetOperand(f->icmp, (unsigned)(1 - side));
    if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMIntegerTypeKind)
      return 0;
    int na = ks_wx_norm(c->x, a, -1, 0);
    int nb = na < 0 ? -1 : ks_wx_norm(c->x, b, -1, 0);
    if (nb < 0 || (ks_wx_dep(c->x, nb) & 1) || !(ks_wx_dep(c->x, na) & 1))
      continue;
    *f = (leaf){f->icmp, a, b, na, nb, side ? ks_ir_icmp_swap(p) : p, 0, 0};
    return p != LLVMIntEQ && p != LLVMIntNE;
  }
  return 0;
}

/* The lanes of the leaves: c_j = v_0 + j PRED W, v_0 = K*tid.x + a
 * multiple of K; 0 when the leaves are not of that form. */
static int leaf_lanes(wctx *c, wgroup *g, leaf *l, int nl) {
  int64_t d, dmin = 0, coef;
  unsigned tz;
  int base = 0;
  for (int i = 0; i < nl; i++) {
    if (!leaf_form(c, &l[i]))
      return 0;
    if (l[i].p != l[0].p)
      l[i].p = ks_ir_icmp_inverse(l[i].p), l[i].neg = 1;
    if (l[i].p != l[0].p || l[i].nw != l[0].nw ||
        !ks_wx_const_diff(c->x, l[i].nv, l[0].nv, &d) || d > (int64_t)c->k ||
        d < -(int64_t)c->k)
      return 0;
    l[i].j = (int)d;
    if (d < dmin)
      dmin = d, base = i;
  }
  unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(l[0].v));
  if (!ks_wx_tid_linear(c->x, l[base].nv, 0, &coef, &tz) ||
      coef != (int64_t)c->k || (int)tz < ks_window_log2(c->k) || bits < 16 ||
      (uint64_t)c->k * c->block[0] >= 1ull << (bits - 2))
    return 0;
  for (int i = 0; i < nl; i++) {
    l[i].j -= (int)dmin;
    if (l[i].j >= (int)c->k)
      return 0;
  }
  return 1;
}

/* F over the 2^K assignments: 1 when it is c_0 && ... && c_{K-1}, -1 when
 * it is !c_0 && ... && !c_{K-1}, else 0. */
static int truth(const wgroup *g, const leaf *l, int nl, unsigned k) {
  unsigned all = (1u << k) - 1;
  int ones = 1, zeros = 1;
  for (unsigned bits = 0; bits <= all; bits++) {
    int f = 1;
    for (int i = 0; i < g->ntcj; i++)
      f &= eval_f(g->tcj[i].v, l, nl, bits) == g->tcj[i].pol;
    ones &= f == (bits == all);
    zeros &= f == (bits == 0);
  }
  return ones ? 1 : zeros ? -1 : 0;
}

int ks_window_guard_k(wctx *c, wgroup *g) {
  if (!g->ntcj)
    return 1;
  leaf l[MAX_LEAF];
  int nl = 0;
  for (int i = 0; i < g->ntcj; i++)
    if (!find_leaves(g->tcj[i].v, l, &nl, 0)) {
      ks_window_decline(c, g,
                        "coarsened by %u: guard on tid.x not a combination of "
                        "comparisons",
                        c->k);
      return 0;
    }
  if (!leaf_lanes(c, g, l, nl)) {
    ks_window_decline(
        c, g,
        "coarsened by %u: guard on tid.x not of the form v_j PRED W, "
        "v_j = %u*tid.x + j + a multiple of %u",
        c->k, c->k, c->k);
    return 0;
  }
  int t = truth(g, l, nl, c->k);
  if (!t) {
    ks_window_decline(
        c, g,
        "coarsened by %u: guard on tid.x is not \"every virtual thread "
        "passes\"",
        c->k);
    return 0;
  }
  /* F = !c_0 && ...: the half-line is the other one. */
  g->wpred = t > 0 ? l[0].p : ks_ir_icmp_inverse(l[0].p);
  g->ww = l[0].w;
  g->jsel = is_lower(g->wpred) ? c->k - 1 : 0;
  for (int i = 0; i < nl; i++)
    if (l[i].j == (int)g->jsel)
      g->wv = l[i].v;
  if (!g->wv) {
    ks_window_decline(c, g, "coarsened by %u: no condition on lane %u", c->k,
                      g->jsel);
    return 0;
  }
  return 1;
}
