/*
 * minmax.c - the minmax stage: clamp-shaped selects that the optimize stage
 * leaves become llvm.smin/smax/umin/umax.
 *
 * A clamped index (ks_clamp(x + k, 0, w - 1), the separable filters) comes
 * out of the optimize stage as selects that instcombine keeps because their
 * compare and their arms differ by a constant:
 *
 *   x < 8 ? 0 : x - 8          is  smax(x, 8) - 8
 *   x + 9 < w ? x + 9 : w - 1  is  smin(x + 9, w - 1)
 *
 * As selects they cost NVPTX a compare and a select each, and they are the
 * dearest thing ScalarEvolution meets in codegen's straight-line strength
 * reduction and n-ary reassociation, which ask for the SCEV of every index
 * (ScalarEvolution tries four subtractions on each such select to find the
 * min or max in it). As min and max they are one instruction each
 * (ptxas fuses the add: VIADDMNMX) and cheap for ScalarEvolution.
 *
 * The rewrites, for integers of at most 32 bits, after the compare is
 * brought to the form "X < Y ? T : F" (inverting it and swapping the arms,
 * or swapping its sides), signed or unsigned:
 *
 *  1. A compare with a constant K, one arm A + d (A the compared value, d
 *     a constant, 0 where the arm is A itself), the other a constant L:
 *       A < K ? A + d : L   is  min(A, K1) + d
 *       A < K ? L : A + d   is  max(A, K1) + d    K1 = K - 1 or K
 *       K < A ? A + d : L   is  max(A, K1) + d
 *       K < A ? L : A + d   is  min(A, K1) + d    K1 = K or K + 1
 *     where K1 + d == L (modulo 2^n). Where the select takes A + d, the
 *     min or max is A and the new add computes A + d, with the flags of
 *     the old one (so it is poison where the arm was); where it takes L,
 *     the min or max is K1 and the add gives L, with nsw (nuw) kept only
 *     if K1 + d does not overflow.
 *  2. Signed only, one arm a side of the compare, the other one past the
 *     other side, with nsw:
 *       X < Y ? X : Y - 1   is  smin(X, Y - 1)
 *       X < Y ? Y : X + 1   is  smax(Y, X + 1)
 *     (X < Y is X <= Y - 1 unless Y - 1 overflows; it is then poison, and
 *     the select took it.) Without nsw, Y - 1 may wrap and the two differ.
 *
 * Anything else stays as it is: in particular a select whose arms are not
 * the compared value plus a constant (the separable filters' outer clamp,
 * x < -k ? 0 : smin(x + k, w - 1), which equals smax(smin(..), 0) only when
 * w >= 1). The stage runs after the optimize stage, whose instcombine
 * would otherwise see the new code, and before codegen; no later stage
 * turns a min or max back into a select.
 */
#include <stdint.h>

#include "passes/ks_passes.h"

#define PASS "minmax"

typedef struct form {
  LLVMIntPredicate p; /* LLVMIntSLT or LLVMIntULT */
  LLVMValueRef x, y;  /* x p y */
  LLVMValueRef t, f;  /* the arms: t where it holds */
} form;

/* The select s as "x < y ? t : f"; 0 when its condition is not an icmp of
 * two values of s's type, or is eq/ne. */
static int normalize(LLVMValueRef s, form *o) {
  LLVMValueRef c = LLVMGetOperand(s, 0);
  if (!LLVMIsAICmpInst(c))
    return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(c);
  o->x = LLVMGetOperand(c, 0);
  o->y = LLVMGetOperand(c, 1);
  o->t = LLVMGetOperand(s, 1);
  o->f = LLVMGetOperand(s, 2);
  if (LLVMTypeOf(o->x) != LLVMTypeOf(s) || p == LLVMIntEQ || p == LLVMIntNE)
    return 0;
  if (p == LLVMIntSGE || p == LLVMIntSLE || p == LLVMIntUGE ||
      p == LLVMIntULE) { /* !(x p y) ? f : t */
    LLVMValueRef v = o->t;
    o->t = o->f;
    o->f = v;
    p = ks_ir_icmp_inverse(p);
  }
  if (p == LLVMIntSGT || p == LLVMIntUGT) { /* y < x */
    LLVMValueRef v = o->x;
    o->x = o->y;
    o->y = v;
    p = ks_ir_icmp_swap(p);
  }
  o->p = p;
  return p == LLVMIntSLT || p == LLVMIntULT;
}

/* Is v a + d, d a constant (0 where v is a)? Sets *add to the add (NULL
 * for a itself). */
static int offset_of(LLVMValueRef v, LLVMValueRef a, int64_t *d,
                     LLVMValueRef *add) {
  *add = NULL;
  if (v == a) {
    *d = 0;
    return 1;
  }
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd)
    return 0;
  LLVMValueRef l = LLVMGetOperand(v, 0), r = LLVMGetOperand(v, 1);
  if (r == a && LLVMIsAConstantInt(l)) {
    r = l;
    l = a;
  }
  if (l != a || !LLVMIsAConstantInt(r))
    return 0;
  *d = LLVMConstIntGetSExtValue(r);
  *add = v;
  return 1;
}

/* The value of constant c, as a signed or unsigned number. */
static int64_t value_of(LLVMValueRef c, int sgn) {
  return sgn ? LLVMConstIntGetSExtValue(c)
             : (int64_t)LLVMConstIntGetZExtValue(c);
}

static int in_range(int64_t v, unsigned bits, int sgn) {
  if (sgn)
    return v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1));
  return v >= 0 && v < (INT64_C(1) << bits);
}

