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
 *  3. Unsigned, one arm the compared value, the other the bound less one,
 *     where the bound Y is known not to be 0:
 *       X <u Y ? X : Y - 1  is  umin(X, Y - 1)
 *     (with Y != 0, X <u Y is X <=u Y - 1). That Y != 0 comes from a branch
 *     on the way to the select (up a chain of single predecessors) that
 *     took the edge of A <u Y, or of A <s Y with A known non-negative (a
 *     special register, or nsw arithmetic of such: the column filter's
 *     row, whose y < h gives h >= 1); Y - 1 with nsw needs the second,
 *     or it could be poison where the select took X.
 *  4. Rule 1 inside a min or max that absorbs the constant arm:
 *       A <u K ? 0 : umin(A + d, Z)  is  umin(A <u K ? 0 : A + d, Z)
 *     and so on (min with the type's least value, max with its greatest,
 *     of the compare's signedness), the inner select then made min or max
 *     by rule 1; Z must not be poison where the select took the constant
 *     (a constant, a noundef argument, a special register, arithmetic of
 *     those without wrap flags, or Y - 1 with Y >= 1 known as in rule 3).
 *     With rule 3 this takes the column filter's clamp, which instcombine
 *     leaves as y <u k ? 0 : (y - k <u h ? y - k : h - 1).
 *
 * Anything else stays as it is: in particular the row filter's outer
 * clamp, x < -k ? 0 : smin(x + k, w - 1), which equals smax(smin(..), 0)
 * only when w >= 1, which nothing says (its x may wrap). The stage runs
 * after the optimize stage, whose instcombine would otherwise see the new
 * code, and before codegen; no later stage turns a min or max back into a
 * select.
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

enum { DEPTH = 6 }; /* how far the value walks below look */

/* A call of llvm.nvvm.read.ptx.sreg.{tid,ntid,ctaid,nctaid}.*: each below
 * 2^31, never poison. */
static int is_sreg(LLVMValueRef v) {
  const char *n = ks_ir_sreg(v);
  return n && ks_ir_sreg_launch(n);
}

/* Is v known non-negative (as a signed number)? Where it is poison it is
 * poison, which anything may be taken for. */
static int nonneg(LLVMValueRef v, int depth) {
  if (LLVMIsAConstantInt(v))
    return LLVMConstIntGetSExtValue(v) >= 0;
  if (!LLVMIsAInstruction(v) || depth > DEPTH)
    return 0;
  LLVMValueRef a = LLVMGetNumOperands(v) > 0 ? LLVMGetOperand(v, 0) : NULL;
  LLVMValueRef b = LLVMGetNumOperands(v) > 1 ? LLVMGetOperand(v, 1) : NULL;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMZExt:
    return LLVMGetIntTypeWidth(LLVMTypeOf(a)) <
           LLVMGetIntTypeWidth(LLVMTypeOf(v));
  case LLVMAdd:
  case LLVMMul: /* nsw: the sum or product of two non-negatives */
    return LLVMGetNSW(v) && nonneg(a, depth + 1) && nonneg(b, depth + 1);
  case LLVMAnd:
    return nonneg(a, depth + 1) || nonneg(b, depth + 1);
  case LLVMLShr:
    return (LLVMIsAConstantInt(b) && LLVMConstIntGetZExtValue(b) > 0) ||
           nonneg(a, depth + 1);
  case LLVMURem: /* below b */
    return nonneg(b, depth + 1);
  case LLVMSelect:
    return nonneg(LLVMGetOperand(v, 1), depth + 1) &&
           nonneg(LLVMGetOperand(v, 2), depth + 1);
  case LLVMCall:
    if (is_sreg(v))
      return 1;
    switch (ks_ir_minmax(v)) {
    case 1: /* umin: at most either */
    case 4: /* smax: at least either */
      return nonneg(a, depth + 1) || nonneg(b, depth + 1);
    case 3: /* smin */
      return nonneg(a, depth + 1) && nonneg(b, depth + 1);
    default:
      return 0;
    }
  default:
    return 0;
  }
}

/* What condition c, known to be `truth`, says of y: 2 where y >= 1
 * (signed), 1 where only y != 0, else 0. */
