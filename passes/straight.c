/*
 * straight.c - would codegen's straight-line scalar passes find work in a
 * module?
 *
 * Before instruction selection NVPTX's codegen runs
 * separate-const-offset-from-gep, speculative-execution, slsr, early-cse,
 * nary-reassociate and early-cse; the lower stage (passes/pipeline.c) runs
 * them itself, only where these screens say they could change something.
 * slsr and nary-reassociate ask ScalarEvolution about every addition,
 * multiplication and address of a function, which costs a good part of a
 * specialization where a loop is left (BENCHMARKS.md, "Why the passes are
 * as they are"). Their screens look for the shapes those passes rewrite (LLVM
 * 19's StraightLineStrengthReduce.cpp and NaryReassociate.cpp) without
 * ScalarEvolution. Each is a necessary condition: a module that fails it
 * would leave the pass unchanged, so the PTX is the same either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"
#include "passes/ks_passes.h"

/* v without the sign or zero extensions around it. */
static LLVMValueRef strip_ext(LLVMValueRef v) {
  while (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v))
    v = LLVMGetOperand(v, 0);
  return v;
}

/* Is v `x + C` (C a constant integer, x in *x; or a disjoint `x | C`)? */
static int add_const(LLVMValueRef v, LLVMValueRef *x, long long *c) {
  if (!LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if ((op != LLVMAdd && !(op == LLVMOr && LLVMGetIsDisjoint(v))) ||
      !LLVMIsAConstantInt(LLVMGetOperand(v, 1)))
    return 0;
  *x = LLVMGetOperand(v, 0);
  *c = LLVMConstIntGetSExtValue(LLVMGetOperand(v, 1));
  return 1;
}

typedef struct mul_key {
  LLVMValueRef b, s;
  long long c;
} mul_key;

int ks_lower_straight_line(LLVMModuleRef m) {
  size_t n = 0, cap = 0;
  mul_key *k = NULL;
  int what = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(in);
        LLVMValueRef x;
        long long c;
        if (op == LLVMGetElementPtr) {
          for (unsigned i = 1; i < (unsigned)LLVMGetNumOperands(in); i++)
            if (add_const(strip_ext(LLVMGetOperand(in, (int)i)), &x, &c))
              what |= KS_LOWER_SPLIT_GEP;
          continue;
        }
        if (op != LLVMMul ||
            LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMIntegerTypeKind)
          continue;
        for (int side = 0; side < 2; side++) {
          LLVMValueRef l = strip_ext(LLVMGetOperand(in, side));
          LLVMValueRef s = LLVMGetOperand(in, !side);
          if (!add_const(l, &x, &c)) {
            x = l;
            c = 0;
          }
          for (size_t j = 0; j < n; j++)
            if (k[j].b == x && k[j].s == s && k[j].c != c)
              what |= KS_LOWER_STRENGTH;
          if (!ks_ir_room(&k, &cap, n, sizeof *k, 32)) {
            free(k);
            return KS_LOWER_STRENGTH | KS_LOWER_SPLIT_GEP;
          }
          k[n++] = (mul_key){x, s, c};
        }
      }
  free(k);
  return what;
}

/* v's opcode, an instruction's or a constant expression's; 0 for others. */
static LLVMOpcode opcode_of(LLVMValueRef v) {
  if (LLVMIsAInstruction(v))
    return LLVMGetInstructionOpcode(v);
  if (LLVMIsAConstantExpr(v))
    return LLVMGetConstOpcode(v);
  return (LLVMOpcode)0;
}

