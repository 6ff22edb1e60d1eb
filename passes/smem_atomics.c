/*
 * smem_atomics.c - atomic privatization, the first half of smem_promote.
 *
 * A kernel pointer argument P that the kernel only ever updates by integer
 * `atomicrmw add/sub` (results unused) at element indices whose range is
 * bounded once values are bound (a histogram's bins) gets a per-block copy
 * in shared memory:
 *
 *   entry: for (j = tid; j < N; j += nthreads) smem[j] = 0;  barrier
 *   body:  atomicrmw add P[e]  ->  atomicrmw add smem[(e - LO) / G]
 *   exit:  barrier;  for (j = tid; j < N; j += nthreads)
 *            if (smem[j] != 0) atomicrmw add P[LO + j * G], smem[j]
 *
 * With a fixed block of W > 1 warps and the budget for it, the copy is W
 * copies, one per warp (warp = linear tid / 32 updates smem[warp * N +
 * (e - LO) / G]), and the merge adds the W copies of a bin before its one
 * global atomic: the warps of a block no longer contend for a bin (the
 * histogram, 256 bins: 0.502 -> 0.486 ms on the H100, CUB 0.501).
 *
 * where every index e the kernel can use lies in [LO, LO + (N-1) * G] and is
 * LO modulo G. Every `ret` becomes a branch to the exit, so threads that
 * finish early still take part in both barriers and the merge.
 *
 * Why this preserves the kernel's meaning:
 *  - P is touched only by these atomics, whose results nobody reads, so the
 *    only observable effect on P is the sum added to each element by the
 *    end of the kernel. Integer addition modulo 2^w is associative and
 *    commutative, so one add of a block's partial sum per element equals
 *    the block's individual adds. (Floating-point adds would be
 *    re-associated and round differently: declined.)
 *  - No other access may reach P's memory: P or every other accessed
 *    pointer must be `noalias` (__restrict__), or point to shared, constant
 *    or private memory. Otherwise a load of an aliasing buffer could see a
 *    different value than before.
 *  - The barriers must be reached by every thread of the block. The entry
 *    barrier comes before any branch. The exit barrier is the one place all
 *    returns lead to; this is only sound when the kernel has no barrier or
 *    other convergent operation of its own, since a thread that returned
 *    early would now wait at our barrier while the others wait at theirs.
 *    So any convergent call (barriers, warp shuffles, votes), call of a
 *    non-intrinsic function or inline assembly declines the pass.
 *  - Orderings: the shared and the merge atomics are monotonic. Nothing in
 *    the kernel can observe P, so the ordering of its updates relative to
 *    other memory operations is not observable either; the barriers order
 *    the zeroing, the shared updates and the merge's reads within the block.
 *
 * The index range comes from a small interval analysis over the index
 * expression (with a congruence, so hist[16 * v] needs 256 elements, not
 * 4081), which respects the wrap-around of LLVM integers: a result that may
 * wrap is only bounded when nsw makes wrapping poison.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

#define PASS "smem_promote"

enum {
  SMEM_CAP = 32 * 1024,          /* bytes all privatized copies may take */
  SMEM_STATIC_LIMIT = 48 * 1024, /* static shared memory of one block */
  MAX_DEPTH = 48,                /* of the interval analysis' recursion */
  MAX_TERMS = 16,                /* variable GEP indices on one address */
  MAX_MEMO = 512,
  AS_GLOBAL = 1,
  AS_SHARED = 3,
  AS_CONST = 4,
  AS_LOCAL = 5,
};

typedef __int128 wide;

/* ---- intervals with a congruence ----------------------------------------- */

/* A set of integers of one width, in their signed view: every value is in
 * [lo, hi] and equal to r modulo g; g == 0 means the single value lo. */
typedef struct iv {
  wide lo, hi, g, r;
} iv;

static const wide G_MAX = (wide)1 << 40;

static wide smin_of(unsigned w) { return -((wide)1 << (w - 1)); }
static wide smax_of(unsigned w) { return ((wide)1 << (w - 1)) - 1; }
static wide wmin(wide a, wide b) { return a < b ? a : b; }
static wide wmax(wide a, wide b) { return a > b ? a : b; }
static wide wabs(wide a) { return a < 0 ? -a : a; }

