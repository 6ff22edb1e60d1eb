/*
 * smem_window.c - window staging, the second half of smem_promote: loads of
 * a read-only buffer that a block re-reads at neighbouring offsets (conv1d's
 * x[i+k], the rows and columns of a separable filter) are loaded once per
 * block into a shared tile with its halo, cooperatively and coalesced, and
 * then read from there.
 *
 * What is staged. Loads of one pointer argument X, in one basic block, whose
 * addresses are one expression A shifted along one thread coordinate w:
 * load i reads A(tid[w] + c_i), with the offsets c_i = 0..D all present,
 * D >= 1. window_expr.c proves A_i(t) = A(t + c_i) from normal forms that
 * ignore poison flags, so the equality holds wherever the original address
 * is not poison. Tile element j (along w; the other coordinate is the
 * thread's own) holds X[A(j)], j in [0, B_w + D); thread t reads element
 * t + c_i, which is exactly what its load i read.
 *
 * Which elements. The loads run under the conditions of the branches from
 * the entry to their block (the block must have a single predecessor all
 * the way up). Conditions on no coordinate are block-uniform; conditions on
 * the other coordinate hold or fail alike for the reader and the stager of
 * an element, which share that coordinate; at most one condition may use
 * tid[w], and it must be  v(t) PRED W  with v = t + uniform (modulo 2^n)
 * and W uniform, an ordered comparison. Element j is read by the threads t
 * in [lo, hi] = [max(0, j-D), min(B_w-1, j)] that pass it. Over that range
 * v rises by one per thread and wraps at most once, so v(t) lies in a half-
 * line {v PRED W} for some t exactly when
 *   cond(v(lo)) || cond(v(hi)) || (v(hi) < v(lo) && (cond(MIN) || cond(MAX)))
 * (MIN, MAX of the comparison's order). Only those elements are loaded: the
 * tile holds nothing the original did not read.
 *
 * Why the values are the same. No instruction that may write memory (store,
 * atomic, fence, call other than pure intrinsics) nor an ordered or volatile
 * load can reach the loads in the control-flow graph. Then a thread's own
 * writes all come after its reads of X, and so after the tile is filled
 * (the staging code runs first, in a new entry block, and ends with a
 * barrier that every thread reaches). Any element some other thread writes
 * while a thread of the block reads it in the original is a data race there;
 * for race-free kernels the value at kernel start is the value the original
 * read. The kernel must have no barrier of its own.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "ir/ks_ir.h"
#include "passes/ks_passes.h"

#define PASS "smem_promote"

enum {
  MAX_CONJ = 16,          /* conditions on the way to the loads */
  MAX_SPAN = 1024,        /* largest D */
  MAX_TILE_BYTES = 32768, /* shared memory for all tiles */
  MAX_STEPS = 16          /* staging loads per thread and tile */
};

typedef struct wload {
  LLVMValueRef load;
  int nf;      /* normal form of its address; -1: not understood */
  int64_t off; /* offset along the window */
} wload;

typedef struct conj {
  LLVMValueRef v;
  int pol; /* 1: v must hold; 0: v must fail */
} conj;

typedef struct wgroup {
  LLVMValueRef base; /* the pointer argument */
  LLVMBasicBlockRef bb;
  LLVMTypeRef ty;
  wload *ld;
  int n, cap;
  char why[200]; /* a load that was not understood */
  /* the window */
  int dim;
  int64_t span; /* D */
  int ref;      /* the load at offset 0 */
  unsigned align;
  /* the guard */
  conj uni[MAX_CONJ], oth[MAX_CONJ];
  int nuni, noth;
  LLVMValueRef wv, ww; /* the condition on tid[dim]: wv PRED ww */
  LLVMIntPredicate wpred;
  /* coarsened (wctx.k > 1): the conditions on tid.x, combined in the
   * coarsened guard; wv is then lane jsel's value, stepping by K */
  conj tcj[MAX_CONJ];
  int ntcj;
  unsigned jsel;
  unsigned kstep; /* K for a coarsened window along x, else 1 */
  int vec;        /* tile reads in groups of K (<K x ty> loads) */
  /* the tile */
  unsigned rows, len, stride, bytes;
  LLVMValueRef tile;
  int ok;
} wgroup;

typedef struct wctx {
  LLVMModuleRef m;
  LLVMValueRef fn;
  const ks_spec *s;
  ks_diag *d;
  ks_wx *x;
  unsigned block[3]; /* the real block */
  unsigned k;        /* tcoarsen's factor: virtual thread K*tid.x + j */
  wgroup *g;
  int ng, capg;
  ks_cfg cfg;          /* the function's, before the transformation */
  unsigned char *mark; /* check_unwritten's: the blocks that reach the loads */
  /* find_guard: the branch conditions on the way to the group's loads */
  conj path[64];
  int npath;
} wctx;