/* Is v a constant integer of at most 64 bits (its value in *k)? */
static int const_of(LLVMValueRef v, long long *k) {
  if (!LLVMIsAConstantInt(v) || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
    return 0;
  *k = LLVMConstIntGetSExtValue(v);
  return 1;
}

/* Is integer v one that ScalarEvolution sees as an opaque value, equal
 * to no other: an argument, a load or a special register? */
static int opaque(LLVMValueRef v) {
  return LLVMIsAArgument(v) || LLVMIsALoadInst(v) || ks_ir_sreg(v);
}

/* ---- linear forms -------------------------------------------------------- */

/* An integer value as c0 + c1 * x1 + ... + cn * xn (mod 2^w), the x
 * opaque values (sorted by address), where it is one: sums, differences,
 * disjoint ors, and products and shifts by constants, of opaque values and
 * constants. ScalarEvolution's expression for such a value is a sum of
 * the same kind, equal to it for every value of the x, so two values
 * whose forms differ have different expressions (a form is unique: two
 * linear functions mod 2^w agree everywhere only where their coefficients
 * do). */
enum { LIN_TERMS = 6, LIN_DEPTH = 8 };

typedef struct lin {
  int n; /* terms; -1: not such a sum (or past the limits) */
  unsigned long long c0, c[LIN_TERMS];
  LLVMValueRef x[LIN_TERMS];
} lin;

static const lin no_lin = {.n = -1};

static unsigned long long mask_of(unsigned w) {
  return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* a + k * b (mod 2^w) */
static lin lin_axpy(const lin *a, unsigned long long k, const lin *b,
                    unsigned w) {
  if (a->n < 0 || b->n < 0)
    return no_lin;
  unsigned long long m = mask_of(w);
  lin r = {.n = 0, .c0 = (a->c0 + k * b->c0) & m};
  int i = 0, j = 0;
  while (i < a->n || j < b->n) {
    LLVMValueRef x;
    unsigned long long c;
    if (j == b->n || (i < a->n && (uintptr_t)a->x[i] < (uintptr_t)b->x[j])) {
      x = a->x[i];
      c = a->c[i++];
    } else if (i == a->n || (uintptr_t)b->x[j] < (uintptr_t)a->x[i]) {
      x = b->x[j];
      c = k * b->c[j++];
    } else {
      x = a->x[i];
      c = a->c[i++] + k * b->c[j++];
    }
    if ((c &= m) == 0)
      continue;
    if (r.n == LIN_TERMS)
      return no_lin;
    r.x[r.n] = x;
    r.c[r.n++] = c;
  }
  return r;
}

/* Is v an induction: a phi of two incoming values, one of them v + C (C
 * a constant integer, in *step, not 0)? ScalarEvolution's expression for
 * it is then an AddRec of its loop with step C, or, where it does not
 * make one, the phi as an opaque value. */
static int induction(LLVMValueRef v, unsigned long long *step) {
  if (!LLVMIsAPHINode(v) || LLVMCountIncoming(v) != 2)
    return 0;
  for (unsigned i = 0; i < 2; i++) {
    LLVMValueRef in = LLVMGetIncomingValue(v, i);
    long long k;
    if (opcode_of(in) != LLVMAdd)
      continue;
    for (int j = 0; j < 2; j++)
      if (LLVMGetOperand(in, j) == v && const_of(LLVMGetOperand(in, !j), &k) &&
          k != 0) {
        *step = (unsigned long long)k;
        return 1;
      }
  }
  return 0;
}

/* v's linear form; with `ind`, inductions are taken as opaque values. */
static lin lin_walk(LLVMValueRef v, int depth, int ind) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) > 64)
    return no_lin;
  unsigned w = LLVMGetIntTypeWidth(t);
  long long k;
  unsigned long long step;
  if (const_of(v, &k))
    return (lin){.n = 0, .c0 = (unsigned long long)k & mask_of(w)};
  if (opaque(v) || (ind && induction(v, &step)))
    return (lin){.n = 1, .c = {1}, .x = {v}};
  if (depth == 0 || !LLVMIsAInstruction(v))
    return no_lin;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op != LLVMAdd && op != LLVMSub && op != LLVMOr && op != LLVMMul &&
      op != LLVMShl)
    return no_lin; /* the binary operators below have two operands */
  LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
  lin zero = {.n = 0};
  if (op == LLVMAdd || op == LLVMSub ||
      (op == LLVMOr && LLVMGetIsDisjoint(v))) {
    lin la = lin_walk(a, depth - 1, ind), lb = lin_walk(b, depth - 1, ind);
    return lin_axpy(&la, op == LLVMSub ? mask_of(w) : 1, &lb, w);
  }
  if (op == LLVMMul && (const_of(a, &k) || const_of(b, &k))) {
    lin l = lin_walk(LLVMIsAConstantInt(a) ? b : a, depth - 1, ind);
    return lin_axpy(&zero, (unsigned long long)k, &l, w);
  }
  if (op == LLVMShl && const_of(b, &k) && k >= 0 && k < (long long)w) {
    lin l = lin_walk(a, depth - 1, ind);
    return lin_axpy(&zero, 1ull << k, &l, w);
  }
  return no_lin;
}

static lin lin_of(LLVMValueRef v, int depth) { return lin_walk(v, depth, 0); }

