/*
 * shfl.c - the shfl stage: the steps of a shared-memory tree reduction
 * that stay within the first warp become warp shuffles (shfl.sync.down),
 * or one redux.sync for a 32-bit integer add, min, max, and, or or xor
 * from sm_80 on, without their barriers and shared-memory traffic.
 *
 * After binding, full unrolling with the block fixed and the optimize
 * stage, the tail of
 *
 *   for (s = blockDim.x / 2; s > 0; s >>= 1) {
 *     if (tid < s) sh[tid] += sh[tid + s];
 *     __syncthreads();
 *   }
 *
 * is straight-line code: for s = 16, 8, 4, 2, 1 a block that branches on
 * tid < s to a block with two loads, an operation and a store, then a
 * barrier. The classic warp-unrolled tail (`if (tid < 32) { vs[tid] +=
 * vs[tid + 32]; vs[tid] += vs[tid + 16]; ... }` through a volatile
 * pointer) is the same steps in one block entered by the first warp.
 *
 * Why the result is the same. The pass reads each step as lanes (which
 * threads run it: its guard evaluated for every thread of the block), the
 * element each lane writes, the two it reads and the operation. Only
 * steps that no thread beyond the first warp runs are taken. It then
 * computes, symbolically, the expression the tree leaves in element 0 (a
 * tree of the steps' operations over the elements as they were before the
 * first taken step: later steps read what earlier ones wrote, every lane
 * of a step reading before any writes), and the expression lane 0 ends
 * with when every lane of the warp starts with its own element and runs,
 * per step, x = op(x, shfl.down(x, d)) with the step's stride d and the
 * operands in the step's order (a lane whose source is past lane 31 gets
 * its own x, garbage that no lane on the way to lane 0 reads). Equal
 * expressions mean the same operations on the same values in the same
 * association: for floating point the rewrite is taken only then. For
 * integers whose every step is one associative, commutative operation, it
 * is enough that the tree combines each of the 32 elements exactly once
 * (any order gives the same value); the new operations then carry no
 * nsw/nuw, which a different order could make poison.
 *
 * What the steps left in the other elements is not computed: the rewrite
 * requires that nothing reads the array afterwards but element 0, until
 * every thread has stored its own element again and passed a barrier
 * (another round in a loop). Every lane stores its x back to its element,
 * so element 0 holds the result for any later reader. The barriers
 * between the steps go; the one after the last step goes too when nothing
 * touches the array between it and the next barrier but loads of element
 * 0 by thread 0 alone (who wrote it); otherwise it stays. The array's
 * address must go nowhere but loads and stores (no call can reach it).
 * The block must be fixed, one-dimensional and at least a warp, so that
 * the first warp's 32 lanes are threads 0 to 31 and all of them exist; and
 * all of them reach the steps (a barrier in the steps' blocks, or in the
 * block that branches into the warp-unrolled tail, says so).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/shfl.h"

/* ---- the symbolic simulation ------------------------------------------- */

/* Sets t->lane[l] for the threads of the block that run step k; 0 when
 * its guard depends on more than the thread index. */
static int step_lanes(tree *t, unsigned k) {
  for (unsigned l = 0; l < t->bx; l++) {
    uint64_t v;
    t->lane[l] = 1;
    if (!t->st[k].cond)
      continue; /* a block every thread runs */
    if (!ks_shfl_eval(t->st[k].cond, l, &v, 0))
      return 0;
    t->lane[l] = (v != 0) == t->st[k].on_true;
    if (t->lane[l] && t->st[k].cond2) {
      if (!ks_shfl_eval(t->st[k].cond2, l, &v, 0))
        return 0;
      t->lane[l] = (v != 0) == t->st[k].on_true2;
    }
  }
  return 1;
}

/* Does step k run in threads of the first warp alone? */
static int warp_only(tree *t, unsigned k) {
  if (!step_lanes(t, k))
    return 0;
  int any = 0;
  for (unsigned l = 0; l < t->bx; l++) {
    if (t->lane[l] && l >= LANES)
      return 0;
    any |= t->lane[l];
  }
  return any;
}

