/*
 * smem_window.h - what the files of window staging share (internal to
 * passes/): the groups of loads and the pass's state (smem_window.c finds
 * the groups, their windows and whether they may be staged), the guard
 * analysis (smem_guard.c) and the staging code (smem_stage.c).
 * smem_promote.c runs the pass through ks_smem_window (ks_passes.h).
 */
#ifndef KS_SMEM_WINDOW_H
#define KS_SMEM_WINDOW_H

#include <stdint.h>

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
  int n;
  size_t cap;
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
  int ng;
  size_t capg;
  ks_cfg cfg;          /* the function's, before the transformation */
  unsigned char *mark; /* check_unwritten's: the blocks that reach the loads */
  /* find_guard: the branch conditions on the way to the group's loads */
  conj path[64];
  int npath;
} wctx;

/* ---- smem_window.c ------------------------------------------------------- */

/* Explains why group g is not staged. */
void ks_window_decline(wctx *c, const wgroup *g, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Explains what staging g did. */
void ks_window_report(wctx *c, const wgroup *g);

/* log2(v) for a power of two, else -1. */
static inline int ks_window_log2(unsigned v) {
  int l = 0;
  while ((1u << l) < v)
    l++;
  return (1u << l) == v ? l : -1;
}

/* "x", "y", "z" for coordinate d. */
static inline char ks_window_dimname(int d) { return "xyz"[d]; }

/* ---- smem_guard.c -------------------------------------------------------- */

/* The conditions of the branches from the entry to g's loads, sorted into
 * g->uni, g->oth and the window's condition (wv PRED ww); 0 when g is
 * declined. */
int ks_window_find_guard(wctx *c, wgroup *g);
/* For a coarsened kernel (c->k > 1): the conditions on tid.x, in g->tcj,
 * are those of the interval of its lanes (see smem_guard.c); 0 when g is
 * declined. */
int ks_window_guard_k(wctx *c, wgroup *g);

/* ---- smem_stage.c -------------------------------------------------------- */

/* A new entry block stages every accepted group and ends with a barrier
 * that all threads reach; then the kernel runs as before, reading tiles.
 * 1 (with c->d filled) when an index cannot be rebuilt. */
int ks_window_transform(wctx *c);

#endif /* KS_SMEM_WINDOW_H */