static void decline(wctx *c, const wgroup *g, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void decline(wctx *c, const wgroup *g, const char *fmt, ...) {
  char why[300], buf[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  ks_explain(c->d, PASS, "declined %s: %s",
             ks_diag_arg_name(g->base, buf, sizeof buf), why);
}

/* ---- the loads -------------------------------------------------------------
 */

static int simple_load(LLVMValueRef i) {
  if (!LLVMIsALoadInst(i) || LLVMGetVolatile(i) ||
      LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
    return 0;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(i));
  return k == LLVMIntegerTypeKind || k == LLVMFloatTypeKind ||
         k == LLVMDoubleTypeKind || k == LLVMHalfTypeKind;
}

/* The argument a pointer is based on when its address is not understood. */
static LLVMValueRef strip_base(LLVMValueRef p) {
  for (int i = 0; i < 64 && p && LLVMIsAGetElementPtrInst(p); i++)
    p = LLVMGetOperand(p, 0);
  return p && LLVMIsAArgument(p) ? p : NULL;
}

static wgroup *group_of(wctx *c, LLVMValueRef base, LLVMBasicBlockRef bb,
                        LLVMTypeRef ty) {
  for (int i = 0; i < c->ng; i++)
    if (c->g[i].base == base && c->g[i].bb == bb && c->g[i].ty == ty)
      return &c->g[i];
  if (c->ng == c->capg) {
    int cap = c->capg ? 2 * c->capg : 8;
    wgroup *g = realloc(c->g, (size_t)cap * sizeof *g);
    if (!g)
      return NULL;
    c->g = g;
    c->capg = cap;
  }
  wgroup *g = &c->g[c->ng++];
  memset(g, 0, sizeof *g);
  g->base = base;
  g->bb = bb;
  g->ty = ty;
  return g;
}

/* Does v read %tid (looking at most at *budget instructions)? */
static int uses_tid(LLVMValueRef v, int *budget) {
  if (!LLVMIsAInstruction(v) || --*budget < 0)
    return 0;
  if (LLVMIsACallInst(v) &&
      !strncmp(ks_ir_callee_name(v), "llvm.nvvm.read.ptx.sreg.tid.", 28))
    return 1;
  if (LLVMIsAPHINode(v))
    return 0; /* a loop's counter: followed no further */
  for (int i = 0; i < LLVMGetNumOperands(v); i++)
    if (uses_tid(LLVMGetOperand(v, (unsigned)i), budget))
      return 1;
  return 0;
}

static int add_load(wctx *c, LLVMValueRef ld) {
  LLVMValueRef ptr = LLVMGetOperand(ld, 0);
  int nf = ks_wx_norm(c->x, ptr, -1, 0);
  LLVMValueRef base = nf >= 0 ? ks_wx_base(c->x, nf) : strip_base(ptr);
  /* Not a buffer argument, or the same address for all threads. */
  if (!base || (nf >= 0 && !ks_wx_dep(c->x, nf)) ||
      (nf < 0 && !uses_tid(ptr, &(int){256})))
    return 0;
  wgroup *g = group_of(c, base, LLVMGetInstructionParent(ld), LLVMTypeOf(ld));
  if (!g)
    return 1;
  if (nf < 0) {
    if (!g->why[0])
      snprintf(g->why, sizeof g->why, "%s", ks_wx_why(c->x));
    return 0;
  }
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 32;
    wload *l = realloc(g->ld, (size_t)cap * sizeof *l);
    if (!l)
      return 1;
    g->ld = l;
    g->cap = cap;
  }
  g->ld[g->n++] = (wload){ld, nf, 0};
  return 0;
}

static int collect(wctx *c) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (simple_load(i) && add_load(c, i))
        return ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
  return 0;
}

/* ---- the window ------------------------------------------------------------
 */

static const char dimname[] = "xyz";

/* The coordinate the group's addresses shift along, and each load's offset:
 * the constant next to tid[dim] in the first form that holds it, divided by
 * tid[dim]'s coefficient there. A guess; check_window proves it. */
static int find_window(wctx *c, wgroup *g) {
  int64_t size =
      (int64_t)LLVMABISizeOfType(LLVMGetModuleDataLayout(c->m), g->ty);
  int varies[2] = {0, 0};
  int64_t coef, k, k0[2] = {0, 0};
  int top;
  for (int dim = 0; dim < 2; dim++)
    for (int i = 0; i < g->n; i++) {
      if (!ks_wx_find_tid(c->x, g->ld[i].nf, dim, &coef, &k, &top))
        k = INT64_MIN;
      if (i == 0)
        k0[dim] = k;
      else if (k != k0[dim])
        varies[dim] = 1;
    }
  if (varies[0] && varies[1]) {
    decline(c, g, "offsets along both tid.x and tid.y");
    return 0;
  }
  if (!varies[0] && !varies[1]) {
    int same = 1;
    for (int i = 1; i < g->n; i++)
      same &= g->ld[i].nf == g->ld[0].nf;
    decline(c, g,
            same ? "a single offset, nothing to reuse"
                 : "index not of the form f(tid.x + uniform + c) or "
                   "f(tid.y + uniform + c)");
    return 0;
  }
  g->dim = varies[0] ? 0 : 1;
  int64_t kmin = INT64_MAX, c0 = 0;
  for (int i = 0; i < g->n; i++) {
    if (!ks_wx_find_tid(c->x, g->ld[i].nf, g->dim, &coef, &k, &top)) {
      decline(c, g, "index not of the form f(tid.%c + uniform + c)",
              dimname[g->dim]);
      return 0;
    }
    /* Along x, consecutive threads read consecutive elements; along y, the
     * coefficient at the top is the row pitch. */
    int bad = coef <= 0 ||
              (top ? coef % size || (g->dim == 0 && coef != size) : coef != 1);
    if (bad || (i > 0 && coef != c0)) {
      decline(c, g, "index with tid.%c coefficient %lld", dimname[g->dim],
              (long long)(top && coef % size == 0 ? coef / size : coef));
      return 0;
    }
    c0 = coef;
    if (k < kmin)
      kmin = k;
  }
  for (int i = 0; i < g->n; i++) {
    ks_wx_find_tid(c->x, g->ld[i].nf, g->dim, &coef, &k, &top);
    uint64_t diff = (uint64_t)k - (uint64_t)kmin, uc = (uint64_t)coef;
    if (diff % uc || diff / uc > MAX_SPAN) {
      decline(c, g, "offsets not whole elements within %d", MAX_SPAN);
      return 0;
    }
    g->ld[i].off = (int64_t)(diff / uc);
  }
  return 1;
}

/* Every load's address is the offset-0 address shifted by its offset, and
 * the offsets are 0..D. */
static int check_window(wctx *c, wgroup *g) {
  g->ref = -1;
  int64_t span = 0;
  for (int i = 0; i < g->n; i++) {
    if (g->ld[i].off == 0 && g->ref < 0)
      g->ref = i;
    if (g->ld[i].off > span)
      span = g->ld[i].off;
  }
  if (span > MAX_SPAN) {
    decline(c, g, "offsets span %lld elements, over %d", (long long)span,
            MAX_SPAN);
    return 0;
  }
  unsigned char seen[MAX_SPAN + 1] = {0};
  LLVMValueRef rp = LLVMGetOperand(g->ld[g->ref].load, 0);
  g->align = LLVMGetAlignment(g->ld[g->ref].load);
  for (int i = 0; i < g->n; i++) {
    int nf = ks_wx_norm(c->x, rp, g->dim, g->ld[i].off);
    if (nf != g->ld[i].nf) {
      decline(c, g,
              "index not of the form f(tid.%c + uniform + c) for every load",
              dimname[g->dim]);
      return 0;
    }
    seen[g->ld[i].off] = 1;
    unsigned a = LLVMGetAlignment(g->ld[i].load);
    if (a < g->align)
      g->align = a;
  }
  for (int64_t o = 0; o <= span; o++)
    if (!seen[o]) {
      decline(c, g, "offsets 0..%lld along tid.%c with a gap at %lld",
              (long long)span, dimname[g->dim], (long long)o);
      return 0;
    }
  g->span = span;
  return 1;
}

