/*
 * loops.c - the loops pass: asks for full unrolling of the kernel's loops.
 *
 * Once values are bound, many loops have a constant trip count (a filter's
 * taps, a stencil's radius). LLVM fully unrolls such a loop only under a
 * size threshold tuned for CPUs (300 instructions at O3), which leaves a
 * 32-tap filter rolled. This pass adds llvm.loop.unroll.full to each loop
 * of the kernel, as `#pragma unroll` would: LLVM then unrolls every loop
 * whose trip count is known, up to its much larger pragma threshold, and
 * leaves loops with run-time trip counts alone. When that goes over the
 * register budget, the pipeline asks for a smaller unroll count instead
 * (the stage context's unroll, see pipeline.c and regpressure.c).
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "passes/smem_atomics.h"

static const char full[] = "llvm.loop.unroll.full";

/* Is a loop property an unroll directive (llvm.loop.unroll.*)? */
static int is_unroll(LLVMValueRef prop) {
  /* a property is a node; anything else (a string, a constant: the
   * verifier lets a malformed loop ID through) is no directive */
  if (!prop || !LLVMIsAMDNode(prop))
    return 0;
  unsigned nsub = LLVMGetMDNodeNumOperands(prop);
  if (nsub == 0 || nsub > 8)
    return 0;
  LLVMValueRef sub[8];
  LLVMGetMDNodeOperands(prop, sub);
  unsigned len = 0;
  const char *s = sub[0] ? LLVMGetMDString(sub[0], &len) : NULL;
  return s && len > 16 && memcmp(s, "llvm.loop.unroll", 16) == 0;
}

/* Is a loop property llvm.loop.unroll.disable? */
static int is_disable(LLVMValueRef prop) {
  static const char off[] = "llvm.loop.unroll.disable";
  if (!is_unroll(prop) || LLVMGetMDNodeNumOperands(prop) != 1)
    return 0;
  LLVMValueRef sub;
  LLVMGetMDNodeOperands(prop, &sub);
  unsigned len = 0;
  const char *s = LLVMGetMDString(sub, &len);
  return len == sizeof off - 1 && memcmp(s, off, len) == 0;
}

/* Do a loop ID's properties (ops[1..n)) hold an unroll directive already
 * (the template's own #pragma unroll N wins)? */
static int has_unroll_hint(LLVMValueRef *ops, unsigned n) {
  for (unsigned i = 1; i < n; i++)
    if (is_unroll(ops[i]))
      return 1;
  return 0;
}

/* The unroll directive for count (0: full, 1: disable). */
static LLVMMetadataRef directive(LLVMContextRef c, unsigned count) {
  static const char cnt[] = "llvm.loop.unroll.count";
  static const char off[] = "llvm.loop.unroll.disable";
  if (count == 0) {
    LLVMMetadataRef s = LLVMMDStringInContext2(c, full, sizeof full - 1);
    return LLVMMDNodeInContext2(c, &s, 1);
  }
  if (count == 1) {
    LLVMMetadataRef s = LLVMMDStringInContext2(c, off, sizeof off - 1);
    return LLVMMDNodeInContext2(c, &s, 1);
  }
  LLVMMetadataRef ops[2] = {
      LLVMMDStringInContext2(c, cnt, sizeof cnt - 1),
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), count, 0))};
  return LLVMMDNodeInContext2(c, ops, 2);
}

/* A new, self-referential loop ID: id's properties plus the directive. */
static int mark(LLVMContextRef c, LLVMValueRef br, unsigned kind,
                unsigned count) {
  LLVMValueRef id = LLVMGetMetadata(br, kind);
  unsigned n = LLVMGetMDNodeNumOperands(id);
  LLVMValueRef *ops = malloc((n ? n : 1) * sizeof *ops);
  LLVMMetadataRef *md = malloc((n + 2) * sizeof *md); /* self, n, directive */
  if (!ops || !md) {
    free(ops);
    free(md);
    return 1;
  }
  LLVMGetMDNodeOperands(id, ops);
  if (!has_unroll_hint(ops, n)) {
    LLVMMetadataRef self = LLVMTemporaryMDNode(c, NULL, 0);
    md[0] = self;
    for (unsigned i = 1; i < n; i++)
      md[i] = LLVMValueAsMetadata(ops[i]);
    md[n ? n : 1] = directive(c, count);
    LLVMMetadataRef node = LLVMMDNodeInContext2(c, md, (n ? n : 1) + 1);
    LLVMMetadataReplaceAllUsesWith(self, node); /* frees self */
    LLVMSetMetadata(br, kind, LLVMMetadataAsValue(c, node));
  }
  free(ops);
  free(md);
  return 0;
}

/* Does the block hold a barrier of any kind? */
static int block_syncs(LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (ks_ir_is_barrier(i))
      return 1;
  return 0;
}

/* Does the loop whose latch is block `latch` (a back edge of g) hold a
 * barrier? Its body: the blocks its header dominates from which a path
 * leads to the latch. mark is g->n bytes of scratch. */
static int loop_syncs(ks_cfg *g, unsigned latch, unsigned char *mark) {
  unsigned header = KS_CFG_NONE;
  for (unsigned k = 0; k < g->nback && header == KS_CFG_NONE; k++)
    if (g->back[k].from == latch)
      header = g->back[k].to;
  if (header == KS_CFG_NONE)
    return 0;
  ks_cfg_reaching(g, latch, mark);
  mark[latch] = 1;
  for (unsigned b = 0; b < g->n; b++)
    if (mark[b] && ks_cfg_dominates(g, header, b) && block_syncs(g->bb[b]))
      return 1;
  return 0;
}