static wide gcd(wide a, wide b) {
  a = wabs(a);
  b = wabs(b);
  while (b) {
    wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Floor division and modulo (b > 0). */
static wide fdiv(wide a, wide b) { return a / b - (a % b != 0 && a < 0); }
static wide fmod_(wide a, wide b) { return a - fdiv(a, b) * b; }

static iv full(unsigned w) { return (iv){smin_of(w), smax_of(w), 1, 0}; }

static iv single(wide v) { return (iv){v, v, 0, v}; }

/* [lo, hi] with congruence (g, r) as a value of width w. A result outside
 * the width wrapped: that is poison under nsw (clamp), else anything. */
static iv make(unsigned w, wide lo, wide hi, wide g, wide r, int nsw) {
  if (lo < smin_of(w) || hi > smax_of(w)) {
    if (!nsw)
      return full(w);
    lo = wmax(lo, smin_of(w));
    hi = wmin(hi, smax_of(w));
    if (lo > hi)
      return full(w);
  }
  if (lo == hi)
    return single(lo);
  if (g <= 0 || g > G_MAX)
    return (iv){lo, hi, 1, 0};
  r = fmod_(r, g);
  wide tlo = lo + fmod_(r - lo, g), thi = hi - fmod_(hi - r, g);
  if (tlo > thi)
    return (iv){lo, hi, 1, 0};
  return tlo == thi ? single(tlo) : (iv){tlo, thi, g, r};
}

/* The congruence modulus shared by a and b (for a union or a sum). */
static wide join_g(iv a, iv b) { return gcd(gcd(a.g, b.g), a.r - b.r); }

static iv join(unsigned w, iv a, iv b) {
  return make(w, wmin(a.lo, b.lo), wmax(a.hi, b.hi), join_g(a, b), a.r, 0);
}

/* Unsigned view of a value of width w. */
static void uview(unsigned w, iv a, wide *ulo, wide *uhi) {
  wide span = (wide)1 << w;
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
static iv sview(unsigned w, wide ulo, wide uhi) {
  wide span = (wide)1 << w;
  if (uhi <= smax_of(w))
    return make(w, ulo, uhi, 1, 0, 0);
  if (ulo > smax_of(w))
    return make(w, ulo - span, uhi - span, 1, 0, 0);
  return full(w);
}

static iv iv_mul(unsigned w, iv a, iv b, int nsw) {
  wide p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  wide lo = p[0], hi = p[0];
  for (int i = 1; i < 4; i++) {
    lo = wmin(lo, p[i]);
    hi = wmax(hi, p[i]);
  }
  wide g = 1, r = 0;
  if (b.g == 0 && wabs(b.lo) <= G_MAX) {
    g = a.g * wabs(b.lo);
    r = a.r * b.lo;
  } else if (a.g == 0 && wabs(a.lo) <= G_MAX) {
    g = b.g * wabs(a.lo);
    r = b.r * a.lo;
  }
  return make(w, lo, hi, g, r, nsw);
}

static iv iv_and(unsigned w, iv a, iv b) {
  if (a.lo >= 0 && b.lo >= 0)
    return make(w, 0, wmin(a.hi, b.hi), 1, 0, 0);
  if (a.lo >= 0 || b.lo >= 0)
    return make(w, 0, a.lo >= 0 ? a.hi : b.hi, 1, 0, 0);
  return full(w);
}

/* or, xor of non-negative values: below the next power of two. */
static iv iv_orxor(unsigned w, iv a, iv b, int is_or) {
  if (a.lo < 0 || b.lo < 0)
    return full(w);
  wide m = 1, top = wmax(a.hi, b.hi);
  while (m <= top)
    m <<= 1;
  return make(w, is_or ? wmax(a.lo, b.lo) : 0, m - 1, 1, 0, 0);
}

static iv iv_sdiv(unsigned w, iv a, wide c) {
  if (c > 0)
    return make(w, a.lo / c, a.hi / c, 1, 0, 1);
  return make(w, a.hi / c, a.lo / c, 1, 0, 1); /* MIN / -1 is UB */
}

static iv iv_srem(unsigned w, iv a, wide c) {
  wide m = wabs(c) - 1;
  if (a.lo >= 0)
    return make(w, 0, wmin(m, a.hi), 1, 0, 0);
  if (a.hi <= 0)
    return make(w, wmax(-m, a.lo), 0, 1, 0, 0);
  return make(w, -m, m, 1, 0, 0);
}

/* udiv, lshr, urem by the unsigned constant c (> 0); op: 0 udiv, 1 urem. */
static iv iv_unsigned(unsigned w, iv a, wide c, int op) {
  wide ulo, uhi;
  uview(w, a, &ulo, &uhi);
  if (op == 0)
    return sview(w, ulo / c, uhi / c);
  if (uhi < c)
    return a;
  return sview(w, 0, c - 1);
}

/* ---- the analysis over IR values --------------------------------------- */

typedef struct memo {
  LLVMValueRef v;
  iv r;
} memo;

typedef struct ranges {
  LLVMValueRef stack[MAX_DEPTH];
  unsigned depth;
  memo m[MAX_MEMO];
  unsigned nm;
  unsigned block[3]; /* shared-array sizing: %tid's bounds; 0: unknown */
} ranges;

static unsigned int_width(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
    return 0;
  return LLVMGetIntTypeWidth(t);
}

/* The constant c of width <= 64 as signed (or unsigned) value; 0 if v is
 * no such constant. */
static int const_of(LLVMValueRef v, int is_unsigned, wide *c) {
  unsigned w = int_width(v);
  if (!LLVMIsAConstantInt(v) || w == 0 || w > 64)
    return 0;
  *c = is_unsigned ? (wide)LLVMConstIntGetZExtValue(v)
                   : (wide)LLVMConstIntGetSExtValue(v);
  return 1;
}

static iv range_of(ranges *R, LLVMValueRef v);

/* The range of an operand of width at most 64 (else: of no use). */
static int operand(ranges *R, LLVMValueRef inst, unsigned i, iv *out,
                   unsigned *w) {
  LLVMValueRef op = LLVMGetOperand(inst, i);
  *w = int_width(op);
  if (*w == 0 || *w > 64)
    return 0;
  *out = range_of(R, op);
  return 1;
}

static iv cast_range(ranges *R, LLVMValueRef v, LLVMOpcode opc, unsigned w) {
  iv a;
  unsigned ws;
  if (!operand(R, v, 0, &a, &ws))
    return full(w);
  if (opc == LLVMSExt)
    return a;
  if (opc == LLVMTrunc)
    return a.lo >= smin_of(w) && a.hi <= smax_of(w) ? a : full(w);
  wide ulo, uhi; /* zext */
  uview(ws, a, &ulo, &uhi);
  return make(w, ulo, uhi, a.lo >= 0 ? a.g : 1, a.lo >= 0 ? a.r : 0, 0);
}

/* Shifts and divisions by a constant. */
static iv const_op_range(LLVMOpcode opc, unsigned w, iv a, LLVMValueRef cv) {
  wide c;
  int uns = opc == LLVMUDiv || opc == LLVMURem || opc == LLVMLShr ||
            opc == LLVMAShr || opc == LLVMShl;
  if (!const_of(cv, uns, &c))
    return full(w);
  if ((opc == LLVMShl || opc == LLVMLShr || opc == LLVMAShr) && c >= w)
    return full(w); /* poison */
  switch (opc) {
  case LLVMSDiv:
    return c == 0 ? full(w) : iv_sdiv(w, a, c);
  case LLVMSRem:
    return c == 0 ? full(w) : iv_srem(w, a, c);
  case LLVMUDiv:
  case LLVMURem:
    return c == 0 ? full(w) : iv_unsigned(w, a, c, opc == LLVMURem);
  case LLVMLShr:
    return iv_unsigned(w, a, (wide)1 << c, 0);
  case LLVMAShr:
    return make(w, fdiv(a.lo, (wide)1 << c), fdiv(a.hi, (wide)1 << c), 1, 0, 0);
  default:
    return full(w);
  }
}

static iv binop_range(ranges *R, LLVMValueRef v, LLVMOpcode opc, unsigned w) {
  iv a, b;
  unsigned wa, wb;
  if (!operand(R, v, 0, &a, &wa) || !operand(R, v, 1, &b, &wb))
    return full(w);
  int nsw =
      (opc == LLVMAdd || opc == LLVMSub || opc == LLVMMul || opc == LLVMShl) &&
      LLVMGetNSW(v);
  switch (opc) {
  case LLVMAdd:
    return make(w, a.lo + b.lo, a.hi + b.hi, join_g(a, b), a.r + b.r, nsw);
  case LLVMSub:
    return make(w, a.lo - b.hi, a.hi - b.lo, join_g(a, b), a.r - b.r, nsw);
  case LLVMMul:
    return iv_mul(w, a, b, nsw);
  case LLVMShl: {
    wide c;
    if (!const_of(LLVMGetOperand(v, 1), 1, &c) || c >= w)
      return full(w);
    return iv_mul(w, a, single((wide)1 << c), nsw);
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

static iv phi_range(ranges *R, LLVMValueRef v, unsigned w) {
  unsigned n = LLVMCountIncoming(v);
  int any = 0;
  iv acc = full(w);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef in = LLVMGetIncomingValue(v, i);
    if (in == v)
      continue; /* keeps the value it has */
    iv r = range_of(R, in);
    acc = any ? join(w, acc, r) : r;
    any = 1;
  }
  return any ? acc : full(w);
}

/* smin, smax, umin, umax; %tid and %ntid where R knows the block;
 * anything else: unknown. */
static iv call_range(ranges *R, LLVMValueRef v, unsigned w) {
  LLVMValueRef callee = LLVMGetCalledValue(v);
  if (!callee || !LLVMIsAFunction(callee))
    return full(w);
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char tid[] = "llvm.nvvm.read.ptx.sreg.tid.",
                    ntid[] = "llvm.nvvm.read.ptx.sreg.ntid.";
  if (R->block[0] && len == sizeof tid && !strncmp(name, tid, len - 1) &&
      name[len - 1] >= 'x' && name[len - 1] <= 'z')
    return make(w, 0, R->block[name[len - 1] - 'x'] - 1, 1, 0, 0);
  if (R->block[0] && len == sizeof ntid && !strncmp(name, ntid, len - 1) &&
      name[len - 1] >= 'x' && name[len - 1] <= 'z')
    return single(R->block[name[len - 1] - 'x']);
  if (LLVMGetNumArgOperands(v) != 2)
    return full(w);
  int kind = ks_ir_minmax(v);
  int smin = kind == 3, smax = kind == 4, umin = kind == 1, umax = kind == 2;
  iv a, b;
  unsigned wa, wb;
  if (!(smin || smax || umin || umax) || !operand(R, v, 0, &a, &wa) ||
      !operand(R, v, 1, &b, &wb))
    return full(w);
  wide g = join_g(a, b);
  if (smin)
    return make(w, wmin(a.lo, b.lo), wmin(a.hi, b.hi), g, a.r, 0);
  if (smax)
    return make(w, wmax(a.lo, b.lo), wmax(a.hi, b.hi), g, a.r, 0);
  wide alo, ahi, blo, bhi;
  uview(w, a, &alo, &ahi);
  uview(w, b, &blo, &bhi);
  if (umin)
    return sview(w, wmin(alo, blo), wmin(ahi, bhi));
  return sview(w, wmax(alo, blo), wmax(ahi, bhi));
}

static iv compute(ranges *R, LLVMValueRef v, unsigned w) {
  wide c;
  if (const_of(v, 0, &c))
    return single(c);
  if (!LLVMIsAInstruction(v))
    return full(w);
  LLVMOpcode opc = LLVMGetInstructionOpcode(v);
  switch (opc) {
  case LLVMZExt:
  case LLVMSExt:
  case LLVMTrunc:
    return cast_range(R, v, opc, w);
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMSDiv:
  case LLVMUDiv:
  case LLVMSRem:
  case LLVMURem:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
    return binop_range(R, v, opc, w);
  case LLVMSelect:
    return join(w, range_of(R, LLVMGetOperand(v, 1)),
                range_of(R, LLVMGetOperand(v, 2)));
  case LLVMPHI:
    return phi_range(R, v, w);
  case LLVMCall:
    return call_range(R, v, w);
  default:
    return full(w); /* loads, arguments, freeze, ... */
  }
}

/* The values v (an integer of width <= 64) can take. A value met again
 * while its own range is being computed (a loop) is unknown. */
static iv range_of(ranges *R, LLVMValueRef v) {
  unsigned w = int_width(v);
  for (unsigned i = 0; i < R->nm; i++)
    if (R->m[i].v == v)
      return R->m[i].r;
  for (unsigned i = 0; i < R->depth; i++)
    if (R->stack[i] == v)
      return full(w);
  if (R->depth == MAX_DEPTH)
    return full(w);
  R->stack[R->depth++] = v;
  iv r = compute(R, v, w);
  R->depth--;
  if (R->nm < MAX_MEMO)
    R->m[R->nm++] = (memo){v, r};
  return r;
}

/* ---- candidates ---------------------------------------------------------- */

/* An address P + (c + sum idx[i] * scale[i]) bytes. */
typedef struct addr {
  LLVMValueRef idx[MAX_TERMS];
  wide scale[MAX_TERMS];
  unsigned n;
  wide c;
} addr;

typedef struct cand {
  LLVMValueRef arg;
  unsigned index; /* of arg */
  char name[64];
  LLVMValueRef *atomics;
  size_t n, cap;
  LLVMTypeRef ty; /* the atomics' integer type */
  unsigned size;  /* its bytes */
  wide lo, g;     /* byte b of P lives at smem[(b - lo) / g] */
  unsigned align; /* the least alignment of the atomics */
  unsigned long long elems;
  unsigned copies;   /* one per warp of a fixed block, else 1 */
  LLVMValueRef smem; /* [copies * elems x ty] addrspace(3) */
  char why[256];     /* non-empty: declined, and why */
} cand;

typedef struct ctx {
  LLVMModuleRef m;
  LLVMContextRef c;
  LLVMValueRef fn;
  LLVMBuilderRef b;
  LLVMTargetDataRef dl;
  const ks_spec *s;
  ks_diag *d;
  cand *cands;
  unsigned ncands;
  LLVMValueRef ltid, nthreads; /* i32, computed in the new entry block */
  int oom;                     /* transform ran out of memory */
} ctx;

/* The context of a pass over fn, a kernel of m. */
static ctx ctx_of(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                  ks_diag *d) {
  return (ctx){.m = m,
               .c = LLVMGetModuleContext(m),
               .fn = fn,
               .dl = LLVMGetModuleDataLayout(m),
               .s = s,
               .d = d};
}

static void decline(cand *k, const char *fmt, const char *what) {
  if (!k->why[0])
    snprintf(k->why, sizeof k->why, fmt, what);
}

static int push_atomic(cand *k, LLVMValueRef a) {
  if (!ks_room(&k->atomics, &k->cap, k->n, sizeof *k->atomics, 16))
    return 1;
  k->atomics[k->n++] = a;
  return 0;
}

/* Checks one atomicrmw that updates memory through P. */
static void check_atomic(cand *k, LLVMValueRef a) {
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(a);
  LLVMTypeRef t = LLVMTypeOf(a);
  if (op == LLVMAtomicRMWBinOpFAdd || op == LLVMAtomicRMWBinOpFSub)
    decline(k, "%s", "floating-point atomics would be re-associated");
  else if (op != LLVMAtomicRMWBinOpAdd && op != LLVMAtomicRMWBinOpSub)
    decline(k, "%s", "an atomic other than add/sub updates it");
  else if (LLVMGetVolatile(a))
    decline(k, "%s", "a volatile atomic updates it");
  else if (LLVMGetFirstUse(a))
    decline(k, "%s", "the result of an atomic on it is used");
  else if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
           (LLVMGetIntTypeWidth(t) != 32 && LLVMGetIntTypeWidth(t) != 64))
    decline(k, "%s", "its atomics are not on 32- or 64-bit integers");
  else if (k->ty && k->ty != t)
    decline(k, "%s", "its atomics are on different types");
  k->ty = t;
  unsigned al = LLVMGetAlignment(a);
  k->align = k->align && k->align < al ? k->align : al;
}

static const char *use_kind(LLVMValueRef u) {
  if (LLVMIsALoadInst(u))
    return "loaded";
  if (LLVMIsAStoreInst(u))
    return "stored to or stored";
  if (LLVMIsACallInst(u))
    return "passed to a call";
  if (LLVMIsAAtomicCmpXchgInst(u))
    return "updated by cmpxchg";
  if (LLVMIsAPHINode(u) || LLVMIsASelectInst(u))
    return "merged with other pointers";
  return "used otherwise than by atomic adds";
}

/* Walks every use of v (P or a pointer derived from it). */
static int walk_uses(cand *k, LLVMValueRef v) {
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef u = LLVMGetUser(use);
    if (LLVMIsAGetElementPtrInst(u) && LLVMGetOperand(u, 0) == v &&
        LLVMGetTypeKind(LLVMTypeOf(u)) == LLVMPointerTypeKind) {
      if (walk_uses(k, u))
        return 1;
    } else if (LLVMIsAAddrSpaceCastInst(u) || LLVMIsABitCastInst(u)) {
      unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(u));
      if (LLVMGetTypeKind(LLVMTypeOf(u)) != LLVMPointerTypeKind ||
          (as != 0 && as != AS_GLOBAL))
        decline(k, "it is %s", "cast to a non-global address space");
      else if (walk_uses(k, u))
        return 1;
    } else if (LLVMIsAAtomicRMWInst(u) && LLVMGetOperand(u, 0) == v &&
               LLVMGetOperand(u, 1) != v) {
      check_atomic(k, u);
      if (push_atomic(k, u))
        return 1;
    } else {
      decline(k, "it is %s", use_kind(u));
    }
  }
  return 0;
}

/* ---- the kernel as a whole ----------------------------------------------- */

static int has_attr(LLVMValueRef fn, unsigned idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, idx, kind) != NULL;
}

/* Why the kernel's shape forbids funnelling its returns, or NULL. */
static const char *kernel_shape(LLVMValueRef fn, char *buf, size_t cap) {
  unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode opc = LLVMGetInstructionOpcode(i);
      if (opc == LLVMInvoke || opc == LLVMCallBr || opc == LLVMIndirectBr)
        return "the kernel has invoke, callbr or indirectbr";
      if (opc == LLVMRet && LLVMGetNumOperands(i) != 0)
        return "the kernel returns a value";
      if (opc != LLVMCall)
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!callee || !LLVMIsAFunction(callee))
        return "the kernel has inline assembly or an indirect call";
      size_t len = 0;
      const char *name = LLVMGetValueName2(callee, &len);
      if (!LLVMGetIntrinsicID(callee)) {
        snprintf(buf, cap, "the kernel still calls %.100s", name);
        return buf;
      }
      if (LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                      conv) ||
          LLVMGetCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, conv)) {
        snprintf(buf, cap,
                 "the kernel has a barrier or warp-synchronous operation "
                 "(%.100s), which threads returning early would no longer "
                 "skip",
                 name);
        return buf;
      }
    }
  }
  return NULL;
}