/* Do the forms (both known) differ? */
static int lin_differ(const lin *a, const lin *b) {
  if (a->n < 0 || b->n < 0)
    return 0;
  if (a->n != b->n || a->c0 != b->c0)
    return 1;
  for (int i = 0; i < a->n; i++)
    if (a->x[i] != b->x[i] || a->c[i] != b->c[i])
      return 1;
  return 0;
}

/* A linear form worked out when first asked for. */
typedef struct lazy_lin {
  LLVMValueRef v; /* NULL: none */
  int done;
  lin l;
} lazy_lin;

static const lin *lazy(lazy_lin *z) {
  if (!z->done) {
    z->l = z->v ? lin_of(z->v, LIN_DEPTH) : no_lin;
    z->done = 1;
  }
  return &z->l;
}

/* ---- dominance (ir/cfg.c) ---------------------------------------------- */

/* Where an instruction is: its block's number, its place in the block. */
typedef struct place {
  unsigned bb, at;
} place;

/* Does the instruction at x come before the one at y, in a block that
 * dominates y's? */
static int before(const ks_cfg *d, place x, place y) {
  return x.bb == y.bb ? x.at < y.at : ks_cfg_dominates(d, x.bb, y.bb);
}

/* Is leaf among the values v is computed from (through phis; up to
 * REACH_MAX of them, past which: yes)? ScalarEvolution's expression for
 * v names no opaque value outside them. */
enum { REACH_MAX = 64 };

static int reaches(LLVMValueRef v, LLVMValueRef leaf) {
  LLVMValueRef seen[REACH_MAX], stack[REACH_MAX];
  unsigned nseen = 0, top = 0;
  stack[top++] = v;
  while (top) {
    LLVMValueRef x = stack[--top];
    if (x == leaf)
      return 1;
    if (!LLVMIsAInstruction(x) && !LLVMIsAConstantExpr(x))
      continue;
    unsigned i = 0;
    while (i < nseen && seen[i] != x)
      i++;
    if (i < nseen)
      continue;
    if (nseen == REACH_MAX)
      return 1;
    seen[nseen++] = x;
    for (int j = 0; j < LLVMGetNumOperands(x); j++) {
      if (top == REACH_MAX)
        return 1;
      stack[top++] = LLVMGetOperand(x, j);
    }
  }
  return 0;
}

/* Calls visit(arg, at, in) on each instruction of m's functions in the
 * blocks the entry reaches (the ones slsr and nary-reassociate walk, down
 * the dominator tree), then done(arg, d) after each function, d its
 * dominator tree. The first non-zero either returns ends the walk and is
 * returned; 1 when out of memory. */
static int walk_reached(LLVMModuleRef m,
                        int (*visit)(void *, place, LLVMValueRef),
                        int (*done)(void *, const ks_cfg *), void *arg) {
  int r = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !r;
       f = LLVMGetNextFunction(f)) {
    ks_cfg d;
    if (ks_cfg_build(&d, f))
      return 1;
    for (unsigned b = 0; b < d.n && !r; b++) {
      place at = {b, 0};
      if (d.rpo_num[b] == KS_CFG_NONE)
        continue;
      for (LLVMValueRef in = LLVMGetFirstInstruction(d.bb[b]); in && !r;
           in = LLVMGetNextInstruction(in), at.at++)
        r = visit(arg, at, in);
    }
    if (!r)
      r = done(arg, &d);
    ks_cfg_free(&d);
  }
  return r;
}

/* ---- straight-line strength reduction (slsr) -------------------------- */

/* A candidate of slsr: ins computes base + index * stride in one of three
 * forms (B + i * S, (B + i) * S, &B[i * S]). slsr rewrites a candidate
 * from another (its basis) of the same form, type, stride (the same
 * value) and base (the same ScalarEvolution expression) that comes before
 * it in a dominating block, unless the candidate is in its simplest form
 * (index 1 or -1; 0 for a product). */
enum { SLSR_ADD, SLSR_MUL, SLSR_GEP };

typedef struct slsr_cand {
  LLVMValueRef ins, stride;
  /* an address's object, when ScalarEvolution sees it as an opaque value
   * (two different ones give different bases); NULL: any */
  LLVMValueRef root;
  LLVMValueRef base; /* a sum's or product's base B (its linear form is
                       worked out where two are compared), or NULL */
  LLVMTypeRef type;
  place at;
  int kind;
  int plain; /* in its simplest form: only ever a basis */
} slsr_cand;