/* ---- the control-flow graph ------------------------------------------------
 */

/* 1 when out of memory. */
static int build_cfg(wctx *c) {
  if (ks_cfg_build(&c->cfg, c->fn) ||
      !(c->mark = malloc(c->cfg.n ? c->cfg.n : 1)))
    return ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
  return 0;
}

/* May i write memory, or order this thread's reads after another's write? */
static int hazard(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore:
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
  case LLVMVAArg:
    return 1;
  case LLVMLoad:
    return LLVMGetVolatile(i) ||
           LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic;
  case LLVMCall:
  case LLVMInvoke:
  case LLVMCallBr:
    return !ks_ir_pure_call(i);
  default:
    return 0;
  }
}

static LLVMValueRef find_barrier(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (ks_ir_is_barrier(i))
        return i;
  return NULL;
}

static const char *opname(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore:
    return "a store";
  case LLVMLoad:
    return "an ordered or volatile load";
  case LLVMCall:
    return "a call";
  case LLVMFence:
    return "a fence";
  default:
    return "an atomic";
  }
}

static int is_candidate(const wgroup *g, LLVMValueRef i) {
  for (int k = 0; k < g->n; k++)
    if (g->ld[k].load == i)
      return 1;
  return 0;
}

/* No hazard reaches the group's loads, which are in no loop. */
static int check_unwritten(wctx *c, wgroup *g) {
  unsigned b = ks_cfg_index(&c->cfg, g->bb);
  ks_cfg_reaching(&c->cfg, b, c->mark);
  if (c->mark[b]) {
    decline(c, g, "the loads are in a loop");
    return 0;
  }
  for (unsigned k = 0; k < c->cfg.n; k++) {
    if (!c->mark[k] && k != b)
      continue;
    int later = k == b; /* in the loads' block, only before the last load */
    int pending = 0;
    if (later)
      for (LLVMValueRef i = LLVMGetFirstInstruction(c->cfg.bb[k]); i;
           i = LLVMGetNextInstruction(i))
        pending += is_candidate(g, i);
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->cfg.bb[k]); i;
         i = LLVMGetNextInstruction(i)) {
      if (later && is_candidate(g, i) && --pending == 0)
        break;
      if (hazard(i)) {
        const char *bn = LLVMGetBasicBlockName(c->cfg.bb[k]);
        decline(c, g, "%s (in block %s) may run before the loads", opname(i),
                bn && *bn ? bn : "?");
        return 0;
      }
    }
  }
  return 1;
}

/* ---- the guard -------------------------------------------------------------
 */

static int add_conj(wctx *c, wgroup *g, LLVMValueRef v, int pol, int depth);

static int is_const_bool(LLVMValueRef v, unsigned long long b) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == b;
}

/* The condition on tid[dim]: v(t) PRED W with v = t + uniform, W uniform. */
static int window_conj(wctx *c, wgroup *g, LLVMValueRef v, int pol) {
  if (g->wv) {
    decline(c, g, "more than one condition on tid.%c", dimname[g->dim]);
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
  decline(c, g,
          "guard on tid.%c of another form than tid.%c + uniform < "
          "uniform",
          dimname[g->dim], dimname[g->dim]);
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
    decline(c, g, "guard too deep");
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
          decline(c, g, "guard of over %d conditions", MAX_CONJ);
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
    decline(c, g, "guard not understood: %s", ks_wx_why(c->x));
    return 0;
  }
  unsigned dep = ks_wx_dep(c->x, nf), wbit = 1u << g->dim;
  if (dep == wbit && c->k > 1 && g->dim == 0) {
    if (g->ntcj == MAX_CONJ) {
      decline(c, g, "guard of over %d conditions", MAX_CONJ);
      return 0;
    }
    g->tcj[g->ntcj++] = (conj){v, pol};
    return 1;
  }
  if (dep == wbit)
    return window_conj(c, g, v, pol);
  if (dep & wbit) {
    decline(c, g, "guard mixes tid.x and tid.y");
    return 0;
  }
  conj *list = dep ? g->oth : g->uni;
  int *n = dep ? &g->noth : &g->nuni;
  if (*n == MAX_CONJ) {
    decline(c, g, "guard of over %d conditions", MAX_CONJ);
    return 0;
  }
  list[(*n)++] = (conj){v, pol};
  return 1;
}