/* ---- loops that full unrolling gives nothing ------------------------------
 *
 * Full unrolling pays where the copies fold something (the counter becomes
 * a constant in each: indices, addresses, private arrays in registers) or
 * give ptxas loads of several iterations to issue together. A loop whose
 * body makes no memory access and reads its counter only to step and test
 * it (mc_call's `for (p = 0; p < paths; p++)` of a random walk: logf,
 * cospif, expf on registers) gets neither: unrolled, it saves the
 * counter's add, compare and branch per iteration and costs the copies'
 * instructions, which do not fit the instruction cache (mc_call<128> with
 * paths bound to 256: 25,000 SASS instructions for its generic kernel's
 * 250, 1.23x its time on the H100). Such a loop, its body PLAIN_MIN
 * instructions or more (the step is then a few percent of it), gets no
 * unroll directive: LLVM's own limits decide, as for the generic kernel. */
enum { PLAIN_MIN = 32 };

/* Is v the loop's counter phi p or its step from p (add or sub of a
 * constant)? */
static int is_count(LLVMValueRef v, LLVMValueRef p) {
  if (v == p)
    return 1;
  if (!LLVMIsABinaryOperator(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  return (op == LLVMAdd || op == LLVMSub) && LLVMGetOperand(v, 0) == p &&
         LLVMIsAConstantInt(LLVMGetOperand(v, 1));
}

/* Is every use of v (p or its step) p itself, the step, or a compare that
 * only branches? */
static int only_counts(LLVMValueRef v, LLVMValueRef p) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef w = LLVMGetUser(u);
    if (w == p || (w != v && is_count(w, p)))
      continue;
    if (!LLVMIsAICmpInst(w))
      return 0;
    for (LLVMUseRef x = LLVMGetFirstUse(w); x; x = LLVMGetNextUse(x))
      if (!LLVMIsABranchInst(LLVMGetUser(x)))
        return 0;
  }
  return 1;
}

/* Does instruction i touch memory or synchronize (anything but arithmetic,
 * pure intrinsics and inline asm that only computes)? */
static int touches_memory(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMLoad:
  case LLVMStore:
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
  case LLVMVAArg:
  case LLVMAlloca:
  case LLVMInvoke:
  case LLVMCallBr:
    return 1;
  case LLVMCall:
    return !(ks_ir_asm_pure(i) || (ks_ir_pure_call(i) && !ks_ir_is_barrier(i) &&
                                   !ks_ir_warp_exchange(i)));
  default:
    return 0;
  }
}

/* The loop of back edge latch -> header in g: is it one that full
 * unrolling gives nothing (see above)? body is g->n bytes of scratch. */
static int plain_loop(ks_cfg *g, unsigned latch, unsigned char *body) {
  unsigned header = KS_CFG_NONE, nhead = 0;
  for (unsigned k = 0; k < g->nback; k++)
    if (g->back[k].from == latch)
      header = g->back[k].to;
  if (header == KS_CFG_NONE)
    return 0;
  ks_cfg_reaching(g, latch, body);
  body[latch] = 1;
  for (unsigned b = 0; b < g->n; b++)
    body[b] = body[b] && ks_cfg_dominates(g, header, b);
  for (unsigned k = 0; k < g->nback; k++)
    nhead += body[g->back[k].from];
  if (nhead != 1)
    return 0; /* a loop inside, or several latches */
  unsigned insts = 0, counters = 0;
  for (unsigned b = 0; b < g->n; b++) {
    if (!body[b])
      continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i;
         i = LLVMGetNextInstruction(i)) {
      if (touches_memory(i))
        return 0;
      insts += !LLVMIsAPHINode(i) && !LLVMIsADbgInfoIntrinsic(i);
    }
    /* the counters: the header's phis an exit's compare tests */
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
    if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t))
      continue;
    LLVMValueRef cmp = LLVMGetCondition(t);
    if (!LLVMIsAICmpInst(cmp))
      return 0; /* an exit this rule does not read */
    for (unsigned o = 0; o < 2; o++) {
      LLVMValueRef v = LLVMGetOperand(cmp, o), p = v;
      if (!LLVMIsAPHINode(p) && LLVMIsABinaryOperator(v))
        p = LLVMGetOperand(v, 0);
      if (!LLVMIsAPHINode(p) || LLVMGetInstructionParent(p) != g->bb[header] ||
          !is_count(v, p))
        continue;
      /* p and every step of it only count */
      if (!only_counts(p, p))
        return 0;
      for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u))
        if (is_count(LLVMGetUser(u), p) && LLVMGetUser(u) != p &&
            !only_counts(LLVMGetUser(u), p))
          return 0;
      counters++;
    }
  }
  return counters > 0 && insts >= PLAIN_MIN ? (int)insts : 0;
}

/* Is the guard's question (does a loop hold a barrier) asked of s? */
static int ask_sync(const ks_spec *s) {
  return s->unroll_sync || (s->block[0] && !s->maxnreg && !s->minctasm);
}

static void explain_plain(ks_diag *d, const ks_cfg *g, unsigned latch,
                          int insts) {
  unsigned header = latch;
  for (unsigned k = 0; k < g->nback; k++)
    if (g->back[k].from == latch)
      header = g->back[k].to;
  size_t len = 0;
  const char *name =
      LLVMGetValueName2(LLVMBasicBlockAsValue(g->bb[header]), &len);
  ks_diag_explain(d, "loops",
                  "loop %.*s left to LLVM's own unrolling limits: its %d "
                  "instructions touch no memory and use its counter only to "
                  "count, so copies would fold nothing and overlap no load",
                  len ? (int)len : 9, len ? name : "(unnamed)", insts);
}

