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

/* Is the guard's question (does a loop hold a barrier) asked of s? */
static int ask_sync(const ks_spec *s) {
  return s->unroll_sync || (s->block[0] && !s->maxnreg && !s->minctasm);
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
  if (ask_sync(s))
    oom = ks_cfg_build(&g, fn) || !(seen = malloc(g.n ? g.n : 1));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !oom;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t || !LLVMGetMetadata(t, kind))
      continue;
    int sync = seen && loop_syncs(&g, ks_cfg_index(&g, bb), seen);
    d->sync_loop |= sync;
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

int ks_loops_rolled(LLVMValueRef br) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(br))));
  LLVMValueRef id =
      LLVMGetMetadata(br, LLVMGetMDKindIDInContext(c, "llvm.loop", 9));
  unsigned n = id && LLVMIsAMDNode(id) ? LLVMGetMDNodeNumOperands(id) : 0;
  if (n < 2 || n > 16)
    return 0;
  LLVMValueRef ops[16];
  LLVMGetMDNodeOperands(id, ops);
  int off = 0;
  for (unsigned i = 1; i < n; i++) {
    if (is_disable(ops[i]))
      off = 1;
    else if (is_unroll(ops[i]))
      return 0; /* a contradicting directive: LLVM may read it first */
  }
  return off;
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
  if (ks_loops_mark(c->m, c->spec, c->unroll, c->diag))
    return 1;
  /* the serial copy of tcoarsen comes from the body before unrolling */
  return c->unroll == 0 && c->tcoarsen &&
         ks_tcoarsen_keep_rolled(c->m, c->spec, c->diag);
}

/* ---- run-time unrolling of the loops binding left rolled ----------------
 *
 * A loop whose trip count stays unknown after binding is not unrolled in
 * full; LLVM's loop-unroll (the optimize stage) unrolls it at run time, by
 * 4 on NVPTX, as it does the generic kernel's. But where bound values made
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
enum { RUNTIME_BUDGET = 160 };

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
  LLVMValueRef id = LLVMGetMetadata(br, kind);
  unsigned n = id && LLVMIsAMDNode(id) ? LLVMGetMDNodeNumOperands(id) : 0;
  if (n < 2 || n > 16)
    return 0;
  LLVMValueRef ops[16];
  LLVMGetMDNodeOperands(id, ops);
  int yes = 0;
  for (unsigned i = 1; i < n; i++) {
    if (is_full(ops[i]))
      yes = 1;
    else if (is_unroll(ops[i]))
      return 0;
  }
  return yes;
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

/* The run-time unroll count for back edge e of g (0: none). body is g->n
 * bytes of scratch: the loop's blocks. */
static unsigned runtime_count(ks_cfg *g, unsigned e, unsigned char *body) {
  unsigned latch = g->back[e].from, header = g->back[e].to;
  LLVMValueRef br = LLVMGetBasicBlockTerminator(g->bb[latch]);
  if (!LLVMIsABranchInst(br) || !LLVMIsConditional(br) ||
      !bounded_test(LLVMGetCondition(br), 3))
    return 0; /* its bound is no bound value's: as in the generic kernel */
  for (unsigned k = 0; k < g->nback; k++)
    if (k != e && g->back[k].to == header)
      return 0; /* several latches */
  ks_cfg_reaching(g, latch, body);
  body[latch] = 1;
  for (unsigned b = 0; b < g->n; b++)
    body[b] = body[b] && ks_cfg_dominates(g, header, b);
  for (unsigned k = 0; k < g->nback; k++)
    if (k != e && body[g->back[k].from])
      return 0; /* a loop inside: not small */
  unsigned insts = 0;
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
      insts++;
    }
  }
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
  if (ks_cfg_build(&g, fn) || !(body = malloc(g.n ? g.n : 1))) {
    ks_cfg_free(&g);
    free(body);
    ks_diag_fail(d, KS_ENOMEM, "optimize: out of memory");
    return -1;
  }
  int marked = 0;
  for (unsigned e = 0; e < g.nback && marked >= 0; e++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g.bb[g.back[e].from]);
    unsigned n = t && asks_full(t, kind) ? runtime_count(&g, e, body) : 0;
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
                    "loop %.*s: its trip count bounded but not constant, "
                    "LLVM left it rolled: unrolled by %u at run time",
                    len ? (int)len : 9, len ? name : "(unnamed)", n);
    marked++;
  }
  free(body);
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
 * in the test's signedness. */

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
      !ks_range_const(LLVMGetOperand(next, (unsigned)k), 0, &s) || s <= 0 ||
      !no_wrap(ks_range_of(R, start), c, s, p, w))
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

int ks_loops_latch_next(LLVMModuleRef m, ks_diag *d) {
  ks_ranges *R = NULL;
  int n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    ks_cfg g = {0};
    if (ks_cfg_build(&g, f) || (g.nback && !R && !(R = calloc(1, sizeof *R)))) {
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