/* The conditions of the branches from the entry to the loads' block. */
static int find_guard(wctx *c, wgroup *g) {
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
      decline(c, g, "the loads' block is reached from several blocks");
      return 0;
    }
    LLVMValueRef t = LLVMGetBasicBlockTerminator(cfg->bb[p]);
    if (!LLVMIsABranchInst(t)) {
      decline(c, g, "the loads are reached through a switch");
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

/* ---- coarsened kernels -----------------------------------------------------
 *
 * After tcoarsen (wctx.k = K > 1) real thread t runs the virtual threads
 * K*t + j, j < K, of the launch's block; the real block is B = B_x/K, and
 * window_expr.c is told that tid.x < B, which lets sext(256*ctaid + 4*t + m)
 * split into sext(256*ctaid) + 4*t + m. A group of loads is staged when
 * every address is  P + K*size*tid.x + e*size  with P independent of tid.x
 * and the offsets e = 0..D all present, D >= K-1: thread t reads elements
 * K*t + e of the row that starts at P, and tile element E (E < K*(B-1)+D+1)
 * holds X at P + E*size, which real thread t stages for E = t + k*B: the
 * staging stays coalesced. Every clone is evaluated at a real coordinate
 * (P at tid.x = 0, the guard at real threads lo and hi below).
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

static int log2u(unsigned v) {
  int l = 0;
  while ((1u << l) < v)
    l++;
  return (1u << l) == v ? l : -1;
}

static int window_k(wctx *c, wgroup *g) {
  int64_t size =
      (int64_t)LLVMABISizeOfType(LLVMGetModuleDataLayout(c->m), g->ty);
  int64_t coef, diff, dmin = 0;
  unsigned tz;
  g->dim = 0;
  for (int i = 0; i < g->n; i++) {
    if (!ks_wx_tid_linear(c->x, g->ld[i].nf, 0, &coef, &tz)) {
      decline(c, g, "coarsened by %u: index not of the form P + %u*tid.x + c",
              c->k, c->k);
      return 0;
    }
    if (coef != (int64_t)c->k * size) {
      decline(c, g, "coarsened by %u: index with tid.x coefficient %lld", c->k,
              (long long)(coef % size ? coef : coef / size));
      return 0;
    }
    if (!ks_wx_const_diff(c->x, g->ld[i].nf, g->ld[0].nf, &diff) ||
        diff % size || diff / size > MAX_SPAN || diff / size < -MAX_SPAN) {
      decline(c, g,
              "coarsened by %u: offsets not whole elements within %d of "
              "each other",
              c->k, MAX_SPAN);
      return 0;
    }
    g->ld[i].off = diff / size;
    if (g->ld[i].off < dmin)
      dmin = g->ld[i].off;
  }
  unsigned char seen[2 * MAX_SPAN + 1] = {0};
  int64_t span = 0;
  g->ref = -1;
  g->align = LLVMGetAlignment(g->ld[0].load);
  for (int i = 0; i < g->n; i++) {
    g->ld[i].off -= dmin;
    seen[g->ld[i].off] = 1;
    if (g->ld[i].off > span)
      span = g->ld[i].off;
    if (g->ld[i].off == 0 && g->ref < 0)
      g->ref = i;
    unsigned a = LLVMGetAlignment(g->ld[i].load);
    if (a < g->align)
      g->align = a;
  }
  if (span > MAX_SPAN) {
    decline(c, g, "offsets span %lld elements, over %d", (long long)span,
            MAX_SPAN);
    return 0;
  }
  for (int64_t o = 0; o <= span; o++)
    if (!seen[o]) {
      decline(c, g, "offsets 0..%lld along tid.x with a gap at %lld",
              (long long)span, (long long)o);
      return 0;
    }
  if (span < (int64_t)c->k - 1) {
    decline(c, g,
            "coarsened by %u: a window of %lld elements leaves some of each "
            "thread's %u unread",
            c->k, (long long)span + 1, c->k);
    return 0;
  }
  g->span = span;
  return 1;
}

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
      coef != (int64_t)c->k || (int)tz < log2u(c->k) || bits < 16 ||
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

static int guard_k(wctx *c, wgroup *g) {
  if (!g->ntcj)
    return 1;
  leaf l[MAX_LEAF];
  int nl = 0;
  for (int i = 0; i < g->ntcj; i++)
    if (!find_leaves(g->tcj[i].v, l, &nl, 0)) {
      decline(c, g,
              "coarsened by %u: guard on tid.x not a combination of "
              "comparisons",
              c->k);
      return 0;
    }
  if (!leaf_lanes(c, g, l, nl)) {
    decline(c, g,
            "coarsened by %u: guard on tid.x not of the form v_j PRED W, "
            "v_j = %u*tid.x + j + a multiple of %u",
            c->k, c->k, c->k);
    return 0;
  }
  int t = truth(g, l, nl, c->k);
  if (!t) {
    decline(c, g,
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
    decline(c, g, "coarsened by %u: no condition on lane %u", c->k, g->jsel);
    return 0;
  }
  return 1;
}

/* ---- the tile --------------------------------------------------------------
 */

/* Rows of the tile and their stride: the window along x gives one row per
 * tid.y, padded so that a warp spanning rows reads distinct banks; along y,
 * B_y + D rows of B_x. */
static int size_tile(wctx *c, wgroup *g, unsigned *total) {
  unsigned bx = c->block[0], by = c->block[1], d = (unsigned)g->span;
  unsigned size =
      (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(c->m), g->ty);
  if (g->dim == 0 && c->k > 1) {
    /* thread B-1 reads up to element K*(B-1) + D; rows of whole groups of
     * K so that the <K x ty> reads stay aligned */
    g->rows = by;
    g->len = c->k * (bx - 1) + d + 1;
    g->vec = c->k * size <= 16 && log2u(c->k * size) >= 0;
    g->stride = g->vec ? (g->len + c->k - 1) / c->k * c->k : g->len;
  } else if (g->dim == 0) {
    g->rows = by;
    g->len = bx + d;
    g->stride = g->len;
    /* Where a warp spans rows, stride = B_x (mod 32) puts lane l on bank
     * l + offset. */
    if (by > 1 && bx % 32)
      g->stride += ((bx % 32) + 32 - g->len % 32) % 32;
  } else {
    g->rows = by + d;
    g->len = by + d;
    g->stride = bx;
  }
  unsigned steps = (g->len + c->block[g->dim] - 1) / c->block[g->dim];
  unsigned long long bytes = (unsigned long long)g->rows * g->stride * size;
  if (steps > MAX_STEPS) {
    decline(c, g, "halo of %u elements over %u loads per thread", d, steps);
    return 0;
  }
  if (bytes + *total > MAX_TILE_BYTES) {
    decline(c, g, "tile of %llu B over the limit of %u B of shared memory",
            bytes, MAX_TILE_BYTES - *total);
    return 0;
  }
  g->bytes = (unsigned)bytes;
  *total += g->bytes;
  return 1;
}

static void analyze(wctx *c, wgroup *g, int barrier, unsigned *total) {
  if (g->n == 0) {
    decline(c, g, "index not understood: %s", g->why);
    return;
  }
  int64_t coef;
  unsigned tz;
  int coarse = c->k > 1 && (ks_wx_dep(c->x, g->ld[0].nf) & 1);
  if (coarse ? !window_k(c, g) : !find_window(c, g))
    return;
  if (!coarse && c->k > 1 && g->dim == 0) {
    decline(c, g, "coarsened by %u: index with tid.x coefficient %lld", c->k,
            ks_wx_tid_linear(c->x, g->ld[0].nf, 0, &coef, &tz) ? (long long)coef
                                                               : 0ll);
    return;
  }
  if (barrier || c->block[2] > 1) {
    decline(c, g, barrier ? "the kernel already has barriers" : "3-D block");
    return;
  }
  g->kstep = coarse ? c->k : 1;
  if ((!coarse && !check_window(c, g)) || !check_unwritten(c, g) ||
      !find_guard(c, g) || (coarse && !guard_k(c, g)) ||
      !size_tile(c, g, total))
    return;
  g->ok = 1;
}

/* ---- staging ---------------------------------------------------------------
 */

typedef struct emit {
  wctx *c;
  LLVMContextRef lc;
  LLVMBuilderRef b;
  LLVMTypeRef i32;
  LLVMValueRef tid[3];    /* the thread's own coordinates */
  LLVMBasicBlockRef body; /* the kernel's first block */
} emit;

static LLVMValueRef i32c(emit *e, unsigned long long v) {
  return LLVMConstInt(e->i32, v, 0);
}

static LLVMValueRef conds(emit *e, const conj *list, int n, LLVMValueRef acc) {
  for (int i = 0; i < n && acc; i++) {
    LLVMValueRef v = ks_wx_clone(e->c->x, e->b, list[i].v, e->tid);
    if (v && !list[i].pol)
      v = LLVMBuildNot(e->b, v, "");
    acc = v ? LLVMBuildAnd(e->b, acc, v, "") : NULL;
  }
  return acc;
}

static int is_signed(LLVMIntPredicate p) {
  return p == LLVMIntSLT || p == LLVMIntSLE || p == LLVMIntSGT ||
         p == LLVMIntSGE;
}

/* Does some thread t in [lo, hi] pass the condition on tid[dim]? v rises
 * by one (K when coarsened) from lo to hi, wrapping at most once. */
static LLVMValueRef some_passes(emit *e, const wgroup *g, LLVMValueRef w,
                                LLVMValueRef lo, LLVMValueRef hi) {
  LLVMValueRef t[3] = {e->tid[0], e->tid[1], e->tid[2]};
  t[g->dim] = lo;
  LLVMValueRef vlo = ks_wx_clone(e->c->x, e->b, g->wv, t);
  t[g->dim] = hi;
  LLVMValueRef vhi = vlo ? ks_wx_clone(e->c->x, e->b, g->wv, t) : NULL;
  if (!vhi)
    return NULL;
  LLVMBuilderRef b = e->b;
  LLVMIntPredicate p = g->wpred;
  LLVMTypeRef ty = LLVMTypeOf(vlo);
  unsigned bits = LLVMGetIntTypeWidth(ty);
  unsigned long long top = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  unsigned long long sign = 1ull << (bits - 1);
  /* coarsened: the values step by K, all = jsel (mod K) */
  unsigned long long k = g->kstep, j = g->jsel;
  LLVMValueRef min = LLVMConstInt(ty, (is_signed(p) ? sign : 0) + j, 0);
  LLVMValueRef max =
      LLVMConstInt(ty, (is_signed(p) ? sign - 1 : top) - (k - 1) + j, 0);
  LLVMValueRef wrapped =
      LLVMBuildICmp(b, is_signed(p) ? LLVMIntSLT : LLVMIntULT, vhi, vlo, "");
  /* one builder call per statement: the order of the instructions must
   * not depend on the compiler's order of evaluating arguments */
  LLVMValueRef at_min = LLVMBuildICmp(b, p, min, w, "");
  LLVMValueRef at_max = LLVMBuildICmp(b, p, max, w, "");
  LLVMValueRef ends = LLVMBuildOr(b, at_min, at_max, "");
  LLVMValueRef at_lo = LLVMBuildICmp(b, p, vlo, w, "");
  LLVMValueRef at_hi = LLVMBuildICmp(b, p, vhi, w, "");
  LLVMValueRef r = LLVMBuildOr(b, at_lo, at_hi, "");
  return LLVMBuildOr(b, r, LLVMBuildAnd(b, wrapped, ends, ""), "");
}

/* Tile index of element j along the window, for the thread's own other
 * coordinate. */
static LLVMValueRef tile_index(emit *e, const wgroup *g, LLVMValueRef j) {
  LLVMBuilderRef b = e->b;
  if (g->dim == 0)
    return LLVMBuildAdd(b, LLVMBuildMul(b, e->tid[1], i32c(e, g->stride), ""),
                        j, "");
  return LLVMBuildAdd(b, LLVMBuildMul(b, j, i32c(e, g->stride), ""), e->tid[0],
                      "");
}

static LLVMValueRef tile_ptr(emit *e, const wgroup *g, LLVMValueRef idx) {
  LLVMValueRef ix[2] = {i32c(e, 0), idx};
  return LLVMBuildInBoundsGEP2(e->b, LLVMGlobalGetValueType(g->tile), g->tile,
                               ix, 2, "");
}

/* One staging load: element j along the window, when cond holds. */
static int stage_one(emit *e, const wgroup *g, LLVMValueRef j,
                     LLVMValueRef cond) {
  LLVMBasicBlockRef ld =
      LLVMInsertBasicBlockInContext(e->lc, e->body, "ks.window.load");
  LLVMBasicBlockRef next =
      LLVMInsertBasicBlockInContext(e->lc, e->body, "ks.window.next");
  LLVMBuildCondBr(e->b, cond, ld, next);
  LLVMPositionBuilderAtEnd(e->b, ld);
  LLVMValueRef t[3] = {e->tid[0], e->tid[1], e->tid[2]};
  t[g->dim] = j;
  LLVMValueRef addr =
      ks_wx_clone(e->c->x, e->b, LLVMGetOperand(g->ld[g->ref].load, 0), t);
  if (!addr)
    return 0;
  LLVMValueRef v = LLVMBuildLoad2(e->b, g->ty, addr, "");
  LLVMSetAlignment(v, g->align);
  LLVMValueRef st =
      LLVMBuildStore(e->b, v, tile_ptr(e, g, tile_index(e, g, j)));
  LLVMSetAlignment(st, g->align);
  LLVMBuildBr(e->b, next);
  LLVMPositionBuilderAtEnd(e->b, next);
  return 1;
}

/* Thread t stages elements j = t + k*B of the window (its own row or
 * column), those some thread will read. */
static int stage(emit *e, wgroup *g) {
  LLVMBuilderRef b = e->b;
  LLVMValueRef all = LLVMConstInt(LLVMInt1TypeInContext(e->lc), 1, 0);
  all = conds(e, g->uni, g->nuni, all);
  all = conds(e, g->oth, g->noth, all);
  LLVMValueRef w = g->wv ? ks_wx_clone(e->c->x, b, g->ww, e->tid) : NULL;
  if (!all || (g->wv && !w))
    return 0;
  unsigned bw = e->c->block[g->dim], d = (unsigned)g->span;
  for (unsigned k = 0; k * bw < g->len; k++) {
    LLVMValueRef j = LLVMBuildAdd(b, e->tid[g->dim], i32c(e, k * bw), "");
    LLVMValueRef cond = all;
    if ((k + 1) * bw > g->len)
      cond = LLVMBuildAnd(
          b, cond, LLVMBuildICmp(b, LLVMIntULT, j, i32c(e, g->len), ""), "");
    if (g->wv) {
      LLVMValueRef s = LLVMBuildSub(b, j, i32c(e, d), "");
      LLVMValueRef lo =
          LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, s, i32c(e, 0), ""),
                          i32c(e, 0), s, "");
      LLVMValueRef hi = k == 0 ? j : i32c(e, bw - 1);
      LLVMValueRef some = some_passes(e, g, w, lo, hi);
      if (!some)
        return 0;
      cond = LLVMBuildAnd(b, cond, some, "");
    }
    if (!stage_one(e, g, j, cond))
      return 0;
  }
  return 1;
}