/* Can an access through pointer p reach the memory of argument P? */
static int may_alias(LLVMValueRef fn, LLVMValueRef p, LLVMValueRef P) {
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  if (as == AS_SHARED || as == AS_CONST || as == AS_LOCAL)
    return 0;
  LLVMValueRef base = ks_ir_base_of(p);
  if (base == P || LLVMIsAAllocaInst(base))
    return 0; /* P's own uses were checked already */
  if (LLVMIsAGlobalVariable(base)) {
    unsigned gas = LLVMGetPointerAddressSpace(LLVMTypeOf(base));
    return !(gas == AS_SHARED || gas == AS_CONST || LLVMIsGlobalConstant(base));
  }
  if (LLVMIsAArgument(base)) {
    for (unsigned i = 0; i < LLVMCountParams(fn); i++)
      if (LLVMGetParam(fn, i) == base)
        return !has_attr(fn, i + 1, "noalias");
  }
  return 1;
}

static int is_pointer(LLVMValueRef v) {
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind;
}

/* Does any memory access other than P's own atomics may reach P's memory?
 * Names the first such pointer's base in buf. */
static int other_access(LLVMValueRef fn, LLVMValueRef P, char *buf,
                        size_t cap) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef p[8];
      unsigned n = 0;
      if (LLVMIsALoadInst(i) || LLVMIsAAtomicRMWInst(i) ||
          LLVMIsAAtomicCmpXchgInst(i))
        p[n++] = LLVMGetOperand(i, 0);
      else if (LLVMIsAStoreInst(i))
        p[n++] = LLVMGetOperand(i, 1);
      else if (LLVMIsACallInst(i))
        for (unsigned a = 0; a < LLVMGetNumArgOperands(i) && n < 8; a++)
          if (is_pointer(LLVMGetOperand(i, a)))
            p[n++] = LLVMGetOperand(i, a);
      for (unsigned k = 0; k < n; k++)
        if (may_alias(fn, p[k], P)) {
          size_t len = 0;
          const char *name = LLVMGetValueName2(ks_ir_base_of(p[k]), &len);
          snprintf(buf, cap, "%.60s", len ? name : "another pointer");
          return 1;
        }
    }
  return 0;
}