typedef struct cands {
  slsr_cand *v;
  size_t n, cap;
  LLVMTargetDataRef td;
  place at; /* of the instruction being looked at */
  int nomem;
} cands;

static void push(cands *c, LLVMValueRef ins, LLVMValueRef stride,
                 LLVMValueRef root, LLVMValueRef base, int kind, int plain) {
  if (!ks_ir_room(&c->v, &c->cap, c->n, sizeof *c->v, 64)) {
    c->nomem = 1;
    return;
  }
  c->v[c->n++] =
      (slsr_cand){ins, stride, root, base, LLVMTypeOf(ins), c->at, kind, plain};
}

/* I = LHS + RHS with RHS as i * S: a constant product or shift, else S
 * itself (i = 1); both orders of the operands. */
static void add_cands(cands *c, LLVMValueRef in) {
  LLVMValueRef op[2] = {LLVMGetOperand(in, 0), LLVMGetOperand(in, 1)};
  for (int side = 0; side < (op[0] == op[1] ? 1 : 2); side++) {
    LLVMValueRef r = op[!side], s = r;
    LLVMOpcode o = opcode_of(r);
    long long k = 0;
    int plain = 1;
    if ((o == LLVMMul || o == LLVMShl) &&
        LLVMIsAConstantInt(LLVMGetOperand(r, 1))) {
      int known = const_of(LLVMGetOperand(r, 1), &k);
      s = LLVMGetOperand(r, 0);
      plain = known && (o == LLVMMul ? k == 1 || k == -1 : k == 0);
    }
    push(c, in, s, NULL, op[side], SLSR_ADD, plain);
  }
}

/* I = LHS * RHS with LHS as B + i (an add or an or with a constant), else
 * LHS + 0; the stride is RHS; both orders. slsr takes an or as B + i only
 * where it proves B and i share no bit, else as LHS + 0: any base, then. */
static void mul_cands(cands *c, LLVMValueRef in) {
  LLVMValueRef op[2] = {LLVMGetOperand(in, 0), LLVMGetOperand(in, 1)};
  for (int side = 0; side < (op[0] == op[1] ? 1 : 2); side++) {
    LLVMValueRef l = op[side], b = l;
    LLVMOpcode o = opcode_of(l);
    long long k = 0;
    int plain = 1;
    if (o == LLVMAdd || o == LLVMOr)
      for (int j = 0; j < 2; j++)
        if (LLVMIsAConstantInt(LLVMGetOperand(l, j))) {
          plain = const_of(LLVMGetOperand(l, j), &k) && k == 0;
          b = o == LLVMAdd ? LLVMGetOperand(l, !j) : NULL;
        }
    push(c, in, op[!side], NULL, b, SLSR_MUL, plain);
  }
}

/* The object an address p is an offset from, where ScalarEvolution
 * makes an opaque value of it: an argument, a global variable or
 * function, an alloca, a load or an address-space cast (ScalarEvolution
 * does not look through those). NULL for anything else. */
static LLVMValueRef gep_root(LLVMValueRef p) {
  for (int i = 0; i < 64 && opcode_of(p) == LLVMGetElementPtr; i++)
    p = LLVMGetOperand(p, 0);
  if (LLVMIsAArgument(p) || LLVMIsAGlobalVariable(p) || LLVMIsAFunction(p) ||
      LLVMIsAAllocaInst(p) || LLVMIsALoadInst(p) ||
      opcode_of(p) == LLVMAddrSpaceCast)
    return p;
  return NULL;
}

/* An array index idx of GEP in, over elements of `size` bytes: idx * 1,
 * and LHS * C where idx is LHS *nsw C or LHS <<nsw C. */
static void gep_factor(cands *c, LLVMValueRef in, LLVMValueRef root,
                       LLVMValueRef idx, unsigned long long size,
                       int one_index) {
  push(c, in, idx, root, NULL, SLSR_GEP, size == 1 && one_index);
  LLVMOpcode o = opcode_of(idx);
  if ((o != LLVMMul && o != LLVMShl) ||
      !LLVMIsAConstantInt(LLVMGetOperand(idx, 1)) ||
      (LLVMIsAInstruction(idx) && !LLVMGetNSW(idx)))
    return;
  long long k = 0;
  int known = const_of(LLVMGetOperand(idx, 1), &k);
  int unit = known && (o == LLVMMul ? k == 1 || k == -1 : k == 0);
  push(c, in, LLVMGetOperand(idx, 0), root, NULL, SLSR_GEP,
       size == 1 && unit && one_index);
}