static int same_op(LLVMValueRef a, LLVMValueRef b) {
  if (LLVMGetInstructionOpcode(a) != LLVMGetInstructionOpcode(b) ||
      LLVMTypeOf(a) != LLVMTypeOf(b))
    return 0;
  if (LLVMIsACallInst(a))
    return LLVMGetCalledValue(a) == LLVMGetCalledValue(b);
  if (LLVMCanValueUseFastMathFlags(a) &&
      LLVMGetFastMathFlags(a) != LLVMGetFastMathFlags(b))
    return 0;
  int op = LLVMGetInstructionOpcode(a);
  if (op == LLVMAdd || op == LLVMSub || op == LLVMMul || op == LLVMShl)
    return LLVMGetNSW(a) == LLVMGetNSW(b) && LLVMGetNUW(a) == LLVMGetNUW(b);
  return 1;
}

static int mk(tree *t, int op, int a, int b) {
  if (t->nnodes == MAX_NODES)
    return INT32_MIN;
  t->nodes[t->nnodes] = (node){op, a, b};
  return (int)t->nnodes++;
}

static int same_expr(const tree *t, int a, int b) {
  if (a < 0 || b < 0)
    return a == b;
  const node *x = &t->nodes[a], *y = &t->nodes[b];
  return x->op == y->op && same_expr(t, x->a, y->a) && same_expr(t, x->b, y->b);
}

/* Counts the elements expression r combines (below LANES) into count;
 * returns how many it combines at or past LANES. */
static unsigned leaves(const tree *t, int r, unsigned *count) {
  if (r < 0) {
    unsigned e = (unsigned)(-(r + 1));
    if (e >= LANES)
      return 1;
    count[e]++;
    return 0;
  }
  return leaves(t, t->nodes[r].a, count) + leaves(t, t->nodes[r].b, count);
}

/* Runs step k of the tree on t->cur (its lanes in t->lane): the reads of
 * all lanes, then their writes. Sets the step's self_first and delta. */
static const char *tree_step(tree *t, unsigned k) {
  step *s = &t->st[k];
  int val[LANES], at[LANES], sf = -1, delta = 0;
  for (unsigned l = 0; l < LANES; l++) {
    at[l] = -1;
    if (!t->lane[l])
      continue;
    int i = ks_shfl_elem_at(t, LLVMGetOperand(s->st, 1), l);
    int a = ks_shfl_elem_at(t, LLVMGetOperand(s->la, 0), l);
    int b = ks_shfl_elem_at(t, LLVMGetOperand(s->lb, 0), l);
    if (i < 0 || a < 0 || b < 0)
      return "an index is not provably a function of the thread index "
             "alone";
    int self = a == i ? 1 : b == i ? 0 : -1, other = self ? b : a;
    if (self < 0 || (sf >= 0 && self != sf) || (delta && other - i != delta))
      return "the steps are not of the form sh[i] = sh[i] op sh[i + d] with "
             "one d per step";
    sf = self;
    delta = other - i;
    for (unsigned m = 0; m < l; m++)
      if (at[m] == i)
        return "two threads of a step write one element";
    at[l] = i;
    val[l] = mk(t, t->sig[k], t->cur[a], t->cur[b]);
  }
  if (sf < 0)
    return "a step that no thread runs";
  if (delta <= 0 || delta >= LANES)
    return "a stride not provably below 32";
  for (unsigned l = 0; l < LANES; l++)
    if (at[l] >= 0)
      t->cur[at[l]] = val[l];
  s->self_first = sf;
  s->delta = (unsigned)delta;
  return NULL;
}

/* Lane 0's expression after steps k0.. as shuffles down by each step's
 * stride, every lane starting with its own element. */
