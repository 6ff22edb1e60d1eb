/*
 * window_expr.c - normal forms of the integer and pointer expressions that
 * index a kernel's loads, for window staging (smem_window.c).
 *
 * An expression over kernel arguments, constants and the special registers
 * becomes a sum  k + c1*a1 + ... + cn*an  modulo 2^bits, where each atom ai
 * is a leaf (an argument, a block-uniform register such as %ctaid.x), a
 * thread coordinate (%tid.x, %tid.y), or an operation that is not affine
 * (sext, select, icmp, smax, a product of two variables, ...) over the
 * normal forms of its operands. Atoms and normal forms are hash-consed, so
 * two normal forms are equal exactly when their ids are.
 *
 * The normal form describes the expression as if no instruction carried
 * poison-generating flags (nsw, nuw, exact, inbounds, nneg), and an `or
 * disjoint` were an addition:
 * modular arithmetic is a ring, so the rewriting is exact, and wherever the
 * original computes a value that is not poison it is this value. Equal
 * normal forms therefore mean equal values for every assignment of the
 * leaves, and ks_wx_clone rebuilds an expression without those flags.
 *
 * Only operations that are defined for every operand value are accepted
 * (shifts by constants below the width, division by non-zero constants), so
 * a clone can be evaluated anywhere, for any thread, without undefined
 * behaviour. Thread coordinates lie in [0, 1024); the rewriting assumes the
 * coordinate values it is evaluated at lie in [0, WX_TID_DOMAIN), which lets
 * an extension of tid + k (0 <= k <= WX_MAX_K) be tid + k at the new width.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "passes/ks_passes.h"

enum {
  WX_MAXT = 8,            /* terms per normal form */
  WX_MAXOPS = 16,         /* operands of an instruction */
  WX_MAXDEPTH = 64,       /* expression depth */
  WX_NBUCKET = 1 << 12,   /* hash buckets */
  WX_MAX_K = 1 << 13,     /* largest k in ext(tid + k) -> tid + k */
  WX_TID_DOMAIN = 1 << 14 /* thread coordinates (and shifted ones) below */
};

enum { A_LEAF, A_TID, A_OP };
enum { OP_INTRINSIC = 1000 }; /* op of a call atom: OP_INTRINSIC + id */

typedef struct wterm {
  int atom;
  uint64_t coef;
} wterm;

typedef struct wnf {
  unsigned bits;
  unsigned dep; /* bit d: depends on tid[d] */
  int n;
  uint64_t k;
  wterm t[WX_MAXT];
} wnf;

typedef struct watom {
  int kind;
  LLVMValueRef leaf; /* A_LEAF: the argument, or the register's function */
  int dim;           /* A_TID */
  unsigned op;       /* A_OP: LLVMOpcode or OP_INTRINSIC + intrinsic id */
  int pred;          /* A_OP icmp */
  unsigned bits;     /* result width */
  unsigned dep;
  int nk;
  int kid[3]; /* normal forms */
} watom;

typedef struct memo {
  LLVMValueRef v, r;
  int nf;
} memo;

struct ks_wx {
  LLVMTargetDataRef td;
  unsigned pbits; /* pointer width */
  unsigned block[3];
  wnf *nf;
  int nnf, capnf;
  int *nfnext;
  watom *atom;
  int natom, capatom;
  int *atnext;
  int nfhead[WX_NBUCKET], athead[WX_NBUCKET];
  memo *memo;
  int nmemo, capmemo;
  unsigned range[3]; /* ks_wx_set_range: tid[d] < range[d]; 0: unknown */
  int nowrap;        /* ks_wx_assume_nowrap */
  int dim;           /* the substitution tid[dim] -> tid[dim] + delta */
  int64_t delta;     /* (dim < 0: none) */
  int oom;
  char why[160];
};

static uint64_t mask(unsigned bits) {
  return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static int64_t sext_bits(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return (int64_t)v;
  uint64_t sign = 1ull << (bits - 1);
  return (int64_t)((v ^ sign) - sign);
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static int fail(ks_wx *x, const char *why) {
  if (!x->why[0])
    snprintf(x->why, sizeof x->why, "%s", why);
  return -1;
}

static int grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap)
    return 1;
  int c = *cap ? *cap * 2 : 64;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, (size_t)c * elem);
  if (!q)
    return 0;
  *p = q;
  *cap = c;
  return 1;
}

/* ---- hash-consing ---------------------------------------------------------
 */