static void gep_cands(cands *c, LLVMTargetDataRef td, LLVMValueRef in) {
  if (LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMVectorTypeKind)
    return;
  unsigned n = (unsigned)LLVMGetNumOperands(in);
  unsigned nonzero = 0;
  for (unsigned i = 1; i < n; i++) {
    long long k;
    nonzero += !const_of(LLVMGetOperand(in, (int)i), &k) || k != 0;
  }
  LLVMValueRef root = gep_root(LLVMGetOperand(in, 0));
  LLVMTypeRef t = LLVMGetGEPSourceElementType(in);
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(in, (int)i);
    LLVMTypeRef elem = t;
    if (i > 1) {
      LLVMTypeKind tk = LLVMGetTypeKind(t);
      if (tk == LLVMStructTypeKind) { /* a field: not an array index */
        long long k;
        if (!const_of(idx, &k) || k < 0 ||
            (unsigned long long)k >= LLVMCountStructElementTypes(t))
          return;
        t = LLVMStructGetTypeAtIndex(t, (unsigned)k);
        continue;
      }
      if (tk != LLVMArrayTypeKind && tk != LLVMVectorTypeKind)
        return;
      elem = LLVMGetElementType(t);
    }
    unsigned long long size = LLVMABISizeOfType(td, elem);
    gep_factor(c, in, root, idx, size, nonzero <= 1);
    if (LLVMIsASExtInst(idx))
      gep_factor(c, in, root, LLVMGetOperand(idx, 0), size, nonzero <= 1);
    t = elem;
  }
}

static int by_key(const void *a, const void *b) {
  const slsr_cand *x = a, *y = b;
  if (x->kind != y->kind)
    return (x->kind > y->kind) - (x->kind < y->kind);
  uintptr_t p = (uintptr_t)x->stride, q = (uintptr_t)y->stride;
  if (p != q)
    return (p > q) - (p < q);
  p = (uintptr_t)x->type;
  q = (uintptr_t)y->type;
  return (p > q) - (p < q);
}

/* Does a move with a loop where b does not? a's linear form, inductions
 * taken as opaque values, has exactly one induction, whose coefficient
 * times its step is not 0 (mod 2^w); b's form has none. a's expression is
 * then an AddRec of that loop with a step not 0, or names the phi as an
 * opaque value; b's names no phi and is a sum of opaque values, not an
 * AddRec: the two differ. */
static int moves_apart(LLVMValueRef a, LLVMValueRef b) {
  lin la = lin_walk(a, LIN_DEPTH, 1), lb = lin_of(b, LIN_DEPTH);
  if (la.n < 0 || lb.n < 0)
    return 0;
  unsigned long long m = mask_of(LLVMGetIntTypeWidth(LLVMTypeOf(a)));
  int moving = 0;
  for (int i = 0; i < la.n; i++) {
    unsigned long long step;
    if (induction(la.x[i], &step)) {
      if ((la.c[i] * step & m) == 0)
        return 0;
      moving++;
    }
  }
  return moving == 1;
}

/* Do the linear forms of two bases (NULL: none) differ? Or does one move
 * with a loop where the other does not? */
static int bases_differ(LLVMValueRef a, LLVMValueRef b) {
  if (!a || !b)
    return 0;
  lin la = lin_of(a, LIN_DEPTH), lb = lin_of(b, LIN_DEPTH);
  if (la.n >= 0 && lb.n >= 0)
    return lin_differ(&la, &lb);
  return moves_apart(a, b) || moves_apart(b, a);
}

/* Past this many candidates of one form, type and stride, say yes rather
 * than compare them all. */
enum { SLSR_RUN_MAX = 64 };

/* Could a candidate of c (one function's) take another as its basis? */
static int slsr_pair(const ks_cfg *d, cands *c) {
  if (c->n < 2)
    return 0;
  qsort(c->v, c->n, sizeof *c->v, by_key);
  for (size_t i = 0; i < c->n;) {
    size_t j = i + 1;
    while (j < c->n && !by_key(&c->v[i], &c->v[j]))
      j++;
    if (j - i > SLSR_RUN_MAX)
      return 1;
    for (size_t a = i; a < j; a++)
      for (size_t b = i; b < j; b++) {
        const slsr_cand *x = &c->v[b], *y = &c->v[a];
        if (!y->plain && x->ins != y->ins && before(d, x->at, y->at) &&
            (!x->root || !y->root || x->root == y->root) &&
            !bases_differ(x->base, y->base))
          return 1;
      }
    i = j;
  }
  return 0;
}