/* ---- element indices --------------------------------------------------- */

/* Adds GEP g's offset in bytes to a. */
static const char *gep_terms(ctx *C, LLVMValueRef g, addr *a) {
  LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
  unsigned n = (unsigned)LLVMGetNumOperands(g);
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(g, i);
    wide c, stride;
    unsigned w = int_width(idx);
    if (w == 0 || w > 64)
      return "an index is not a scalar integer of 64 bits or less";
    if (i > 1 && LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      if (!const_of(idx, 0, &c))
        return "a struct field index is not constant";
      a->c += (wide)LLVMOffsetOfElement(C->dl, t, (unsigned)c);
      t = LLVMStructGetTypeAtIndex(t, (unsigned)c);
      continue;
    }
    if (i > 1) {
      if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
        return "it is indexed into a vector";
      t = LLVMGetElementType(t);
    }
    stride = (wide)LLVMABISizeOfType(C->dl, t);
    if (const_of(idx, 0, &c)) {
      a->c += c * stride;
    } else {
      if (a->n == MAX_TERMS)
        return "its address has too many terms";
      a->idx[a->n] = idx;
      a->scale[a->n++] = stride;
    }
  }
  return NULL;
}

/* The atomic's address as P + bytes. */
static const char *address(ctx *C, cand *k, LLVMValueRef atomic, addr *a) {
  memset(a, 0, sizeof *a);
  LLVMValueRef p = LLVMGetOperand(atomic, 0);
  while (p != k->arg) {
    if (LLVMIsAGetElementPtrInst(p)) {
      const char *why = gep_terms(C, p, a);
      if (why)
        return why;
    }
    p = LLVMGetOperand(p, 0); /* GEP or cast, as walk_uses saw */
  }
  return NULL;
}

/* The byte offsets an address can take. */
static iv addr_range(ranges *R, const addr *a) {
  iv e = single(a->c);
  for (unsigned i = 0; i < a->n; i++) {
    iv x = iv_mul(64, range_of(R, a->idx[i]), single(a->scale[i]), 0);
    e = make(64, e.lo + x.lo, e.hi + x.hi, join_g(e, x), e.r + x.r, 0);
  }
  return e;
}

static unsigned long long existing_smem(ctx *C) {
  unsigned long long total = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(C->m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == AS_SHARED &&
        !LLVMIsDeclaration(g))
      total += LLVMABISizeOfType(C->dl, LLVMGlobalGetValueType(g)) + 16;
  return total;
}

/* Bounds the indices of all of k's atomics; declines when it cannot. */
static void bound(ctx *C, cand *k, ranges *R) {
  iv all = {0};
  for (size_t i = 0; i < k->n && !k->why[0]; i++) {
    addr a;
    const char *why = address(C, k, k->atomics[i], &a);
    if (why) {
      decline(k, "%s", why);
      break;
    }
    iv e = addr_range(R, &a);
    all = i ? join(64, all, e) : e;
  }
  if (k->why[0])
    return;
  if (all.lo == smin_of(64) || all.hi == smax_of(64)) {
    decline(k, "%s", "its index is not bounded");
    return;
  }
  /* Distinct offsets a multiple of the size apart: whole, disjoint
   * elements. */
  k->g = all.g ? all.g : k->size;
  if (k->g % k->size) {
    decline(k, "%s", "its atomics' addresses are not whole elements apart");
    return;
  }
  k->lo = all.lo;
  k->elems = (unsigned long long)((all.hi - all.lo) / k->g + 1);
}

/* ---- the transformation ------------------------------------------------ */

static LLVMValueRef i32c(ctx *C, unsigned long long v) {
  return LLVMConstInt(LLVMInt32TypeInContext(C->c), v, 0);
}

static LLVMValueRef i64c(ctx *C, wide v) {
  return LLVMConstInt(LLVMInt64TypeInContext(C->c), (unsigned long long)v, 1);
}

/* Block dimension i: the fixed size, or a read of %ntid. */
static LLVMValueRef ntid(ctx *C, int i) {
  static const char *names[3] = {"llvm.nvvm.read.ptx.sreg.ntid.x",
                                 "llvm.nvvm.read.ptx.sreg.ntid.y",
                                 "llvm.nvvm.read.ptx.sreg.ntid.z"};
  if (C->s->block[0])
    return i32c(C, C->s->block[i] ? C->s->block[i] : 1);
  return ks_ir_call_intrinsic(C->m, C->b, names[i], NULL, 0);
}

/* The thread's linear index in a block of dims r (i32), at b; r[0] == 0:
 * the block is not fixed, its dims are read from %ntid. */
static LLVMValueRef linear_tid(LLVMModuleRef m, LLVMBuilderRef b,
                               const unsigned r[3]) {
  static const char *tid[3] = {"llvm.nvvm.read.ptx.sreg.tid.x",
                               "llvm.nvvm.read.ptx.sreg.tid.y",
                               "llvm.nvvm.read.ptx.sreg.tid.z"};
  static const char *ntid[2] = {"llvm.nvvm.read.ptx.sreg.ntid.x",
                                "llvm.nvvm.read.ptx.sreg.ntid.y"};
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
  LLVMValueRef t = ks_ir_call_intrinsic(m, b, tid[0], NULL, 0);
  int fixed = r[0] != 0;
  if (!fixed || r[1] > 1 || r[2] > 1) { /* tid.x + nx * (tid.y + ny * tid.z) */
    LLVMValueRef nx = fixed ? LLVMConstInt(i32, r[0], 0)
                            : ks_ir_call_intrinsic(m, b, ntid[0], NULL, 0);
    LLVMValueRef ny = NULL, z = NULL;
    if (!fixed || r[2] > 1) {
      ny = fixed ? LLVMConstInt(i32, r[1], 0)
                 : ks_ir_call_intrinsic(m, b, ntid[1], NULL, 0);
      z = ks_ir_call_intrinsic(m, b, tid[2], NULL, 0);
    }
    LLVMValueRef y = ks_ir_call_intrinsic(m, b, tid[1], NULL, 0);
    if (z) {
      z = LLVMBuildNUWMul(b, ny, z, "");
      y = LLVMBuildNUWAdd(b, y, z, "");
    }
    y = LLVMBuildNUWMul(b, nx, y, "");
    t = LLVMBuildNUWAdd(b, t, y, "ks.ltid");
  }
  return t;
}

/* The thread's linear index in its block and the block's thread count. */
static void thread_ids(ctx *C) {
  LLVMBuilderRef b = C->b;
  LLVMValueRef nx = ntid(C, 0), ny = ntid(C, 1), nz = ntid(C, 2);
  unsigned r[3] = {0, 0, 0};
  for (int i = 0; C->s->block[0] && i < 3; i++)
    r[i] = C->s->block[i] ? C->s->block[i] : 1;
  C->ltid = linear_tid(C->m, b, r);
  C->nthreads =
      LLVMBuildNUWMul(b, LLVMBuildNUWMul(b, nx, ny, ""), nz, "ks.nthreads");
}

/* for (j = ltid; j < n; j += nthreads): opens the loop at the builder's
 * block, leaves the builder in the body and returns j. */