static int shuffled(tree *t, unsigned k0) {
  int x[LANES], y[LANES];
  for (unsigned l = 0; l < LANES; l++)
    x[l] = -(int)(l + 1);
  for (unsigned k = k0; k < t->n; k++) {
    step *s = &t->st[k];
    for (unsigned l = 0; l < LANES; l++)
      y[l] = l + s->delta < LANES ? x[l + s->delta] : x[l];
    for (unsigned l = 0; l < LANES; l++)
      x[l] = s->self_first ? mk(t, t->sig[k], x[l], y[l])
                           : mk(t, t->sig[k], y[l], x[l]);
  }
  return x[0];
}

/* An integer operation whose order does not matter? */
static int any_order_op(LLVMValueRef op) {
  if (LLVMGetTypeKind(LLVMTypeOf(op)) != LLVMIntegerTypeKind)
    return 0;
  if (LLVMIsACallInst(op))
    return ks_ir_minmax(op) != 0;
  int o = LLVMGetInstructionOpcode(op);
  return o == LLVMAdd || o == LLVMMul || o == LLVMAnd || o == LLVMOr ||
         o == LLVMXor;
}

enum { SAME, ANY_ORDER };

/* Simulates steps k0.. and says how they may become shuffles (*how) or
 * why they may not. */
static const char *simulate(tree *t, unsigned k0, int *how) {
  for (unsigned i = 0; i < MAX_ELEMS; i++)
    t->cur[i] = -(int)(i + 1);
  t->nnodes = 0;
  int uniform = 1;
  for (unsigned k = k0; k < t->n; k++) {
    t->sig[k] = (int)k;
    for (unsigned j = k0; j < k && t->sig[k] == (int)k; j++)
      if (same_op(t->st[j].op, t->st[k].op))
        t->sig[k] = (int)j;
    uniform &= t->sig[k] == (int)k0;
    const char *why =
        step_lanes(t, k) ? tree_step(t, k) : "a guard not understood";
    if (why)
      return why;
  }
  int r = t->cur[0], x0 = shuffled(t, k0);
  if (r == INT32_MIN || x0 == INT32_MIN)
    return "too many operations";
  unsigned count[LANES] = {0}, past = leaves(t, r, count), once = 1;
  for (unsigned l = 0; l < LANES; l++)
    once &= count[l] == 1;
  if (past || !once)
    return "element 0 does not end with a combination of each of the first "
           "warp's 32 elements";
  t->any_order = uniform && any_order_op(t->st[k0].op);
  if (t->any_order && !same_expr(t, r, x0)) {
    *how = ANY_ORDER;
    return NULL;
  }
  if (!same_expr(t, r, x0))
    return "shuffles would not combine the same operands in the same order "
           "as the tree for the lane that ends with the result";
  *how = SAME;
  return NULL;
}

/* ---- what comes after the steps ---------------------------------------- */

/* Does the address of v (t->g or derived from it) reach nothing but the
 * pointer operands of loads, stores and atomics in the kernel? */
static int escapes(tree *t, LLVMValueRef v, int depth) {
  if (depth > 16)
    return 1;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef w = LLVMGetUser(u);
    int op = ks_shfl_opcode_of(w);
    if (LLVMIsAInstruction(w) &&
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(w)) != t->fn)
      return 1;
    if (op == LLVMGetElementPtr || op == LLVMAddrSpaceCast ||
        op == LLVMBitCast) {
      if (LLVMGetOperand(w, 0) != v || escapes(t, w, depth + 1))
        return 1;
    } else if (LLVMIsALoadInst(w)) {
      continue;
    } else if (LLVMIsAStoreInst(w) || LLVMIsAAtomicRMWInst(w) ||
               LLVMIsAAtomicCmpXchgInst(w)) {
      unsigned ptr = LLVMIsAStoreInst(w) ? 1 : 0;
      for (unsigned i = 0; i < (unsigned)LLVMGetNumOperands(w); i++)
        if (i != ptr && LLVMGetOperand(w, i) == v)
          return 1;
    } else {
      return 1;
    }
  }
  return 0;
}

/* Is block b entered by thread 0 alone: b or a block that dominates it
 * entered from its one predecessor by a branch only thread 0 takes? */