static void make_tile(emit *e, wgroup *g) {
  char name[96];
  ks_ir_arg_symbol(g->base, "ks_window_", name, sizeof name);
  LLVMTypeRef t = LLVMArrayType2(g->ty, (uint64_t)g->rows * g->stride);
  g->tile = LLVMAddGlobalInAddressSpace(e->c->m, t, name, 3);
  LLVMSetInitializer(g->tile, LLVMGetUndef(t));
  LLVMSetLinkage(g->tile, LLVMInternalLinkage);
  LLVMSetAlignment(g->tile, 16);
}

/* Each load becomes a load of the tile at the thread's own element plus
 * its offset. */
static int redirect(emit *e, wgroup *g, LLVMValueRef base) {
  int64_t step = g->dim == 0 ? 1 : g->stride;
  for (int i = 0; i < g->n; i++) {
    LLVMValueRef old = g->ld[i].load;
    LLVMPositionBuilderBefore(e->b, old);
    LLVMValueRef idx = LLVMBuildAdd(
        e->b, base, i32c(e, (unsigned long long)(g->ld[i].off * step)), "");
    LLVMValueRef v = LLVMBuildLoad2(e->b, g->ty, tile_ptr(e, g, idx), "");
    LLVMSetAlignment(v, g->align);
    LLVMReplaceAllUsesWith(old, v);
    LLVMInstructionEraseFromParent(old);
  }
  return 1;
}

