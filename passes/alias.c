/*
 * alias.c - run-time alias checks: where a transformation is right only if
 * two pointer arguments do not overlap (atomic privatization of a
 * histogram whose input is not __restrict__), the kernel gets two
 * versions, the transformed one and the original, and a check at its
 * entry picks one (loop versioning, as LLVM's LoopVersioningLICM does,
 * here for the whole kernel):
 *
 *   ks.alias: ok = every access that may overlap P stays outside the bytes
 *                  of P the transformation changes
 *             br ok, transformed entry, original entry (a copy, ir/clone.c)
 *
 * The check reads only kernel arguments, constants and the launch's shape
 * (%ntid, %nctaid), so it is the same in every thread of the grid: whole
 * blocks take one version, and the transformed version's barriers are
 * reached by all threads of a block or by none.
 *
 * The bytes an access can touch: its address is base + c + sum idx * scale
 * (GEPs and casts back to an argument or a global), and each index gets
 * bounds [lo, hi] as i64 values computed at the entry, with conditions
 * (also computed there) under which the bounds hold:
 *  - constants; the ranges of ranges.c where they are finite; integer
 *    arguments as themselves; %tid in [0, %ntid - 1], %ctaid in
 *    [0, %nctaid - 1], %ntid and %nctaid as read at the entry;
 *  - sext, zext (of a non-negative value), trunc (of a value that fits),
 *    add, sub, mul, shl by a constant, smin, smax, select: from their
 *    operands' bounds, with the condition that the result does not wrap
 *    (no condition needed for a side of an nsw operation: its wrap is
 *    poison, and a poison address or branch is undefined behaviour);
 *  - the branch conditions on the way (`x < n` on the single-predecessor
 *    path to the access, or on a phi's incoming edge) narrow a value;
 *  - a phi P whose incoming values are either bounded, or P + s with
 *    s >= 0 and an edge condition bounding P + s from above (a counted
 *    loop: `for (i = tid; i < n; i += step)`): P stays in [L, H], L the
 *    least lower bound of the others, H the greatest upper bound of all,
 *    provided H + max(s) does not wrap (by induction: each value is in
 *    [L, H]).
 * Every bound is kept within +-2^40 by the conditions, so the check's own
 * i64 arithmetic cannot wrap. Anything else (a loaded index, a division
 * of an unbounded value) has no bounds, and the transformation declines
 * as without the check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/smem_atomics.h"

enum {
  MAX_CONDS = 32, /* branch conditions on one path */
  MAX_DEPTH = 40, /* of an index expression */
  BUDGET = 4096,  /* values visited per kernel */
  MAX_SCALE = 1 << 20,
};

static const ks_wide LIMIT = (ks_wide)1 << 40; /* of every bound */

struct ks_alias {
  LLVMModuleRef m;
  LLVMContextRef c;
  LLVMValueRef fn;
  LLVMTypeRef i64, i1;
  LLVMBuilderRef b;
  LLVMBasicBlockRef chk; /* the check, appended to fn until ks_alias_version */
  ks_ranges *R;          /* ranges.c's, for what it bounds alone */
  LLVMValueRef sreg[6];  /* ntid.xyz, nctaid.xyz read in chk */
  LLVMValueRef cond;     /* the conditions of the access being bounded */
  int never;             /* one of them is false whatever the launch */
  uint64_t leaves;       /* what the bounds read: KS_ALIAS_ARG/KS_ALIAS_DIM */
  LLVMValueRef stack[MAX_DEPTH];
  unsigned depth, visits;
};

/* Bounds of a value as i64 values in the check block; NULL: no bound. */
typedef struct bnd {
  LLVMValueRef lo, hi;
} bnd;

/* Branch conditions that hold at a point: each an i1 and whether it is
 * true there. */
typedef struct conds {
  LLVMValueRef c[MAX_CONDS];
  int holds[MAX_CONDS];
  unsigned n;
} conds;

/* ---- building the check -------------------------------------------------- */