int ks_loops_mark(LLVMModuleRef m, const ks_spec *s, unsigned count,
                  ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn)
    return ks_diag_fail(d, KS_ENOKERNEL, "loops: no kernel '%s'", s->kernel);
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
  ks_cfg g = {0};
  unsigned char *seen = NULL;
  int oom = 0;
  oom = ks_cfg_build(&g, fn) || !(seen = malloc(g.n ? g.n : 1));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !oom;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t || !LLVMGetMetadata(t, kind))
      continue;
    unsigned at = ks_cfg_index(&g, bb);
    int sync = ask_sync(s) && loop_syncs(&g, at, seen);
    d->sync_loop |= sync;
    int plain = count == 0 && !sync ? plain_loop(&g, at, seen) : 0;
    if (plain) {
      explain_plain(d, &g, at, plain);
      continue;
    }
    oom = mark(c, t, kind, sync && s->unroll_sync ? s->unroll_sync : count);
  }
  free(seen);
  ks_cfg_free(&g);
  return oom ? ks_diag_fail(d, KS_ENOMEM, "loops: out of memory") : 0;
}

/* Gives the loop whose latch is br a new loop ID with its properties but
 * unroll directives replaced by directive(count). 1: out of memory. */
static int redirect(LLVMValueRef br, unsigned count) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(br))));
  unsigned kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
  LLVMValueRef id = LLVMGetMetadata(br, kind);
  unsigned n = id ? LLVMGetMDNodeNumOperands(id) : 0;
  LLVMValueRef *ops = malloc((n ? n : 1) * sizeof *ops);
  LLVMMetadataRef *md = malloc((n + 2) * sizeof *md); /* self, n, directive */
  if (!ops || !md) {
    free(ops);
    free(md);
    return 1;
  }
  if (id)
    LLVMGetMDNodeOperands(id, ops);
  LLVMMetadataRef self = LLVMTemporaryMDNode(c, NULL, 0);
  unsigned k = 0;
  md[k++] = self;
  for (unsigned i = 1; i < n; i++)
    if (!is_unroll(ops[i])) /* other properties stay */
      md[k++] = LLVMValueAsMetadata(ops[i]);
  md[k++] = directive(c, count);
  LLVMMetadataRef node = LLVMMDNodeInContext2(c, md, k);
  LLVMMetadataReplaceAllUsesWith(self, node); /* frees self */
  LLVMSetMetadata(br, kind, LLVMMetadataAsValue(c, node));
  free(ops);
  free(md);
  return 0;
}

int ks_loops_keep_rolled(LLVMValueRef br) { return redirect(br, 1); }

/* Does br's loop ID (metadata kind) hold a directive that `is` says yes
 * to, and no other unroll directive (a contradicting one LLVM may read
 * first)? */
static int loop_says_only(LLVMValueRef br, unsigned kind,
                          int (*is)(LLVMValueRef)) {
  LLVMValueRef id = LLVMGetMetadata(br, kind);
  unsigned n = id && LLVMIsAMDNode(id) ? LLVMGetMDNodeNumOperands(id) : 0;
  if (n < 2 || n > 16)
    return 0;
  LLVMValueRef ops[16];
  LLVMGetMDNodeOperands(id, ops);
  int yes = 0;
  for (unsigned i = 1; i < n; i++) {
    if (is(ops[i]))
      yes = 1;
    else if (is_unroll(ops[i]))
      return 0;
  }
  return yes;
}

int ks_loops_rolled(LLVMValueRef br) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(br))));
  return loop_says_only(br, LLVMGetMDKindIDInContext(c, "llvm.loop", 9),
                        is_disable);
}

#define RELEASE "ks.unroll.release"

int ks_loops_keep_rolled_here(LLVMValueRef br) {
  if (ks_loops_keep_rolled(br))
    return 1;
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(br))));
  LLVMMetadataRef none = LLVMMDNodeInContext2(c, NULL, 0);
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(c, RELEASE, sizeof RELEASE - 1),
                  LLVMMetadataAsValue(c, none));
  return 0;
}

void ks_loops_release(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned rel = LLVMGetMDKindIDInContext(c, RELEASE, sizeof RELEASE - 1);
  unsigned loop = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
      if (t && LLVMGetMetadata(t, rel)) {
        LLVMSetMetadata(t, rel, NULL);
        LLVMSetMetadata(t, loop, NULL);
      }
    }
}

int ks_pass_loops(ks_stage_ctx *c) {
  if (ks_loops_counted(c->m, c->spec, c->diag) ||
      ks_loops_mark(c->m, c->spec, c->unroll, c->diag))
    return 1;
  /* the serial copy of tcoarsen comes from the body before unrolling */
  return c->unroll == 0 && c->tcoarsen &&
         ks_tcoarsen_keep_rolled(c->m, c->spec, c->diag);
}