/* Coarsened: real thread t stages elements E = t + k*B, at P + E*size, P
 * the offset-0 address of real thread 0 (see the comment on coarsened
 * kernels). */
static int stage_k(emit *e, wgroup *g) {
  LLVMBuilderRef b = e->b;
  LLVMValueRef all = LLVMConstInt(LLVMInt1TypeInContext(e->lc), 1, 0);
  all = conds(e, g->uni, g->nuni, all);
  all = conds(e, g->oth, g->noth, all);
  LLVMValueRef w = g->wv ? ks_wx_clone(e->c->x, b, g->ww, e->tid) : NULL;
  LLVMValueRef t0[3] = {i32c(e, 0), e->tid[1], e->tid[2]};
  LLVMValueRef p0 =
      ks_wx_clone(e->c->x, b, LLVMGetOperand(g->ld[g->ref].load, 0), t0);
  if (!all || !p0 || (g->wv && !w))
    return 0;
  unsigned bw = e->c->block[0], d = (unsigned)g->span, kk = e->c->k;
  int sh = log2u(kk);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->lc);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(e->lc);
  unsigned long long size =
      LLVMABISizeOfType(LLVMGetModuleDataLayout(e->c->m), g->ty);
  for (unsigned k = 0; k * bw < g->len; k++) {
    LLVMValueRef j = LLVMBuildAdd(b, e->tid[0], i32c(e, k * bw), "");
    LLVMValueRef cond = all;
    if ((k + 1) * bw > g->len)
      cond = LLVMBuildAnd(
          b, cond, LLVMBuildICmp(b, LLVMIntULT, j, i32c(e, g->len), ""), "");
    if (g->wv) {
      /* lo = max(0, ceil((j-D)/K)), hi = min(B-1, floor(j/K)) */
      LLVMValueRef s = LLVMBuildSub(b, j, i32c(e, d), "");
      LLVMValueRef up = LLVMBuildLShr(
          b, LLVMBuildAdd(b, s, i32c(e, kk - 1), ""), i32c(e, sh), "");
      LLVMValueRef lo =
          LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, s, i32c(e, 0), ""),
                          i32c(e, 0), up, "");
      LLVMValueRef q = LLVMBuildLShr(b, j, i32c(e, sh), "");
      LLVMValueRef hi = LLVMBuildSelect(
          b, LLVMBuildICmp(b, LLVMIntULT, q, i32c(e, bw - 1), ""), q,
          i32c(e, bw - 1), "");
      LLVMValueRef some = some_passes(e, g, w, lo, hi);
      if (!some)
        return 0;
      cond = LLVMBuildAnd(b, cond, some, "");
    }
    LLVMBasicBlockRef ld =
        LLVMInsertBasicBlockInContext(e->lc, e->body, "ks.window.load");
    LLVMBasicBlockRef next =
        LLVMInsertBasicBlockInContext(e->lc, e->body, "ks.window.next");
    LLVMBuildCondBr(b, cond, ld, next);
    LLVMPositionBuilderAtEnd(b, ld);
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, j, i64, ""),
                                    LLVMConstInt(i64, size, 0), "");
    LLVMValueRef addr = LLVMBuildGEP2(b, i8, p0, &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(b, g->ty, addr, "");
    LLVMSetAlignment(v, g->align);
    LLVMValueRef st = LLVMBuildStore(b, v, tile_ptr(e, g, tile_index(e, g, j)));
    LLVMSetAlignment(st, g->align);
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, next);
  }
  return 1;
}

