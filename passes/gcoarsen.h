/*
 * gcoarsen.h - what the two files of grid coarsening share (internal to
 * passes/): the pass's state, from the analysis that finds the region and
 * proves the kernel block-additive (gcoarsen.c) to the transformation that
 * runs the region for several blocks (gcoarsen_emit.c).
 */
#ifndef KS_GCOARSEN_H
#define KS_GCOARSEN_H

#include <stdint.h>

#include "passes/ks_passes.h"

#define PASS "gcoarsen"

enum {
  AS_SHARED = 3,
  MAX_INSTS = 8192, /* of the kernel */
  MAX_RANGE = 256,  /* of the region */
  MAX_DEPTH = 32,   /* of the address check */
  MAX_CHECK = 16,   /* instructions of the condition checked ahead */
  MAX_ROLLED = 32,  /* region instructions of a fast loop kept rolled */
  MAX_WALK = 4,     /* loads of the region that walk by a fixed step */
};

/* A set of values (open addressing). */
typedef struct vset {
  LLVMValueRef *slot;
  unsigned cap; /* a power of two */
} vset;

/* The fast loop kept rolled: each load of the region reads
 * base[sext(idx)] or base[zext(idx)], idx a 32-bit value that grows by a fixed
 * step from one virtual block to the next; in the loop it reads through a
 * pointer that starts at block ctaid*C's address and moves by step * size
 * bytes. */
typedef struct walk {
  LLVMValueRef load[MAX_WALK], base[MAX_WALK], idx[MAX_WALK];
  LLVMTypeRef elem[MAX_WALK];
  int32_t step[MAX_WALK];
  int zext[MAX_WALK]; /* base[zext(idx)]: unsigned, step >= 0 */
  /* no index of the group wraps: idx(vb0) pred[k] limit[k] */
  LLVMIntPredicate pred[MAX_WALK];
  long long limit[MAX_WALK];
  LLVMValueRef start[MAX_WALK]; /* the first address, in the fast block */
  int n;
} walk;

/* Region values to their copies in the loop (blocks as values too). */
typedef struct vmap {
  LLVMValueRef from[MAX_RANGE + 8], to[MAX_RANGE + 8];
  int n;
} vmap;

typedef struct gc {
  LLVMModuleRef m;
  LLVMValueRef fn;
  ks_cfg cfg; /* fn's, before the transformation */
  const ks_spec *s;
  LLVMContextRef lc;
  LLVMValueRef *inst; /* every instruction */
  int ninst;
  LLVMValueRef ctaid; /* the one %ctaid.x read */
  int natomics;
  /* the region: bs from ctaid on, the diamond's arms t and f (or NULL),
   * the closing block be's phis (be NULL: straight-line, up to v) */
  LLVMBasicBlockRef bs, t, f, be;
  LLVMValueRef v;
  LLVMValueRef range[MAX_RANGE];
  int nrange;
  vset in_range, tainted, additive;
  char buf[256];
  char name[96]; /* describe()'s */
  vmap map;
  int checked; /* the branch's condition checked for the group first */
  int want;    /* its value there: 1 (the first successor) or 0 */
  int walked;  /* loads of the fast loop that walk (kept rolled) */
} gc;

/* ---- gcoarsen.c ---------------------------------------------------------- */

/* Is v in s? */
int ks_gc_vset_has(const vset *s, LLVMValueRef v);

/* ---- gcoarsen_emit.c ----------------------------------------------------- */

/* Replaces c->fn by a copy with a trailing i32 parameter, the user's
 * grid.x; the blocks move over. NULL on no memory. */
LLVMValueRef ks_gc_add_grid_param(gc *c);
/* bb's first instruction that is not a phi. */
LLVMValueRef ks_gc_first_non_phi(LLVMBasicBlockRef bb);
/* Moves the instructions of bb before p into a new block that takes bb's
 * place (predecessors, entry); returns it, without a terminator. */
LLVMBasicBlockRef ks_gc_split_before(gc *c, LLVMBuilderRef b,
                                     LLVMBasicBlockRef bb, LLVMValueRef p);
/* The loops over the factor virtual blocks of a group, between head and
 * tail (see gcoarsen_emit.c); v's uses take the sum. 1: out of memory. */
int ks_gc_build_loop(gc *c, LLVMBuilderRef b, LLVMBasicBlockRef head,
                     LLVMBasicBlockRef tail, unsigned factor);
/* Sums can grow where the parts did not: the additive values' overflow
 * and inf/NaN promises come off. */
void ks_gc_drop_flags(gc *c);

#endif /* KS_GCOARSEN_H */
