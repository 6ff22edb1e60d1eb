/*
 * smem_stage.c - window staging's code: a new entry block where each
 * thread loads its share of every accepted group's tile (only the elements
 * some thread of the block reads, smem_guard.c), a barrier, then the
 * group's loads redirected to the tile.
 */
#include <stdint.h>
#include <stdlib.h>

#include "passes/smem_window.h"

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

/* A staging load's block, entered when cond holds: the builder is left
 * in it; returns the block after it. */
static LLVMBasicBlockRef load_block(emit *e, LLVMValueRef cond) {
  LLVMBasicBlockRef ld =
      LLVMInsertBasicBlockInContext(e->lc, e->body, "ks.window.load");
  LLVMBasicBlockRef next =
      LLVMInsertBasicBlockInContext(e->lc, e->body, "ks.window.next");
  LLVMBuildCondBr(e->b, cond, ld, next);
  LLVMPositionBuilderAtEnd(e->b, ld);
  return next;
}

/* Ends a load block: the element at addr into element j of the tile, then
 * on to next. */
static void load_to_tile(emit *e, const wgroup *g, LLVMValueRef addr,
                         LLVMValueRef j, LLVMBasicBlockRef next) {
  LLVMValueRef v = LLVMBuildLoad2(e->b, g->ty, addr, "");
  LLVMSetAlignment(v, g->align);
  LLVMValueRef st =
      LLVMBuildStore(e->b, v, tile_ptr(e, g, tile_index(e, g, j)));
  LLVMSetAlignment(st, g->align);
  LLVMBuildBr(e->b, next);
  LLVMPositionBuilderAtEnd(e->b, next);
}

/* One staging load: element j along the window, when cond holds. */
static int stage_one(emit *e, const wgroup *g, LLVMValueRef j,
                     LLVMValueRef cond) {
  LLVMBasicBlockRef next = load_block(e, cond);
  LLVMValueRef t[3] = {e->tid[0], e->tid[1], e->tid[2]};
  t[g->dim] = j;
  LLVMValueRef addr =
      ks_wx_clone(e->c->x, e->b, LLVMGetOperand(g->ld[g->ref].load, 0), t);
  if (!addr)
    return 0;
  load_to_tile(e, g, addr, j, next);
  return 1;
}

/* What every staging load of g asks: all of g's conditions (NULL when one
 * cannot be rebuilt), and in *w the window condition's other side (NULL
 * when g has none). */
static LLVMValueRef stage_conds(emit *e, const wgroup *g, LLVMValueRef *w) {
  LLVMValueRef all = LLVMConstInt(LLVMInt1TypeInContext(e->lc), 1, 0);
  all = conds(e, g->uni, g->nuni, all);
  all = conds(e, g->oth, g->noth, all);
  *w = g->wv ? ks_wx_clone(e->c->x, e->b, g->ww, e->tid) : NULL;
  return g->wv && !*w ? NULL : all;
}

/* Element j = t + k*B of the window, thread t's in round k, in *j, and
 * when to stage it: all, and j within the window in a round that ends
 * past it. */
static LLVMValueRef round_cond(emit *e, const wgroup *g, unsigned k,
                               LLVMValueRef all, LLVMValueRef *j) {
  unsigned bw = e->c->block[g->dim];
  *j = LLVMBuildAdd(e->b, e->tid[g->dim], i32c(e, k * bw), "");
  if ((k + 1) * bw <= g->len)
    return all;
  return LLVMBuildAnd(
      e->b, all, LLVMBuildICmp(e->b, LLVMIntULT, *j, i32c(e, g->len), ""), "");
}

/* Thread t stages elements j = t + k*B of the window (its own row or
 * column), those some thread will read. */
static int stage(emit *e, wgroup *g) {
  LLVMBuilderRef b = e->b;
  LLVMValueRef w, all = stage_conds(e, g, &w);
  if (!all)
    return 0;
  unsigned bw = e->c->block[g->dim], d = (unsigned)g->span;
  for (unsigned k = 0; k * bw < g->len; k++) {
    LLVMValueRef j, cond = round_cond(e, g, k, all, &j);
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
 * kernels). A coarsened group's window is along x (window_k). */
static int stage_k(emit *e, wgroup *g) {
  LLVMBuilderRef b = e->b;
  LLVMValueRef w, all = stage_conds(e, g, &w);
  LLVMValueRef t0[3] = {i32c(e, 0), e->tid[1], e->tid[2]};
  LLVMValueRef p0 =
      ks_wx_clone(e->c->x, b, LLVMGetOperand(g->ld[g->ref].load, 0), t0);
  if (!all || !p0)
    return 0;
  unsigned bw = e->c->block[0], d = (unsigned)g->span, kk = e->c->k;
  int sh = ks_window_log2(kk);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->lc);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(e->lc);
  unsigned long long size =
      LLVMABISizeOfType(LLVMGetModuleDataLayout(e->c->m), g->ty);
  for (unsigned k = 0; k * bw < g->len; k++) {
    LLVMValueRef j, cond = round_cond(e, g, k, all, &j);
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
    LLVMBasicBlockRef next = load_block(e, cond);
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, j, i64, ""),
                                    LLVMConstInt(i64, size, 0), "");
    LLVMValueRef addr = LLVMBuildGEP2(b, i8, p0, &off, 1, "");
    load_to_tile(e, g, addr, j, next);
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
int ks_window_transform(wctx *c) {
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
      ks_window_report(c, g);
    }
  LLVMDisposeBuilder(e.b);
  return ok ? 0
            : ks_diag_fail(c->d, KS_EPASS,
                           PASS ": window staging could not rebuild an index");
}