/* Coarsened: load i of thread t reads tile element K*t + off_i of its row.
 * Offsets qK .. qK+K-1 come from one <K x ty> load, 16-byte aligned at
 * most (the tile is, its rows are whole groups, K*t is one), placed before
 * the first of those loads in the block. */
static int redirect_k(emit *e, wgroup *g, LLVMValueRef base) {
  unsigned kk = e->c->k, ngrp = (unsigned)(g->span + 1) / kk;
  LLVMValueRef *vec = calloc(ngrp + 1, sizeof *vec);
  if (!vec)
    return 0;
  unsigned size =
      (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(e->c->m), g->ty);
  LLVMTypeRef vty = LLVMVectorType(g->ty, kk);
  for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    int n = -1;
    for (int k = 0; k < g->n && n < 0; k++)
      if (g->ld[k].load == i)
        n = k;
    if (n < 0)
      continue;
    unsigned off = (unsigned)g->ld[n].off, q = off / kk;
    LLVMPositionBuilderBefore(e->b, i);
    LLVMValueRef v;
    if (g->vec && q < ngrp) {
      if (!vec[q]) {
        LLVMValueRef idx = LLVMBuildAdd(e->b, base, i32c(e, q * kk), "");
        vec[q] = LLVMBuildLoad2(e->b, vty, tile_ptr(e, g, idx), "");
        LLVMSetAlignment(vec[q], kk * size);
      }
      v = LLVMBuildExtractElement(e->b, vec[q], i32c(e, off - q * kk), "");
    } else {
      LLVMValueRef idx = LLVMBuildAdd(e->b, base, i32c(e, off), "");
      v = LLVMBuildLoad2(e->b, g->ty, tile_ptr(e, g, idx), "");
      LLVMSetAlignment(v, g->align);
    }
    LLVMReplaceAllUsesWith(i, v);
    LLVMInstructionEraseFromParent(i);
  }
  free(vec);
  return 1;
}

/* Tile reads per thread: <K x ty> groups count one. */
static int tile_reads(const wctx *c, const wgroup *g) {
  int n = (int)g->span + 1;
  return g->vec ? n / (int)c->k + n % (int)c->k : n;
}

static void report(wctx *c, const wgroup *g) {
  char buf[96];
  const char *what = "elements";
  switch (LLVMGetTypeKind(g->ty)) {
  case LLVMFloatTypeKind:
    what = "floats";
    break;
  case LLVMDoubleTypeKind:
    what = "doubles";
    break;
  case LLVMHalfTypeKind:
    what = "halves";
    break;
  default:
    if (LLVMGetIntTypeWidth(g->ty) == 32)
      what = "ints";
  }
  const char *name = ks_diag_arg_name(g->base, buf, sizeof buf);
  if (g->kstep > 1) {
    int r = tile_reads(c, g);
    ks_explain(c->d, PASS,
               "staged %s: coarsened by %u, tile %u*%u+%lld %s x %u rows = %u "
               "B of shared memory, staged in %u loads per thread; %d loads "
               "now read shared memory as %d %s",
               name, g->kstep, g->kstep, c->block[0] - 1,
               (long long)g->span + 1, what, g->rows, g->bytes,
               (g->len + c->block[0] - 1) / c->block[0], g->n, r,
               g->vec ? "reads (<K x ty> groups count one)" : "reads");
    return;
  }
  char pad[48] = "";
  if (g->dim == 0 && g->stride != g->len)
    snprintf(pad, sizeof pad, " (rows padded to %u)", g->stride);
  if (g->dim == 0)
    ks_explain(c->d, PASS,
               "staged %s: tile %u+%lld %s x %u rows%s = %u B of shared "
               "memory, %d loads now read shared memory",
               name, c->block[0], (long long)g->span, what, g->rows, pad,
               g->bytes, g->n);
  else
    ks_explain(c->d, PASS,
               "staged %s: tile %u %s x %u+%lld rows (window along y) = %u B "
               "of shared memory, %d loads now read shared memory",
               name, g->stride, what, c->block[1], (long long)g->span, g->bytes,
               g->n);
}

/* A new entry block stages every accepted group and ends with a barrier
 * that all threads reach; then the kernel runs as before, reading tiles. */