static int slsr_visit(void *arg, place at, LLVMValueRef in) {
  cands *c = arg;
  LLVMOpcode op = LLVMGetInstructionOpcode(in);
  int integer = LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMIntegerTypeKind;
  c->at = at;
  if (op == LLVMAdd && integer)
    add_cands(c, in);
  else if (op == LLVMMul && integer)
    mul_cands(c, in);
  else if (op == LLVMGetElementPtr)
    gep_cands(c, c->td, in);
  return c->nomem;
}

static int slsr_done(void *arg, const ks_cfg *d) {
  cands *c = arg;
  int found = slsr_pair(d, c);
  c->n = 0; /* the next function's */
  return found;
}

int ks_lower_slsr(LLVMModuleRef m) {
  cands c = {.td = LLVMGetModuleDataLayout(m)};
  int found = walk_reached(m, slsr_visit, slsr_done, &c);
  free(c.v);
  return found;
}

/* ---- n-ary reassociation (nary-reassociate) ---------------------------- */

/* Does v have at most n uses? */
static int uses_at_most(LLVMValueRef v, int n) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
    if (n-- == 0)
      return 0;
  return 1;
}

/* Is v a minimum or maximum: an llvm.[su]{min,max} call or a select on an
 * integer comparison? */
static int is_minmax(LLVMValueRef v) {
  return ks_ir_minmax(v) ||
         (LLVMIsASelectInst(v) && LLVMIsAICmpInst(LLVMGetOperand(v, 0)));
}

/* What nary-reassociate records of an instruction it has passed: additions,
 * multiplications, addresses and integer minimums and maximums (by their
 * ScalarEvolution expressions, which it then looks up). */
typedef struct seen {
  LLVMValueRef ins, root;
  LLVMTypeRef type;
  lazy_lin form; /* an integer's linear form */
  place at;
} seen;

typedef struct nary {
  const ks_cfg *d;
  seen *v;
  size_t n, cap;
} nary;

/* Could an instruction seen before `at` (in a dominating block) compute
 * what a rewrite needs: a value of type t, off the address root (NULL:
 * any), equal to the linear form need (none: any)? Unless the
 * instruction's own form says it is need, it must be made of the opaque
 * values of `leaves` (ScalarEvolution's expression for a value names no
 * opaque value the value is not made of). */
static int could_match(const nary *s, place at, LLVMTypeRef t,
                       LLVMValueRef root, const lin *need, const lin *leaves) {
  for (size_t i = 0; i < s->n; i++) {
    seen *x = &s->v[i];
    if (x->type != t || !before(s->d, x->at, at) ||
        (root && x->root && root != x->root) ||
        (need->n >= 0 && lin_differ(need, lazy(&x->form))))
      continue;
    int made = 1;
    for (int j = 0;
         (need->n < 0 || lazy(&x->form)->n < 0) && j < leaves->n && made; j++)
      made = reaches(x->ins, leaves->x[j]);
    if (made)
      return 1;
  }
  return 0;
}

/* Is l one opaque value, as it is? */
static int is_leaf(const lin *l) {
  return l->n == 1 && l->c0 == 0 && l->c[0] == 1;
}

/* (A op B) op C with A op B used only by in: could A op C or B op C be
 * found? Where the two are linear forms and one is a constant, or the op
 * adds, A op C is one too; a product of two opaque values is made of
 * both. */
static int binop_could(const nary *s, place at, LLVMValueRef in,
                       LLVMValueRef inner, LLVMValueRef c) {
  LLVMTypeRef t = LLVMTypeOf(in);
  unsigned w = LLVMGetIntTypeWidth(t);
  int add = LLVMGetInstructionOpcode(in) == LLVMAdd;
  lin lc = lin_of(c, LIN_DEPTH), zero = {.n = 0};
  for (int j = 0; j < 2; j++) {
    lin la = lin_of(LLVMGetOperand(inner, j), LIN_DEPTH), need = no_lin;
    lin leaves = {.n = 0};
    if (add)
      need = lin_axpy(&la, 1, &lc, w);
    else if (la.n == 0)
      need = lin_axpy(&zero, la.c0, &lc, w);
    else if (lc.n == 0)
      need = lin_axpy(&zero, lc.c0, &la, w);
    else if (is_leaf(&la) && is_leaf(&lc))
      leaves = lin_axpy(&la, 1, &lc, w);
    if (need.n >= 0)
      leaves = need;
    if (could_match(s, at, t, NULL, &need, &leaves))
      return 1;
  }
  return 0;
}

