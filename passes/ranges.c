/*
 * ranges.c - the values an integer of the IR can take: intervals with a
 * congruence, computed over the expression that defines a value.
 *
 * A value's range is [lo, hi] with every value equal to r modulo g (so
 * hist[16 * v] needs 256 elements, not 4081). The analysis respects the
 * wrap-around of LLVM integers: a result that may wrap is only bounded when
 * nsw makes wrapping poison. It knows constants, casts, the arithmetic and
 * bitwise operators (shifts and divisions by constants), select, phi
 * (a loop's own value is unknown), min/max, and %tid/%ntid where the block
 * is fixed; a path's branch conditions can narrow a value further
 * (ks_range_path_bounds). Atomic privatization bounds its indices with it,
 * shared-array sizing and private arrays their accesses.
 */
#include <string.h>

#include "passes/smem_atomics.h"

/* ---- intervals with a congruence ----------------------------------------- */

static const ks_wide G_MAX = (ks_wide)1 << 40;

ks_wide ks_iv_smin(unsigned w) { return -((ks_wide)1 << (w - 1)); }
ks_wide ks_iv_smax(unsigned w) { return ((ks_wide)1 << (w - 1)) - 1; }
static ks_wide wmin(ks_wide a, ks_wide b) { return a < b ? a : b; }
static ks_wide wmax(ks_wide a, ks_wide b) { return a > b ? a : b; }
static ks_wide wabs(ks_wide a) { return a < 0 ? -a : a; }