typedef struct loop {
  LLVMBasicBlockRef head, body, after;
  LLVMValueRef j;
} loop;

static void loop_open(ctx *C, loop *l, unsigned long long n,
                      LLVMBasicBlockRef before, const char *name) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s.body", name);
  l->head = LLVMGetInsertBlock(C->b);
  l->body = before ? LLVMInsertBasicBlockInContext(C->c, before, buf)
                   : LLVMAppendBasicBlockInContext(C->c, C->fn, buf);
  snprintf(buf, sizeof buf, "%s.done", name);
  l->after = before ? LLVMInsertBasicBlockInContext(C->c, before, buf)
                    : LLVMAppendBasicBlockInContext(C->c, C->fn, buf);
  LLVMValueRef in = LLVMBuildICmp(C->b, LLVMIntULT, C->ltid, i32c(C, n), "");
  LLVMBuildCondBr(C->b, in, l->body, l->after);
  LLVMPositionBuilderAtEnd(C->b, l->body);
  l->j = LLVMBuildPhi(C->b, LLVMInt32TypeInContext(C->c), "j");
  LLVMAddIncoming(l->j, &C->ltid, &l->head, 1);
}

static void loop_close(ctx *C, loop *l, unsigned long long n) {
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(C->b);
  /* j < n (a shared array's elements) and nthreads <= 1024: no wrap, signed
   * or unsigned (flags that spare ScalarEvolution proving it) */
  LLVMValueRef next = LLVMBuildNUWAdd(C->b, l->j, C->nthreads, "j.next");
  LLVMSetNSW(next, 1);
  LLVMValueRef more = LLVMBuildICmp(C->b, LLVMIntULT, next, i32c(C, n), "");
  LLVMValueRef br = LLVMBuildCondBr(C->b, more, l->body, l->after);
  LLVMAddIncoming(l->j, &next, &latch, 1);
  /* a step the launch tells: nothing for LLVM's loop-unroll to do (it
   * would only put the loop in its canonical form, a cost), ptxas unrolls
   * it as it sees fit; with the block known, a constant trip count that
   * the optimize stage unrolls fully */
  if (!LLVMIsAConstantInt(C->nthreads) && ks_loops_keep_rolled_here(br))
    C->oom = 1;
  LLVMPositionBuilderAtEnd(C->b, l->after);
}

/* &smem[j64], as a GEP of the element type with one index: codegen's
 * straight-line strength reduction asks ScalarEvolution for the address
 * once per index of every GEP it meets, and the array type's leading 0
 * would be a second (the histogram's 16 unrolled atomics: 0.9 M
 * instructions a specialization). */
static LLVMValueRef smem_at(ctx *C, cand *k, LLVMValueRef j64) {
  LLVMTypeRef et = LLVMGetElementType(LLVMGlobalGetValueType(k->smem));
  return LLVMBuildInBoundsGEP2(C->b, et, k->smem, &j64, 1, "");
}

static void emit_init(ctx *C, cand *k, LLVMBasicBlockRef before) {
  loop l;
  unsigned long long n = k->elems * k->copies;
  loop_open(C, &l, n, before, "ks.init");
  LLVMValueRef j64 = LLVMBuildZExt(C->b, l.j, LLVMInt64TypeInContext(C->c), "");
  LLVMValueRef st =
      LLVMBuildStore(C->b, LLVMConstInt(k->ty, 0, 0), smem_at(C, k, j64));
  LLVMSetAlignment(st, k->size);
  loop_close(C, &l, n);
}

static void emit_merge(ctx *C, cand *k) {
  loop l;
  loop_open(C, &l, k->elems, NULL, "ks.merge");
  LLVMTypeRef i64 = LLVMInt64TypeInContext(C->c);
  LLVMValueRef j64 = LLVMBuildZExt(C->b, l.j, i64, "");
  LLVMValueRef v = LLVMBuildLoad2(C->b, k->ty, smem_at(C, k, j64), "part");
  LLVMSetAlignment(v, k->size);
  for (unsigned c = 1; c < k->copies; c++) { /* the other warps' copies */
    LLVMValueRef at =
        LLVMBuildAdd(C->b, j64, i64c(C, (wide)(c * k->elems)), "");
    LLVMValueRef w = LLVMBuildLoad2(C->b, k->ty, smem_at(C, k, at), "part");
    LLVMSetAlignment(w, k->size);
    v = LLVMBuildAdd(C->b, v, w, "");
  }
  LLVMBasicBlockRef add =
      LLVMInsertBasicBlockInContext(C->c, l.after, "ks.add");
  LLVMBasicBlockRef next =
      LLVMInsertBasicBlockInContext(C->c, l.after, "ks.merge.next");
  LLVMValueRef nz =
      LLVMBuildICmp(C->b, LLVMIntNE, v, LLVMConstInt(k->ty, 0, 0), "");
  LLVMBuildCondBr(C->b, nz, add, next);
  LLVMPositionBuilderAtEnd(C->b, add);
  LLVMValueRef e = LLVMBuildAdd(
      C->b, LLVMBuildMul(C->b, j64, i64c(C, k->g), ""), i64c(C, k->lo), "");
  LLVMValueRef p =
      LLVMBuildGEP2(C->b, LLVMInt8TypeInContext(C->c), k->arg, &e, 1, "");
  LLVMValueRef a = LLVMBuildAtomicRMW(C->b, LLVMAtomicRMWBinOpAdd, p, v,
                                      LLVMAtomicOrderingMonotonic, 0);
  LLVMSetAlignment(a, k->align);
  LLVMBuildBr(C->b, next);
  LLVMPositionBuilderAtEnd(C->b, next);
  loop_close(C, &l, k->elems);
}

/* The byte offset of an address, as an i64 built before the atomic. */
static LLVMValueRef emit_index(ctx *C, const addr *a) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(C->c);
  LLVMValueRef e = i64c(C, a->c);
  for (unsigned i = 0; i < a->n; i++) {
    LLVMValueRef x = a->idx[i];
    if (int_width(x) < 64)
      x = LLVMBuildSExt(C->b, x, i64, "");
    if (a->scale[i] != 1)
      x = LLVMBuildMul(C->b, x, i64c(C, a->scale[i]), "");
    e = LLVMBuildAdd(C->b, e, x, "");
  }
  return e;
}

static void rewrite_atomic(ctx *C, cand *k, LLVMValueRef atomic) {
  addr a;
  address(C, k, atomic, &a); /* succeeded in bound() */
  LLVMPositionBuilderBefore(C->b, atomic);
  LLVMValueRef e = LLVMBuildSub(C->b, emit_index(C, &a), i64c(C, k->lo), "");
  /* exact: e is lo modulo g (a shift, once simplified) */
  e = LLVMBuildExactUDiv(C->b, e, i64c(C, k->g), "");
  if (k->copies > 1) { /* the warp's copy: + (ltid / 32) * elems */
    LLVMValueRef w = LLVMBuildLShr(C->b, C->ltid, i32c(C, 5), "");
    w = LLVMBuildZExt(C->b, w, LLVMInt64TypeInContext(C->c), "");
    e = LLVMBuildAdd(C->b, e,
                     LLVMBuildMul(C->b, w, i64c(C, (wide)k->elems), ""), "");
  }
  LLVMValueRef p = smem_at(C, k, e);
  LLVMValueRef n = LLVMBuildAtomicRMW(C->b, LLVMGetAtomicRMWBinOp(atomic), p,
                                      LLVMGetOperand(atomic, 1),
                                      LLVMAtomicOrderingMonotonic, 0);
  LLVMSetAlignment(n, k->size);
  LLVMInstructionEraseFromParent(atomic);
}

static LLVMValueRef add_smem(ctx *C, cand *k) {
  char name[96];
  ks_ir_arg_symbol(k->arg, "ks_smem_", name, sizeof name);
  LLVMTypeRef at = LLVMArrayType2(k->ty, k->elems * k->copies);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(C->m, at, name, AS_SHARED);
  /* NVPTX cannot initialize shared memory: the kernel zeroes it. */
  LLVMSetInitializer(g, LLVMGetUndef(at));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 16);
  return g;
}

/* A new first block with the allocas, the thread ids, the zeroing and the
 * barrier; every ret becomes a branch to one exit that merges. */