static int thread0_only(tree *t, ks_cfg *g, unsigned b) {
  for (unsigned x = b;; x = g->idom[x]) {
    unsigned p = ks_cfg_single_pred(g, x);
    LLVMValueRef br =
        p == KS_CFG_NONE ? NULL : LLVMGetBasicBlockTerminator(g->bb[p]);
    if (br && LLVMIsABranchInst(br) && LLVMIsConditional(br) &&
        LLVMGetSuccessor(br, 0) != LLVMGetSuccessor(br, 1)) {
      int on_true = LLVMGetSuccessor(br, 0) == g->bb[x], only = 1;
      for (unsigned l = 0; l < t->bx && only; l++) {
        uint64_t v;
        only = ks_shfl_eval(LLVMGetCondition(br), l, &v, 0) &&
               ((v != 0) == on_true) == (l == 0);
      }
      if (only)
        return 1;
    }
    if (x == 0 || g->idom[x] == KS_CFG_NONE)
      return 0;
  }
}

typedef struct walk {
  tree *t;
  ks_cfg *g;
  int need_bar;    /* something touches the array before a barrier */
  const char *why; /* the array is read where the rewrite would differ */
} walk;

/* Checks one access of the array, in block b, before a barrier (early). */
static void access(walk *w, LLVMValueRef i, unsigned b, int early, int *kill) {
  tree *t = w->t;
  if (LLVMIsALoadInst(i)) {
    int only0 = thread0_only(t, w->g, b);
    for (unsigned l = 0; l < (only0 ? 1 : t->bx) && !w->why; l++)
      if (ks_shfl_elem_at(t, LLVMGetOperand(i, 0), l) != 0)
        w->why = "the array is read afterwards at an element other than 0";
    w->need_bar |= early && !only0;
    return;
  }
  w->need_bar |= early;
  if (!LLVMIsAStoreInst(i) ||
      LLVMABISizeOfType(t->dl, LLVMTypeOf(LLVMGetOperand(i, 0))) != t->esize)
    return;
  int own = 1; /* every thread stores its own element */
  for (unsigned l = 0; l < t->bx && own; l++)
    own = ks_shfl_elem_at(t, LLVMGetOperand(i, 1), l) == (int)l;
  *kill |= own;
}

/* Follows the paths from instruction i of block b (state: a barrier was
 * passed) to the end of the kernel or to a barrier after which every
 * thread has stored its own element again. */
static void walk_from(walk *w, unsigned b, LLVMValueRef i, int late,
                      unsigned char *seen) {
  int kill = 0;
  for (; i; i = LLVMGetNextInstruction(i)) {
    if (ks_ir_barrier_kind(i) == KS_BARRIER_BLOCK) {
      if (kill)
        return;
      late = 1;
    }
    LLVMValueRef p = LLVMIsALoadInst(i)    ? LLVMGetOperand(i, 0)
                     : LLVMIsAStoreInst(i) ? LLVMGetOperand(i, 1)
                     : LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i)
                         ? LLVMGetOperand(i, 0)
                         : NULL;
    if (p && ks_shfl_shared_base(p) == w->t->g)
      access(w, i, b, !late, &kill);
  }
  LLVMValueRef term = LLVMGetBasicBlockTerminator(w->g->bb[b]);
  unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
  for (unsigned k = 0; k < ns && !w->why; k++) {
    unsigned s = ks_cfg_index(w->g, LLVMGetSuccessor(term, k));
    if (s == KS_CFG_NONE || seen[2 * s + late])
      continue;
    seen[2 * s + late] = 1;
    walk_from(w, s, LLVMGetFirstInstruction(w->g->bb[s]), late, seen);
  }
}

/* Checks what follows instruction from: NULL when the rewrite is safe
 * (*keep_bar: the first barrier must stay), else why not. */