/* ---- run-time unrolling of the loops binding left rolled ----------------
 *
 * A loop whose trip count stays unknown after binding is not unrolled in
 * full; LLVM's loop-unroll (the optimize stage) unrolls it at run time, by
 * 4 on NVPTX, where it can compute the trip count cheaply. Where its bound
 * is a run-time value (scan_coop's `i = lo + tid; i < hi; i += 256`, hi a
 * min of arguments), often not, in the generic kernel too, where NVVM
 * unrolls it by 4: such a loop is marked as below as well, with the block
 * fixed (on the H100 it changed no time: scan_coop's 1.12x against nvcc's
 * build is elsewhere; BENCHMARKS.md). And where bound values made
 * the trip count bounded (fir_filter's `k < 63 && k <= i`: umin(62, smax(0,
 * i)) + 1; a warp's `c = lane; c < 2048; c += 32`: (2047 - lane) / 32 + 1),
 * SCEV's cost model, written for CPUs where a division or a min is dear,
 * calls the trip count too expensive to compute and leaves the loop rolled,
 * while the generic loop, its bound an argument, was unrolled by LLVM or by
 * ptxas (whose loop recognition the bound's folded compare defeats: the
 * latch tests the increment before it, `iv < 2016`). A rolled loop of loads
 * waits out each load's latency in turn: the specialization ran 1.4-1.65x
 * the generic's time. Such a loop, still marked llvm.loop.unroll.full after
 * loop-unroll (LLVM neither unrolled it in full nor at run time), small,
 * with its only exit at its latch and no convergent call (a remainder loop
 * may not be made of one), is marked llvm.loop.unroll.count N, which
 * tells loop-unroll to compute the trip count whatever it costs, and the
 * unroller runs again: N = 4 (LLVM's run-time count for NVPTX) or 2 as the
 * unrolled body fits RUNTIME_BUDGET instructions, the size of the loop
 * that ptxas unrolls by 4 itself in the generic gemv_bf16<8>. */
/* A range analysis that knows the launch's block (%tid's bounds; a
 * coarsened kernel's real block is smaller: still within them). */
static ks_ranges *ranges_of(const ks_spec *s) {
  ks_ranges *R = calloc(1, sizeof *R);
  if (R && s->block[0])
    for (int i = 0; i < 3; i++)
      R->block[i] = s->block[i] ? s->block[i] : 1;
  return R;
}

enum { RUNTIME_BUDGET = 160, RUNTIME_MIN_TRIPS = 8 };

static int is_full(LLVMValueRef prop) {
  if (!is_unroll(prop) || LLVMGetMDNodeNumOperands(prop) != 1)
    return 0;
  LLVMValueRef sub;
  LLVMGetMDNodeOperands(prop, &sub);
  unsigned len = 0;
  const char *s = LLVMGetMDString(sub, &len);
  return len == sizeof full - 1 && memcmp(s, full, len) == 0;
}

/* Does br's loop ID say llvm.loop.unroll.full, and no other directive? */
static int asks_full(LLVMValueRef br, unsigned kind) {
  return loop_says_only(br, kind, is_full);
}

static int is_convergent(LLVMValueRef call) {
  unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
  LLVMValueRef f = LLVMGetCalledValue(call);
  return LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind) ||
         (f && LLVMIsAFunction(f) &&
          LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind));
}

/* Does the latch's condition v compare with a constant (an icmp, or the
 * and / or of such, as clang's `k < ntaps && k <= i` becomes): a bound a
 * bound value gave it? */
static int bounded_test(LLVMValueRef v, int depth) {
  if (LLVMIsAICmpInst(v))
    return LLVMIsAConstantInt(LLVMGetOperand(v, 0)) ||
           LLVMIsAConstantInt(LLVMGetOperand(v, 1));
  if (depth == 0 || !LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMSelect)
    return bounded_test(LLVMGetOperand(v, 0), depth - 1) ||
           bounded_test(LLVMGetOperand(v, 1), depth - 1) ||
           bounded_test(LLVMGetOperand(v, 2), depth - 1);
  if (op == LLVMAnd || op == LLVMOr)
    return bounded_test(LLVMGetOperand(v, 0), depth - 1) ||
           bounded_test(LLVMGetOperand(v, 1), depth - 1);
  return 0;
}

/* Is v a counter of the loop with header h and latch l that rises by a
 * constant: a phi of h whose value from l is itself plus a constant, or
 * that sum? (A grid-stride loop's step, the grid's size, is no constant:
 * its trip count needs a division, which LLVM declines in the generic
 * kernel too.) */
static int constant_step(LLVMValueRef v, LLVMBasicBlockRef h,
                         LLVMBasicBlockRef l) {
  LLVMValueRef p = v;
  if (LLVMIsABinaryOperator(v) && LLVMGetInstructionOpcode(v) == LLVMAdd)
    p = LLVMGetOperand(v, 0);
  if (!LLVMIsAPHINode(p) || LLVMGetInstructionParent(p) != h)
    return 0;
  for (unsigned e = 0; e < LLVMCountIncoming(p); e++) {
    LLVMValueRef n = LLVMGetIncomingValue(p, e);
    if (LLVMGetIncomingBlock(p, e) == l && LLVMIsABinaryOperator(n) &&
        LLVMGetInstructionOpcode(n) == LLVMAdd && LLVMGetOperand(n, 0) == p &&
        LLVMIsAConstantInt(LLVMGetOperand(n, 1)))
      return v == p || v == n;
  }
  return 0;
}

/* The most iterations a test `v < c` (v the counter p or p + s, p from a
 * start in [lo, hi]) lets the loop run: (c - lo) / s rounded up; 0 where
 * it does not tell. */
static ks_wide max_trips(ks_ranges *R, LLVMValueRef v, LLVMValueRef c,
                         LLVMBasicBlockRef l) {
  LLVMValueRef p = LLVMIsAPHINode(v) ? v : LLVMGetOperand(v, 0);
  ks_wide bound, step = 0;
  LLVMValueRef start = NULL;
  for (unsigned e = 0; e < LLVMCountIncoming(p); e++) {
    LLVMValueRef n = LLVMGetIncomingValue(p, e);
    if (LLVMGetIncomingBlock(p, e) == l)
      ks_range_const(LLVMGetOperand(n, 1), 0, &step);
    else
      start = n;
  }
  if (!start || step <= 0 || !ks_range_const(c, 0, &bound))
    return 0;
  ks_iv r = ks_range_of(R, start);
  if (r.lo < 0 || bound <= r.lo)
    return 0;
  return (bound - r.lo + step - 1) / step;
}