/* The low `bits` bits of v as a signed number. */
static int64_t sext_bits(uint64_t v, unsigned bits) {
  uint64_t sign = UINT64_C(1) << (bits - 1);
  v &= (sign << 1) - 1;
  return (int64_t)(v ^ sign) - (int64_t)sign;
}

static const char *const names[2][2] = {
    {"llvm.umin", "llvm.umax"},
    {"llvm.smin", "llvm.smax"},
};

/* A call of min (max = 0) or max (max = 1), signed or not, of x and y. */
static LLVMValueRef build_minmax(LLVMModuleRef m, LLVMBuilderRef b, int sgn,
                                 int max, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef args[2] = {x, y};
  return ks_ir_call_overloaded(m, b, names[sgn][max], &t, 1, args, 2);
}

/* Rule 1: one side of the compare a constant. The replacement, or NULL. */
static LLVMValueRef rule_const(LLVMModuleRef m, LLVMBuilderRef b, const form *o,
                               unsigned bits) {
  int sgn = o->p == LLVMIntSLT;
  int a_below; /* the compare holds for A below K (A < K), else above */
  LLVMValueRef a, k;
  if (LLVMIsAConstantInt(o->y) && !LLVMIsAConstant(o->x)) {
    a = o->x, k = o->y, a_below = 1;
  } else if (LLVMIsAConstantInt(o->x) && !LLVMIsAConstant(o->y)) {
    a = o->y, k = o->x, a_below = 0;
  } else {
    return NULL;
  }
  int64_t d;
  LLVMValueRef add, l;
  int a_when; /* 1: A + d is taken where the compare holds */
  if (offset_of(o->t, a, &d, &add) && LLVMIsAConstantInt(o->f)) {
    l = o->f, a_when = 1;
  } else if (offset_of(o->f, a, &d, &add) && LLVMIsAConstantInt(o->t)) {
    l = o->t, a_when = 0;
  } else {
    return NULL;
  }
  /* A + d taken for A below the bound: min; above it: max. */
  int max = a_below != a_when;
  int64_t kv = value_of(k, sgn), lv = value_of(l, sgn);
  /* K1 ranges over K-1, K (A < K) or K, K+1 (K < A). */
  int64_t lo = a_below ? kv - 1 : kv;
  uint64_t mask = (UINT64_C(1) << bits) - 1; /* bits <= 32 */
  for (int64_t k1 = lo; k1 <= lo + 1; k1++) {
    if (!in_range(k1, bits, sgn) ||
        (((uint64_t)k1 + (uint64_t)d - (uint64_t)lv) & mask) != 0)
      continue;
    LLVMValueRef mm = build_minmax(
        m, b, sgn, max, a, LLVMConstInt(LLVMTypeOf(a), (uint64_t)k1, sgn));
    if (d == 0)
      return mm;
    LLVMValueRef r =
        LLVMBuildAdd(b, mm, LLVMConstInt(LLVMTypeOf(a), (uint64_t)d, 1), "");
    /* K1 + d as the add sees it: signed for nsw, unsigned for nuw. */
    int64_t ks = sext_bits((uint64_t)k1, bits);
    int64_t ku = (int64_t)((uint64_t)k1 & mask);
    int64_t du = (int64_t)((uint64_t)d & mask);
    LLVMSetNSW(r, add && LLVMGetNSW(add) && in_range(ks + d, bits, 1));
    LLVMSetNUW(r, add && LLVMGetNUW(add) && in_range(ku + du, bits, 0));
    return r;
  }
  return NULL;
}

/* Is v `add nsw w, c`? */
static int plus_nsw(LLVMValueRef v, LLVMValueRef w, int64_t c) {
  int64_t d;
  LLVMValueRef add;
  return offset_of(v, w, &d, &add) && add && d == c && LLVMGetNSW(add);
}

/* Rule 2: X < Y ? X : Y - 1 and X < Y ? Y : X + 1, signed. */
static LLVMValueRef rule_bound(LLVMModuleRef m, LLVMBuilderRef b,
                               const form *o) {
  if (o->p != LLVMIntSLT)
    return NULL;
  if (o->t == o->x && plus_nsw(o->f, o->y, -1))
    return build_minmax(m, b, 1, 0, o->x, o->f);
  if (o->t == o->y && plus_nsw(o->f, o->x, 1))
    return build_minmax(m, b, 1, 1, o->y, o->f);
  return NULL;
}

/* Deletes v if it is an instruction without uses. */
static void drop_if_dead(LLVMValueRef v) {
  if (v && LLVMIsAInstruction(v) && !LLVMGetFirstUse(v))
    LLVMInstructionEraseFromParent(v);
}

int ks_pass_minmax(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  (void)s;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  if (!b)
    return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  unsigned n = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (LLVMGetInstructionOpcode(i) != LLVMSelect)
          continue;
        LLVMTypeRef t = LLVMTypeOf(i);
        if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
            LLVMGetIntTypeWidth(t) > 32 || LLVMGetIntTypeWidth(t) < 2)
          continue;
        form o;
        if (!normalize(i, &o))
          continue;
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef r = rule_const(m, b, &o, LLVMGetIntTypeWidth(t));
        if (!r)
          r = rule_bound(m, b, &o);
        if (!r)
          continue;
        LLVMValueRef c = LLVMGetOperand(i, 0);
        LLVMValueRef arms[2] = {LLVMGetOperand(i, 1), LLVMGetOperand(i, 2)};
        LLVMReplaceAllUsesWith(i, r);
        LLVMInstructionEraseFromParent(i);
        drop_if_dead(c);
        drop_if_dead(arms[0]);
        if (arms[1] != arms[0])
          drop_if_dead(arms[1]);
        n++;
      }
  LLVMDisposeBuilder(b);
  if (n)
    ks_explain(d, PASS, "%u clamp selects made min/max", n);
  return 0;
}