static void transform(ctx *C) {
  LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(C->fn);
  LLVMBasicBlockRef entry =
      LLVMInsertBasicBlockInContext(C->c, old, "ks.entry");
  LLVMPositionBuilderAtEnd(C->b, entry);
  for (LLVMValueRef i = LLVMGetFirstInstruction(old), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0))) {
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(C->b, i);
    }
  }
  thread_ids(C);
  for (unsigned i = 0; i < C->ncands; i++)
    if (!C->cands[i].why[0]) {
      C->cands[i].smem = add_smem(C, &C->cands[i]);
      emit_init(C, &C->cands[i], old);
    }
  ks_ir_call_intrinsic(C->m, C->b, "llvm.nvvm.barrier0", NULL, 0);
  LLVMBuildBr(C->b, old);

  LLVMBasicBlockRef exit =
      LLVMAppendBasicBlockInContext(C->c, C->fn, "ks.exit");
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(C->fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (t && LLVMGetInstructionOpcode(t) == LLVMRet) {
      LLVMPositionBuilderBefore(C->b, t);
      LLVMBuildBr(C->b, exit);
      LLVMInstructionEraseFromParent(t);
    }
  }
  LLVMPositionBuilderAtEnd(C->b, exit);
  ks_ir_call_intrinsic(C->m, C->b, "llvm.nvvm.barrier0", NULL, 0);
  for (unsigned i = 0; i < C->ncands; i++)
    if (!C->cands[i].why[0])
      emit_merge(C, &C->cands[i]);
  LLVMBuildRetVoid(C->b);

  for (unsigned i = 0; i < C->ncands; i++)
    for (size_t j = 0; j < C->cands[i].n && !C->cands[i].why[0]; j++)
      rewrite_atomic(C, &C->cands[i], C->cands[i].atomics[j]);
}

/* ---- the pass ------------------------------------------------------------ */

/* Finds the pointer arguments updated by atomics and checks their uses. */
static int find_candidates(ctx *C) {
  unsigned np = LLVMCountParams(C->fn);
  C->cands = calloc(np ? np : 1, sizeof *C->cands);
  if (!C->cands)
    return 1;
  for (unsigned i = 0; i < np; i++) {
    cand *k = &C->cands[C->ncands];
    LLVMValueRef p = LLVMGetParam(C->fn, i);
    if (!is_pointer(p))
      continue;
    memset(k, 0, sizeof *k);
    k->arg = p;
    k->index = i;
    size_t len = 0;
    const char *name = LLVMGetValueName2(p, &len);
    if (len)
      snprintf(k->name, sizeof k->name, "%.60s", name);
    else
      snprintf(k->name, sizeof k->name, "arg%u", i);
    if (walk_uses(k, p))
      return 1;
    if (k->n == 0) {
      free(k->atomics);
      continue;
    }
    k->size = k->ty ? (unsigned)LLVMABISizeOfType(C->dl, k->ty) : 0;
    C->ncands++;
  }
  return 0;
}

/* Kernel-wide and per-candidate checks, then the shared-memory budget. */
static void check_candidates(ctx *C) {
  char buf[256];
  const char *shape = kernel_shape(C->fn, buf, sizeof buf);
  ranges *R = calloc(1, sizeof *R);
  unsigned long long budget = SMEM_CAP, have = existing_smem(C);
  if (have + budget > SMEM_STATIC_LIMIT)
    budget = have >= SMEM_STATIC_LIMIT ? 0 : SMEM_STATIC_LIMIT - have;
  for (unsigned i = 0; i < C->ncands; i++) {
    cand *k = &C->cands[i];
    char other[64];
    if (shape)
      decline(k, "%s", shape);
    /* the shared copy is set up and merged by the real block's threads,
     * counted from the launch's block: not after thread coarsening */
    if (C->d->coarsen_x > 1 || C->d->coarsen_y > 1)
      decline(k, "%s", "the threads were coarsened");
    if (!R)
      decline(k, "%s", "out of memory");
    if (!k->why[0] && !has_attr(C->fn, k->index + 1, "noalias") &&
        other_access(C->fn, k->arg, other, sizeof other)) {
      snprintf(buf, sizeof buf,
               "it may overlap %s, which the kernel also accesses (mark "
               "the pointers __restrict__)",
               other);
      decline(k, "%s", buf);
    }
    if (!k->why[0])
      bound(C, k, R);
    if (!k->why[0] && k->elems > (1ull << 31))
      decline(k, "%s", "its index is not bounded");
    unsigned long long bytes = k->elems * k->size;
    if (!k->why[0] && bytes > budget) {
      snprintf(buf, sizeof buf,
               "its index spans %llu elements x %u B = %llu B of shared "
               "memory, over the %llu B left for it",
               k->elems, k->size, bytes, budget);
      decline(k, "%s", buf);
    }
    if (!k->why[0])
      budget -= bytes;
  }
  /* One copy per warp where the block is fixed and the budget allows:
   * the warps of a block then update different copies of a bin (CUB's
   * and the hand-written histogram's layout); the merge sums them. */
  unsigned threads =
      C->s->block[0] ? C->s->block[0] * (C->s->block[1] ? C->s->block[1] : 1) *
                           (C->s->block[2] ? C->s->block[2] : 1)
                     : 0;
  unsigned warps = (threads + 31) / 32;
  for (unsigned i = 0; i < C->ncands; i++) {
    cand *k = &C->cands[i];
    k->copies = 1;
    unsigned long long more = k->elems * k->size * (warps - 1ull);
    if (!k->why[0] && warps > 1 && warps <= 32 && more <= budget) {
      k->copies = warps;
      budget -= more;
    }
  }
  free(R);
}

static void explain(ctx *C) {
  for (unsigned i = 0; i < C->ncands; i++) {
    cand *k = &C->cands[i];
    if (k->why[0]) {
      ks_explain(C->d, PASS, "declined %s: %s", k->name, k->why);
      continue;
    }
    char where[96] = "";
    if (k->lo != 0 || k->g != k->size)
      snprintf(where, sizeof where, " (bytes %lld + %lld j of %s)",
               (long long)k->lo, (long long)k->g, k->name);
    char copies[64] = "";
    if (k->copies > 1)
      snprintf(copies, sizeof copies, " x %u copies (one per warp)", k->copies);
    ks_explain(C->d, PASS,
               "promoted %s: %llu bins x %u B%s = %llu B of shared memory%s, "
               "merged with one atomic per non-zero bin",
               k->name, k->elems, k->size, copies,
               k->elems * k->size * k->copies, where);
  }
}

/* ---- shared-array sizing -------------------------------------------------
 *
 * A shared array the template declares at a parameter's upper bound
 * (reduce_sum's sh[1024], BLOCK <= 1024) shrinks to the elements its
 * accesses can reach once the values and the block are bound. Each access
 * (load, store, atomic, through GEPs and address-space casts of the array)
 * is bounded by the interval analysis above, %tid within the fixed block,
 * refined by the conditions of the branches on the way to its block: on the
 * path from the entry through blocks with a single predecessor, a compare
 * `X < C` (or <=, >, >=, signed or unsigned) that must hold, C a constant,
 * bounds X there. Every access must be bounded below by 0 and above by the
 * array's length; the array becomes [M x T], M the elements the farthest
 * access touches. The uses of the old array go to the new one: GEPs keep
 * their source type, which only scales their indices. */

enum { SIZE_PATH = 32 };

static iv meet(unsigned w, iv a, wide lo, wide hi) {
  wide l = wmax(a.lo, lo), h = wmin(a.hi, hi);
  if (l > h)
    return a; /* unreachable, or a contradiction: keep what was known */
  return make(w, l, h, a.g, a.r, 0);
}

/* Seeds R with the bounds that the path to bb's start implies; fresh is
 * scratch with R's block. */