static LLVMValueRef k64(ks_alias *a, ks_wide v) {
  return LLVMConstInt(a->i64, (unsigned long long)v, 1);
}

static LLVMValueRef smin2(ks_alias *a, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(a->b, LLVMBuildICmp(a->b, LLVMIntSLT, x, y, ""), x, y,
                         "");
}

static LLVMValueRef smax2(ks_alias *a, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(a->b, LLVMBuildICmp(a->b, LLVMIntSGT, x, y, ""), x, y,
                         "");
}

/* Adds `x p y` to the conditions of the access being bounded. */
static void require(ks_alias *a, LLVMIntPredicate p, LLVMValueRef x,
                    LLVMValueRef y) {
  LLVMValueRef c = LLVMBuildICmp(a->b, p, x, y, "");
  if (LLVMIsAConstantInt(c)) { /* folded: true adds nothing */
    a->never |= LLVMConstIntGetZExtValue(c) == 0;
    return;
  }
  a->cond = a->cond ? LLVMBuildAnd(a->b, a->cond, c, "") : c;
}

/* Requires the present sides of r within width w's signed range and
 * +-LIMIT. */
static bnd fit(ks_alias *a, bnd r, unsigned w) {
  ks_wide lo = w < 64 ? ks_iv_smin(w) : 0, hi = w < 64 ? ks_iv_smax(w) : 0;
  lo = w < 64 && lo > -LIMIT ? lo : -LIMIT;
  hi = w < 64 && hi < LIMIT ? hi : LIMIT;
  if (r.lo)
    require(a, LLVMIntSGE, r.lo, k64(a, lo));
  if (r.hi)
    require(a, LLVMIntSLE, r.hi, k64(a, hi));
  return r;
}

/* %ntid or %nctaid along dimension d (0-2; 3-5 for nctaid), read once in
 * the check block. */
static LLVMValueRef launch_dim(ks_alias *a, int which, const unsigned *block) {
  static const char *names[6] = {
      "llvm.nvvm.read.ptx.sreg.ntid.x",   "llvm.nvvm.read.ptx.sreg.ntid.y",
      "llvm.nvvm.read.ptx.sreg.ntid.z",   "llvm.nvvm.read.ptx.sreg.nctaid.x",
      "llvm.nvvm.read.ptx.sreg.nctaid.y", "llvm.nvvm.read.ptx.sreg.nctaid.z"};
  if (which < 3 && block && block[0])
    return k64(a, block[which] ? block[which] : 1);
  a->leaves |= KS_ALIAS_DIM(which);
  if (!a->sreg[which]) {
    LLVMValueRef r = ks_ir_call_intrinsic(a->m, a->b, names[which], NULL, 0);
    a->sreg[which] = LLVMBuildZExt(a->b, r, a->i64, "");
  }
  return a->sreg[which];
}

/* ---- conditions on the way ----------------------------------------------- */

static void push_cond(conds *cs, LLVMValueRef c, int holds, int depth) {
  if (cs->n == MAX_CONDS)
    return;
  /* x && y true: both true; x || y false: both false */
  LLVMOpcode op = LLVMIsAInstruction(c) ? LLVMGetInstructionOpcode(c) : 0;
  LLVMValueRef x = NULL, y = NULL;
  if (op == LLVMAnd && holds) {
    x = LLVMGetOperand(c, 0), y = LLVMGetOperand(c, 1);
  } else if (op == LLVMOr && !holds) {
    x = LLVMGetOperand(c, 0), y = LLVMGetOperand(c, 1);
  } else if (op == LLVMSelect && holds &&
             LLVMIsNull(LLVMGetOperand(c, 2))) { /* x ? y : false */
    x = LLVMGetOperand(c, 0), y = LLVMGetOperand(c, 1);
  }
  if (x && depth < 4) {
    push_cond(cs, x, holds, depth + 1);
    push_cond(cs, y, holds, depth + 1);
    return;
  }
  if (LLVMIsAICmpInst(c)) {
    cs->c[cs->n] = c;
    cs->holds[cs->n++] = holds;
  }
}

