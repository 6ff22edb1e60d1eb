/*
 * shfl.h - what the shfl stage's two files share: a tree reduction's
 * steps as shfl_find.c recognizes them, and the state of the rewrite
 * (shfl.c, whose head comment says what the stage does and why).
 */
#ifndef KS_PASSES_SHFL_H
#define KS_PASSES_SHFL_H

#include <stdint.h>

#include "passes/ks_passes.h"

#define PASS "shfl"

enum {
  LANES = 32,
  MAX_STEPS = 8,    /* steps of one tree looked at */
  MAX_ELEMS = 4096, /* elements a step may reach */
  MAX_NODES = 2 * MAX_STEPS * LANES,
  MAX_CAND = 64 /* guarded steps in one kernel */
};

/* One step of a tree: st stores op(la, lb) where one load reads the
 * element st writes (self) and the other another (other). */
typedef struct step {
  LLVMValueRef st, op, la, lb;
  int self_first;     /* la is the self load */
  unsigned delta;     /* other - self, in elements */
  LLVMValueRef cond;  /* the guard */
  int on_true;        /* the step runs where cond is true */
  LLVMValueRef cond2; /* and where cond2 is on_true2, if not NULL */
  int on_true2;
  LLVMBasicBlockRef head, land, body, join; /* guarded steps (land: the
                                               block of cond2, or NULL) */
} step;

/* A node of the symbolic simulation: op(a, b), a and b node references;
 * a reference below 0 is element -(r + 1) as it was at the start. */
typedef struct node {
  int op, a, b;
} node;

typedef struct tree {
  LLVMModuleRef m;
  LLVMValueRef fn;
  ks_diag *d;
  LLVMTargetDataRef dl;
  unsigned bx, sm;
  LLVMValueRef g; /* the shared array */
  LLVMTypeRef ty; /* its elements' type, as the steps access it */
  unsigned esize;
  step st[MAX_STEPS];
  unsigned n;
  int sig[MAX_STEPS]; /* the first step with the same operation */
  int any_order;      /* integers whose order of combining does not matter */
  node nodes[MAX_NODES];
  unsigned nnodes;
  int cur[MAX_ELEMS];
  char lane[1024]; /* scratch: a step's lanes */
} tree;

/* v's opcode, instruction or constant expression; 0 for neither. */
int ks_shfl_opcode_of(LLVMValueRef v);

/* v's width in bits if it is an integer, else 0. */
unsigned ks_shfl_int_width(LLVMValueRef v);

/* v's value in thread tid, where it depends on nothing but constants and
 * the thread index along x: 1 and *out (v's bits, zero-extended), else 0. */
int ks_shfl_eval(LLVMValueRef v, unsigned tid, uint64_t *out, int depth);

/* The element of t->g that pointer p reaches in thread tid; -1 when it is
 * not a whole element of it within MAX_ELEMS. */
int ks_shfl_elem_at(tree *t, LLVMValueRef p, unsigned tid);

/* Does i neither access memory nor order it (arithmetic, special
 * registers, intrinsics that write nothing)? */
int ks_shfl_plain(LLVMValueRef i);

/* The shared-memory global p points into, or NULL. */
LLVMValueRef ks_shfl_shared_base(LLVMValueRef p);

/* Does bb hold a barrier of the whole block? */
int ks_shfl_has_block_barrier(LLVMBasicBlockRef bb);

/* The first chain of guarded steps (each step's join the next one's
 * head) whose last store is not in done, into t. */
int ks_shfl_find_guarded(tree *t, LLVMValueRef *done, unsigned ndone);

/* The first run of at least two steps in a block that one branch enters
 * (the warp-unrolled tail) or that every thread runs (it has a barrier),
 * whose last store is not in done, into t. */
int ks_shfl_find_warp(tree *t, LLVMValueRef *done, unsigned ndone);

#endif