static const char *after(tree *t, LLVMValueRef from, int *keep_bar) {
  ks_cfg g;
  if (ks_cfg_build(&g, t->fn))
    return "out of memory";
  walk w = {.t = t, .g = &g};
  unsigned char *seen = calloc(2 * (size_t)g.n + 2, 1);
  unsigned b = ks_cfg_index(&g, LLVMGetInstructionParent(from));
  if (!seen || b == KS_CFG_NONE)
    w.why = "out of memory";
  else
    walk_from(&w, b, from, 0, seen);
  free(seen);
  ks_cfg_free(&g);
  *keep_bar = w.need_bar;
  return w.why;
}

/* ---- the rewrite ------------------------------------------------------- */

static LLVMValueRef i32c(tree *t, uint64_t v) {
  return LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(t->m)), v, 0);
}

static LLVMValueRef shfl32(tree *t, LLVMBuilderRef b, LLVMValueRef v,
                           unsigned d) {
  int f = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMFloatTypeKind;
  LLVMValueRef args[4] = {i32c(t, 0xffffffffu), v, i32c(t, d), i32c(t, 31)};
  return ks_ir_call_intrinsic(t->m, b,
                              f ? "llvm.nvvm.shfl.sync.down.f32"
                                : "llvm.nvvm.shfl.sync.down.i32",
                              args, 4);
}

/* shfl.sync.down of v by d lanes over the whole warp; 64-bit values as
 * their two halves. */
static LLVMValueRef shfl_down(tree *t, LLVMBuilderRef b, LLVMValueRef v,
                              unsigned d) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (LLVMGetTypeKind(ty) == LLVMFloatTypeKind || ks_shfl_int_width(v) == 32)
    return shfl32(t, b, v, d);
  LLVMContextRef c = LLVMGetModuleContext(t->m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMValueRef k32 = LLVMConstInt(i64, 32, 0);
  LLVMValueRef w = LLVMBuildBitCast(b, v, i64, "");
  LLVMValueRef lo = shfl32(t, b, LLVMBuildTrunc(b, w, i32, ""), d);
  LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, w, k32, ""), i32, "");
  hi = shfl32(t, b, hi, d);
  LLVMValueRef r =
      LLVMBuildOr(b, LLVMBuildZExt(b, lo, i64, ""),
                  LLVMBuildShl(b, LLVMBuildZExt(b, hi, i64, ""), k32, ""), "");
  return LLVMBuildBitCast(b, r, ty, "");
}

/* Step k's operation on (self, other) in the step's operand order; without
 * wrap flags when the order changes. */
static LLVMValueRef combine(tree *t, LLVMBuilderRef b, unsigned k,
                            LLVMValueRef self, LLVMValueRef other,
                            int self_first, int any_order) {
  LLVMValueRef c = LLVMInstructionClone(t->st[k].op);
  LLVMSetOperand(c, 0, self_first ? self : other);
  LLVMSetOperand(c, 1, self_first ? other : self);
  int op = LLVMGetInstructionOpcode(c);
  if (any_order && (op == LLVMAdd || op == LLVMMul)) {
    LLVMSetNSW(c, 0);
    LLVMSetNUW(c, 0);
  }
  LLVMInsertIntoBuilder(b, c);
  return c;
}

/* The redux.sync form of an operation ("add", "min", ...), NULL where it
 * has none. */
static const char *redux_of(LLVMValueRef op) {
  static const char *const mm[] = {NULL, "umin", "umax", "min", "max"};
  if (ks_shfl_int_width(op) != 32)
    return NULL;
  if (LLVMIsACallInst(op))
    return mm[ks_ir_minmax(op)];
  switch (LLVMGetInstructionOpcode(op)) {
  case LLVMAdd:
    return "add";
  case LLVMAnd:
    return "and";
  case LLVMOr:
    return "or";
  case LLVMXor:
    return "xor";
  default:
    return NULL;
  }
}

/* At b, in the first warp: every lane loads its element, combines the
 * lanes' values and stores the result back. Returns what it used. */