/* The one branch into bb, or NULL where bb has several predecessors (or
 * one by a terminator other than br). */
static LLVMValueRef only_branch_into(LLVMBasicBlockRef bb) {
  LLVMValueRef term = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)); u;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsATerminatorInst(user))
      continue;
    if (term && term != user)
      return NULL;
    term = user;
  }
  return term && LLVMIsABranchInst(term) ? term : NULL;
}

/* Adds what branch `br` into `to` says, then walks back from br's block
 * through blocks with a single predecessor (no loop header: a value's
 * instance is the one the condition saw). */
static void walk_back(conds *cs, LLVMValueRef br, LLVMBasicBlockRef to) {
  for (int step = 0; br && step < MAX_CONDS; step++) {
    if (LLVMIsConditional(br) &&
        LLVMGetSuccessor(br, 0) != LLVMGetSuccessor(br, 1))
      push_cond(cs, LLVMGetCondition(br), LLVMGetSuccessor(br, 0) == to, 0);
    to = LLVMGetInstructionParent(br);
    br = only_branch_into(to);
  }
}

static void conds_at(conds *cs, LLVMBasicBlockRef bb) {
  cs->n = 0;
  walk_back(cs, only_branch_into(bb), bb);
}

static void conds_edge(conds *cs, LLVMBasicBlockRef from,
                       LLVMBasicBlockRef to) {
  cs->n = 0;
  LLVMValueRef t = LLVMGetBasicBlockTerminator(from);
  if (t && LLVMIsABranchInst(t))
    walk_back(cs, t, to);
}

/* ---- bounds of values ---------------------------------------------------- */

static bnd range(ks_alias *a, LLVMValueRef v, const conds *cs);

static const bnd NONE = {NULL, NULL};

static bnd both(bnd r) { return r.lo && r.hi ? r : NONE; }

/* ranges.c's bounds of v, where they span less than 2^31: the full range
 * of a 32-bit value (sign-extended, say) would make a check that buffers
 * are 2 GiB apart, an index not bounded by anything the launch says. */
static int static_bounds(ks_alias *a, LLVMValueRef v, unsigned w, bnd *out) {
  ks_iv r = ks_range_of(a->R, v);
  if (r.lo <= ks_iv_smin(w) || r.hi >= ks_iv_smax(w) ||
      r.hi - r.lo >= ((ks_wide)1 << 31) || r.lo < -LIMIT || r.hi > LIMIT)
    return 0;
  *out = (bnd){k64(a, r.lo), k64(a, r.hi)};
  return 1;
}

static bnd add_sub(ks_alias *a, LLVMValueRef v, const conds *cs, int sub) {
  bnd x = range(a, LLVMGetOperand(v, 0), cs);
  bnd y = range(a, LLVMGetOperand(v, 1), cs);
  LLVMValueRef ylo = sub ? y.hi : y.lo, yhi = sub ? y.lo : y.hi;
  bnd r = NONE;
  if (x.lo && ylo)
    r.lo = sub ? LLVMBuildSub(a->b, x.lo, ylo, "")
               : LLVMBuildAdd(a->b, x.lo, ylo, "");
  if (x.hi && yhi)
    r.hi = sub ? LLVMBuildSub(a->b, x.hi, yhi, "")
               : LLVMBuildAdd(a->b, x.hi, yhi, "");
  return LLVMGetNSW(v) ? r : both(r);
}

/* x * y, either a constant c: within LIMIT when |c| <= MAX_SCALE, else
 * with x required within MAX_SCALE; both variable: each within 2^31. */