static int implies(LLVMValueRef c, int truth, LLVMValueRef y, int depth) {
  if (depth > DEPTH || !LLVMIsAInstruction(c))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(c);
  if ((op == LLVMAnd && truth) || (op == LLVMOr && !truth)) {
    int l = implies(LLVMGetOperand(c, 0), truth, y, depth + 1);
    int r = implies(LLVMGetOperand(c, 1), truth, y, depth + 1);
    return l > r ? l : r;
  }
  if (op != LLVMICmp)
    return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(c);
  if (!truth)
    p = ks_ir_icmp_inverse(p);
  LLVMValueRef a = LLVMGetOperand(c, 0), b = LLVMGetOperand(c, 1);
  if (a == y) { /* as "a p y" */
    a = b;
    b = y;
    p = ks_ir_icmp_swap(p);
  }
  if (b != y)
    return 0;
  switch (p) {
  case LLVMIntULT: /* y >u a >= 0 */
    return 1;
  case LLVMIntSLT: /* y >s a >= 0 */
    return nonneg(a, depth + 1) ? 2 : 0;
  case LLVMIntSLE: /* y >=s a >= 1 */
    return LLVMIsAConstantInt(a) && LLVMConstIntGetSExtValue(a) >= 1 ? 2 : 0;
  case LLVMIntNE:
    return LLVMIsAConstantInt(a) && LLVMConstIntGetZExtValue(a) == 0;
  default:
    return 0;
  }
}

/* The single predecessor of bb, by the conditional branch that leads to
 * it (one edge, not both), or NULL. Sets *truth to the branch condition's
 * value on that edge. */
static LLVMValueRef guard_of(LLVMBasicBlockRef bb, int *truth) {
  LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb));
  if (!u || LLVMGetNextUse(u))
    return NULL;
  LLVMValueRef br = LLVMGetUser(u);
  if (!LLVMIsABranchInst(br) || !LLVMIsConditional(br))
    return NULL;
  LLVMBasicBlockRef t = LLVMGetSuccessor(br, 0), f = LLVMGetSuccessor(br, 1);
  if (t == f)
    return NULL;
  *truth = t == bb;
  return br;
}

/* What the branches on the way to instruction i say of y (as implies):
 * up a chain of blocks each with one predecessor, which dominate i. */
static int known_at(LLVMValueRef i, LLVMValueRef y) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(i);
  int best = 0;
  for (int step = 0; step < 8 && best < 2; step++) {
    int truth = 0;
    LLVMValueRef br = guard_of(bb, &truth);
    if (!br) {
      /* an unconditional branch from a single predecessor: go on up */
      LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb));
      if (!u || LLVMGetNextUse(u) || !LLVMIsABranchInst(LLVMGetUser(u)) ||
          LLVMIsConditional(LLVMGetUser(u)))
        break;
      bb = LLVMGetInstructionParent(LLVMGetUser(u));
      continue;
    }
    int k = implies(LLVMGetCondition(br), truth, y, 0);
    best = k > best ? k : best;
    bb = LLVMGetInstructionParent(br);
  }
  return best;
}

/* Rule 3: X <u Y ? X : Y - 1, Y != 0 known at select s. */
static LLVMValueRef rule_ubound(LLVMModuleRef m, LLVMBuilderRef b,
                                const form *o, LLVMValueRef s) {
  int64_t d;
  LLVMValueRef add;
  if (o->p != LLVMIntULT || o->t != o->x || !offset_of(o->f, o->y, &d, &add) ||
      !add || d != -1 || LLVMGetNUW(add))
    return NULL;
  int k = known_at(s, o->y);
  if (k < 1 + LLVMGetNSW(add)) /* nsw: poison unless y >= 1 */
    return NULL;
  return build_minmax(m, b, 0, 0, o->x, o->f);
}

/* Is the argument v marked noundef? */
static int noundef_arg(LLVMValueRef v) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noundef", 7);
  LLVMValueRef fn = LLVMGetParamParent(v);
  return LLVMGetEnumAttributeAtIndex(fn, ks_ir_param_index(v) + 1, kind) !=
         NULL;
}