static const char *emit(tree *t, LLVMBuilderRef b, LLVMValueRef tid,
                        unsigned k0, int how) {
  LLVMContextRef c = LLVMGetModuleContext(t->m);
  LLVMValueRef ix = LLVMBuildZExt(b, tid, LLVMInt64TypeInContext(c), "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(b, t->ty, t->g, &ix, 1, "ks.shfl.p");
  LLVMValueRef x = LLVMBuildLoad2(b, t->ty, p, "ks.shfl.x");
  LLVMSetAlignment(x, t->esize);
  const char *redux =
      t->any_order && t->sm >= 80 ? redux_of(t->st[k0].op) : NULL;
  const char *used = "shfl.sync.down";
  if (redux) {
    char name[40];
    snprintf(name, sizeof name, "llvm.nvvm.redux.sync.%s", redux);
    LLVMValueRef args[2] = {x, i32c(t, 0xffffffffu)};
    x = ks_ir_call_intrinsic(t->m, b, name, args, 2);
    used = "redux.sync";
  } else if (how == ANY_ORDER) {
    for (unsigned d = LANES / 2; d > 0; d /= 2)
      x = combine(t, b, k0, x, shfl_down(t, b, x, d), 1, 1);
  } else {
    for (unsigned k = k0; k < t->n; k++)
      x = combine(t, b, k, x, shfl_down(t, b, x, t->st[k].delta),
                  t->st[k].self_first, 0);
  }
  LLVMSetAlignment(LLVMBuildStore(b, x, p), t->esize);
  return used;
}

static LLVMValueRef tid_x(tree *t, LLVMBuilderRef b) {
  return ks_ir_call_intrinsic(t->m, b, "llvm.nvvm.read.ptx.sreg.tid.x", NULL,
                              0);
}

/* Deletes the plain instructions of bb that nothing uses, and those that
 * this leaves unused. */
static void sweep(LLVMBasicBlockRef bb) {
  for (int again = 1; again;) {
    again = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
      next = LLVMGetNextInstruction(i);
      if (!LLVMGetFirstUse(i) && !LLVMIsACallInst(i) && ks_shfl_plain(i) &&
          !LLVMIsATerminatorInst(i) &&
          LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) {
        LLVMInstructionEraseFromParent(i);
        again = 1;
      }
    }
  }
}

/* Deletes blocks that nothing branches to any more. */
static void delete_blocks(LLVMBasicBlockRef *dead, unsigned n) {
  for (unsigned k = 0; k < n; k++)
    LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(dead[k]));
  for (unsigned k = 0; k < n; k++) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(dead[k]); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetFirstUse(i))
        LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
  }
  for (unsigned k = 0; k < n; k++)
    LLVMDeleteBasicBlock(dead[k]);
}

/* Guarded steps k0..: the first step's head branches on tid < 32 to a new
 * block with the shuffles, then to the last step's join; the steps'
 * blocks go. What the joins between them compute for later code moves to
 * the head first. */
static const char *rewrite_guarded(tree *t, unsigned k0, int how,
                                   int drop_bar) {
  LLVMBasicBlockRef dead[3 * MAX_STEPS];
  unsigned nd = 0;
  for (unsigned k = k0; k < t->n; k++) {
    dead[nd++] = t->st[k].body;
    if (t->st[k].land)
      dead[nd++] = t->st[k].land;
    if (k + 1 < t->n)
      dead[nd++] = t->st[k].join;
  }
  LLVMBasicBlockRef h = t->st[k0].head, j = t->st[t->n - 1].join;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(h);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(t->m));
  LLVMPositionBuilderBefore(b, term);
  for (unsigned k = k0; k + 1 < t->n; k++) { /* plain, in order */
    LLVMBasicBlockRef jb = t->st[k].join;
    LLVMValueRef i = LLVMGetNextInstruction(LLVMGetFirstInstruction(jb));
    while (i && i != LLVMGetBasicBlockTerminator(jb)) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(b, i);
      i = next;
    }
  }
  LLVMValueRef tid = tid_x(t, b);
  LLVMValueRef w = LLVMBuildICmp(b, LLVMIntULT, tid, i32c(t, LANES), "");
  LLVMBasicBlockRef wb =
      LLVMInsertBasicBlockInContext(LLVMGetModuleContext(t->m), j, "ks.shfl");
  LLVMBuildCondBr(b, w, wb, j);
  LLVMInstructionEraseFromParent(term);
  LLVMPositionBuilderAtEnd(b, wb);
  const char *used = emit(t, b, tid, k0, how);
  LLVMBuildBr(b, j);
  LLVMDisposeBuilder(b);
  if (drop_bar)
    LLVMInstructionEraseFromParent(LLVMGetFirstInstruction(j));
  delete_blocks(dead, nd);
  sweep(h);
  return used;
}