static ks_wide gcd(ks_wide a, ks_wide b) {
  a = wabs(a);
  b = wabs(b);
  while (b) {
    ks_wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Floor division and modulo (b > 0). */
static ks_wide fdiv(ks_wide a, ks_wide b) {
  return a / b - (a % b != 0 && a < 0);
}
static ks_wide fmod_(ks_wide a, ks_wide b) { return a - fdiv(a, b) * b; }

ks_iv ks_iv_full(unsigned w) {
  return (ks_iv){ks_iv_smin(w), ks_iv_smax(w), 1, 0};
}

ks_iv ks_iv_single(ks_wide v) { return (ks_iv){v, v, 0, v}; }

/* [lo, hi] with congruence (g, r) as a value of width w. A result outside
 * the width wrapped: that is poison under nsw (clamp), else anything. */
ks_iv ks_iv_make(unsigned w, ks_wide lo, ks_wide hi, ks_wide g, ks_wide r,
                 int nsw) {
  if (lo < ks_iv_smin(w) || hi > ks_iv_smax(w)) {
    if (!nsw)
      return ks_iv_full(w);
    lo = wmax(lo, ks_iv_smin(w));
    hi = wmin(hi, ks_iv_smax(w));
    if (lo > hi)
      return ks_iv_full(w);
  }
  if (lo == hi)
    return ks_iv_single(lo);
  if (g <= 0 || g > G_MAX)
    return (ks_iv){lo, hi, 1, 0};
  r = fmod_(r, g);
  ks_wide tlo = lo + fmod_(r - lo, g), thi = hi - fmod_(hi - r, g);
  if (tlo > thi)
    return (ks_iv){lo, hi, 1, 0};
  return tlo == thi ? ks_iv_single(tlo) : (ks_iv){tlo, thi, g, r};
}

/* The congruence modulus shared by a and b (for a union or a sum). */
ks_wide ks_iv_join_g(ks_iv a, ks_iv b) { return gcd(gcd(a.g, b.g), a.r - b.r); }

ks_iv ks_iv_join(unsigned w, ks_iv a, ks_iv b) {
  return ks_iv_make(w, wmin(a.lo, b.lo), wmax(a.hi, b.hi), ks_iv_join_g(a, b),
                    a.r, 0);
}

/* Unsigned view of a value of width w. */
static void uview(unsigned w, ks_iv a, ks_wide *ulo, ks_wide *uhi) {
  ks_wide span = (ks_wide)1 << w;
  if (a.lo >= 0) {
    *ulo = a.lo;
    *uhi = a.hi;
  } else if (a.hi < 0) {
    *ulo = a.lo + span;
    *uhi = a.hi + span;
  } else {
    *ulo = 0;
    *uhi = span - 1;
  }
}

/* Back from an unsigned [ulo, uhi] to the signed view of width w. */
static ks_iv sview(unsigned w, ks_wide ulo, ks_wide uhi) {
  ks_wide span = (ks_wide)1 << w;
  if (uhi <= ks_iv_smax(w))
    return ks_iv_make(w, ulo, uhi, 1, 0, 0);
  if (ulo > ks_iv_smax(w))
    return ks_iv_make(w, ulo - span, uhi - span, 1, 0, 0);
  return ks_iv_full(w);
}

ks_iv ks_iv_mul(unsigned w, ks_iv a, ks_iv b, int nsw) {
  ks_wide p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  ks_wide lo = p[0], hi = p[0];
  for (int i = 1; i < 4; i++) {
    lo = wmin(lo, p[i]);
    hi = wmax(hi, p[i]);
  }
  ks_wide g = 1, r = 0;
  if (b.g == 0 && wabs(b.lo) <= G_MAX) {
    g = a.g * wabs(b.lo);
    r = a.r * b.lo;
  } else if (a.g == 0 && wabs(a.lo) <= G_MAX) {
    g = b.g * wabs(a.lo);
    r = b.r * a.lo;
  }
  return ks_iv_make(w, lo, hi, g, r, nsw);
}

static ks_iv iv_and(unsigned w, ks_iv a, ks_iv b) {
  if (a.lo >= 0 && b.lo >= 0)
    return ks_iv_make(w, 0, wmin(a.hi, b.hi), 1, 0, 0);
  if (a.lo >= 0 || b.lo >= 0)
    return ks_iv_make(w, 0, a.lo >= 0 ? a.hi : b.hi, 1, 0, 0);
  return ks_iv_full(w);
}

/* or, xor of non-negative values: below the next power of two. */
static ks_iv iv_orxor(unsigned w, ks_iv a, ks_iv b, int is_or) {
  if (a.lo < 0 || b.lo < 0)
    return ks_iv_full(w);
  ks_wide m = 1, top = wmax(a.hi, b.hi);
  while (m <= top)
    m <<= 1;
  return ks_iv_make(w, is_or ? wmax(a.lo, b.lo) : 0, m - 1, 1, 0, 0);
}

static ks_iv iv_sdiv(unsigned w, ks_iv a, ks_wide c) {
  if (c > 0)
    return ks_iv_make(w, a.lo / c, a.hi / c, 1, 0, 1);
  return ks_iv_make(w, a.hi / c, a.lo / c, 1, 0, 1); /* MIN / -1 is UB */
}

static ks_iv iv_srem(unsigned w, ks_iv a, ks_wide c) {
  ks_wide m = wabs(c) - 1;
  if (a.lo >= 0)
    return ks_iv_make(w, 0, wmin(m, a.hi), 1, 0, 0);
  if (a.hi <= 0)
    return ks_iv_make(w, wmax(-m, a.lo), 0, 1, 0, 0);
  return ks_iv_make(w, -m, m, 1, 0, 0);
}

/* udiv, lshr, urem by the unsigned constant c (> 0); op: 0 udiv, 1 urem. */
static ks_iv iv_unsigned(unsigned w, ks_iv a, ks_wide c, int op) {
  ks_wide ulo, uhi;
  uview(w, a, &ulo, &uhi);
  if (op == 0)
    return sview(w, ulo / c, uhi / c);
  if (uhi < c)
    return a;
  return sview(w, 0, c - 1);
}

/* ---- the analysis over IR values --------------------------------------- */

unsigned ks_range_width(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
    return 0;
  return LLVMGetIntTypeWidth(t);
}

/* The constant c of width <= 64 as signed (or unsigned) value; 0 if v is
 * no such constant. */
int ks_range_const(LLVMValueRef v, int is_unsigned, ks_wide *c) {
  unsigned w = ks_range_width(v);
  if (!LLVMIsAConstantInt(v) || w == 0 || w > 64)
    return 0;
  *c = is_unsigned ? (ks_wide)LLVMConstIntGetZExtValue(v)
                   : (ks_wide)LLVMConstIntGetSExtValue(v);
  return 1;
}

/* The range of an operand of width at most 64 (else: of no use). */
static int operand(ks_ranges *R, LLVMValueRef inst, unsigned i, ks_iv *out,
                   unsigned *w) {
  LLVMValueRef op = LLVMGetOperand(inst, i);
  *w = ks_range_width(op);
  if (*w == 0 || *w > 64)
    return 0;
  *out = ks_range_of(R, op);
  return 1;
}

static ks_iv cast_range(ks_ranges *R, LLVMValueRef v, LLVMOpcode opc,
                        unsigned w) {
  ks_iv a;
  unsigned ws;
  if (!operand(R, v, 0, &a, &ws))
    return ks_iv_full(w);
  if (opc == LLVMSExt)
    return a;
  if (opc == LLVMTrunc)
    return a.lo >= ks_iv_smin(w) && a.hi <= ks_iv_smax(w) ? a : ks_iv_full(w);
  ks_wide ulo, uhi; /* zext */
  uview(ws, a, &ulo, &uhi);
  return ks_iv_make(w, ulo, uhi, a.lo >= 0 ? a.g : 1, a.lo >= 0 ? a.r : 0, 0);
}

/* Shifts and divisions by a constant. */
static ks_iv const_op_range(LLVMOpcode opc, unsigned w, ks_iv a,
                            LLVMValueRef cv) {
  ks_wide c;
  int uns = opc == LLVMUDiv || opc == LLVMURem || opc == LLVMLShr ||
            opc == LLVMAShr || opc == LLVMShl;
  if (!ks_range_const(cv, uns, &c))
    return ks_iv_full(w);
  if ((opc == LLVMShl || opc == LLVMLShr || opc == LLVMAShr) && c >= w)
    return ks_iv_full(w); /* poison */
  switch (opc) {
  case LLVMSDiv:
    return c == 0 ? ks_iv_full(w) : iv_sdiv(w, a, c);
  case LLVMSRem:
    return c == 0 ? ks_iv_full(w) : iv_srem(w, a, c);
  case LLVMUDiv:
  case LLVMURem:
    return c == 0 ? ks_iv_full(w) : iv_unsigned(w, a, c, opc == LLVMURem);
  case LLVMLShr:
    return iv_unsigned(w, a, (ks_wide)1 << c, 0);
  case LLVMAShr:
    return ks_iv_make(w, fdiv(a.lo, (ks_wide)1 << c),
                      fdiv(a.hi, (ks_wide)1 << c), 1, 0, 0);
  default:
    return ks_iv_full(w);
  }
}

static ks_iv binop_range(ks_ranges *R, LLVMValueRef v, LLVMOpcode opc,
                         unsigned w) {
  ks_iv a, b;
  unsigned wa, wb;
  if (!operand(R, v, 0, &a, &wa) || !operand(R, v, 1, &b, &wb))
    return ks_iv_full(w);
  int nsw =
      (opc == LLVMAdd || opc == LLVMSub || opc == LLVMMul || opc == LLVMShl) &&
      LLVMGetNSW(v);
  switch (opc) {
  case LLVMAdd:
    return ks_iv_make(w, a.lo + b.lo, a.hi + b.hi, ks_iv_join_g(a, b),
                      a.r + b.r, nsw);
  case LLVMSub:
    return ks_iv_make(w, a.lo - b.hi, a.hi - b.lo, ks_iv_join_g(a, b),
                      a.r - b.r, nsw);
  case LLVMMul:
    return ks_iv_mul(w, a, b, nsw);
  case LLVMShl: {
    ks_wide c;
    if (!ks_range_const(LLVMGetOperand(v, 1), 1, &c) || c >= w)
      return ks_iv_full(w);
    return ks_iv_mul(w, a, ks_iv_single((ks_wide)1 << c), nsw);
  }
  case LLVMAnd:
    return iv_and(w, a, b);
  case LLVMOr:
  case LLVMXor:
    return iv_orxor(w, a, b, opc == LLVMOr);
  default:
    return const_op_range(opc, w, a, LLVMGetOperand(v, 1));
  }
}

static ks_iv phi_range(ks_ranges *R, LLVMValueRef v, unsigned w) {
  unsigned n = LLVMCountIncoming(v);
  int any = 0;
  ks_iv acc = ks_iv_full(w);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef in = LLVMGetIncomingValue(v, i);
    if (in == v)
      continue; /* keeps the value it has */
    ks_iv r = ks_range_of(R, in);
    acc = any ? ks_iv_join(w, acc, r) : r;
    any = 1;
  }
  return any ? acc : ks_iv_full(w);
}

/* smin, smax, umin, umax; %tid and %ntid where R knows the block;
 * anything else: unknown. */
static ks_iv call_range(ks_ranges *R, LLVMValueRef v, unsigned w) {
  LLVMValueRef callee = LLVMGetCalledValue(v);
  if (!callee || !LLVMIsAFunction(callee))
    return ks_iv_full(w);
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char tid[] = "llvm.nvvm.read.ptx.sreg.tid.",
                    ntid[] = "llvm.nvvm.read.ptx.sreg.ntid.";
  if (R->block[0] && len == sizeof tid && !strncmp(name, tid, len - 1) &&
      name[len - 1] >= 'x' && name[len - 1] <= 'z')
    return ks_iv_make(w, 0, R->block[name[len - 1] - 'x'] - 1, 1, 0, 0);
  if (R->block[0] && len == sizeof ntid && !strncmp(name, ntid, len - 1) &&
      name[len - 1] >= 'x' && name[len - 1] <= 'z')
    return ks_iv_single(R->block[name[len - 1] - 'x']);
  if (LLVMGetNumArgOperands(v) != 2)
    return ks_iv_full(w);
  int kind = ks_ir_minmax(v);
  int smin = kind == 3, smax = kind == 4, umin = kind == 1, umax = kind == 2;
  ks_iv a, b;
  unsigned wa, wb;
  if (!(smin || smax || umin || umax) || !operand(R, v, 0, &a, &wa) ||
      !operand(R, v, 1, &b, &wb))
    return ks_iv_full(w);
  ks_wide g = ks_iv_join_g(a, b);
  if (smin)
    return ks_iv_make(w, wmin(a.lo, b.lo), wmin(a.hi, b.hi), g, a.r, 0);
  if (smax)
    return ks_iv_make(w, wmax(a.lo, b.lo), wmax(a.hi, b.hi), g, a.r, 0);
  ks_wide alo, ahi, blo, bhi;
  uview(w, a, &alo, &ahi);
  uview(w, b, &blo, &bhi);
  if (umin)
    return sview(w, wmin(alo, blo), wmin(ahi, bhi));
  return sview(w, wmax(alo, blo), wmax(ahi, bhi));
}

static ks_iv compute(ks_ranges *R, LLVMValueRef v, unsigned w) {
  ks_wide c;
  if (ks_range_const(v, 0, &c))
    return ks_iv_single(c);
  if (!LLVMIsAInstruction(v))
    return ks_iv_full(w);
  LLVMOpcode opc = LLVMGetInstructionOpcode(v);
  if (ks_ir_int_binop(opc))
    return binop_range(R, v, opc, w);
  switch (opc) {
  case LLVMZExt:
  case LLVMSExt:
  case LLVMTrunc:
    return cast_range(R, v, opc, w);
  case LLVMSelect:
    return ks_iv_join(w, ks_range_of(R, LLVMGetOperand(v, 1)),
                      ks_range_of(R, LLVMGetOperand(v, 2)));
  case LLVMPHI:
    return phi_range(R, v, w);
  case LLVMCall:
    return call_range(R, v, w);
  default:
    return ks_iv_full(w); /* loads, arguments, freeze, ... */
  }
}

/* The values v (an integer of width <= 64) can take. A value met again
 * while its own range is being computed (a loop) is unknown. */
ks_iv ks_range_of(ks_ranges *R, LLVMValueRef v) {
  unsigned w = ks_range_width(v);
  for (unsigned i = 0; i < R->nm; i++)
    if (R->m[i].v == v)
      return R->m[i].r;
  for (unsigned i = 0; i < R->depth; i++)
    if (R->stack[i] == v)
      return ks_iv_full(w);
  if (R->depth == KS_RANGES_DEPTH)
    return ks_iv_full(w);
  R->stack[R->depth++] = v;
  ks_iv r = compute(R, v, w);
  R->depth--;
  if (R->nm < KS_RANGES_MEMO)
    R->m[R->nm++] = (ks_iv_memo){v, r};
  return r;
}

/* ---- conditions on the way to a block ------------------------------------
 *
 * On the path from the entry through blocks with a single predecessor, a
 * compare `X < C` (or <=, >, >=, signed or unsigned) that must hold, C a
 * constant, bounds X in the block the path leads to. */

enum { SIZE_PATH = 32 }; /* blocks walked back */

static ks_iv meet(unsigned w, ks_iv a, ks_wide lo, ks_wide hi) {
  ks_wide l = wmax(a.lo, lo), h = wmin(a.hi, hi);
  if (l > h)
    return a; /* unreachable, or a contradiction: keep what was known */
  return ks_iv_make(w, l, h, a.g, a.r, 0);
}

/* Seeds R with the bounds that the path to bb's start implies; fresh is
 * scratch with R's block. */
void ks_range_path_bounds(ks_ranges *R, ks_ranges *fresh,
                          LLVMBasicBlockRef bb) {
  LLVMBasicBlockRef cur = bb;
  for (int step = 0; step < SIZE_PATH; step++) {
    LLVMValueRef bv = LLVMBasicBlockAsValue(cur);
    LLVMValueRef term = NULL;
    int preds = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(bv); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsATerminatorInst(user)) {
        if (term != user)
          preds++;
        term = user;
      }
    }
    if (preds != 1 || !LLVMIsABranchInst(term))
      break;
    LLVMBasicBlockRef from = LLVMGetInstructionParent(term);
    if (LLVMIsConditional(term) &&
        LLVMGetSuccessor(term, 0) != LLVMGetSuccessor(term, 1)) {
      LLVMValueRef c = LLVMGetCondition(term);
      int holds = LLVMGetSuccessor(term, 0) == cur;
      ks_wide k;
      if (LLVMIsAICmpInst(c) && ks_range_const(LLVMGetOperand(c, 1), 0, &k) &&
          R->nm < KS_RANGES_MEMO) {
        LLVMValueRef x = LLVMGetOperand(c, 0);
        unsigned w = ks_range_width(x);
        LLVMIntPredicate p = LLVMGetICmpPredicate(c);
        if (!holds) /* x ugt k false: x ule k, a bound like the others */
          p = ks_ir_icmp_inverse(p);
        if (w && w <= 64) {
          fresh->nm = fresh->depth = 0;
          ks_iv a = ks_range_of(fresh, x), r = a;
          switch (p) {
          case LLVMIntSLT:
            r = meet(w, a, ks_iv_smin(w), k - 1);
            break;
          case LLVMIntSLE:
            r = meet(w, a, ks_iv_smin(w), k);
            break;
          case LLVMIntSGT:
            r = meet(w, a, k + 1, ks_iv_smax(w));
            break;
          case LLVMIntSGE:
            r = meet(w, a, k, ks_iv_smax(w));
            break;
          case LLVMIntULT: /* 0 <= x < k, k > 0 */
            if (k > 0)
              r = meet(w, a, 0, k - 1);
            break;
          case LLVMIntULE:
            if (k >= 0)
              r = meet(w, a, 0, k);
            break;
          default:
            break;
          }
          /* a nearer condition wins: seeded first */
          int seen = 0;
          for (unsigned i = 0; i < R->nm; i++)
            seen |= R->m[i].v == x;
          if (!seen)
            R->m[R->nm++] = (ks_iv_memo){x, r};
        }
      }
    }
    cur = from;
  }
}