/* Is v never poison where instruction at is (as rule 4 asks)? */
static int no_poison(LLVMValueRef v, LLVMValueRef at, int depth) {
  if (LLVMIsAConstantInt(v))
    return 1;
  if (LLVMIsAArgument(v))
    return noundef_arg(v);
  if (!LLVMIsAInstruction(v) || depth > DEPTH)
    return 0;
  if (is_sreg(v))
    return 1;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op != LLVMAdd && op != LLVMSub && op != LLVMMul)
    return 0;
  LLVMValueRef a = LLVMGetOperand(v, 0), c = LLVMGetOperand(v, 1);
  if (!no_poison(a, at, depth + 1) || !no_poison(c, at, depth + 1))
    return 0;
  if (!LLVMGetNSW(v) && !LLVMGetNUW(v))
    return 1;
  /* y - 1 with nsw, y >= 1 */
  return op == LLVMAdd && !LLVMGetNUW(v) && LLVMIsAConstantInt(c) &&
         LLVMConstIntGetSExtValue(c) == -1 && known_at(at, a) == 2;
}

/* Rule 4: L < .. inside a min or max that absorbs L. */
static LLVMValueRef rule_wrapped(LLVMModuleRef m, LLVMBuilderRef b,
                                 const form *o, LLVMValueRef s, unsigned bits) {
  for (int side = 0; side < 2; side++) {
    LLVMValueRef l = side ? o->t : o->f, w = side ? o->f : o->t;
    int kind = ks_ir_minmax(w);
    if (!LLVMIsAConstantInt(l) || !kind)
      continue;
    int wsgn = (kind - 1) / 2, max = (kind - 1) % 2;
    /* min absorbs the least value, max the greatest */
    uint64_t mask = (UINT64_C(1) << bits) - 1, lv = LLVMConstIntGetZExtValue(l);
    uint64_t least = wsgn ? UINT64_C(1) << (bits - 1) : 0;
    if ((lv & mask) != (max ? (least - 1) & mask : least))
      continue;
    for (int j = 0; j < 2; j++) {
      LLVMValueRef z = LLVMGetOperand(w, 1 - j);
      form inner = *o;
      if (side)
        inner.f = LLVMGetOperand(w, j);
      else
        inner.t = LLVMGetOperand(w, j);
      if (!no_poison(z, s, 0))
        continue;
      LLVMValueRef r = rule_const(m, b, &inner, bits);
      if (r)
        return build_minmax(m, b, wsgn, max, r, z);
    }
  }
  return NULL;
}

/* Deletes the instructions among v[0..n) that are left without uses, in
 * order, each once (v may repeat one): arithmetic, compares and min or
 * max calls only. */
static void drop_dead(LLVMValueRef *v, int n) {
  for (int k = 0; k < n; k++) {
    int seen = 0;
    for (int j = 0; j < k; j++)
      seen |= v[j] == v[k];
    if (seen || !v[k] || !LLVMIsAInstruction(v[k]) || LLVMGetFirstUse(v[k]) ||
        (LLVMIsACallInst(v[k]) && !ks_ir_minmax(v[k])) ||
        LLVMIsAPHINode(v[k]) || LLVMIsALoadInst(v[k]))
      continue;
    LLVMInstructionEraseFromParent(v[k]);
  }
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
          r = rule_ubound(m, b, &o, i);
        if (!r)
          r = rule_wrapped(m, b, &o, i, LLVMGetIntTypeWidth(t));
        if (!r)
          continue;
        /* the compare, the arms, then what only a min or max arm used */
        LLVMValueRef dead[7] = {LLVMGetOperand(i, 0), LLVMGetOperand(i, 1),
                                LLVMGetOperand(i, 2)};
        int ndead = 3;
        for (int k = 1; k <= 2; k++)
          if (ks_ir_minmax(dead[k]))
            for (int j = 0; j < 2; j++)
              dead[ndead++] = LLVMGetOperand(dead[k], (unsigned)j);
        LLVMReplaceAllUsesWith(i, r);
        LLVMInstructionEraseFromParent(i);
        drop_dead(dead, ndead);
        n++;
      }
  LLVMDisposeBuilder(b);
  if (n)
    ks_diag_explain(d, PASS, "%u clamp selects made min/max", n);
  return 0;
}