/* Steps k0.. of a block's run: the shuffles where the first of them
 * loads, the steps' loads, operations and stores deleted. */
static const char *rewrite_run(tree *t, unsigned k0, int how) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(t->st[k0].st);
  LLVMValueRef at = LLVMGetFirstInstruction(bb);
  while (at != t->st[k0].la && at != t->st[k0].lb)
    at = LLVMGetNextInstruction(at);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(t->m));
  LLVMPositionBuilderBefore(b, at);
  const char *used = emit(t, b, tid_x(t, b), k0, how);
  LLVMDisposeBuilder(b);
  for (unsigned k = k0; k < t->n; k++) {
    LLVMInstructionEraseFromParent(t->st[k].st);
    LLVMInstructionEraseFromParent(t->st[k].op);
    LLVMInstructionEraseFromParent(t->st[k].la);
    LLVMInstructionEraseFromParent(t->st[k].lb);
  }
  sweep(bb); /* their addresses, now unused */
  return used;
}

/* ---- the stage --------------------------------------------------------- */

static const char *gname(tree *t) {
  size_t n = 0;
  const char *s = LLVMGetValueName2(t->g, &n);
  return n ? s : "a shared array";
}

/* Rewrites steps k0.. of t, or says why not; 1 when rewritten. */
static int rewrite(tree *t, unsigned k0, int guarded, int how,
                   const char **why) {
  int keep_bar = 0;
  step *last = &t->st[t->n - 1];
  LLVMValueRef from =
      guarded ? LLVMGetNextInstruction(LLVMGetFirstInstruction(last->join))
              : LLVMGetNextInstruction(last->st);
  if (!from)
    return 0;
  if ((*why = after(t, from, &keep_bar)) != NULL)
    return 0;
  char strides[48];
  size_t o = 0;
  for (unsigned k = k0; k < t->n; k++)
    o += (size_t)snprintf(strides + o, sizeof strides - o, "%s%u",
                          k > k0 ? ", " : "", t->st[k].delta);
  unsigned steps = t->n - k0;
  int drop = guarded && !keep_bar;
  unsigned bars = guarded ? steps - 1 + (unsigned)drop : 0;
  const char *used =
      guarded ? rewrite_guarded(t, k0, how, drop) : rewrite_run(t, k0, how);
  char gone[64] = "";
  if (bars)
    snprintf(gone, sizeof gone, "%u barrier%s gone; ", bars,
             bars == 1 ? "" : "s");
  ks_diag_explain(
      t->d, PASS,
      "%s: the tree's last %u steps (strides %s) in the first warp by %s: "
      "%s; %s%u shared loads and %u stores became one load and one "
      "store%s",
      gname(t), steps, strides, used,
      how == ANY_ORDER || strcmp(used, "redux.sync") == 0
          ? "integers, each of the 32 elements combined once by one "
            "associative and commutative operation: any order gives the "
            "same value"
          : "lane 0 combines the same operands in the same order as the "
            "tree",
      gone, 2 * steps, steps,
      guarded && keep_bar ? " (the barrier after them stays: the array is "
                            "used before the next)"
                          : "");
  return 1;
}

/* Is the array accessed in h between its last barrier (its start if it
 * has none) and its branch? Other warps would run that alongside the
 * shuffles, which no barrier separates from it any more. */