static uint64_t nf_hash(const wnf *a) {
  uint64_t h = mix(a->bits, a->k);
  for (int i = 0; i < a->n; i++)
    h = mix(mix(h, (uint64_t)a->t[i].atom), a->t[i].coef);
  return h;
}

static int nf_same(const wnf *a, const wnf *b) {
  if (a->bits != b->bits || a->k != b->k || a->n != b->n)
    return 0;
  for (int i = 0; i < a->n; i++)
    if (a->t[i].atom != b->t[i].atom || a->t[i].coef != b->t[i].coef)
      return 0;
  return 1;
}

static int nf_intern(ks_wx *x, wnf *a) {
  a->dep = 0;
  for (int i = 0; i < a->n; i++)
    a->dep |= x->atom[a->t[i].atom].dep;
  unsigned b = (unsigned)(nf_hash(a) & (WX_NBUCKET - 1));
  for (int i = x->nfhead[b]; i >= 0; i = x->nfnext[i])
    if (nf_same(&x->nf[i], a))
      return i;
  int c = x->capnf;
  if (!grow((void **)&x->nf, &x->capnf, x->nnf + 1, sizeof *x->nf) ||
      !grow((void **)&x->nfnext, &c, x->nnf + 1, sizeof *x->nfnext)) {
    x->oom = 1;
    return fail(x, "out of memory");
  }
  x->nf[x->nnf] = *a;
  x->nfnext[x->nnf] = x->nfhead[b];
  x->nfhead[b] = x->nnf;
  return x->nnf++;
}

static uint64_t atom_hash(const watom *a) {
  uint64_t h = mix((uint64_t)a->kind, (uint64_t)(uintptr_t)a->leaf);
  h = mix(mix(mix(h, (uint64_t)a->dim), a->op), (uint64_t)a->pred);
  h = mix(h, a->bits);
  for (int i = 0; i < a->nk; i++)
    h = mix(h, (uint64_t)a->kid[i]);
  return h;
}

static int atom_same(const watom *a, const watom *b) {
  if (a->kind != b->kind || a->leaf != b->leaf || a->dim != b->dim ||
      a->op != b->op || a->pred != b->pred || a->bits != b->bits ||
      a->nk != b->nk)
    return 0;
  for (int i = 0; i < a->nk; i++)
    if (a->kid[i] != b->kid[i])
      return 0;
  return 1;
}

static int atom_intern(ks_wx *x, watom *a) {
  a->dep = a->kind == A_TID ? 1u << a->dim : 0;
  for (int i = 0; i < a->nk; i++)
    a->dep |= x->nf[a->kid[i]].dep;
  unsigned b = (unsigned)(atom_hash(a) & (WX_NBUCKET - 1));
  for (int i = x->athead[b]; i >= 0; i = x->atnext[i])
    if (atom_same(&x->atom[i], a))
      return i;
  int c = x->capatom;
  if (!grow((void **)&x->atom, &x->capatom, x->natom + 1, sizeof *x->atom) ||
      !grow((void **)&x->atnext, &c, x->natom + 1, sizeof *x->atnext)) {
    x->oom = 1;
    return fail(x, "out of memory");
  }
  x->atom[x->natom] = *a;
  x->atnext[x->natom] = x->athead[b];
  x->athead[b] = x->natom;
  return x->natom++;
}

/* ---- arithmetic on normal forms ------------------------------------------ */

static int nf_const(ks_wx *x, unsigned bits, uint64_t k) {
  wnf a = {.bits = bits, .k = k & mask(bits)};
  return nf_intern(x, &a);
}

static int nf_of_atom(ks_wx *x, unsigned bits, int atom) {
  if (atom < 0)
    return -1;
  wnf a = {.bits = bits, .n = 1, .t = {{atom, 1}}};
  return nf_intern(x, &a);
}

/* a*ca + b*cb */
static int nf_lin(ks_wx *x, int a, uint64_t ca, int b, uint64_t cb) {
  const wnf *p = &x->nf[a], *q = &x->nf[b];
  uint64_t m = mask(p->bits);
  wnf r = {.bits = p->bits, .k = (p->k * ca + q->k * cb) & m};
  int i = 0, j = 0;
  while (i < p->n || j < q->n) {
    wterm t;
    if (j >= q->n || (i < p->n && p->t[i].atom < q->t[j].atom)) {
      t = (wterm){p->t[i].atom, p->t[i].coef * ca};
      i++;
    } else if (i >= p->n || q->t[j].atom < p->t[i].atom) {
      t = (wterm){q->t[j].atom, q->t[j].coef * cb};
      j++;
    } else {
      t = (wterm){p->t[i].atom, p->t[i].coef * ca + q->t[j].coef * cb};
      i++;
      j++;
    }
    t.coef &= m;
    if (!t.coef)
      continue;
    if (r.n == WX_MAXT)
      return fail(x, "index expression too long");
    r.t[r.n++] = t;
  }
  return nf_intern(x, &r);
}

