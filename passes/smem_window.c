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
#include "passes/smem_window.h"
void ks_window_decline(wctx *c, const wgroup *g, const char *fmt, ...) {
  char why[300], buf[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  ks_diag_explain(c->d, PASS, "declined %s: %s",
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
  if (!ks_ir_room(&c->g, &c->capg, (size_t)c->ng, sizeof *c->g, 8))
    return NULL;
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
  if (!ks_ir_room(&g->ld, &g->cap, (size_t)g->n, sizeof *g->ld, 32))
    return 1;
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
    ks_window_decline(c, g, "offsets along both tid.x and tid.y");
    return 0;
  }
  if (!varies[0] && !varies[1]) {
    int same = 1;
    for (int i = 1; i < g->n; i++)
      same &= g->ld[i].nf == g->ld[0].nf;
    ks_window_decline(c, g,
                      same ? "a single offset, nothing to reuse"
                           : "index not of the form f(tid.x + uniform + c) or "
                             "f(tid.y + uniform + c)");
    return 0;
  }
  g->dim = varies[0] ? 0 : 1;
  int64_t kmin = INT64_MAX, c0 = 0;
  for (int i = 0; i < g->n; i++) {
    if (!ks_wx_find_tid(c->x, g->ld[i].nf, g->dim, &coef, &k, &top)) {
      ks_window_decline(c, g, "index not of the form f(tid.%c + uniform + c)",
                        ks_window_dimname(g->dim));
      return 0;
    }
    /* Along x, consecutive threads read consecutive elements; along y, the
     * coefficient at the top is the row pitch. */
    int bad = coef <= 0 ||
              (top ? coef % size || (g->dim == 0 && coef != size) : coef != 1);
    if (bad || (i > 0 && coef != c0)) {
      ks_window_decline(
          c, g, "index with tid.%c coefficient %lld", ks_window_dimname(g->dim),
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
      ks_window_decline(c, g, "offsets not whole elements within %d", MAX_SPAN);
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
    ks_window_decline(c, g, "offsets span %lld elements, over %d",
                      (long long)span, MAX_SPAN);
    return 0;
  }
  unsigned char seen[MAX_SPAN + 1] = {0};
  LLVMValueRef rp = LLVMGetOperand(g->ld[g->ref].load, 0);
  g->align = LLVMGetAlignment(g->ld[g->ref].load);
  for (int i = 0; i < g->n; i++) {
    int nf = ks_wx_norm(c->x, rp, g->dim, g->ld[i].off);
    if (nf != g->ld[i].nf) {
      ks_window_decline(
          c, g, "index not of the form f(tid.%c + uniform + c) for every load",
          ks_window_dimname(g->dim));
      return 0;
    }
    seen[g->ld[i].off] = 1;
    unsigned a = LLVMGetAlignment(g->ld[i].load);
    if (a < g->align)
      g->align = a;
  }
  for (int64_t o = 0; o <= span; o++)
    if (!seen[o]) {
      ks_window_decline(c, g, "offsets 0..%lld along tid.%c with a gap at %lld",
                        (long long)span, ks_window_dimname(g->dim),
                        (long long)o);
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
    ks_window_decline(c, g, "the loads are in a loop");
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
        ks_window_decline(c, g, "%s (in block %s) may run before the loads",
                          opname(i), bn && *bn ? bn : "?");
        return 0;
      }
    }
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
 * (P at tid.x = 0, the guard at real threads lo and hi: smem_guard.c).
 */

static int window_k(wctx *c, wgroup *g) {
  int64_t size =
      (int64_t)LLVMABISizeOfType(LLVMGetModuleDataLayout(c->m), g->ty);
  int64_t coef, diff, dmin = 0;
  unsigned tz;
  g->dim = 0;
  for (int i = 0; i < g->n; i++) {
    if (!ks_wx_tid_linear(c->x, g->ld[i].nf, 0, &coef, &tz)) {
      ks_window_decline(
          c, g, "coarsened by %u: index not of the form P + %u*tid.x + c", c->k,
          c->k);
      return 0;
    }
    if (coef != (int64_t)c->k * size) {
      ks_window_decline(c, g,
                        "coarsened by %u: index with tid.x coefficient %lld",
                        c->k, (long long)(coef % size ? coef : coef / size));
      return 0;
    }
    if (!ks_wx_const_diff(c->x, g->ld[i].nf, g->ld[0].nf, &diff) ||
        diff % size || diff / size > MAX_SPAN || diff / size < -MAX_SPAN) {
      ks_window_decline(
          c, g,
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
    ks_window_decline(c, g, "offsets span %lld elements, over %d",
                      (long long)span, MAX_SPAN);
    return 0;
  }
  for (int64_t o = 0; o <= span; o++)
    if (!seen[o]) {
      ks_window_decline(c, g, "offsets 0..%lld along tid.x with a gap at %lld",
                        (long long)span, (long long)o);
      return 0;
    }
  if (span < (int64_t)c->k - 1) {
    ks_window_decline(
        c, g,
        "coarsened by %u: a window of %lld elements leaves some of each "
        "thread's %u unread",
        c->k, (long long)span + 1, c->k);
    return 0;
  }
  g->span = span;
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
    g->vec = c->k * size <= 16 && ks_window_log2(c->k * size) >= 0;
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
    ks_window_decline(c, g, "halo of %u elements over %u loads per thread", d,
                      steps);
    return 0;
  }
  if (bytes + *total > MAX_TILE_BYTES) {
    ks_window_decline(c, g,
                      "tile of %llu B over the limit of %u B of shared memory",
                      bytes, MAX_TILE_BYTES - *total);
    return 0;
  }
  g->bytes = (unsigned)bytes;
  *total += g->bytes;
  return 1;
}

static void analyze(wctx *c, wgroup *g, int barrier, unsigned *total) {
  if (g->n == 0) {
    ks_window_decline(c, g, "index not understood: %s", g->why);
    return;
  }
  int64_t coef;
  unsigned tz;
  int coarse = c->k > 1 && (ks_wx_dep(c->x, g->ld[0].nf) & 1);
  if (coarse ? !window_k(c, g) : !find_window(c, g))
    return;
  if (!coarse && c->k > 1 && g->dim == 0) {
    ks_window_decline(
        c, g, "coarsened by %u: index with tid.x coefficient %lld", c->k,
        ks_wx_tid_linear(c->x, g->ld[0].nf, 0, &coef, &tz) ? (long long)coef
                                                           : 0ll);
    return;
  }
  if (barrier || c->block[2] > 1) {
    ks_window_decline(
        c, g, barrier ? "the kernel already has barriers" : "3-D block");
    return;
  }
  g->kstep = coarse ? c->k : 1;
  if ((!coarse && !check_window(c, g)) || !check_unwritten(c, g) ||
      !ks_window_find_guard(c, g) || (coarse && !ks_window_guard_k(c, g)) ||
      !size_tile(c, g, total))
    return;
  g->ok = 1;
}

static int tile_reads(const wctx *c, const wgroup *g) {
  int n = (int)g->span + 1;
  return g->vec ? n / (int)c->k + n % (int)c->k : n;
}

void ks_window_report(wctx *c, const wgroup *g) {
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
    ks_diag_explain(
        c->d, PASS,
        "staged %s: coarsened by %u, tile %u*%u+%lld %s x %u rows = %u "
        "B of shared memory, staged in %u loads per thread; %d loads "
        "now read shared memory as %d %s",
        name, g->kstep, g->kstep, c->block[0] - 1, (long long)g->span + 1, what,
        g->rows, g->bytes, (g->len + c->block[0] - 1) / c->block[0], g->n, r,
        g->vec ? "reads (<K x ty> groups count one)" : "reads");
    return;
  }
  char pad[48] = "";
  if (g->dim == 0 && g->stride != g->len)
    snprintf(pad, sizeof pad, " (rows padded to %u)", g->stride);
  if (g->dim == 0)
    ks_diag_explain(c->d, PASS,
                    "staged %s: tile %u+%lld %s x %u rows%s = %u B of shared "
                    "memory, %d loads now read shared memory",
                    name, c->block[0], (long long)g->span, what, g->rows, pad,
                    g->bytes, g->n);
  else
    ks_diag_explain(
        c->d, PASS,
        "staged %s: tile %u %s x %u+%lld rows (window along y) = %u B "
        "of shared memory, %d loads now read shared memory",
        name, g->stride, what, c->block[1], (long long)g->span, g->bytes, g->n);
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
    if (!simple_load(i) || ks_ir_addrspace(LLVMGetOperand(i, 0)) == 3)
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

/* The cost rule, from the H100 (BENCHMARKS.md, "Why the passes are as they
 * are"): along x, the loads of a warp's neighbouring threads already hit
 * the same L1 lines, so a staged load replaces an L1 hit one for one;
 * staging pays only when those loads are most of what the block issues
 * (conv1d with baked taps), and loses when as many other global loads
 * remain (conv1d with taps in memory). Along y each load is another cache
 * line: always staged (sepfilter_cols). */
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
      ks_window_decline(
          c, g,
          "coarsened by %u: %d window loads per thread would become %d "
          "tile reads and %d staging loads, with %d other global loads "
          "remaining: not fewer loads issued",
          g->kstep, win, reads, steps, others);
    }
    return;
  }
  if (others >= g->n) {
    g->ok = 0;
    ks_window_decline(
        c, g,
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
  return any ? ks_window_transform(c) : 0;
}

int ks_smem_window(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  if (!s->block[0]) { /* a tile's size is the block's: nothing to stage */
    ks_diag_explain(d, PASS,
                    "declined window staging: block size not fixed (use "
                    "--block)");
    return 0;
  }
  wctx c = {.m = m, .fn = fn, .s = s, .d = d};
  for (int i = 0; i < 3; i++)
    c.block[i] = s->block[i] ? s->block[i] : 1;
  if (d->plan.coarsen_y > 1) {
    ks_diag_explain(d, PASS, "declined window staging: coarsened along y by %u",
                    d->plan.coarsen_y);
    return 0;
  }
  /* tcoarsen ran: the real block is narrower, its threads K times wider */
  c.k = d->plan.coarsen_x > 1 ? d->plan.coarsen_x : 1;
  if (c.k > 1 && (ks_window_log2(c.k) < 0 || c.k > 8 || c.block[0] % c.k)) {
    ks_diag_explain(d, PASS, "declined window staging: coarsened by %u", c.k);
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