/* Does the latch's condition v hold a compare of such a counter with a
 * constant, and if so, how many iterations can it run at most (*trips, the
 * largest such compare's; 0 unknown)? */
static int stepped_test(ks_ranges *R, LLVMValueRef v, LLVMBasicBlockRef h,
                        LLVMBasicBlockRef l, int depth, ks_wide *trips) {
  if (LLVMIsAICmpInst(v)) {
    for (unsigned o = 0; o < 2; o++)
      if (constant_step(LLVMGetOperand(v, o), h, l)) {
        ks_wide t =
            max_trips(R, LLVMGetOperand(v, o), LLVMGetOperand(v, 1 - o), l);
        if (t > *trips)
          *trips = t;
        return 1;
      }
    return 0;
  }
  if (depth == 0 || !LLVMIsAInstruction(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  int n = op == LLVMSelect ? 3 : op == LLVMAnd || op == LLVMOr ? 2 : 0;
  int any = 0;
  for (int i = 0; i < n; i++)
    any |=
        stepped_test(R, LLVMGetOperand(v, (unsigned)i), h, l, depth - 1, trips);
  return any;
}

/* The blocks of back edge e's loop into body (g->n bytes): those its
 * header dominates from which its latch is reached. 0 when the header has
 * another latch (body then not filled). */
static int loop_body(ks_cfg *g, unsigned e, unsigned char *body) {
  unsigned latch = g->back[e].from, header = g->back[e].to;
  for (unsigned k = 0; k < g->nback; k++)
    if (k != e && g->back[k].to == header)
      return 0; /* several latches */
  ks_cfg_reaching(g, latch, body);
  body[latch] = 1;
  for (unsigned b = 0; b < g->n; b++)
    body[b] = body[b] && ks_cfg_dominates(g, header, b);
  return 1;
}

/* The run-time unroll count for back edge e of g (0: none); *bounded: the
 * latch tests a constant. body is g->n bytes of scratch: the loop's
 * blocks. */
static unsigned runtime_count(ks_ranges *R, ks_cfg *g, unsigned e,
                              unsigned char *body, int *bounded) {
  unsigned latch = g->back[e].from, header = g->back[e].to;
  LLVMValueRef br = LLVMGetBasicBlockTerminator(g->bb[latch]);
  ks_wide trips = 0;
  if (!LLVMIsABranchInst(br) || !LLVMIsConditional(br) ||
      !stepped_test(R, LLVMGetCondition(br), g->bb[header], g->bb[latch], 3,
                    &trips))
    return 0; /* as in the generic kernel: see constant_step */
  /* LLVM's own rule for a loop of a few iterations: no run-time unroll
   * (its remainder would run as often as its body). A bound that is no
   * constant (trips 0: scan_coop's `i < hi`, hi from the arguments) tells
   * nothing: LLVM declines to compute such a trip count too (its
   * expansion, a division of a min, is over SCEV's budget), in the
   * generic kernel as well, where NVVM unrolls the loop by 4. */
  *bounded = bounded_test(LLVMGetCondition(br), 3);
  if (*bounded && trips < RUNTIME_MIN_TRIPS)
    return 0;
  if (!loop_body(g, e, body))
    return 0;
  for (unsigned k = 0; k < g->nback; k++)
    if (k != e && body[g->back[k].from])
      return 0; /* a loop inside: not small */
  unsigned insts = 0, loads = 0;
  for (unsigned b = 0; b < g->n; b++) {
    if (!body[b])
      continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
    unsigned nsucc = t ? LLVMGetNumSuccessors(t) : 0;
    for (unsigned i = 0; i < nsucc; i++) {
      unsigned to = ks_cfg_index(g, LLVMGetSuccessor(t, i));
      if ((to == KS_CFG_NONE || !body[to]) && b != latch)
        return 0; /* an exit before the latch */
    }
    for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsAPHINode(i) || LLVMIsADbgInfoIntrinsic(i))
        continue;
      if (LLVMIsACallInst(i) && is_convergent(i))
        return 0;
      loads += LLVMIsALoadInst(i) ||
               (LLVMIsACallInst(i) &&
                !strncmp(ks_ir_callee_name(i), "llvm.nvvm.ldg.", 14));
      insts++;
    }
  }
  if (!loads)
    return 0; /* what it gives is loads in flight */
  return insts * 4 <= RUNTIME_BUDGET ? 4 : insts * 2 <= RUNTIME_BUDGET ? 2 : 0;
}

int ks_loops_runtime(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  /* the generic kernel's loops are LLVM's and ptxas's to unroll; a retry
   * of the guard or regpressure chose its counts */
  if (!fn || (!s->nvalues && !s->block[0]) || s->unroll || s->unroll_sync)
    return 0;
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
  ks_cfg g = {0};
  unsigned char *body = NULL;
  ks_ranges *R = ranges_of(s);
  if (!R || ks_cfg_build(&g, fn) || !(body = malloc(g.n ? g.n : 1))) {
    ks_cfg_free(&g);
    free(body);
    free(R);
    ks_diag_fail(d, KS_ENOMEM, "optimize: out of memory");
    return -1;
  }
  int marked = 0;
  for (unsigned e = 0; e < g.nback && marked >= 0; e++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g.bb[g.back[e].from]);
    int bounded = 0;
    unsigned n =
        t && asks_full(t, kind) ? runtime_count(R, &g, e, body, &bounded) : 0;
    if (!n)
      continue;
    if (redirect(t, n)) {
      ks_diag_fail(d, KS_ENOMEM, "optimize: out of memory");
      marked = -1;
      break;
    }
    size_t len = 0;
    const char *name =
        LLVMGetValueName2(LLVMBasicBlockAsValue(g.bb[g.back[e].to]), &len);
    ks_diag_explain(d, "optimize",
                    "loop %.*s: its trip count %s, LLVM left it rolled: "
                    "unrolled by %u at run time",
                    len ? (int)len : 9, len ? name : "(unnamed)",
                    bounded ? "bounded but not constant" : "not constant", n);
    marked++;
  }
  free(body);
  free(R);
  ks_cfg_free(&g);
  return marked;
}