static void path_bounds(ranges *R, ranges *fresh, LLVMBasicBlockRef bb) {
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
      wide k;
      if (LLVMIsAICmpInst(c) && const_of(LLVMGetOperand(c, 1), 0, &k) &&
          R->nm < MAX_MEMO) {
        LLVMValueRef x = LLVMGetOperand(c, 0);
        unsigned w = int_width(x);
        LLVMIntPredicate p = LLVMGetICmpPredicate(c);
        if (!holds) /* x ugt k false: x ule k, a bound like the others */
          p = ks_ir_icmp_inverse(p);
        if (w && w <= 64) {
          fresh->nm = fresh->depth = 0;
          iv a = range_of(fresh, x), r = a;
          switch (p) {
          case LLVMIntSLT:
            r = meet(w, a, smin_of(w), k - 1);
            break;
          case LLVMIntSLE:
            r = meet(w, a, smin_of(w), k);
            break;
          case LLVMIntSGT:
            r = meet(w, a, k + 1, smax_of(w));
            break;
          case LLVMIntSGE:
            r = meet(w, a, k, smax_of(w));
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
            R->m[R->nm++] = (memo){x, r};
        }
      }
    }
    cur = from;
  }
}

/* The bytes [lo, hi) of the array an access through pointer p of type
 * acc reaches, p derived from the array by the GEP chain from it; 0 when
 * it cannot be bounded. */
static int access_bytes(ctx *C, ranges *R, LLVMValueRef p, LLVMTypeRef acc,
                        wide *lo, wide *hi) {
  wide a = 0, b = 0;
  while (p && !LLVMIsAGlobalVariable(p) && !LLVMIsAAllocaInst(p)) {
    if (LLVMIsAAddrSpaceCastInst(p) ||
        (LLVMIsAConstantExpr(p) &&
         LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    int is_gep =
        LLVMIsAGetElementPtrInst(p) ||
        (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMGetElementPtr);
    if (!is_gep)
      return 0;
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
    unsigned n = (unsigned)LLVMGetNumOperands(p);
    for (unsigned i = 1; i < n; i++) {
      LLVMValueRef idx = LLVMGetOperand(p, i);
      wide size;
      if (i == 1) {
        size = (wide)LLVMABISizeOfType(C->dl, ty);
      } else if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind) {
        ty = LLVMGetElementType(ty);
        size = (wide)LLVMABISizeOfType(C->dl, ty);
      } else {
        return 0; /* struct fields, vector lanes: not here */
      }
      iv r = range_of(R, idx);
      if (r.lo == smin_of(int_width(idx)) || r.hi == smax_of(int_width(idx)))
        return 0;
      a += r.lo * size;
      b += r.hi * size;
    }
    p = LLVMGetOperand(p, 0);
  }
  *lo = a;
  *hi = b + (wide)LLVMABISizeOfType(C->dl, acc);
  return p != NULL;
}

/* Is call llvm.lifetime.start/end of alloca v or, with a constant length,
 * llvm.memset of pointer v? *len: the bytes a memset writes (0 for a
 * lifetime marker; one on a pointer derived from an alloca is no known
 * access, as ks_smem_local drops only the alloca's own). */
static int marker_or_memset(LLVMValueRef call, LLVMValueRef v,
                            unsigned long long *len) {
  if (!LLVMIsACallInst(call) || LLVMGetNumArgOperands(call) < 2)
    return 0;
  const char *name = ks_ir_callee_name(call);
  *len = 0;
  if (strncmp(name, "llvm.lifetime.", 14) == 0)
    return LLVMGetOperand(call, 1) == v && LLVMIsAAllocaInst(v);
  if (strncmp(name, "llvm.memset.", 12) != 0 ||
      LLVMGetNumArgOperands(call) != 4 || LLVMGetOperand(call, 0) != v ||
      LLVMGetOperand(call, 1) == v ||
      !LLVMIsAConstantInt(LLVMGetOperand(call, 2)))
    return 0;
  *len = LLVMConstIntGetZExtValue(LLVMGetOperand(call, 2));
  return *len > 0 && *len < (1ull << 32);
}

/* The furthest byte (exclusive) any access of g reaches through value v (g
 * or a pointer derived from it); 0 with *why when one cannot be bounded.
 * Loads, stores, atomics, lifetime markers and memsets of a constant
 * length are the accesses it knows. */
static int reach(ctx *C, ranges *work, LLVMValueRef g, LLVMValueRef v,
                 wide *end, const char **why, int depth) {
  if (depth > 16) {
    *why = "its uses nest too deep";
    return 0;
  }
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    int derive = LLVMIsAGetElementPtrInst(user) ||
                 LLVMIsAAddrSpaceCastInst(user) ||
                 (LLVMIsAConstantExpr(user) &&
                  (LLVMGetConstOpcode(user) == LLVMGetElementPtr ||
                   LLVMGetConstOpcode(user) == LLVMAddrSpaceCast));
    if (derive) {
      if (LLVMGetOperand(user, 0) != v) {
        *why = "its address is used as an index";
        return 0;
      }
      if (!reach(C, work, g, user, end, why, depth + 1))
        return 0;
      continue;
    }
    LLVMTypeRef acc = NULL;
    if (LLVMIsALoadInst(user))
      acc = LLVMTypeOf(user);
    else if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == v)
      acc = LLVMTypeOf(LLVMGetOperand(user, 0));
    else if (LLVMIsAAtomicRMWInst(user) && LLVMGetOperand(user, 0) == v)
      acc = LLVMTypeOf(user);
    unsigned long long len = 0;
    if (!acc && marker_or_memset(user, v, &len)) {
      if (!len)
        continue; /* a lifetime marker */
      acc = LLVMArrayType2(LLVMInt8TypeInContext(C->c), len);
    }
    if (!acc) {
      *why = "it is used other than by loads, stores, atomics and memsets";
      return 0;
    }
    if (LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) != C->fn) {
      *why = "it is used outside the kernel";
      return 0;
    }
    ranges *R = &work[0];
    R->nm = R->depth = 0;
    path_bounds(R, &work[1], LLVMGetInstructionParent(user));
    wide lo = 0, hi = 0;
    if (!access_bytes(C, R, v, acc, &lo, &hi) || lo < 0) {
      *why = "an index is not bounded";
      return 0;
    }
    if (hi > *end)
      *end = hi;
  }
  return 1;
}

/* Is v (a global, or a constant expression of it) used by fn? */
static int used_in(LLVMValueRef fn, LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u && depth < 16;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user)
            ? LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn
            : LLVMIsAConstantExpr(user) && used_in(fn, user, depth + 1))
      return 1;
  }
  return 0;
}

/* The interval analysis' memo and its scratch for reach(), knowing the
 * real block: after thread coarsening, the launch's divided. NULL: out of
 * memory. */
static ranges *reach_work(const ks_spec *s, const ks_diag *d) {
  ranges *work = malloc(2 * sizeof *work);
  if (!work)
    return NULL;
  for (int i = 0; i < 3; i++)
    work[0].block[i] = s->block[i] ? s->block[i] : 1;
  if (d->coarsen_x > 1)
    work[0].block[0] /= d->coarsen_x;
  if (d->coarsen_y > 1)
    work[0].block[1] /= d->coarsen_y;
  memcpy(work[1].block, work[0].block, sizeof work[1].block);
  return work;
}

int ks_smem_size(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn) || !s->block[0])
    return 0;
  ctx C = ctx_of(m, fn, s, d);
  ranges *work = reach_work(s, d);
  if (!work)
    return ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
  for (LLVMValueRef g = LLVMGetFirstGlobal(m), next; g; g = next) {
    next = LLVMGetNextGlobal(g);
    LLVMTypeRef ty = LLVMGlobalGetValueType(g);
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != AS_SHARED ||
        LLVMIsDeclaration(g) || LLVMGetLinkage(g) != LLVMInternalLinkage ||
        LLVMGetTypeKind(ty) != LLVMArrayTypeKind)
      continue;
    LLVMValueRef init = LLVMGetInitializer(g);
    if ((init && !LLVMIsUndef(init)) || !used_in(fn, g, 0))
      continue;
    LLVMTypeRef et = LLVMGetElementType(ty);
    unsigned long long n = LLVMGetArrayLength2(ty),
                       es = LLVMABISizeOfType(C.dl, et);
    wide end = 0;
    const char *why = NULL;
    size_t len = 0;
    const char *name = LLVMGetValueName2(g, &len);
    if (!es || !reach(&C, work, g, g, &end, &why, 0)) {
      ks_explain(d, PASS, "kept %.*s at %llu elements: %s", (int)len, name, n,
                 why ? why : "its elements have no size");
      continue;
    }
    unsigned long long want = (unsigned long long)((end + es - 1) / (wide)es);
    if (want >= n || want == 0)
      continue;
    LLVMTypeRef nt = LLVMArrayType2(et, want);
    char nm[128];
    snprintf(nm, sizeof nm, "%.*s", (int)(len < 120 ? len : 120), name);
    LLVMSetValueName2(g, "", 0);
    LLVMValueRef ng = LLVMAddGlobalInAddressSpace(m, nt, nm, AS_SHARED);
    LLVMSetInitializer(ng, LLVMGetUndef(nt));
    LLVMSetLinkage(ng, LLVMInternalLinkage);
    LLVMSetAlignment(ng, LLVMGetAlignment(g));
    LLVMReplaceAllUsesWith(g, ng);
    LLVMDeleteGlobal(g);
    ks_explain(d, PASS,
               "sized %s to %llu of its %llu elements (%llu of %llu B): the "
               "furthest any access can reach",
               nm, want, n, want * es, n * es);
  }
  free(work);
  return 0;
}

