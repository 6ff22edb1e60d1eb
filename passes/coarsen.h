/*
 * coarsen.h - what the two files of grid-stride loop coarsening share
 * (internal to passes/): the loop as the analysis (coarsen.c) finds it and
 * the transformation (coarsen_emit.c) rewrites it.
 */
#ifndef KS_COARSEN_H
#define KS_COARSEN_H

#include "passes/ks_passes.h"

#define PASS "coarsen"

enum {
  VEC_BYTES = 16,
  MAX_BLOCKS = 16,   /* blocks of the loop */
  MAX_INSTS = 256,   /* instructions of the loop */
  MAX_CLONED = 4096, /* instructions of all the copies of the body */
  MAX_TARGETS = 8,   /* arguments updated by atomics */
  MAX_DEPTH = 16,    /* of the uniformity check */
  AS_SHARED = 3,
  AS_LOCAL = 5,
};

/* One grid-stride loop and what the transformation needs of it. */
typedef struct gsloop {
  LLVMValueRef fn, phi, next, gtid, stride, n;
  const ks_cfg *cfg;          /* fn's, as it was before the transformation */
  LLVMValueRef nctaid, scale; /* stride = nctaid * scale */
  LLVMBasicBlockRef pre, head, latch, exit;
  LLVMBasicBlockRef blocks[MAX_BLOCKS]; /* reverse post-order, head first */
  unsigned nblocks, ninsts;
  LLVMValueRef arg;  /* P, whose element i the body loads */
  LLVMTypeRef ety;   /* the element's type */
  unsigned esize, w; /* bytes of an element, elements per 16 bytes */
  LLVMValueRef targets[MAX_TARGETS];
  unsigned ntargets;
  int kind; /* commutative class of the atomics, -1: none yet */
} gsloop;

/* ---- coarsen.c ----------------------------------------------------------- */

/* Is load ld P[i] of an integer element, with i extended to 64 bits? The
 * first such load (in the header) sets l's P, element type and width. */
int ks_coarsen_element_load(gsloop *l, LLVMValueRef ld);

/* ---- coarsen_emit.c ------------------------------------------------------ */

/* The vector loop, between the preheader and a new block that enters the
 * old loop at W*nv + gtid. 1 when out of memory. */
int ks_coarsen_transform(LLVMContextRef c, gsloop *l);

#endif /* KS_COARSEN_H */