/* ---- the latch's test on the incremented counter -------------------------
 *
 * With its bound a constant, instcombine folds a loop's `i + S < C` into a
 * test of the counter before the increment, `i < C - S` (gemv_bf16<8>
 * bound: `c < 2016` for `c + 32 < 2048`). ptxas then keeps both values of
 * the counter alive across the back edge and does not unroll the loop, as
 * it does the generic kernel's, whose bound is an argument and whose test
 * is on the incremented counter: the loop's loads are no longer issued
 * four iterations at a time (1.4x the generic's time). So the latch's
 * test is put back on the incremented counter, `i.next < C + S`, where
 * that is the same test: the counter rises by S > 0 from a start whose
 * range is known, so that no value the test sees, nor its increment, wraps
 * in the test's signedness; and where the loop may run 8 times or more. */

/* The range of the values a loop's test of `iv p c` (p ult, ule, slt, sle:
 * the loop goes on while it holds) can see, plus the step: the largest is
 * the start's or the last value below c plus s. 0 where the incremented
 * value may wrap in p's signedness. */
static int no_wrap(ks_iv start, ks_wide c, ks_wide s, LLVMIntPredicate p,
                   unsigned w) {
  int is_unsigned = p == LLVMIntULT || p == LLVMIntULE;
  int strict = p == LLVMIntULT || p == LLVMIntSLT;
  ks_wide max = is_unsigned ? ((ks_wide)1 << w) - 1 : ks_iv_smax(w);
  if (is_unsigned && start.lo < 0)
    return 0; /* the signed view says nothing of the unsigned */
  ks_wide top = c + s - strict; /* the last value that went on, plus s */
  if (start.hi > top)
    top = start.hi;
  return top + s <= max;
}

static int continues(LLVMIntPredicate p) {
  return p == LLVMIntULT || p == LLVMIntULE || p == LLVMIntSLT ||
         p == LLVMIntSLE;
}

/* The latch br of a loop with header h: its test put on the incremented
 * counter where that is the same test. 1 when it was. */
static int latch_next(ks_ranges *R, LLVMValueRef br, LLVMBasicBlockRef h) {
  if (!LLVMIsConditional(br) || LLVMGetNumSuccessors(br) != 2)
    return 0;
  LLVMValueRef cmp = LLVMGetCondition(br);
  if (!LLVMIsAICmpInst(cmp) ||
      LLVMGetInstructionParent(cmp) != LLVMGetInstructionParent(br))
    return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(cmp);
  int on_true = LLVMGetSuccessor(br, 0) == h;
  if (!on_true && LLVMGetSuccessor(br, 1) != h)
    return 0;
  if (!on_true)
    p = ks_ir_icmp_inverse(p);
  LLVMValueRef iv = LLVMGetOperand(cmp, 0), bound = LLVMGetOperand(cmp, 1);
  unsigned w = ks_range_width(iv);
  int is_unsigned = p == LLVMIntULT || p == LLVMIntULE;
  ks_wide c, s;
  if (!continues(p) || w == 0 || w > 64 || !LLVMIsAPHINode(iv) ||
      LLVMGetInstructionParent(iv) != h || LLVMCountIncoming(iv) != 2 ||
      !ks_range_const(bound, is_unsigned, &c))
    return 0;
  LLVMBasicBlockRef latch = LLVMGetInstructionParent(br);
  unsigned from = LLVMGetIncomingBlock(iv, 0) == latch ? 0 : 1;
  LLVMValueRef next = LLVMGetIncomingValue(iv, from);
  LLVMValueRef start = LLVMGetIncomingValue(iv, 1 - from);
  if (LLVMGetIncomingBlock(iv, from) != latch ||
      LLVMGetIncomingBlock(iv, 1 - from) == latch ||
      !LLVMIsABinaryOperator(next) || LLVMGetInstructionOpcode(next) != LLVMAdd)
    return 0;
  int k = LLVMGetOperand(next, 0) == iv ? 1 : 0;
  if (LLVMGetOperand(next, 1 - k) != iv ||
      !ks_range_const(LLVMGetOperand(next, (unsigned)k), 0, &s) || s <= 0)
    return 0;
  ks_iv r = ks_range_of(R, start);
  /* a loop of fewer than 8 iterations (LLVM's own bound for unrolling at
   * run time) is left as it is: ptxas's copies of it would add code, and
   * where the kernel's unrolled outer loops hold many of them, much */
  if (!no_wrap(r, c, s, p, w) || r.lo < 0 || c <= r.lo ||
      (c - r.lo + s - 1) / s < RUNTIME_MIN_TRIPS)
    return 0;
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(iv)));
  LLVMPositionBuilderBefore(b, br);
  LLVMValueRef cs =
      LLVMConstInt(LLVMTypeOf(iv), (unsigned long long)(c + s), 0);
  /* the branch's edges stay: its test says what the old one said, under
   * its name where nothing else uses the old one */
  size_t len = 0;
  const char *old = LLVMGetValueName2(cmp, &len);
  char name[64] = "";
  int alone = !LLVMGetNextUse(LLVMGetFirstUse(cmp));
  if (alone && len < sizeof name) {
    memcpy(name, old, len);
    name[len] = '\0';
    LLVMSetValueName2(cmp, "", 0);
  }
  LLVMValueRef test =
      LLVMBuildICmp(b, on_true ? p : ks_ir_icmp_inverse(p), next, cs, name);
  LLVMDisposeBuilder(b);
  LLVMSetCondition(br, test);
  if (!LLVMGetFirstUse(cmp))
    LLVMInstructionEraseFromParent(cmp);
  return 1;
}