static bnd mul_bnd(ks_alias *a, bnd x, bnd y) {
  x = both(x), y = both(y);
  if (!x.lo || !y.lo)
    return NONE;
  ks_wide c;
  for (int swap = 0; swap < 2; swap++) {
    bnd p = swap ? y : x, q = swap ? x : y;
    if (q.lo == q.hi && ks_range_const(q.lo, 0, &c)) {
      if (c < -LIMIT || c > LIMIT)
        return NONE;
      if (c > MAX_SCALE || c < -MAX_SCALE)
        fit(a, (bnd){p.lo, p.hi}, 21); /* |p| < 2^20: |p * c| < 2^60 */
      LLVMValueRef l = LLVMBuildMul(a->b, p.lo, q.lo, "");
      LLVMValueRef h = LLVMBuildMul(a->b, p.hi, q.lo, "");
      return c >= 0 ? (bnd){l, h} : (bnd){h, l};
    }
  }
  fit(a, x, 32);
  fit(a, y, 32);
  LLVMValueRef p[4] = {
      LLVMBuildMul(a->b, x.lo, y.lo, ""), LLVMBuildMul(a->b, x.lo, y.hi, ""),
      LLVMBuildMul(a->b, x.hi, y.lo, ""), LLVMBuildMul(a->b, x.hi, y.hi, "")};
  return (bnd){smin2(a, smin2(a, p[0], p[1]), smin2(a, p[2], p[3])),
               smax2(a, smax2(a, p[0], p[1]), smax2(a, p[2], p[3]))};
}

static bnd mul_shl(ks_alias *a, LLVMValueRef v, const conds *cs, int shl) {
  bnd x = range(a, LLVMGetOperand(v, 0), cs), y;
  if (shl) {
    ks_wide c;
    if (!ks_range_const(LLVMGetOperand(v, 1), 1, &c) || c >= 41)
      return NONE;
    y = (bnd){k64(a, (ks_wide)1 << c), k64(a, (ks_wide)1 << c)};
  } else {
    y = range(a, LLVMGetOperand(v, 1), cs);
  }
  return mul_bnd(a, x, y);
}

static bnd cast_bnd(ks_alias *a, LLVMValueRef v, const conds *cs, LLVMOpcode op,
                    unsigned w) {
  bnd x = range(a, LLVMGetOperand(v, 0), cs);
  if (op == LLVMSExt)
    return x;
  x = both(x);
  if (!x.lo)
    return NONE;
  if (op == LLVMZExt) /* the same value where it is non-negative */
    require(a, LLVMIntSGE, x.lo, k64(a, 0));
  else
    fit(a, x, w); /* trunc: where it fits, the same value */
  return x;
}

/* %tid in [0, %ntid - 1], %ctaid in [0, %nctaid - 1], %ntid, %nctaid;
 * smin and smax of bounded values. */
static bnd call_bnd(ks_alias *a, LLVMValueRef v, const conds *cs) {
  static const struct {
    const char *name;
    int dim, index; /* launch_dim's; an index below it, or it */
  } sregs[] = {{"tid.x", 0, 1},    {"tid.y", 1, 1},    {"tid.z", 2, 1},
               {"ctaid.x", 3, 1},  {"ctaid.y", 4, 1},  {"ctaid.z", 5, 1},
               {"ntid.x", 0, 0},   {"ntid.y", 1, 0},   {"ntid.z", 2, 0},
               {"nctaid.x", 3, 0}, {"nctaid.y", 4, 0}, {"nctaid.z", 5, 0}};
  const char *r = ks_ir_sreg(v);
  for (size_t i = 0; r && i < sizeof sregs / sizeof sregs[0]; i++)
    if (strcmp(r, sregs[i].name) == 0) {
      LLVMValueRef n = launch_dim(a, sregs[i].dim, a->R->block);
      if (sregs[i].index)
        return (bnd){k64(a, 0), LLVMBuildSub(a->b, n, k64(a, 1), "")};
      return (bnd){n, n};
    }
  int mm = ks_ir_minmax(v); /* 3 smin, 4 smax */
  if (mm != 3 && mm != 4)
    return NONE;
  bnd x = range(a, LLVMGetOperand(v, 0), cs);
  bnd y = range(a, LLVMGetOperand(v, 1), cs);
  bnd out = NONE;
  if (mm == 3) { /* below either's upper bound */
    out.hi = x.hi && y.hi ? smin2(a, x.hi, y.hi) : x.hi ? x.hi : y.hi;
    out.lo = x.lo && y.lo ? smin2(a, x.lo, y.lo) : NULL;
  } else {
    out.lo = x.lo && y.lo ? smax2(a, x.lo, y.lo) : x.lo ? x.lo : y.lo;
    out.hi = x.hi && y.hi ? smax2(a, x.hi, y.hi) : NULL;
  }
  return out;
}