static int nf_is_const(const ks_wx *x, int a) { return x->nf[a].n == 0; }

/* Is a exactly tid[d] + k with 0 <= k <= WX_MAX_K? Then (d, k). */
static int nf_tid_plus(const ks_wx *x, int a, int *d, uint64_t *k) {
  const wnf *p = &x->nf[a];
  if (p->n != 1 || p->t[0].coef != 1 || x->atom[p->t[0].atom].kind != A_TID)
    return 0;
  if (p->k > WX_MAX_K)
    return 0;
  *d = x->atom[p->t[0].atom].dim;
  *k = p->k;
  return 1;
}

static int op_atom(ks_wx *x, unsigned op, int pred, unsigned bits, int nk,
                   const int *kid) {
  watom a = {.kind = A_OP, .op = op, .pred = pred, .bits = bits, .nk = nk};
  for (int i = 0; i < nk; i++) {
    if (kid[i] < 0)
      return -1;
    a.kid[i] = kid[i];
  }
  return nf_of_atom(x, bits, atom_intern(x, &a));
}

/* Commutative: operands in id order, so that a op b and b op a agree. */
static int op_atom2(ks_wx *x, unsigned op, int pred, unsigned bits, int a,
                    int b, int commutes) {
  int kid[2] = {a, b};
  if (commutes && a > b) {
    kid[0] = b;
    kid[1] = a;
  }
  return op_atom(x, op, pred, bits, 2, kid);
}

/* Extension of a = V + W to bits, where every value of V is a multiple of
 * 2^s and W, the terms in the coordinates of ks_wx_set_range plus a
 * constant, lies in [0, 2^s) for every coordinate in its range: V + W then
 * carries nothing out of the low s bits (s < from, so not into the sign
 * bit either), and ext(V + W) = ext(V) + W. -2 when the rule does not
 * apply. */
static int nf_split_ext(ks_wx *x, int a, unsigned bits, LLVMOpcode op) {
  wnf p = x->nf[a];
  unsigned s = p.bits - 1;
  uint64_t wmax = 0;
  int any = 0;
  for (int i = 0; i < p.n; i++) {
    const watom *t = &x->atom[p.t[i].atom];
    if (t->kind == A_TID && x->range[t->dim]) {
      any = 1;
      continue;
    }
    unsigned tz = (unsigned)__builtin_ctzll(p.t[i].coef | (1ull << 63));
    if (tz < s)
      s = tz;
  }
  if (!any || s == 0)
    return -2;
  uint64_t m = p.k & mask(s);
  wnf v = {.bits = p.bits, .k = p.k - m};
  wnf w = {.bits = bits, .k = m};
  wmax = m;
  for (int i = 0; i < p.n; i++) {
    const watom *t = &x->atom[p.t[i].atom];
    if (t->kind == A_TID && x->range[t->dim]) {
      uint64_t r = x->range[t->dim] - 1, lim = (1ull << s) - 1;
      if (p.t[i].coef > lim || (r && p.t[i].coef > (lim - wmax) / r))
        return -2;
      wmax += p.t[i].coef * r;
      w.t[w.n++] = p.t[i];
    } else {
      v.t[v.n++] = p.t[i];
    }
  }
  int vi = nf_intern(x, &v);
  int wi = vi < 0 ? -1 : nf_intern(x, &w);
  if (wi < 0)
    return -1;
  int ev =
      v.n ? op_atom(x, (unsigned)op, 0, bits, 1, &vi)
          : nf_const(x, bits,
                     op == LLVMSExt ? (uint64_t)sext_bits(v.k, p.bits) : v.k);
  return ev < 0 ? -1 : nf_lin(x, ev, 1, wi, 1);
}