int ks_loops_latch_next(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  ks_ranges *R = NULL;
  int n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    ks_cfg g = {0};
    if (ks_cfg_build(&g, f) || (g.nback && !R && !(R = ranges_of(s)))) {
      ks_cfg_free(&g);
      free(R);
      return ks_diag_fail(d, KS_ENOMEM, "lower: out of memory");
    }
    for (unsigned e = 0; e < g.nback; e++) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(g.bb[g.back[e].from]);
      R->nm = 0; /* a test rewritten changes no range, but start afresh */
      R->depth = 0;
      n += t && LLVMIsABranchInst(t) && latch_next(R, t, g.bb[g.back[e].to]);
    }
    ks_cfg_free(&g);
  }
  free(R);
  if (n)
    ks_diag_explain(d, "lower",
                    "%d loop%s tested on the incremented counter (i + s < c, "
                    "not i < c - s), as ptxas unrolls them",
                    n, n == 1 ? "" : "s");
  return 0;
}

/* ---- a trip count the same in every thread ---------------------------------
 *
 * A block-stride loop over a bound size, `for (c = tid; c < 1024; c +=
 * 256)` with a block of 256 (softmax_rows<256>), runs 4 times in every
 * thread, but to SCEV, which knows nothing of the block, its trip count is
 * a function of %tid, ceil((1024 - tid) / 256): loop-unroll leaves it
 * rolled. Too short for run-time unrolling (ks_loops_runtime) and for the
 * latch's test on the incremented counter (ks_loops_latch_next), it stays
 * rolled in ptxas too, which unrolls the generic kernel's loop (its bound
 * an argument) by 4: one load in flight where the generic has four (the
 * three row loops of softmax_rows<256>: 3 loads in the SASS against the
 * generic's 15). So where the counter's start has a known range over which
 * the number of iterations does not change, the loop's exit test becomes a
 * test of a new counter against that number: the same test in every
 * thread, a constant trip count to SCEV, and the full unrolling the loops
 * stage asks for takes the loop. Only loops of fewer than
 * RUNTIME_MIN_TRIPS iterations: the longer ones are those two rules'. */

/* p with its operands swapped: `C p v` is `v swapped(p) C`. */
static LLVMIntPredicate swapped(LLVMIntPredicate p) {
  switch (p) {
  case LLVMIntULT:
    return LLVMIntUGT;
  case LLVMIntUGT:
    return LLVMIntULT;
  case LLVMIntULE:
    return LLVMIntUGE;
  case LLVMIntUGE:
    return LLVMIntULE;
  case LLVMIntSLT:
    return LLVMIntSGT;
  case LLVMIntSGT:
    return LLVMIntSLT;
  case LLVMIntSLE:
    return LLVMIntSGE;
  case LLVMIntSGE:
    return LLVMIntSLE;
  default:
    return p;
  }
}

/* A loop's exit test: the compare, the counter p, its start and step, the
 * offset of the value tested (0: p, s: p + s), the bound and the
 * predicate under which the loop goes on (v p c). */
typedef struct exit_test {
  LLVMValueRef br, cmp, p, start;
  ks_wide s, off, c;
  LLVMIntPredicate pred;
  int cont; /* the successor that stays in the loop */
} exit_test;

/* Reads the exit test of the loop with header h and latch l at the end of
 * block bb (h or l). 1 when it is one this rule reads. */
static int read_test(LLVMBasicBlockRef bb, LLVMBasicBlockRef h,
                     LLVMBasicBlockRef l, const ks_cfg *g,
                     const unsigned char *body, exit_test *x) {
  x->br = LLVMGetBasicBlockTerminator(bb);
  if (!x->br || !LLVMIsABranchInst(x->br) || !LLVMIsConditional(x->br))
    return 0;
  unsigned in0 = ks_cfg_index(g, LLVMGetSuccessor(x->br, 0)),
           in1 = ks_cfg_index(g, LLVMGetSuccessor(x->br, 1));
  int stay0 = in0 != KS_CFG_NONE && body[in0],
      stay1 = in1 != KS_CFG_NONE && body[in1];
  x->cmp = LLVMGetCondition(x->br);
  if (stay0 == stay1 || !LLVMIsAICmpInst(x->cmp))
    return 0;
  x->cont = stay0 ? 0 : 1;
  x->pred = LLVMGetICmpPredicate(x->cmp);
  if (x->cont)
    x->pred = ks_ir_icmp_inverse(x->pred);
  LLVMValueRef v = LLVMGetOperand(x->cmp, 0), c = LLVMGetOperand(x->cmp, 1);
  if (!constant_step(v, h, l)) {
    LLVMValueRef t = v;
    v = c, c = t;
    x->pred = swapped(x->pred);
  }
  int is_unsigned = x->pred == LLVMIntULT || x->pred == LLVMIntULE;
  if (!continues(x->pred) || !constant_step(v, h, l) ||
      !ks_range_const(c, is_unsigned, &x->c))
    return 0;
  x->p = LLVMIsAPHINode(v) ? v : LLVMGetOperand(v, 0);
  if (LLVMCountIncoming(x->p) != 2)
    return 0;
  unsigned from = LLVMGetIncomingBlock(x->p, 0) == l ? 0 : 1;
  LLVMValueRef next = LLVMGetIncomingValue(x->p, from);
  x->start = LLVMGetIncomingValue(x->p, 1 - from);
  if (LLVMGetIncomingBlock(x->p, 1 - from) == l ||
      !ks_range_const(LLVMGetOperand(next, 1), 0, &x->s) || x->s <= 0)
    return 0;
  x->off = v == x->p ? 0 : x->s;
  return 1;
}

