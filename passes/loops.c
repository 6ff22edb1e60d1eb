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

#include "passes/ks_passes.h"

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

int ks_loops_keep_rolled(LLVMValueRef br) {
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
  md[k++] = directive(c, 1);
  LLVMMetadataRef node = LLVMMDNodeInContext2(c, md, k);
  LLVMMetadataReplaceAllUsesWith(self, node); /* frees self */
  LLVMSetMetadata(br, kind, LLVMMetadataAsValue(c, node));
  free(ops);
  free(md);
  return 0;
}

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