/* Extension or truncation of normal form a to bits. */
static int nf_resize(ks_wx *x, int a, unsigned bits, LLVMOpcode op) {
  if (a < 0)
    return -1;
  unsigned from = x->nf[a].bits;
  if (from == bits)
    return a;
  if (nf_is_const(x, a)) {
    uint64_t k = x->nf[a].k;
    if (op == LLVMSExt)
      k = (uint64_t)sext_bits(k, from);
    return nf_const(x, bits, k);
  }
  int d;
  uint64_t k;
  /* tid + k lies in [0, WX_TID_DOMAIN + WX_MAX_K), far below 2^15. */
  if (from >= 16 && bits >= 16 && nf_tid_plus(x, a, &d, &k)) {
    wnf r = x->nf[a];
    r.bits = bits;
    return nf_intern(x, &r);
  }
  if (bits > from && (op == LLVMSExt || op == LLVMZExt)) {
    int r = nf_split_ext(x, a, bits, op);
    if (r != -2)
      return r;
  }
  return op_atom(x, (unsigned)op, 0, bits, 1, &a);
}

/* ---- normalization ---------------------------------------------------------
 */

static int norm(ks_wx *x, LLVMValueRef v, int depth);

static unsigned width_of(ks_wx *x, LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind: {
    unsigned w = LLVMGetIntTypeWidth(t);
    return w <= 64 ? w : 0;
  }
  case LLVMPointerTypeKind:
    return x->pbits;
  default:
    return 0;
  }
}

static const char *sreg_name(LLVMValueRef callee) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char prefix[] = "llvm.nvvm.read.ptx.sreg.";
  if (len <= sizeof prefix - 1 || strncmp(name, prefix, sizeof prefix - 1))
    return NULL;
  return name + sizeof prefix - 1;
}

/* The coordinate a special-register name reads: 'x'..'z' -> 0..2, or -1. */
static int sreg_dim(const char *r, const char *what) {
  size_t n = strlen(what);
  if (strncmp(r, what, n) || r[n] != '.' || r[n + 1] < 'x' || r[n + 1] > 'z' ||
      r[n + 2])
    return -1;
  return r[n + 1] - 'x';
}

static int norm_tid(ks_wx *x, int d) {
  if (x->block[d] == 1)
    return nf_const(x, 32, 0);
  if (d == 2)
    return fail(x, "index uses tid.z of a 3-D block");
  watom a = {.kind = A_TID, .dim = d};
  int r = nf_of_atom(x, 32, atom_intern(x, &a));
  if (r >= 0 && d == x->dim && x->delta)
    r = nf_lin(x, r, 1, nf_const(x, 32, (uint64_t)x->delta), 1);
  return r;
}

static int norm_call(ks_wx *x, LLVMValueRef v, unsigned bits, int depth) {
  LLVMValueRef callee = LLVMGetCalledValue(v);
  if (!callee || !LLVMIsAFunction(callee))
    return fail(x, "index uses an indirect call");
  const char *r = sreg_name(callee);
  if (r) {
    int d = sreg_dim(r, "tid");
    if (d >= 0)
      return norm_tid(x, d);
    if (sreg_dim(r, "ctaid") >= 0 || sreg_dim(r, "nctaid") >= 0 ||
        sreg_dim(r, "ntid") >= 0) {
      watom a = {.kind = A_LEAF, .leaf = callee, .bits = bits};
      return nf_of_atom(x, bits, atom_intern(x, &a));
    }
    return fail(x, "index uses a special register other than "
                   "tid/ctaid/ntid/nctaid");
  }
  unsigned id = LLVMGetIntrinsicID(callee);
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char *const minmax[] = {"llvm.smax.", "llvm.smin.", "llvm.umax.",
                                       "llvm.umin."};
  for (size_t i = 0; id && i < sizeof minmax / sizeof minmax[0]; i++)
    if (strncmp(name, minmax[i], strlen(minmax[i])) == 0 &&
        LLVMGetNumArgOperands(v) == 2) {
      int a = norm(x, LLVMGetOperand(v, 0), depth + 1);
      int b = a < 0 ? -1 : norm(x, LLVMGetOperand(v, 1), depth + 1);
      return op_atom2(x, OP_INTRINSIC + id, 0, bits, a, b, 1);
    }
  return fail(x, "index uses a call");
}

