/*
 * cfg.c - the control-flow graph of one function, for the passes that
 * reason about paths, loops and dominance: blocks numbered in the
 * function's order, predecessors, a reverse post-order, the back edges of
 * a depth-first walk and the dominator tree (Cooper, Harvey and Kennedy,
 * "A Simple, Fast Dominance Algorithm"), as QBE's cfg.c keeps them.
 *
 * The walk from the entry is iterative and takes successors in the
 * terminator's order, so that which edges are back edges (in an
 * irreducible graph, where that depends on the walk) is fixed by the IR.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

/* A block and its number, sorted by address for ks_cfg_index. */
struct ks_cfg_key {
  LLVMBasicBlockRef bb;
  unsigned i;
};

static int by_addr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const ks_cfg_key *)a)->bb;
  uintptr_t y = (uintptr_t)((const ks_cfg_key *)b)->bb;
  return (x > y) - (x < y);
}

unsigned ks_cfg_index(const ks_cfg *g, LLVMBasicBlockRef bb) {
  ks_cfg_key k = {bb, 0};
  const ks_cfg_key *f =
      g->n ? bsearch(&k, g->keys, g->n, sizeof k, by_addr) : NULL;
  return f ? f->i : KS_CFG_NONE;
}

/* The number of successor j of block i's terminator t. */
static unsigned succ_of(const ks_cfg *g, LLVMValueRef t, unsigned j) {
  return ks_cfg_index(g, LLVMGetSuccessor(t, j));
}

static unsigned nsucc(LLVMValueRef t) {
  return t ? LLVMGetNumSuccessors(t) : 0;
}

/* Predecessors in compressed rows; 1 when out of memory. */
static int fill_preds(ks_cfg *g) {
  g->pred_at = calloc(g->n + 1, sizeof *g->pred_at);
  if (!g->pred_at)
    return 1;
  unsigned edges = 0;
  for (unsigned i = 0; i < g->n; i++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[i]);
    for (unsigned j = 0, ns = nsucc(t); j < ns; j++) {
      unsigned s = succ_of(g, t, j);
      if (s != KS_CFG_NONE)
        g->pred_at[s + 1]++, edges++;
    }
  }
  for (unsigned i = 0; i < g->n; i++)
    g->pred_at[i + 1] += g->pred_at[i];
  g->pred = malloc((edges ? edges : 1) * sizeof *g->pred);
  unsigned *fill = calloc(g->n, sizeof *fill);
  int bad = !g->pred || !fill;
  for (unsigned i = 0; i < g->n && !bad; i++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[i]);
    for (unsigned j = 0, ns = nsucc(t); j < ns; j++) {
      unsigned s = succ_of(g, t, j);
      if (s != KS_CFG_NONE)
        g->pred[g->pred_at[s] + fill[s]++] = i;
    }
  }
  free(fill);
  return bad;
}

/* The depth-first walk from the entry: post-order into g->rpo (reversed
 * at the end), the edges to a block still on the path into g->back. 1
 * when out of memory. */
static int walk(ks_cfg *g) {
  unsigned n = g->n, top = 0, done = 0, nback = 0, cap = 4;
  unsigned *stack = malloc(n * sizeof *stack), *next = calloc(n, sizeof *next);
  unsigned char *state = calloc(n, 1); /* 1 on the path, 2 done */
  g->back = malloc(cap * sizeof *g->back);
  int bad = !stack || !next || !state || !g->back;
  if (!bad)
    stack[top++] = 0, state[0] = 1;
  while (top && !bad) {
    unsigned b = stack[top - 1];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
    if (next[b] == nsucc(t)) {
      g->rpo[done++] = b;
      state[b] = 2;
      top--;
      continue;
    }
    unsigned s = succ_of(g, t, next[b]++);
    if (s == KS_CFG_NONE)
      continue;
    if (state[s] == 1) {
      if (nback == cap) {
        ks_cfg_edge *e = realloc(g->back, 2 * cap * sizeof *e);
        if (!e) {
          bad = 1;
          break;
        }
        g->back = e, cap *= 2;
      }
      g->back[nback++] = (ks_cfg_edge){b, s};
    } else if (state[s] == 0) {
      state[s] = 1;
      stack[top++] = s;
    }
  }
  g->nrpo = done;
  g->nback = nback;
  for (unsigned k = 0; k < done / 2; k++) {
    unsigned x = g->rpo[k];
    g->rpo[k] = g->rpo[done - 1 - k];
    g->rpo[done - 1 - k] = x;
  }
  for (unsigned k = 0; k < done; k++)
    g->rpo_num[g->rpo[k]] = k;
  free(stack);
  free(next);
  free(state);
  return bad;
}

/* The common dominator of a and b, by reverse post-order numbers, idom
 * by number. */