/* The bounds v gets from the conditions cs: `v < y` bounds it above by
 * y's upper bound less one, and so on. */
static bnd narrow(ks_alias *a, LLVMValueRef v, bnd r, const conds *cs) {
  for (unsigned i = 0; i < cs->n; i++) {
    LLVMValueRef c = cs->c[i];
    int side = LLVMGetOperand(c, 0) == v   ? 0
               : LLVMGetOperand(c, 1) == v ? 1
                                           : -1;
    if (side < 0)
      continue;
    LLVMIntPredicate p = LLVMGetICmpPredicate(c);
    if (!cs->holds[i])
      p = ks_ir_icmp_inverse(p);
    if (side == 1)
      p = ks_ir_icmp_swap(p);
    LLVMValueRef other = LLVMGetOperand(c, (unsigned)(1 - side));
    if (other == v)
      continue;
    bnd y = range(a, other, cs);
    LLVMValueRef lo = NULL, hi = NULL;
    switch (p) {
    case LLVMIntSLT:
      hi = y.hi ? LLVMBuildSub(a->b, y.hi, k64(a, 1), "") : NULL;
      break;
    case LLVMIntSLE:
      hi = y.hi;
      break;
    case LLVMIntSGT:
      lo = y.lo ? LLVMBuildAdd(a->b, y.lo, k64(a, 1), "") : NULL;
      break;
    case LLVMIntSGE:
      lo = y.lo;
      break;
    case LLVMIntEQ:
      lo = y.lo, hi = y.hi;
      break;
    case LLVMIntULT: /* unsigned below a non-negative y: in [0, y - 1] */
    case LLVMIntULE:
      if (!y.lo || !y.hi)
        break;
      require(a, LLVMIntSGE, y.lo, k64(a, 0));
      lo = k64(a, 0);
      hi = p == LLVMIntULE ? y.hi : LLVMBuildSub(a->b, y.hi, k64(a, 1), "");
      break;
    default:
      break;
    }
    if (lo)
      r.lo = r.lo ? smax2(a, r.lo, lo) : lo;
    if (hi)
      r.hi = r.hi ? smin2(a, r.hi, hi) : hi;
  }
  return r;
}

/* P + s (or s + P), the step of a counted loop: s, else NULL. */
static LLVMValueRef step_of(LLVMValueRef P, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd)
    return NULL;
  if (LLVMGetOperand(v, 0) == P)
    return LLVMGetOperand(v, 1);
  if (LLVMGetOperand(v, 1) == P)
    return LLVMGetOperand(v, 0);
  return NULL;
}

/* A phi: the join of its incoming values' bounds, each narrowed by its
 * edge's conditions; a counted loop's increment as the file header says. */