static int norm_gep(ks_wx *x, LLVMValueRef v, int depth) {
  LLVMTypeRef ty = LLVMGetGEPSourceElementType(v);
  unsigned n = LLVMGetNumIndices(v);
  if (n >= WX_MAXOPS)
    return fail(x, "address of too many indices");
  int acc = norm(x, LLVMGetOperand(v, 0), depth + 1);
  for (unsigned i = 0; i < n && acc >= 0; i++) {
    LLVMValueRef idx = LLVMGetOperand(v, i + 1);
    uint64_t scale;
    if (i == 0) {
      scale = LLVMABISizeOfType(x->td, ty);
    } else if (LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
      if (!LLVMIsAConstantInt(idx))
        return fail(x, "index into a struct not constant");
      unsigned f = (unsigned)LLVMConstIntGetZExtValue(idx);
      uint64_t off = LLVMOffsetOfElement(x->td, ty, f);
      acc = nf_lin(x, acc, 1, nf_const(x, x->pbits, off), 1);
      ty = LLVMStructGetTypeAtIndex(ty, f);
      continue;
    } else if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind) {
      ty = LLVMGetElementType(ty);
      scale = LLVMABISizeOfType(x->td, ty);
    } else {
      return fail(x, "address of a vector element");
    }
    if (!width_of(x, LLVMTypeOf(idx)) ||
        LLVMGetTypeKind(LLVMTypeOf(idx)) != LLVMIntegerTypeKind)
      return fail(x, "address with a vector index");
    int in = nf_resize(
        x, norm(x, idx, depth + 1), x->pbits,
        LLVMGetIntTypeWidth(LLVMTypeOf(idx)) < x->pbits ? LLVMSExt : LLVMTrunc);
    if (in < 0)
      return -1;
    acc = nf_lin(x, acc, 1, in, scale);
  }
  return acc;
}

/* Binary operators: affine ones fold, the others become atoms. */
static int norm_binop(ks_wx *x, LLVMValueRef v, LLVMOpcode op, unsigned bits,
                      int depth) {
  int a = norm(x, LLVMGetOperand(v, 0), depth + 1);
  int b = a < 0 ? -1 : norm(x, LLVMGetOperand(v, 1), depth + 1);
  if (b < 0)
    return -1;
  uint64_t m = mask(bits);
  int bc = nf_is_const(x, b);
  uint64_t bk = x->nf[b].k;
  switch (op) {
  case LLVMAdd:
    return nf_lin(x, a, 1, b, 1);
  case LLVMSub:
    return nf_lin(x, a, 1, b, m);
  case LLVMMul:
    if (bc)
      return nf_lin(x, a, bk, a, 0);
    if (nf_is_const(x, a))
      return nf_lin(x, b, x->nf[a].k, b, 0);
    return op_atom2(x, (unsigned)op, 0, bits, a, b, 1);
  case LLVMShl:
    if (!bc || bk >= bits)
      return fail(x, "index shifted by a variable amount");
    return nf_lin(x, a, 1ull << bk, a, 0);
  case LLVMLShr:
  case LLVMAShr:
    if (!bc || bk >= bits)
      return fail(x, "index shifted by a variable amount");
    return op_atom2(x, (unsigned)op, 0, bits, a, b, 0);
  case LLVMUDiv:
  case LLVMURem:
  case LLVMSDiv:
  case LLVMSRem:
    /* Defined for every dividend: a constant divisor, not 0 (nor -1, whose
     * signed quotient overflows). */
    if (!bc || bk == 0 || ((op == LLVMSDiv || op == LLVMSRem) && bk == m))
      return fail(x, "index divided by a variable");
    return op_atom2(x, (unsigned)op, 0, bits, a, b, 0);
  case LLVMXor:
    if (bc && bk == m) /* ~a = -1 - a */
      return nf_lin(x, nf_const(x, bits, m), 1, a, m);
    return op_atom2(x, (unsigned)op, 0, bits, a, b, 1);
  case LLVMOr:
    /* Disjoint bits: an addition, wherever the original is not poison; the
     * clone adds. */
    if (LLVMGetIsDisjoint(v))
      return nf_lin(x, a, 1, b, 1);
    return op_atom2(x, (unsigned)op, 0, bits, a, b, 1);
  case LLVMAnd:
    return op_atom2(x, (unsigned)op, 0, bits, a, b, 1);
  default:
    return fail(x, "index uses an unsupported operation");
  }
}

static LLVMIntPredicate swapped(LLVMIntPredicate p) {
  switch (p) {
  case LLVMIntSGT:
    return LLVMIntSLT;
  case LLVMIntSGE:
    return LLVMIntSLE;
  case LLVMIntUGT:
    return LLVMIntULT;
  case LLVMIntUGE:
    return LLVMIntULE;
  case LLVMIntSLT:
    return LLVMIntSGT;
  case LLVMIntSLE:
    return LLVMIntSGE;
  case LLVMIntULT:
    return LLVMIntUGT;
  case LLVMIntULE:
    return LLVMIntUGE;
  default:
    return p;
  }
}