static int transform(wctx *c) {
  emit e = {.c = c, .lc = LLVMGetModuleContext(c->m)};
  e.i32 = LLVMInt32TypeInContext(e.lc);
  e.body = LLVMGetEntryBasicBlock(c->fn);
  e.b = LLVMCreateBuilderInContext(e.lc);
  LLVMBasicBlockRef first =
      LLVMInsertBasicBlockInContext(e.lc, e.body, "ks.window");
  LLVMPositionBuilderAtEnd(e.b, first);
  /* Allocas stay in the entry block, where they are static. */
  for (LLVMValueRef i = LLVMGetFirstInstruction(e.body), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i)) {
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(e.b, i);
    }
  }
  static const char *const tid[3] = {"llvm.nvvm.read.ptx.sreg.tid.x",
                                     "llvm.nvvm.read.ptx.sreg.tid.y",
                                     "llvm.nvvm.read.ptx.sreg.tid.z"};
  for (int d = 0; d < 3; d++)
    e.tid[d] = c->block[d] > 1
                   ? ks_ir_call_intrinsic(c->m, e.b, tid[d], NULL, 0)
                   : i32c(&e, 0);
  int ok = 1;
  for (int i = 0; i < c->ng && ok; i++)
    if (c->g[i].ok) {
      make_tile(&e, &c->g[i]);
      ok = c->g[i].kstep > 1 ? stage_k(&e, &c->g[i]) : stage(&e, &c->g[i]);
    }
  if (ok) {
    ks_ir_call_intrinsic(c->m, e.b, "llvm.nvvm.barrier0", NULL, 0);
    LLVMBuildBr(e.b, e.body);
  }
  for (int i = 0; i < c->ng && ok; i++)
    if (c->g[i].ok) {
      wgroup *g = &c->g[i];
      /* the thread's own element */
      LLVMPositionBuilderBefore(
          e.b, LLVMGetBasicBlockTerminator(LLVMGetPreviousBasicBlock(e.body)));
      if (g->kstep > 1) {
        LLVMValueRef kt = LLVMBuildMul(e.b, e.tid[0], i32c(&e, g->kstep), "");
        ok = redirect_k(&e, g, tile_index(&e, g, kt));
      } else {
        LLVMValueRef base = g->dim == 0 ? tile_index(&e, g, e.tid[0])
                                        : tile_index(&e, g, e.tid[1]);
        ok = redirect(&e, g, base);
      }
      report(c, g);
    }
  LLVMDisposeBuilder(e.b);
  return ok ? 0
            : ks_diag_fail(c->d, KS_EPASS,
                           PASS ": window staging could not rebuild an index");
}

static int baked(const wctx *c, LLVMValueRef arg) {
  for (size_t i = 0; i < c->s->nbakes; i++)
    if (!c->s->bakes[i].global &&
        LLVMGetParam(c->fn, c->s->bakes[i].arg_index) == arg)
      return 1;
  return 0;
}

/* Global loads in g's block that staging leaves in global memory: those of
 * other buffers, not staged, not baked (const_promote turns baked loads
 * into immediates later). */
static int other_loads(const wctx *c, const wgroup *g) {
  int n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb); i;
       i = LLVMGetNextInstruction(i)) {
    if (!simple_load(i) ||
        LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(i, 0))) == 3)
      continue;
    LLVMValueRef base = strip_base(LLVMGetOperand(i, 0));
    int staged = 0;
    for (int k = 0; k < c->ng && !staged; k++)
      staged = c->g[k].ok && c->g[k].base == base && c->g[k].bb == g->bb;
    if (!staged && !(base && baked(c, base)))
      n++;
  }
  return n;
}

/* The cost rule, from the H100: along x, the loads of a warp's neighbouring
 * threads already hit the same L1 lines, so a staged load replaces an L1
 * hit one for one; staging pays only when those loads are most of what the
 * block issues (e.g. conv1d with baked taps: 0.49 -> 0.41 ms), and loses
 * when as many other global loads remain (conv1d with taps in memory: 0.64
 * -> 0.69 ms). Along y each load is another cache line: always staged
 * (sepfilter_cols: 0.66 -> 0.48 ms). */
static void weigh(wctx *c, wgroup *g) {
  if (g->dim != 0)
    return;
  int others = other_loads(c, g);
  if (g->kstep > 1) {
    /* Coarsened: a real thread issues one global load per distinct element
     * of its window (CSE merges the lanes' duplicates); staged, it issues
     * the staging loads and the tile reads instead, K at a time where
     * they are vectors. Staging must cut that count, and the window must
     * still be most of the loads (the rule above). */
    int win = (int)g->span + 1, reads = tile_reads(c, g);
    int steps = (int)((g->len + c->block[0] - 1) / c->block[0]);
    if (reads + steps >= win || others >= win) {
      g->ok = 0;
      decline(c, g,
              "coarsened by %u: %d window loads per thread would become %d "
              "tile reads and %d staging loads, with %d other global loads "
              "remaining: not fewer loads issued",
              g->kstep, win, reads, steps, others);
    }
    return;
  }
  if (others >= g->n) {
    g->ok = 0;
    decline(c, g,
            "along x the warp's %d loads already share L1 lines, and %d "
            "other global loads per thread remain, so staging would not "
            "cut the loads issued (bake the taps, or --no-pass, to compare)",
            g->n, others);
  }
}

static int run(wctx *c) {
  int barrier = find_barrier(c->fn) != NULL, any = 0;
  unsigned total = ks_ir_shared_globals(c->m);
  for (int i = 0; i < c->ng; i++)
    analyze(c, &c->g[i], barrier, &total);
  for (int i = 0; i < c->ng; i++) {
    if (c->g[i].ok)
      weigh(c, &c->g[i]);
    any |= c->g[i].ok;
  }
  return any ? transform(c) : 0;
}

int ks_smem_window(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  if (!s->block[0]) { /* a tile's size is the block's: nothing to stage */
    ks_explain(d, PASS,
               "declined window staging: block size not fixed (use "
               "--block)");
    return 0;
  }
  wctx c = {.m = m, .fn = fn, .s = s, .d = d};
  for (int i = 0; i < 3; i++)
    c.block[i] = s->block[i] ? s->block[i] : 1;
  if (d->plan.coarsen_y > 1) {
    ks_explain(d, PASS, "declined window staging: coarsened along y by %u",
               d->plan.coarsen_y);
    return 0;
  }
  /* tcoarsen ran: the real block is narrower, its threads K times wider */
  c.k = d->plan.coarsen_x > 1 ? d->plan.coarsen_x : 1;
  if (c.k > 1 && (log2u(c.k) < 0 || c.k > 8 || c.block[0] % c.k)) {
    ks_explain(d, PASS, "declined window staging: coarsened by %u", c.k);
    return 0;
  }
  c.block[0] /= c.k;
  c.x = ks_wx_create(m, c.block);
  if (c.x && c.k > 1)
    ks_wx_set_range(c.x, 0, c.block[0]);
  int rc = c.x ? 0 : ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  if (!rc)
    rc = collect(&c) || build_cfg(&c);
  if (!rc && c.ng)
    rc = run(&c);
  for (int i = 0; i < c.ng; i++)
    free(c.g[i].ld);
  free(c.g);
  ks_cfg_free(&c.cfg);
  free(c.mark);
  ks_wx_destroy(c.x);
  return rc;
}