static bnd phi_bnd(ks_alias *a, LLVMValueRef P, unsigned w) {
  LLVMBasicBlockRef at = LLVMGetInstructionParent(P);
  LLVMValueRef L = NULL, H = NULL;
  LLVMValueRef steps[8], adds[8];
  unsigned nsteps = 0, n = LLVMCountIncoming(P);
  int any = 0;
  conds cs;
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef v = LLVMGetIncomingValue(P, k);
    if (v == P)
      continue;
    conds_edge(&cs, LLVMGetIncomingBlock(P, k), at);
    LLVMValueRef s = step_of(P, v);
    bnd r;
    if (s) {
      if (nsteps == 8)
        return NONE;
      r = narrow(a, v, NONE, &cs);
      if (!r.hi)
        return NONE; /* nothing stops the loop's value growing */
      bnd sb = range(a, s, &cs);
      if (!sb.lo || !sb.hi)
        return NONE;
      require(a, LLVMIntSGE, sb.lo, k64(a, 0));
      steps[nsteps] = sb.hi;
      adds[nsteps++] = v;
      H = H ? smax2(a, H, r.hi) : r.hi;
      continue;
    }
    r = both(range(a, v, &cs));
    if (!r.lo)
      return NONE;
    L = L ? smin2(a, L, r.lo) : r.lo;
    H = H ? smax2(a, H, r.hi) : r.hi;
    any = 1;
  }
  if (!any)
    return NONE;
  for (unsigned k = 0; k < nsteps; k++)
    if (!LLVMGetNSW(adds[k])) /* P + s <= H + max(s) does not wrap */
      fit(a, (bnd){NULL, LLVMBuildAdd(a->b, H, steps[k], "")}, w);
  return (bnd){L, H};
}

static bnd symbolic(ks_alias *a, LLVMValueRef v, const conds *cs, unsigned w) {
  if (LLVMIsAArgument(v)) {
    unsigned i = ks_ir_param_index(v);
    a->leaves |= i < 32 ? KS_ALIAS_ARG(i) : 0;
    LLVMValueRef x = w < 64 ? LLVMBuildSExt(a->b, v, a->i64, "") : v;
    return fit(a, (bnd){x, x}, w);
  }
  if (!LLVMIsAInstruction(v))
    return NONE;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMSExt:
    return cast_bnd(a, v, cs, LLVMSExt, w);
  case LLVMZExt:
    return cast_bnd(a, v, cs, LLVMZExt, w);
  case LLVMTrunc:
    return cast_bnd(a, v, cs, LLVMTrunc, w);
  case LLVMAdd:
    return fit(a, add_sub(a, v, cs, 0), w);
  case LLVMSub:
    return fit(a, add_sub(a, v, cs, 1), w);
  case LLVMMul:
    return fit(a, mul_shl(a, v, cs, 0), w);
  case LLVMShl:
    return fit(a, mul_shl(a, v, cs, 1), w);
  case LLVMSelect: {
    bnd x = both(range(a, LLVMGetOperand(v, 1), cs));
    bnd y = both(range(a, LLVMGetOperand(v, 2), cs));
    if (!x.lo || !y.lo)
      return NONE;
    return (bnd){smin2(a, x.lo, y.lo), smax2(a, x.hi, y.hi)};
  }
  case LLVMPHI:
    return phi_bnd(a, v, w);
  case LLVMCall:
    return call_bnd(a, v, cs);
  default:
    return NONE; /* loads, and what ranges.c could not bound */
  }
}

/* ranges.c's bounds where it has them, else the symbolic ones. The
 * conditions of an attempt that bounds nothing are dropped. */
static bnd compute(ks_alias *a, LLVMValueRef v, const conds *cs, unsigned w) {
  ks_wide c;
  bnd st = NONE;
  if (ks_range_const(v, 0, &c))
    return c < -LIMIT || c > LIMIT ? NONE : (bnd){k64(a, c), k64(a, c)};
  if (static_bounds(a, v, w, &st))
    return st;
  LLVMValueRef saved = a->cond;
  int never = a->never;
  uint64_t leaves = a->leaves;
  bnd r = symbolic(a, v, cs, w);
  if (!r.lo && !r.hi)
    a->cond = saved, a->never = never, a->leaves = leaves;
  return r;
}

/* Bounds of v (an integer) under the conditions cs. A value met again
 * while its own bounds are computed has none. */
static bnd range(ks_alias *a, LLVMValueRef v, const conds *cs) {
  unsigned w = ks_range_width(v);
  if (w == 0 || w > 64 || a->depth == MAX_DEPTH || ++a->visits > BUDGET)
    return NONE;
  for (unsigned i = 0; i < a->depth; i++)
    if (a->stack[i] == v)
      return NONE;
  a->stack[a->depth++] = v;
  bnd r = compute(a, v, cs, w);
  r = narrow(a, v, r, cs);
  a->depth--;
  return r;
}