static int norm_icmp(ks_wx *x, LLVMValueRef v, int depth) {
  int a = norm(x, LLVMGetOperand(v, 0), depth + 1);
  int b = a < 0 ? -1 : norm(x, LLVMGetOperand(v, 1), depth + 1);
  LLVMIntPredicate p = LLVMGetICmpPredicate(v);
  if (b < 0)
    return -1;
  /* a > b is b < a: one spelling per comparison. */
  if (p == LLVMIntSGT || p == LLVMIntSGE || p == LLVMIntUGT ||
      p == LLVMIntUGE) {
    int t = a;
    a = b;
    b = t;
    p = swapped(p);
  }
  return op_atom2(x, LLVMICmp, (int)p, 1, a, b,
                  p == LLVMIntEQ || p == LLVMIntNE);
}

/* ext(o) to bits; under ks_wx_assume_nowrap, ext(a op b) = ext(a) op ext(b)
 * for an add, sub or mul that the extension's kind says cannot wrap. */
static int norm_ext(ks_wx *x, LLVMValueRef o, unsigned bits, LLVMOpcode op,
                    int depth) {
  LLVMOpcode oo = LLVMIsAInstruction(o) ? LLVMGetInstructionOpcode(o) : 0;
  if (x->nowrap && (op == LLVMSExt || op == LLVMZExt) &&
      (oo == LLVMAdd || oo == LLVMSub || oo == LLVMMul) &&
      (op == LLVMSExt ? LLVMGetNSW(o) : LLVMGetNUW(o))) {
    if (depth > WX_MAXDEPTH)
      return fail(x, "index expression too deep");
    int a = norm_ext(x, LLVMGetOperand(o, 0), bits, op, depth + 1);
    int b = a < 0 ? -1 : norm_ext(x, LLVMGetOperand(o, 1), bits, op, depth + 1);
    if (b < 0)
      return -1;
    if (oo == LLVMAdd)
      return nf_lin(x, a, 1, b, 1);
    if (oo == LLVMSub)
      return nf_lin(x, a, 1, b, mask(bits));
    if (nf_is_const(x, b))
      return nf_lin(x, a, x->nf[b].k, a, 0);
    if (nf_is_const(x, a))
      return nf_lin(x, b, x->nf[a].k, b, 0);
    return op_atom2(x, LLVMMul, 0, bits, a, b, 1);
  }
  if (LLVMGetTypeKind(LLVMTypeOf(o)) != LLVMIntegerTypeKind)
    return fail(x, "index converted from a non-integer");
  return nf_resize(x, norm(x, o, depth + 1), bits, op);
}

static int norm_inst(ks_wx *x, LLVMValueRef v, unsigned bits, int depth) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (ks_ir_int_binop(op))
    return norm_binop(x, v, op, bits, depth);
  switch (op) {
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
    return norm_ext(x, LLVMGetOperand(v, 0), bits, op, depth);
  case LLVMICmp:
    return norm_icmp(x, v, depth);
  case LLVMSelect: {
    int k[3];
    for (int i = 0; i < 3; i++)
      if ((k[i] = norm(x, LLVMGetOperand(v, (unsigned)i), depth + 1)) < 0)
        return -1;
    return op_atom(x, LLVMSelect, 0, bits, 3, k);
  }
  case LLVMCall:
    return norm_call(x, v, bits, depth);
  case LLVMGetElementPtr:
    return norm_gep(x, v, depth);
  case LLVMLoad:
    return fail(x, "index depends on a load");
  case LLVMPHI:
    return fail(x, "index depends on a phi");
  default:
    return fail(x, "index uses an unsupported operation");
  }
}