/* &p[ext(A + B)]: could &p[ext(A)] or &p[ext(B)] be found? */
static int gep_could(const nary *s, place at, LLVMValueRef in,
                     LLVMValueRef add) {
  LLVMValueRef root = gep_root(LLVMGetOperand(in, 0));
  for (int j = 0; j < 2; j++) {
    LLVMValueRef a = LLVMGetOperand(add, j);
    lin leaves = opaque(a) ? lin_of(a, 0) : (lin){.n = 0};
    if (could_match(s, at, LLVMTypeOf(in), root, &no_lin, &leaves))
      return 1;
  }
  return 0;
}

/* Could nary-reassociate rewrite in, by what has been seen before it? */
static int nary_could(const nary *s, place at, LLVMValueRef in) {
  LLVMTypeKind tk = LLVMGetTypeKind(LLVMTypeOf(in));
  LLVMOpcode op = LLVMGetInstructionOpcode(in);
  if (op == LLVMAdd || op == LLVMMul) {
    for (int j = 0; j < 2; j++) {
      LLVMValueRef v = LLVMGetOperand(in, j);
      if (opcode_of(v) == op &&
          (LLVMIsAConstantExpr(v) || uses_at_most(v, 1)) &&
          binop_could(s, at, in, v, LLVMGetOperand(in, !j)))
        return 1;
    }
  } else if (op == LLVMGetElementPtr) {
    for (int j = 1; j < LLVMGetNumOperands(in); j++) {
      LLVMValueRef v = LLVMGetOperand(in, j);
      if (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v))
        v = LLVMGetOperand(v, 0);
      if (opcode_of(v) == LLVMAdd && gep_could(s, at, in, v))
        return 1;
    }
  } else if (tk == LLVMIntegerTypeKind && is_minmax(in)) {
    int first = LLVMIsASelectInst(in) ? 1 : 0;
    for (int j = first; j < first + 2; j++) {
      LLVMValueRef v = LLVMGetOperand(in, j);
      lin none = {.n = 0};
      if (is_minmax(v) && uses_at_most(v, 2) &&
          could_match(s, at, LLVMTypeOf(in), NULL, &no_lin, &none))
        return 1;
    }
  }
  return 0;
}

/* Is in one nary-reassociate records? */
static int recorded(LLVMValueRef in) {
  LLVMTypeKind tk = LLVMGetTypeKind(LLVMTypeOf(in));
  LLVMOpcode op = LLVMGetInstructionOpcode(in);
  if (tk != LLVMIntegerTypeKind && tk != LLVMPointerTypeKind)
    return 0;
  return op == LLVMAdd || op == LLVMMul || op == LLVMGetElementPtr ||
         (tk == LLVMIntegerTypeKind && is_minmax(in));
}

static int nary_visit(void *arg, place at, LLVMValueRef in) {
  nary *s = arg;
  if (!recorded(in))
    return 0;
  if (!ks_ir_room(&s->v, &s->cap, s->n, sizeof *s->v, 64))
    return 1;
  LLVMValueRef root = LLVMGetInstructionOpcode(in) == LLVMGetElementPtr
                          ? gep_root(LLVMGetOperand(in, 0))
                          : NULL;
  s->v[s->n++] = (seen){in, root, LLVMTypeOf(in), {in, 0, {0}}, at};
  return 0;
}

/* Every instruction against all recorded ones: `before` keeps to those
 * nary-reassociate would have passed. */
static int nary_done(void *arg, const ks_cfg *d) {
  nary *s = arg;
  int found = 0;
  s->d = d;
  for (size_t i = 0; i < s->n && !found; i++)
    found = nary_could(s, s->v[i].at, s->v[i].ins);
  s->n = 0; /* the next function's */
  return found;
}

int ks_lower_nary(LLVMModuleRef m) {
  nary s = {0};
  int found = walk_reached(m, nary_visit, nary_done, &s);
  free(s.v);
  return found;
}