/* ---- accesses ------------------------------------------------------------ */

/* The bytes of one access: base + [lo, hi) (i64 values); 0 when its
 * address cannot be bounded. */
static int access_bytes(ks_alias *a, LLVMValueRef inst, LLVMValueRef *base,
                        LLVMValueRef *lo, LLVMValueRef *hi) {
  LLVMValueRef p, val;
  if (LLVMIsALoadInst(inst)) {
    p = LLVMGetOperand(inst, 0), val = inst;
  } else if (LLVMIsAStoreInst(inst)) {
    p = LLVMGetOperand(inst, 1), val = LLVMGetOperand(inst, 0);
  } else if (LLVMIsAAtomicRMWInst(inst)) {
    p = LLVMGetOperand(inst, 0), val = LLVMGetOperand(inst, 1);
  } else if (LLVMIsAAtomicCmpXchgInst(inst)) {
    p = LLVMGetOperand(inst, 0), val = LLVMGetOperand(inst, 1);
  } else {
    return 0;
  }
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(a->m);
  conds cs;
  conds_at(&cs, LLVMGetInstructionParent(inst));
  bnd off = {k64(a, 0), k64(a, 0)};
  while (!LLVMIsAArgument(p) && !LLVMIsAGlobalVariable(p)) {
    if (LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    if (!LLVMIsAGetElementPtrInst(p))
      return 0;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    unsigned n = (unsigned)LLVMGetNumOperands(p);
    for (unsigned i = 1; i < n; i++) {
      LLVMValueRef idx = LLVMGetOperand(p, i);
      ks_wide c;
      if (i > 1 && LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        if (!ks_range_const(idx, 0, &c))
          return 0;
        LLVMValueRef f =
            k64(a, (ks_wide)LLVMOffsetOfElement(dl, t, (unsigned)c));
        off = (bnd){LLVMBuildAdd(a->b, off.lo, f, ""),
                    LLVMBuildAdd(a->b, off.hi, f, "")};
        t = LLVMStructGetTypeAtIndex(t, (unsigned)c);
        continue;
      }
      if (i > 1) {
        if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
          return 0;
        t = LLVMGetElementType(t);
      }
      ks_wide stride = (ks_wide)LLVMABISizeOfType(dl, t);
      bnd x = both(range(a, idx, &cs));
      if (!x.lo || stride > MAX_SCALE)
        return 0;
      x = mul_bnd(a, x, (bnd){k64(a, stride), k64(a, stride)});
      off = fit(a,
                (bnd){LLVMBuildAdd(a->b, off.lo, x.lo, ""),
                      LLVMBuildAdd(a->b, off.hi, x.hi, "")},
                64);
    }
    p = LLVMGetOperand(p, 0);
  }
  ks_wide size = (ks_wide)LLVMStoreSizeOfType(dl, LLVMTypeOf(val));
  *base = p;
  *lo = off.lo;
  *hi = LLVMBuildAdd(a->b, off.hi, k64(a, size), "");
  return 1;
}

/* p as an i64 address below 2^62 (required), so that adding offsets
 * within LIMIT cannot wrap. */
static LLVMValueRef address(ks_alias *a, LLVMValueRef p) {
  LLVMTypeRef gen = LLVMPointerTypeInContext(a->c, 0);
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != 0)
    p = LLVMBuildAddrSpaceCast(a->b, p, gen, "");
  LLVMValueRef x = LLVMBuildPtrToInt(a->b, p, a->i64, "");
  require(a, LLVMIntULT, x, k64(a, (ks_wide)1 << 62));
  return x;
}

/* ---- the interface ------------------------------------------------------- */