static int norm(ks_wx *x, LLVMValueRef v, int depth) {
  if (depth > WX_MAXDEPTH)
    return fail(x, "index expression too deep");
  unsigned bits = width_of(x, LLVMTypeOf(v));
  if (!bits)
    return fail(x, "index of a type that is not an integer or pointer");
  if (LLVMIsAConstantInt(v))
    return nf_const(x, bits, LLVMConstIntGetZExtValue(v));
  if (LLVMIsAArgument(v)) {
    watom a = {.kind = A_LEAF, .leaf = v, .bits = bits};
    return nf_of_atom(x, bits, atom_intern(x, &a));
  }
  if (!LLVMIsAInstruction(v))
    return fail(x, "index uses a constant expression");
  for (int i = 0; i < x->nmemo; i++)
    if (x->memo[i].v == v)
      return x->memo[i].nf;
  int r = norm_inst(x, v, bits, depth);
  if (r >= 0 && x->nf[r].bits != bits)
    return fail(x, "index of mismatched widths");
  if (r >= 0) {
    if (!grow((void **)&x->memo, &x->capmemo, x->nmemo + 1, sizeof *x->memo))
      return fail(x, "out of memory");
    x->memo[x->nmemo++] = (memo){v, NULL, r};
  }
  return r;
}

/* ---- interface -------------------------------------------------------------
 */

ks_wx *ks_wx_create(LLVMModuleRef m, const unsigned block[3]) {
  ks_wx *x = calloc(1, sizeof *x);
  if (!x)
    return NULL;
  x->td = LLVMGetModuleDataLayout(m);
  x->pbits = LLVMPointerSize(x->td) * 8;
  for (int i = 0; i < 3; i++)
    x->block[i] = block[i];
  memset(x->nfhead, -1, sizeof x->nfhead);
  memset(x->athead, -1, sizeof x->athead);
  return x;
}

void ks_wx_destroy(ks_wx *x) {
  if (!x)
    return;
  free(x->nf);
  free(x->nfnext);
  free(x->atom);
  free(x->atnext);
  free(x->memo);
  free(x);
}

int ks_wx_norm(ks_wx *x, LLVMValueRef v, int dim, int64_t delta) {
  x->why[0] = '\0';
  x->nmemo = 0;
  x->dim = dim;
  x->delta = dim >= 0 ? delta : 0;
  return norm(x, v, 0);
}

const char *ks_wx_why(const ks_wx *x) { return x->why; }

unsigned ks_wx_dep(const ks_wx *x, int nf) { return x->nf[nf].dep; }

LLVMValueRef ks_wx_base(const ks_wx *x, int nf) {
  const wnf *p = &x->nf[nf];
  LLVMValueRef base = NULL;
  for (int i = 0; i < p->n; i++) {
    const watom *a = &x->atom[p->t[i].atom];
    if (a->kind != A_LEAF || !LLVMIsAArgument(a->leaf) ||
        LLVMGetTypeKind(LLVMTypeOf(a->leaf)) != LLVMPointerTypeKind)
      continue;
    if (base || p->t[i].coef != 1)
      return NULL;
    base = a->leaf;
  }
  return base;
}

static int find_tid(const ks_wx *x, int nf, int dim, int64_t *coef,
                    int64_t *k) {
  const wnf *p = &x->nf[nf];
  if (!(p->dep & (1u << dim)))
    return 0;
  for (int i = 0; i < p->n; i++) {
    const watom *a = &x->atom[p->t[i].atom];
    if (a->kind == A_TID && a->dim == dim) {
      *coef = sext_bits(p->t[i].coef, p->bits);
      *k = sext_bits(p->k, p->bits);
      return 1;
    }
  }
  for (int i = 0; i < p->n; i++) {
    const watom *a = &x->atom[p->t[i].atom];
    for (int j = 0; j < a->nk; j++)
      if (find_tid(x, a->kid[j], dim, coef, k))
        return 2;
  }
  return 0;
}

int ks_wx_find_tid(const ks_wx *x, int nf, int dim, int64_t *coef, int64_t *k,
                   int *top) {
  int r = find_tid(x, nf, dim, coef, k);
  *top = r == 1;
  return r != 0;
}

int ks_wx_is_tid_plus_uniform(const ks_wx *x, int nf, int dim) {
  const wnf *p = &x->nf[nf];
  int seen = 0;
  for (int i = 0; i < p->n; i++) {
    const watom *a = &x->atom[p->t[i].atom];
    if (a->kind == A_TID && a->dim == dim && p->t[i].coef == 1 && !seen)
      seen = 1;
    else if (a->dep)
      return 0;
  }
  return seen;
}

/* ---- cloning --------------------------------------------------------------
 */

static LLVMValueRef clone(ks_wx *x, LLVMBuilderRef b, LLVMValueRef v,
                          LLVMValueRef const tid[3], int depth);