/* How many times the test holds before it first fails, for a start x:
 * the k >= 0 with x + off + k s below the bound. */
static ks_wide holds(const exit_test *t, ks_wide x) {
  int strict = t->pred == LLVMIntULT || t->pred == LLVMIntSLT;
  ks_wide end = t->c + !strict, first = x + t->off;
  return first >= end ? 0 : (end - first + t->s - 1) / t->s;
}

/* The same number of holds n for every start of t (its range known, no
 * value wrapping), with 0 < n < RUNTIME_MIN_TRIPS; else 0. */
static ks_wide same_holds(ks_ranges *R, const exit_test *t) {
  unsigned w = ks_range_width(t->p);
  if (w == 0 || w > 64)
    return 0;
  ks_iv r = ks_range_of(R, t->start);
  /* from a constant start SCEV counts the trips itself */
  if (LLVMIsAConstantInt(t->start) || !no_wrap(r, t->c, t->s, t->pred, w))
    return 0;
  ks_wide n = holds(t, r.lo);
  return n > 0 && n < RUNTIME_MIN_TRIPS && holds(t, r.hi) == n ? n : 0;
}

/* Replaces t's test by k < n, k a new counter of the loop with header h
 * and latch l (0 on entry, one more each time round). */
static void count_test(const exit_test *t, LLVMBasicBlockRef h,
                       LLVMBasicBlockRef l, ks_wide n) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(t->p));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(h));
  LLVMValueRef k = LLVMBuildPhi(b, i32, "ks.trip");
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(l));
  LLVMValueRef next = LLVMBuildNUWAdd(b, k, LLVMConstInt(i32, 1, 0), "");
  LLVMSetNSW(next, 1);
  for (unsigned e = 0; e < LLVMCountIncoming(t->p); e++) {
    LLVMBasicBlockRef from = LLVMGetIncomingBlock(t->p, e);
    LLVMValueRef v = from == l ? next : LLVMConstInt(i32, 0, 0);
    LLVMAddIncoming(k, &v, &from, 1);
  }
  LLVMPositionBuilderBefore(b, t->br);
  LLVMValueRef test =
      LLVMBuildICmp(b, t->cont ? LLVMIntUGE : LLVMIntULT, k,
                    LLVMConstInt(i32, (unsigned long long)n, 0), "");
  LLVMDisposeBuilder(b);
  LLVMSetCondition(t->br, test);
  if (!LLVMGetFirstUse(t->cmp))
    LLVMInstructionEraseFromParent(t->cmp);
}

/* The loop of back edge e of g, its test on a counter of its own where
 * its trip count is the same in every thread (see above): the number of
 * iterations, or 0. body is g->n bytes of scratch. */
static ks_wide counted_loop(ks_ranges *R, ks_cfg *g, unsigned e,
                            unsigned char *body) {
  unsigned latch = g->back[e].from, header = g->back[e].to;
  if (!loop_body(g, e, body))
    return 0;
  LLVMBasicBlockRef h = g->bb[header], l = g->bb[latch];
  exit_test t;
  for (int at = 0; at < 2; at++) {
    LLVMBasicBlockRef bb = at ? l : h;
    if (at && l == h)
      break;
    R->nm = 0;
    R->depth = 0;
    ks_wide n = 0;
    if (read_test(bb, h, l, g, body, &t) && (n = same_holds(R, &t))) {
      count_test(&t, h, l, n);
      /* tested in the latch after the body: one run more than it holds */
      return bb == l ? n + 1 : n;
    }
  }
  return 0;
}

int ks_loops_counted(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  /* the generic kernel's loops are LLVM's and ptxas's to unroll */
  if (!fn || LLVMIsDeclaration(fn) || (!s->nvalues && !s->block[0]))
    return 0;
  ks_cfg g = {0};
  unsigned char *body = NULL;
  ks_ranges *R = ranges_of(s);
  int rc = 0;
  if (!R || ks_cfg_build(&g, fn) || !(body = malloc(g.n ? g.n : 1)))
    rc = ks_diag_fail(d, KS_ENOMEM, "loops: out of memory");
  for (unsigned e = 0; e < g.nback && !rc; e++) {
    ks_wide n = counted_loop(R, &g, e, body);
    if (!n)
      continue;
    size_t len = 0;
    const char *name =
        LLVMGetValueName2(LLVMBasicBlockAsValue(g.bb[g.back[e].to]), &len);
    ks_diag_explain(d, "loops",
                    "loop %.*s runs %d times in every thread of the block: "
                    "tested on a counter of its own, a constant trip count "
                    "for full unrolling",
                    len ? (int)len : 9, len ? name : "(unnamed)", (int)n);
  }
  free(body);
  free(R);
  ks_cfg_free(&g);
  return rc;
}