int ks_smem_atomics(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "smem_promote: no kernel '%s'",
                        s->kernel);
  ctx C = ctx_of(m, fn, s, d);
  int rc = 0;
  if (find_candidates(&C)) {
    rc = ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
    goto done;
  }
  check_candidates(&C);
  int any = 0;
  for (unsigned i = 0; i < C.ncands; i++)
    any |= !C.cands[i].why[0];
  if (any) {
    C.b = LLVMCreateBuilderInContext(C.c);
    transform(&C);
    LLVMDisposeBuilder(C.b);
    if (C.oom) {
      rc = ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
      goto done;
    }
  }
  explain(&C);
done:
  for (unsigned i = 0; C.cands && i < C.ncands; i++)
    free(C.cands[i].atomics);
  free(C.cands);
  return rc;
}

/* ---- private arrays to shared memory -------------------------------------
 *
 * A private array that full unrolling did not make constant-indexed (SROA
 * leaves it an alloca: its index is data, say count[x & 15]++) lives in
 * local memory, off the chip and behind the L1. With a block of at most B
 * threads it becomes a slice of one shared array of B slices:
 *
 *   %a = alloca [N x T]   ->   %a = addrspacecast (gep i8, @ks_local_a,
 *                                                   ltid * STRIDE) to ptr
 *
 * ltid the thread's linear index in the real block (or, with no fixed block
 * but maxntid, in the launch's: B = maxntid). STRIDE is the array's
 * bytes rounded up to its alignment (at least 4) and then to an odd number
 * of those units, so that the threads of a warp reading the same element
 * hit distinct banks. Only the thread's own slice is ever touched, so no
 * barrier is needed and the kernel's meaning is kept, under these checks:
 *  - the alloca is static (entry block, constant count) in the generic
 *    address space;
 *  - every use is a load, store or atomic through GEPs and casts of it, a
 *    lifetime marker or a memset of a constant length (reach(): the pointer
 *    escapes nowhere, no other thread can learn it);
 *  - every access is bounded within the array by the interval analysis
 *    (%tid within the block, path conditions): a slice cannot spill into
 *    the next thread's;
 *  - all the slices fit with the shared memory already there in SMEM_CAP.
 * The unroll stage ends with SROA, so arrays that unrolling made
 * constant-indexed are registers by now. */

/* Why alloca a stays in local memory, or NULL; *bytes: its size. */
static const char *local_check(ctx *C, ranges *work, LLVMValueRef a,
                               unsigned long long *bytes) {
  LLVMValueRef count = LLVMGetOperand(a, 0);
  if (LLVMGetInstructionParent(a) != LLVMGetEntryBasicBlock(C->fn) ||
      !LLVMIsAConstantInt(count))
    return "its size is not constant (a dynamic alloca)";
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(a)) != 0)
    return "it is not in the generic address space";
  unsigned long long es = LLVMABISizeOfType(C->dl, LLVMGetAllocatedType(a)),
                     n = LLVMConstIntGetZExtValue(count);
  if (es == 0 || n == 0 || es > SMEM_CAP || n > SMEM_CAP / es)
    return "its size is 0 or over the shared-memory budget";
  *bytes = es * n;
  wide end = 0;
  const char *why = NULL;
  if (!reach(C, work, a, a, &end, &why, 0))
    return why;
  if (end > (wide)*bytes)
    return "an access may reach past its end";
  return NULL;
}

int ks_smem_local(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  int any = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i && !any;
       i = LLVMGetNextInstruction(i))
    any = LLVMIsAAllocaInst(i) != NULL;
  if (!any)
    return 0;
  ctx C = ctx_of(m, fn, s, d);
  ranges *work = reach_work(s, d);
  if (!work)
    return ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
  /* a fixed block, or at most maxntid threads of a block not fixed */
  unsigned long long nthreads =
      1ull * work[0].block[0] * work[0].block[1] * work[0].block[2];
  if (!s->block[0]) {
    memset(work[0].block, 0, sizeof work[0].block); /* %tid unknown */
    memset(work[1].block, 0, sizeof work[1].block);
    nthreads = s->maxntid;
  }
  LLVMBuilderRef b = NULL;
  LLVMValueRef ltid = NULL;
  unsigned n = 0;
  for (LLVMValueRef a = LLVMGetFirstInstruction(entry), next; a; a = next) {
    next = LLVMGetNextInstruction(a);
    if (!LLVMIsAAllocaInst(a))
      continue;
    char name[64];
    size_t len = 0;
    const char *nm = LLVMGetValueName2(a, &len);
    if (len)
      snprintf(name, sizeof name, "%%%.*s", (int)(len < 48 ? len : 48), nm);
    else
      snprintf(name, sizeof name, "private array %u", n);
    n++;
    unsigned long long bytes = 0;
    const char *why = NULL;
    if (!nthreads)
      why = "the block's threads are not bounded (--block or --maxntid)";
    else
      why = local_check(&C, work, a, &bytes);
    unsigned unit = LLVMGetAlignment(a) > 4 ? LLVMGetAlignment(a) : 4;
    unsigned long long units = (bytes + unit - 1) / unit;
    units += units % 2 == 0; /* odd: a warp's same element in distinct banks */
    unsigned long long stride = units * unit, total = stride * nthreads;
    if (!why && existing_smem(&C) + total > SMEM_CAP)
      why = "its slices for the block would not fit in the shared-memory "
            "budget";
    if (why) {
      ks_explain(d, PASS, "kept %s in local memory: %s", name, why);
      continue;
    }
    if (!b) {
      b = LLVMCreateBuilderInContext(C.c);
      LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
      ltid = linear_tid(m, b, work[0].block);
    }
    char gname[80];
    snprintf(gname, sizeof gname, "ks_local_%u", n - 1);
    LLVMTypeRef gt = LLVMArrayType2(LLVMInt8TypeInContext(C.c), total);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, gt, gname, AS_SHARED);
    LLVMSetInitializer(g, LLVMGetUndef(gt));
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, unit);
    /* lifetime markers mean nothing on shared memory: dropped */
    for (LLVMUseRef u = LLVMGetFirstUse(a), un; u; u = un) {
      un = LLVMGetNextUse(u);
      unsigned long long mlen = 0;
      LLVMValueRef user = LLVMGetUser(u);
      if (marker_or_memset(user, a, &mlen) && !mlen)
        LLVMInstructionEraseFromParent(user);
    }
    LLVMPositionBuilderBefore(b, a);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(C.c);
    LLVMValueRef off =
        LLVMBuildNUWMul(b, ltid, LLVMConstInt(i32, stride, 0), "");
    LLVMValueRef p =
        LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(C.c), g, &off, 1, "");
    char keep[64];
    snprintf(keep, sizeof keep, "%.*s", (int)(len < 63 ? len : 63), nm);
    LLVMSetValueName2(a, "", 0);
    p = LLVMBuildAddrSpaceCast(b, p, LLVMTypeOf(a), keep);
    LLVMReplaceAllUsesWith(a, p);
    LLVMInstructionEraseFromParent(a);
    ks_explain(d, PASS,
               "moved %s from local to shared memory: %llu B per thread in "
               "slices of %llu B x %llu threads = %llu B",
               name, bytes, stride, nthreads, total);
  }
  if (b)
    LLVMDisposeBuilder(b);
  free(work);
  return 0;
}