static LLVMValueRef clone_call(ks_wx *x, LLVMBuilderRef b, LLVMValueRef v,
                               LLVMValueRef const tid[3], int depth) {
  LLVMValueRef callee = LLVMGetCalledValue(v);
  const char *r = sreg_name(callee);
  int d = r ? sreg_dim(r, "tid") : -1;
  if (d >= 0)
    return tid[d];
  LLVMValueRef args[2];
  unsigned n = LLVMGetNumArgOperands(v);
  if (n > 2)
    return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!(args[i] = clone(x, b, LLVMGetOperand(v, i), tid, depth + 1)))
      return NULL;
  return LLVMBuildCall2(b, LLVMGetCalledFunctionType(v), callee, args, n, "");
}

static LLVMValueRef clone_inst(ks_wx *x, LLVMBuilderRef b, LLVMValueRef v,
                               LLVMValueRef const tid[3], int depth) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMCall)
    return clone_call(x, b, v, tid, depth);
  unsigned n = (unsigned)LLVMGetNumOperands(v);
  LLVMValueRef o[WX_MAXOPS];
  if (n > WX_MAXOPS)
    return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!(o[i] = clone(x, b, LLVMGetOperand(v, i), tid, depth + 1)))
      return NULL;
  switch (op) {
  case LLVMICmp:
    return LLVMBuildICmp(b, LLVMGetICmpPredicate(v), o[0], o[1], "");
  case LLVMSelect:
    return LLVMBuildSelect(b, o[0], o[1], o[2], "");
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
    return LLVMBuildCast(b, op, o[0], LLVMTypeOf(v), "");
  case LLVMGetElementPtr:
    return LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(v), o[0], o + 1, n - 1,
                         "");
  case LLVMOr:
    if (LLVMGetIsDisjoint(v))
      return LLVMBuildAdd(b, o[0], o[1], "");
    return LLVMBuildOr(b, o[0], o[1], "");
  default:
    return LLVMBuildBinOp(b, op, o[0], o[1], "");
  }
}

static LLVMValueRef clone(ks_wx *x, LLVMBuilderRef b, LLVMValueRef v,
                          LLVMValueRef const tid[3], int depth) {
  if (!LLVMIsAInstruction(v))
    return v; /* constants and arguments */
  if (depth > WX_MAXDEPTH)
    return NULL;
  for (int i = 0; i < x->nmemo; i++)
    if (x->memo[i].v == v && x->memo[i].r)
      return x->memo[i].r;
  LLVMValueRef r = clone_inst(x, b, v, tid, depth);
  if (r && grow((void **)&x->memo, &x->capmemo, x->nmemo + 1, sizeof *x->memo))
    x->memo[x->nmemo++] = (memo){v, r, -1};
  return r;
}

LLVMValueRef ks_wx_clone(ks_wx *x, LLVMBuilderRef b, LLVMValueRef v,
                         LLVMValueRef const tid[3]) {
  x->nmemo = 0;
  return clone(x, b, v, tid, 0);
}

void ks_wx_assume_nowrap(ks_wx *x) { x->nowrap = 1; }

void ks_wx_set_range(ks_wx *x, int dim, unsigned bound) {
  x->range[dim] = bound;
}

int ks_wx_const_diff(const ks_wx *x, int a, int b, int64_t *diff) {
  const wnf *p = &x->nf[a], *q = &x->nf[b];
  if (p->bits != q->bits || p->n != q->n)
    return 0;
  for (int i = 0; i < p->n; i++)
    if (p->t[i].atom != q->t[i].atom || p->t[i].coef != q->t[i].coef)
      return 0;
  *diff = sext_bits((p->k - q->k) & mask(p->bits), p->bits);
  return 1;
}

int ks_wx_tid_linear(const ks_wx *x, int nf, int dim, int64_t *coef,
                     unsigned *tz) {
  const wnf *p = &x->nf[nf];
  int seen = 0;
  unsigned z = (unsigned)__builtin_ctzll(p->k | (1ull << 63));
  for (int i = 0; i < p->n; i++) {
    const watom *a = &x->atom[p->t[i].atom];
    unsigned t = (unsigned)__builtin_ctzll(p->t[i].coef | (1ull << 63));
    if (t < z)
      z = t;
    if (a->kind == A_TID && a->dim == dim) {
      *coef = sext_bits(p->t[i].coef, p->bits);
      seen = 1;
    } else if (a->dep & (1u << dim)) {
      return 0;
    }
  }
  *tz = z < p->bits ? z : p->bits;
  return seen;
}