static int used_before(tree *t, LLVMBasicBlockRef h) {
  for (LLVMValueRef i = LLVMGetBasicBlockTerminator(h); i;
       i = LLVMGetPreviousInstruction(i)) {
    if (ks_ir_barrier_kind(i) == KS_BARRIER_BLOCK)
      return 0;
    LLVMValueRef p = LLVMIsALoadInst(i)    ? LLVMGetOperand(i, 0)
                     : LLVMIsAStoreInst(i) ? LLVMGetOperand(i, 1)
                                           : NULL;
    if ((p && ks_shfl_shared_base(p) == t->g) || LLVMIsAAtomicRMWInst(i) ||
        LLVMIsAAtomicCmpXchgInst(i))
      return 1;
  }
  return 0;
}

/* The steps of t that stay within the first warp, rewritten where the
 * simulation and what follows allow; else the reason explained. */
static void try_tree(tree *t, int guarded) {
  unsigned kw = t->n;
  while (kw > 0 && warp_only(t, kw - 1))
    kw--;
  const char *why = NULL, *late = NULL;
  if (kw == t->n) /* a tree whose warp steps, if any, are not these */
    return;
  if (!guarded &&
      (!ks_shfl_has_block_barrier(t->st[0].head) || !step_lanes(t, 0) ||
       memchr(t->lane, 0, LANES) || memchr(t->lane + LANES, 1, t->bx - LANES)))
    why = "the steps' block is not known to be entered by exactly the first "
          "warp's 32 threads";
  else if (escapes(t, t->g, 0))
    why = "its address goes elsewhere than to loads and stores";
  for (unsigned k0 = kw, pre = why != NULL; k0 < t->n && !pre; k0++) {
    int how = SAME;
    const char *w =
        guarded && used_before(t, t->st[k0].head)
            ? "the array is used between the last barrier and the steps"
            : simulate(t, k0, &how);
    int steps_ok = !w;
    if (steps_ok && rewrite(t, k0, guarded, how, &w))
      return;
    if (k0 == kw) /* the reason for the most steps */
      why = w ? w : "not understood";
    if (steps_ok && !late) /* the steps would do, what follows not */
      late = w ? w : "not understood";
  }
  if (late)
    why = late;
  ks_diag_explain(t->d, PASS, "declined %s: %s", gname(t), why);
}

/* The block along x when it is fixed, one-dimensional and at least a
 * warp; else 0 and why not. */
static unsigned block_x(const ks_spec *s, const char **why) {
  if (!s->block[0]) {
    *why = "block size not fixed (use --block)";
    return 0;
  }
  if (s->block[1] > 1 || s->block[2] > 1) {
    *why = "the block is not one-dimensional";
    return 0;
  }
  if (s->block[0] < LANES || s->block[0] > sizeof((tree *)0)->lane) {
    *why = "a block smaller than a warp";
    return 0;
  }
  return s->block[0];
}

int ks_pass_shfl(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  tree *t = calloc(1, sizeof *t);
  if (!t)
    return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  *t = (tree){.m = m, .fn = fn, .d = d, .dl = LLVMGetModuleDataLayout(m)};
  if (s->cpu)
    sscanf(s->cpu, "sm_%u", &t->sm);
  const char *why = NULL;
  t->bx = block_x(s, &why);
  /* the steps looked at: a tree's steps left by a rewrite (those that
   * span warps) are looked at once */
  LLVMValueRef done[4 * MAX_CAND];
  unsigned ndone = 0;
  while (ndone + MAX_STEPS <= 4 * MAX_CAND) {
    int guarded = ks_shfl_find_guarded(t, done, ndone);
    if (!guarded && !ks_shfl_find_warp(t, done, ndone))
      break;
    for (unsigned k = 0; k < t->n; k++)
      done[ndone++] = t->st[k].st;
    if (!t->bx)
      ks_diag_explain(d, PASS, "declined %s: %s", gname(t), why);
    else
      try_tree(t, guarded);
  }
  free(t);
  return 0;
}