static unsigned meet(const unsigned *idom, unsigned a, unsigned b) {
  while (a != b) {
    while (a > b)
      a = idom[a];
    while (b > a)
      b = idom[b];
  }
  return a;
}

/* Cooper, Harvey and Kennedy's iteration over the reverse post-order. 1
 * when out of memory. */
static int fill_dom(ks_cfg *g) {
  unsigned *idom = malloc((g->nrpo ? g->nrpo : 1) * sizeof *idom);
  if (!idom)
    return 1;
  for (unsigned k = 0; k < g->nrpo; k++)
    idom[k] = KS_CFG_NONE;
  idom[0] = 0;
  for (int changed = 1; changed;) {
    changed = 0;
    for (unsigned k = 1; k < g->nrpo; k++) {
      unsigned b = g->rpo[k], nd = KS_CFG_NONE;
      for (unsigned j = g->pred_at[b]; j < g->pred_at[b + 1]; j++) {
        unsigned p = g->rpo_num[g->pred[j]];
        if (p != KS_CFG_NONE && idom[p] != KS_CFG_NONE)
          nd = nd == KS_CFG_NONE ? p : meet(idom, p, nd);
      }
      if (nd != idom[k]) {
        idom[k] = nd;
        changed = 1;
      }
    }
  }
  for (unsigned k = 0; k < g->nrpo; k++)
    g->idom[g->rpo[k]] = g->rpo[idom[k]];
  free(idom);
  return 0;
}

int ks_cfg_build(ks_cfg *g, LLVMValueRef fn) {
  unsigned n = LLVMCountBasicBlocks(fn);
  *g = (ks_cfg){.fn = fn, .n = n};
  if (n == 0)
    return 0;
  g->bb = malloc(n * sizeof *g->bb);
  g->keys = malloc(n * sizeof *g->keys);
  g->rpo = malloc(n * sizeof *g->rpo);
  g->rpo_num = malloc(n * sizeof *g->rpo_num);
  g->idom = malloc(n * sizeof *g->idom);
  g->work = malloc((n + 1) * sizeof *g->work);
  if (!g->bb || !g->keys || !g->rpo || !g->rpo_num || !g->idom || !g->work)
    goto fail;
  LLVMGetBasicBlocks(fn, g->bb);
  for (unsigned i = 0; i < n; i++) {
    g->keys[i] = (ks_cfg_key){g->bb[i], i};
    g->rpo_num[i] = g->idom[i] = KS_CFG_NONE;
  }
  qsort(g->keys, n, sizeof *g->keys, by_addr);
  if (fill_preds(g) || walk(g) || fill_dom(g))
    goto fail;
  return 0;
fail:
  ks_cfg_free(g);
  return 1;
}

void ks_cfg_free(ks_cfg *g) {
  free(g->bb);
  free(g->keys);
  free(g->pred_at);
  free(g->pred);
  free(g->rpo);
  free(g->rpo_num);
  free(g->idom);
  free(g->back);
  free(g->work);
  *g = (ks_cfg){0};
}

unsigned ks_cfg_preds(const ks_cfg *g, LLVMBasicBlockRef bb,
                      LLVMBasicBlockRef *out, unsigned max) {
  unsigned b = ks_cfg_index(g, bb);
  if (b == KS_CFG_NONE)
    return 0;
  unsigned n = g->pred_at[b + 1] - g->pred_at[b];
  for (unsigned j = 0; j < n && j < max; j++)
    out[j] = g->bb[g->pred[g->pred_at[b] + j]];
  return n;
}

unsigned ks_cfg_single_pred(const ks_cfg *g, unsigned b) {
  unsigned p = KS_CFG_NONE;
  for (unsigned j = g->pred_at[b]; j < g->pred_at[b + 1]; j++) {
    if (p != KS_CFG_NONE && g->pred[j] != p)
      return KS_CFG_NONE;
    p = g->pred[j];
  }
  return p;
}

int ks_cfg_dominates(const ks_cfg *g, unsigned a, unsigned b) {
  if (a >= g->n || b >= g->n || g->rpo_num[a] == KS_CFG_NONE ||
      g->rpo_num[b] == KS_CFG_NONE)
    return 0;
  while (g->rpo_num[b] > g->rpo_num[a])
    b = g->idom[b];
  return a == b;
}

void ks_cfg_reaching(ks_cfg *g, unsigned b, unsigned char *mark) {
  memset(mark, 0, g->n);
  unsigned top = 0;
  g->work[top++] = b;
  while (top) {
    unsigned x = g->work[--top];
    for (unsigned j = g->pred_at[x]; j < g->pred_at[x + 1]; j++) {
      unsigned p = g->pred[j];
      if (!mark[p]) {
        mark[p] = 1;
        g->work[top++] = p;
      }
    }
  }
}