ks_alias *ks_alias_create(LLVMModuleRef m, LLVMValueRef fn,
                          const unsigned block[3]) {
  ks_alias *a = calloc(1, sizeof *a);
  if (!a || !(a->R = calloc(1, sizeof *a->R))) {
    free(a);
    return NULL;
  }
  a->m = m;
  a->c = LLVMGetModuleContext(m);
  a->fn = fn;
  a->i64 = LLVMInt64TypeInContext(a->c);
  a->i1 = LLVMInt1TypeInContext(a->c);
  for (int i = 0; i < 3; i++)
    a->R->block[i] = block[0] ? (block[i] ? block[i] : 1) : 0;
  a->chk = LLVMAppendBasicBlockInContext(a->c, fn, "ks.alias");
  a->b = LLVMCreateBuilderInContext(a->c);
  LLVMPositionBuilderAtEnd(a->b, a->chk);
  return a;
}

LLVMBasicBlockRef ks_alias_block(const ks_alias *a) { return a->chk; }

LLVMValueRef ks_alias_disjoint(ks_alias *a, LLVMValueRef inst, LLVMValueRef P,
                               ks_wide lo, ks_wide hi, ks_alias_bytes *out) {
  LLVMValueRef base, alo, ahi;
  a->cond = NULL;
  a->never = 0;
  a->leaves = 0;
  a->depth = 0;
  LLVMPositionBuilderAtEnd(a->b, a->chk);
  if (!access_bytes(a, inst, &base, &alo, &ahi))
    return NULL;
  out->known =
      ks_range_const(alo, 0, &out->lo) && ks_range_const(ahi, 0, &out->hi);
  out->leaves = a->leaves;
  LLVMValueRef q = address(a, base), p = address(a, P);
  /* [q + alo, q + ahi) and [p + lo, p + hi) do not meet */
  LLVMValueRef below =
      LLVMBuildICmp(a->b, LLVMIntSLE, LLVMBuildAdd(a->b, q, ahi, ""),
                    LLVMBuildAdd(a->b, p, k64(a, lo), ""), "");
  LLVMValueRef above =
      LLVMBuildICmp(a->b, LLVMIntSLE, LLVMBuildAdd(a->b, p, k64(a, hi), ""),
                    LLVMBuildAdd(a->b, q, alo, ""), "");
  LLVMValueRef ok = LLVMBuildOr(a->b, below, above, "");
  ok = a->cond ? LLVMBuildAnd(a->b, a->cond, ok, "") : ok;
  if (a->never || (LLVMIsAConstantInt(ok) && LLVMConstIntGetZExtValue(ok) == 0))
    return NULL; /* never holds: no use versioning for it */
  return ok;
}

LLVMValueRef ks_alias_and(ks_alias *a, LLVMValueRef x, LLVMValueRef y) {
  LLVMPositionBuilderAtEnd(a->b, a->chk);
  return x ? LLVMBuildAnd(a->b, x, y, "") : y;
}

/* Static allocas of block bb move before `before` (the entry's branch). */
static void hoist_allocas(LLVMBuilderRef b, LLVMBasicBlockRef bb,
                          LLVMValueRef before) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0))) {
      LLVMInstructionRemoveFromParent(i);
      LLVMPositionBuilderBefore(b, before);
      LLVMInsertIntoBuilder(b, i);
    }
  }
}

void ks_alias_version(ks_alias *a, LLVMValueRef ok, LLVMBasicBlockRef fast,
                      LLVMBasicBlockRef slow) {
  LLVMPositionBuilderAtEnd(a->b, a->chk);
  LLVMValueRef br = LLVMBuildCondBr(a->b, ok, fast, slow);
  LLVMMoveBasicBlockBefore(a->chk, LLVMGetEntryBasicBlock(a->fn));
  hoist_allocas(a->b, fast, br);
  hoist_allocas(a->b, slow, br);
  a->chk = NULL; /* the function's now */
}

void ks_alias_destroy(ks_alias *a) {
  if (!a)
    return;
  if (a->chk)
    LLVMDeleteBasicBlock(a->chk);
  LLVMDisposeBuilder(a->b);
  free(a->R);
  free(a);
}
