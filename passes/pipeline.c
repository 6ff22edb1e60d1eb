/*
 * pipeline.c - the one place where the order of the passes is written.
 *
 *   input ─> inline ─> bind ─> canonicalize ─> loops ─> unroll ─> optimize
 *   (as     (always-  (ours:   (sroa, cse,     (ours:   (full     (O3's
 *   loaded) inline,   values,  instcombine,    ask for  unroll of useful
 *           inliner)  block,   simplifycfg)    full     loops now function
 *                     bounds)                  unroll)  bounded,  passes)
 *                                                       then sroa)
 *
 * The unroll stage ends with SROA: private arrays whose indices unrolling
 * made constant become registers before the optional stages look at the
 * kernel (tcoarsen and gcoarsen decline local memory; smem_promote moves
 * the arrays SROA leaves, indexed by data, to shared memory).
 *
 * Between unroll and optimize run the optional stages (--no-pass):
 * tcoarsen (each real thread runs K threads of the launch's block),
 * unclamp (a copy of the busiest block without its clamps, for the blocks
 * of the grid away from the edges),
 * coarsen (16-byte loads in grid-stride loops), gcoarsen (each real block
 * runs several blocks of the user's grid, where the kernel only adds
 * the blocks' values), smem_promote and const_promote. tcoarsen comes after
 * unroll, whose straight-line code it copies per virtual thread, and before
 * smem_promote, so that window staging sees the coarsened loads; its serial
 * copy (for the threads at the end of the data) comes from a clone of the
 * kernel that the loops stage takes for it and keeps rolled through unroll
 * (ks_tcoarsen_keep_rolled): a small loop for the later stages and codegen,
 * not a fifth copy of the unrolled body. coarsen comes before smem_promote
 * because it may only move the updates of global atomics between blocks;
 * smem_promote then privatizes the coarsened loop's atomics.
 *
 * After the optimize stage, minmax (optional) turns the clamps that
 * instcombine leaves as a compare and a select into min and max (after
 * it, as instcombine has no rule that would turn them back). Then shfl
 * (optional): the steps of a shared-memory tree reduction within the
 * first warp become warp shuffles; after the optimize stage, whose
 * unrolling, folding of the guards (tid < s && tid + s < BLOCK) and
 * instcombine leave each step a branch, two loads, an operation and a
 * store that it can read lane by lane.
 *
 * The last stage, regpressure (optional), estimates the registers the final
 * IR needs against the budget of the launch bounds. When full unrolling
 * went over twice the budget, the stages from loops on run again on a copy
 * of the module taken before loops, with smaller unroll counts
 * (retry_unroll), as they do when full unrolling made the kernel larger
 * than a cap (cap_unroll, right after the unroll stage); switching
 * regpressure off (--no-pass regpressure) keeps full unrolling. After
 * codegen, jit/codegen/guard.c checks a block
 * synchronous kernel against its generic form with ptxas's real figures
 * and runs the pipeline again with its loops that hold a barrier left
 * rolled (ks_spec.unroll_sync) or none unrolled (ks_spec.unroll) where
 * full unrolling cost occupancy or spilled.
 *
 * The canonicalize stage ends with the toolchain guard (redux_guard.c):
 * the first point where a warp reduction's mask and value are folded
 * enough to tell a toolchain's swap.
 *
 * Device library calls (libdevice's __nv_* functions, and the math
 * intrinsics NVPTX cannot select, mapped to them) are linked by the
 * libdevice stage after inline, so once per prepared template, and kept
 * out of line; the math stage right after bind answers their
 * __nvvm_reflect queries for the request (arch, flush to zero, precision),
 * applies its floating-point modes and inlines them (libdevice.c, math.c).
 * Both do nothing to a kernel that calls no math and asks for no mode.
 * What the math stage does there depends on the kernel, the target and the
 * modes alone, so jit/ runs it ahead of bind, once per prepared template,
 * kernel and modes (ks_pipeline_math_ahead), and specializes copies of
 * that: the stage then only gives its explanation again and applies the
 * modes to what bind and tex made.
 *
 * The tex stage right after bind inlines the dialect's sampling functions
 * (kspec_device.h's ks_sample2d, ...), which stay out of line until then
 * so that it can find every call (tex.c); after bind, so that a filter or
 * a size the request bound is a constant in what it inlines.
 *
 * jit/ then emits PTX from the result. Inlining comes before bind so that
 * the %ntid reads of helper functions land in the kernel, where a fixed
 * block size can replace them.
 *
 * Each stage is a row of `stages` below: its name, its function and
 * whether --no-pass may switch it off. The function is a pass of the
 * usual signature (module, request, diagnostics) or, for a stage that needs
 * more, one that takes the stage's context (ks_stage_ctx: the target
 * machine, the unroll count, whether names are kept, what else runs).
 * run_stage does the same for every row: it times the stage, skips it when
 * switched off, runs it, verifies the module (with KSPEC_VERIFY_STAGES set
 * in the environment; always in debug builds) and keeps the IR when a dump
 * of this stage was asked for. LLVM's own passes run only through
 * ks_pipeline_llvm, here. Why the stages and LLVM's pass lists are as they
 * are, with the measurements: BENCHMARKS.md, "Why the pipeline is as it
 * is".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "ir/ks_ir.h"
#include "passes/ks_passes.h"

/* The optimize stage: a subset of default<O3>'s function passes, in O3's
 * order. After full unrolling, O3 spent most of its time in passes with
 * nothing left to do on a kernel (inliner and IPO, GVN, loop and SLP
 * vectorizers, eight instcombines); this list gives the same or better PTX
 * for every built-in template, specialized and generic, in a fraction of
 * the time. What each group is there for:
 *   nvvm-reflect, nvvm-intr-range  what the NVPTX target adds to O3 (value
 *                         ranges of %tid and friends)
 *   simplifycfg .. sccp, instcombine  in this order, or the edge clamps of
 *                         sepfilter_cols are not folded
 *   constraint-elimination, correlated-propagation  bounds implied by the
 *                         kernel's own `x < w` checks
 *   early-cse<memssa>     in place of GVN: same PTX, half the stage's time
 *   loop-mssa(licm), loop-unroll<O3>  loops still there (unbound trip
 *                         counts: generic kernels) are hoisted and unrolled
 *                         at run time as O3 does
 *   cgscc(function-attrs)  readonly on pointer arguments: with __restrict__
 *                         that is what gives ld.global.nc
 *   globaldce             helpers the inliner left behind
 *   sroa, div-rem-pairs   local arrays whose indices unrolling made
 *                         constant; x % y next to x / y (a division saved)
 * O3's second sccp, bdce, adce and dse are left out: over
 * tools/ptx_identity.sh's grid they changed nothing but reduce_sum's IR
 * (bdce), which the later passes make up for, and without them the PTX of
 * the whole grid is the same, sooner. Without the second instcombine or
 * correlated-propagation it is not: they stay. constraint-elimination
 * comes before correlated-propagation, which then runs once instead of on
 * either side of it: the PTX changes only for some requests of
 * sepfilter_rows with a block, whose SASS is as long or shorter.
 * Codegen's own IR passes (infer-address-spaces, straight-line strength
 * reduction, early-cse) run after this. */
#define OPTIMIZE_HEAD                                                          \
  "function(nvvm-reflect,nvvm-intr-range,simplifycfg,sroa,early-cse<memssa>,"
#define OPTIMIZE_LOOPS                                                         \
  OPTIMIZE_HEAD                                                                \
  "sccp,instcombine<no-verify-fixpoint>,simplifycfg,constraint-elimination,"   \
  "correlated-propagation,instcombine<no-verify-fixpoint>,loop-mssa(licm),"
#define OPTIMIZE_PASSES                                                        \
  OPTIMIZE_LOOPS                                                               \
  "simplifycfg,loop-unroll<O3>,infer-alignment,"                               \
  "instcombine<no-verify-fixpoint>,div-rem-pairs),"                            \
  "cgscc(function-attrs),globaldce"
/* The optimize stage of a kernel whose every loop is kept rolled (each
 * latch says llvm.loop.unroll.disable: gcoarsen's loops; coarsen's and
 * smem_promote's loops whose step only the launch tells, the grid's size
 * or a block's thread count) has nothing for loop-unroll to do, and ends
 * after licm: without the simplifycfg, loop-unroll and instcombine that
 * follow, the PTX is the same, sooner. Without loop-unroll alone it is not
 * (the loops tcoarsen and smem_store keep rolled lose the preheaders
 * loop-unroll's canonicalization gave them: more SASS); loop-simplify in
 * its place would do, for more time. */
#define OPTIMIZE_ROLLED                                                        \
  OPTIMIZE_LOOPS                                                               \
  "infer-alignment,div-rem-pairs),cgscc(function-attrs),globaldce"
/* The optimize stage of a kernel with no loop left (full unrolling leaves
 * none in most specializations): licm, loop-unroll and the instcombine that
 * tidies after a run-time unroll have nothing to do. It ends with
 * early-cse instead: unrolling and instcombine leave a sign extension and
 * an address per unrolled iteration that codegen's own passes would
 * otherwise carry until its early-cse. (With loops, a final early-cse
 * costs more than it saves.)
 * Without loops, sccp and the second instcombine go too. The machine code
 * ptxas makes (tools/sass_identity.sh) is then the same for every request
 * of the grid but a few of sepfilter_rows (coarsened, or with launch
 * bounds), where IMAD.WIDE takes the place of IMAD.WIDE.U32 one for one:
 * the second instcombine proved a row index non-negative and made its sign
 * extension a zero extension. Without the first early-cse it is not (the
 * column filter's coarsened kernels grow).
 * constraint-elimination then one correlated-propagation, in place of
 * correlated-propagation, constraint-elimination, correlated-propagation
 * and simplifycfg: the PTX changes only for the column filter without a
 * block, where constraint-elimination, seeing the clamps before
 * correlated-propagation rewrote them, drops the upper clamp of the taps
 * above the centre (y - k <= h - 1 as y < h): its SASS is as long or
 * shorter. */
#define OPTIMIZE_FLAT                                                          \
  OPTIMIZE_HEAD                                                                \
  "instcombine<no-verify-fixpoint>,simplifycfg,constraint-elimination,"        \
  "correlated-propagation,infer-alignment,div-rem-pairs,early-cse),"           \
  "cgscc(function-attrs),globaldce"

/* loop-unroll again for the loops ks_loops_runtime marked (unrolled at run
 * time by the count it gives), and what follows it in OPTIMIZE_PASSES. */
#define RUNTIME_UNROLL                                                         \
  "function(loop-unroll<O3>,infer-alignment,instcombine<no-verify-fixpoint>,"  \
  "div-rem-pairs)"

/* The optimize stage ends with LLVM's load/store vectorizer, run here
 * rather than in codegen (jit/codegen/target.c switches codegen's off), and
 * only where ks_vectorize_worth finds two accesses it could merge: the machine
 * code ptxas makes (tools/sass_identity.sh) is the same as with codegen's
 * vectorizer, and the requests where it finds nothing (most) do not pay
 * for it. */
#define VECTORIZE "function(load-store-vectorizer)"

/* Value names: LLVM names every value it makes after the one it comes
 * from ("mul7.12" for the 12th unrolled copy of %mul7), work that
 * nothing reads but the IR dumps (--stage) and the explanations. Full
 * unrolling, the optimize and the lower stage, whose new values no pass
 * quotes, run with the names of new values discarded
 * (ks_pipeline_llvm_unnamed), with the same PTX. The rotated loop's phi
 * keeps its name for coarsen's explanation ("coarsened loop i.0"), so the
 * unroll stage runs in two parts, the second recomputing the analyses of
 * the first. With a dump asked for, every stage keeps its names. */
static int unroll(ks_stage_ctx *c) {
  return ks_pipeline_llvm(
             c, "function(loop-simplify,lcssa,loop(loop-rotate,indvars))") ||
         ks_pipeline_llvm_unnamed(
             c, "function(loop-unroll<O3;no-partial;no-runtime;no-upperbound>,"
                "sroa)");
}

static int inline_calls(ks_stage_ctx *c) {
  return ks_pipeline_llvm(c, "always-inline,cgscc(inline)");
}

/* The canonicalize stage ends with the calls whose value is unused and
 * that have no effect, which LLVM keeps where they lack willreturn
 * (cooperative groups' this_thread_block() leaves such an inline asm,
 * reserved_shared_ptr): the optional passes would take them for calls
 * with effects and decline. */
static int canonicalize(ks_stage_ctx *c) {
  static const char simplify[] = "function(sroa,early-cse<memssa>,"
                                 "instcombine<no-verify-fixpoint>,simplifycfg)";
  if (ks_pipeline_llvm(c, simplify))
    return 1;
  /* The inline stage judges callees as clang emits them (at -O3 before
   * LLVM's passes: allocas, loads and stores), where a helper called
   * twice costs too much to inline; LLVM's -O3 pipeline judges them
   * simplified, and nvcc inlines them. Judged again now, simplified, as
   * -O3 would. A call left out of line takes generic pointers (a shared
   * array passed to it is read with ld, not ld.shared) and no constant
   * the request bound. */
  if (ks_ir_calls_defined(c->m) &&
      (ks_pipeline_llvm(c, "cgscc(inline)") || ks_pipeline_llvm(c, simplify)))
    return 1;
  unsigned dead = ks_ir_drop_dead_calls(c->m);
  if (dead)
    ks_diag_explain(c->diag, c->name,
                    "%u dead call%s without effects removed (inline asm or "
                    "pure functions whose value is unused)",
                    dead, dead == 1 ? "" : "s");
  return ks_pass_redux_guard(c->m, c->spec, c->diag);
}

enum { NO_LOOP, ROLLED, LOOPS };
static int module_loops(LLVMModuleRef m);

static int optimize(ks_stage_ctx *c) {
  int loops = module_loops(c->m);
  const char *passes = loops == NO_LOOP  ? OPTIMIZE_FLAT
                       : loops == ROLLED ? OPTIMIZE_ROLLED
                                         : OPTIMIZE_PASSES;
  if (loops == ROLLED)
    ks_diag_explain(c->diag, c->name,
                    "every loop is kept rolled: loop-unroll not run");
  if (ks_pipeline_llvm_unnamed(c, passes))
    return 1;
  int again = loops == LOOPS ? ks_loops_runtime(c->m, c->spec, c->diag) : 0;
  if (again < 0 || (again > 0 && ks_pipeline_llvm_unnamed(c, RUNTIME_UNROLL)))
    return 1;
  if (ks_vectorize_worth(c->m))
    return ks_pipeline_llvm_unnamed(c, VECTORIZE);
  ks_diag_explain(c->diag, c->name,
                  "load/store vectorizer not run: no two loads or stores of a "
                  "block are adjacent and aligned for a vector");
  return 0;
}

typedef struct stage {
  const char *name;
  /* a pass of the usual signature, or one that takes the stage's context
   * (at most one of the two; neither: the stage does nothing) */
  int (*pass)(LLVMModuleRef, const ks_spec *, ks_diag *);
  int (*run)(ks_stage_ctx *);
  int optional; /* can be switched off (--no-pass) */
} stage;

static const stage stages[] = {
    {"input", NULL, NULL, 0},
    {"inline", NULL, inline_calls, 0},
    {"libdevice", NULL, ks_pass_libdevice, 0},
    {"bind", ks_pass_bind, NULL, 0},
    {"tex", NULL, ks_pass_tex, 0},
    {"math", NULL, ks_pass_math, 0},
    {"canonicalize", NULL, canonicalize, 0},
    {"loops", NULL, ks_pass_loops, 0},
    {"unroll", NULL, unroll, 0},
    {"tcoarsen", NULL, ks_pass_tcoarsen, 1},
    {"unclamp", ks_pass_unclamp, NULL, 1},
    {"coarsen", ks_pass_coarsen, NULL, 1},
    {"gcoarsen", ks_pass_gcoarsen, NULL, 1},
    {"smem_promote", ks_pass_smem_promote, NULL, 1},
    {"const_promote", ks_pass_const_promote, NULL, 1},
    {"optimize", NULL, optimize, 0},
    {"minmax", ks_pass_minmax, NULL, 1},
    {"shfl", ks_pass_shfl, NULL, 1},
    {"regpressure", ks_pass_regpressure, NULL, 1},
    {"lower", NULL, ks_pass_lower, 0},
};
enum { NSTAGES = sizeof stages / sizeof stages[0] };
_Static_assert(NSTAGES <= 32, "ks_spec.disabled has one bit per stage");

size_t ks_pipeline_stage_count(void) { return NSTAGES; }

const char *ks_pipeline_stage_name(size_t i) {
  return i < NSTAGES ? stages[i].name : NULL;
}

int ks_pipeline_stage_optional(size_t i) {
  return i < NSTAGES && stages[i].optional;
}

/* Runs `passes` on c->m; with `unnamed`, the names of new values are
 * discarded meanwhile. */
static int run_llvm(ks_stage_ctx *c, const char *passes, int unnamed) {
  LLVMContextRef lc = LLVMGetModuleContext(c->m);
  int was = LLVMContextShouldDiscardValueNames(lc);
  LLVMContextSetDiscardValueNames(lc, was || unnamed);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(c->m, passes, c->tm, o);
  LLVMDisposePassBuilderOptions(o);
  LLVMContextSetDiscardValueNames(lc, was);
  if (!e)
    return 0;
  char *msg = LLVMGetErrorMessage(e); /* consumes e */
  ks_diag_fail(c->diag, KS_EPASS, "%s: %s", c->name, msg);
  LLVMDisposeErrorMessage(msg);
  return 1;
}

int ks_pipeline_llvm(ks_stage_ctx *c, const char *passes) {
  return run_llvm(c, passes, 0);
}

int ks_pipeline_llvm_unnamed(ks_stage_ctx *c, const char *passes) {
  return run_llvm(c, passes, !c->keep_names);
}

/* The loops of fn, by the back edges of a depth-first walk from the entry
 * (ir/cfg.c): NO_LOOP, ROLLED (every back edge is the only one into its
 * header and its branch says llvm.loop.unroll.disable: LLVM's loop-unroll
 * would leave every loop as it is), LOOPS (any other), -1 when out of
 * memory. */

static int fn_loops(LLVMValueRef fn) {
  ks_cfg g;
  if (ks_cfg_build(&g, fn))
    return -1;
  int loops = NO_LOOP;
  for (unsigned k = 0; k < g.nback && loops != LOOPS; k++) {
    ks_cfg_edge e = g.back[k];
    int again = 0; /* another back edge into the same header */
    for (unsigned j = 0; j < k; j++)
      again |= g.back[j].to == e.to;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g.bb[e.from]);
    loops = again || !ks_loops_rolled(t) ? LOOPS : ROLLED;
  }
  ks_cfg_free(&g);
  return loops;
}

/* The loops left in m's functions, as fn_loops says of one. */
static int module_loops(LLVMModuleRef m) {
  int loops = NO_LOOP;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) {
      int l = fn_loops(f);
      if (l < 0 || l == LOOPS)
        return l;
      if (l == ROLLED)
        loops = ROLLED;
    }
  return loops;
}

int ks_pipeline_loops_left(LLVMModuleRef m) {
  return module_loops(m) != NO_LOOP;
}

static int verify_stages(void) {
#ifndef NDEBUG
  return 1;
#else
  return getenv("KSPEC_VERIFY_STAGES") != NULL;
#endif
}

static int verify(LLVMModuleRef m, const char *name, ks_diag *d) {
  char *msg = NULL;
  int bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
  if (bad)
    ks_diag_fail(d, KS_EPASS, "%s: module broken after stage: %.200s", name,
                 msg ? msg : "");
  LLVMDisposeMessage(msg);
  return bad;
}

static int dump(LLVMModuleRef m, ks_diag *d) {
  char *s = LLVMPrintModuleToString(m);
  free(d->dump);
  d->dump = strdup(s);
  LLVMDisposeMessage(s);
  return d->dump ? 0 : ks_diag_fail(d, KS_ENOMEM, "dump: out of memory");
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static size_t stage_index(const char *name) {
  for (size_t i = 0; i < NSTAGES; i++)
    if (strcmp(stages[i].name, name) == 0)
      return i;
  return NSTAGES;
}

static int stage_on(const ks_spec *s, const char *name) {
  return !(s->disabled & (1u << stage_index(name)));
}

/* The context of a run of the stages on m, full unrolling. */
static ks_stage_ctx context(LLVMModuleRef m, LLVMTargetMachineRef tm,
                            const ks_spec *s, ks_diag *d) {
  return (ks_stage_ctx){.m = m,
                        .tm = tm,
                        .spec = s,
                        .diag = d,
                        .unroll = s->unroll,
                        .keep_names = s->dump_stage != NULL,
                        .tcoarsen = stage_on(s, "tcoarsen"),
                        .const_promote = stage_on(s, "const_promote")};
}

static uint64_t mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ull;
}

/* A fingerprint of the kernel: its instructions (identity and opcode),
 * whether each load is marked invariant, and the module's globals. What
 * the optional stages do changes it (new or deleted instructions, a load
 * marked for ld.global.nc, a shared array made or resized); a stage that
 * leaves it as it was left the kernel as it was. Operands are not read:
 * no optional stage rewrites one in place without one of the above. */
static uint64_t fingerprint(LLVMModuleRef m, const char *kernel) {
  uint64_t h = 0xcbf29ce484222325ull;
  LLVMValueRef fn = LLVMGetNamedFunction(m, kernel);
  unsigned inv =
      LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), "invariant.load", 14);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    h = mix(h, (uintptr_t)g);
  h = mix(h, (uintptr_t)fn);
  for (LLVMBasicBlockRef bb = fn ? LLVMGetFirstBasicBlock(fn) : NULL; bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      h = mix(h, (uintptr_t)i ^ op);
      if (op == LLVMLoad && LLVMGetMetadata(i, inv))
        h = mix(h, 2);
    }
  return h;
}

/* Runs stage i on c->m: times it (verification included), skips it when
 * switched off, verifies the module after it when `check`, and keeps the
 * IR when the request asks for a dump of this stage. An optional stage
 * that changes the kernel sets its bit of c->diag->changed. */
static int run_stage(ks_stage_ctx *c, size_t i, int check) {
  const stage *st = &stages[i];
  const ks_spec *s = c->spec;
  double t0 = now_ms();
  c->name = st->name;
  int off = st->optional && (s->disabled & (1u << i));
  int watch = st->optional && !off; /* did it change the kernel? */
  uint64_t before = !watch           ? 0
                    : c->print_valid ? c->print
                                     : fingerprint(c->m, s->kernel);
  if (off)
    ks_diag_explain(c->diag, st->name, "switched off");
  else if (st->run ? st->run(c) : st->pass && st->pass(c->m, s, c->diag))
    return 1;
  c->print_valid = watch; /* the next optional stage starts from it */
  if (watch && (c->print = fingerprint(c->m, s->kernel)) != before)
    c->diag->changed |= 1u << i;
  if (check && verify(c->m, st->name, c->diag))
    return 1;
  c->diag->stage_ms[i] += now_ms() - t0;
  if (s->dump_stage && strcmp(s->dump_stage, st->name) == 0 &&
      dump(c->m, c->diag))
    return 1;
  return 0;
}

/* Does the kernel have a loop (a branch with llvm.loop)? */
static int has_loops(LLVMModuleRef m, const ks_spec *s) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn)
    return 0;
  unsigned kind =
      LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), "llvm.loop", 9);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (t && LLVMGetMetadata(t, kind))
      return 1;
  }
  return 0;
}

/* Appends what a trial run said ("pass: text" lines) to d. */
static void take_explain(ks_diag *d, const ks_diag *from) {
  const char *p = from->explain;
  while (p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    const char *colon = memchr(p, ':', len);
    char pass[64];
    size_t plen = colon ? (size_t)(colon - p) : 0;
    if (colon && plen < sizeof pass && colon + 2 <= p + len) {
      memcpy(pass, p, plen);
      pass[plen] = '\0';
      ks_diag_explain(d, pass, "%.*s", (int)(p + len - colon - 2), colon + 2);
    }
    p += len + (nl ? 1 : 0);
  }
}

/* Disposes of a trial's module (NULL: none) and diagnostics. */
static void forget(LLVMModuleRef m, LLVMTargetMachineRef tm, ks_diag *d) {
  if (m) {
    ks_ir_forget_annotations(m, tm);
    LLVMDisposeModule(m);
  }
  free(d->dump);
  free(d->explain);
  *d = (ks_diag){0};
}

/* A trial run of the stages from loops through regpressure on a copy of
 * `saved` with unroll count `count`, its diagnostics in *td: the copy, or
 * NULL when it failed (*td then holds nothing to free). */
static LLVMModuleRef trial(const ks_stage_ctx *c, LLVMModuleRef saved,
                           unsigned count, size_t loops, int check,
                           ks_diag *td) {
  ks_stage_ctx t = *c;
  t.m = LLVMCloneModule(saved);
  t.diag = td;
  t.unroll = count;
  int bad = !t.m;
  for (size_t i = loops; !bad && i <= stage_index("regpressure"); i++)
    bad = run_stage(&t, i, check);
  if (!bad)
    return t.m;
  forget(t.m, c->tm, td);
  return NULL;
}

/* The trial `best` (unroll count `count`, diagnostics *bd) replaces c->m:
 * c->diag's explanations after `explain_at` give way to the trial's. */
static void adopt(ks_stage_ctx *c, LLVMModuleRef best, ks_diag *bd,
                  unsigned count, size_t explain_at) {
  ks_diag *d = c->diag;
  int full = d->est_regs, budget = d->reg_budget;
  ks_ir_forget_annotations(c->m, c->tm);
  LLVMDisposeModule(c->m);
  c->m = best;
  if (d->explain && explain_at <= d->explain_len) {
    d->explain_len = explain_at;
    d->explain[explain_at] = '\0';
  }
  take_explain(d, bd);
  if (bd->dump) {
    free(d->dump);
    d->dump = bd->dump;
  }
  free(bd->explain);
  d->est_regs = bd->est_regs;
  /* the launch geometry is the copy's, which may have declined, and so
   * are the stages that changed the kernel (all come after loops) */
  d->plan = bd->plan;
  d->changed = bd->changed | 1u << stage_index("regpressure");
  if (budget == 0) /* before regpressure ran: the size cap, which says why */
    return;
  if (count == 1)
    ks_diag_explain(
        d, "regpressure",
        "full unroll would need ~%d registers over the budget of %d: "
        "loops left rolled instead (~%d)",
        full, budget, bd->est_regs);
  else
    ks_diag_explain(
        d, "regpressure",
        "full unroll would need ~%d registers over the budget of %d: "
        "unrolled by %u instead (~%d)",
        full, budget, count, bd->est_regs);
}

/* The register budget: full unrolling (the loops stage) made c->m need
 * more registers than the launch bounds allow. The stages from loops on are
 * run again on copies of `saved` (the module before loops) with unroll
 * counts 8, 4, 2 and 1 (no unrolling), and the first copy within the
 * budget (with 1/8 to spare, the estimate's error), or else the one with
 * the smallest estimate if it beats full unrolling, replaces c->m.
 * Explanations of the replaced run after `explain_at` are dropped for the
 * copy's. */
static void retry_unroll(ks_stage_ctx *c, LLVMModuleRef saved, size_t loops,
                         size_t explain_at, int check) {
  static const unsigned counts[] = {8, 4, 2, 1};
  int full = c->diag->est_regs, budget = c->diag->reg_budget;
  LLVMModuleRef best = NULL;
  ks_diag bestd = {0};
  unsigned bestc = 0;
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    ks_diag td = {0};
    LLVMModuleRef t = trial(c, saved, counts[k], loops, check, &td);
    if (!t)
      break; /* keep what there is */
    if (td.est_regs >= (best ? bestd.est_regs : full)) {
      forget(t, c->tm, &td);
      continue;
    }
    forget(best, c->tm, &bestd);
    best = t;
    bestd = td;
    bestc = counts[k];
    if (td.est_regs + td.est_regs / 8 <= budget)
      break; /* within the budget, with a margin for the estimate's error */
  }
  if (best)
    adopt(c, best, &bestd, bestc, explain_at);
  else
    ks_diag_explain(c->diag, "regpressure",
                    "full unroll needs ~%d registers over the budget of %d; "
                    "unrolling less does not need fewer: kept",
                    full, budget);
}

/* Instructions of the kernel's function. */
static unsigned kernel_size(LLVMModuleRef m, const ks_spec *s) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = fn ? LLVMGetFirstBasicBlock(fn) : NULL; bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      n++;
  return n;
}

/* The size cap of full unrolling. The loops stage asks LLVM to unroll
 * every loop in full, and LLVM 19 does so for any trip count up to a
 * million, whatever the size: two nested loops whose bounds a request
 * bound (a tile loop of 64 around 256 bodies) became 16384 copies, 312k
 * lines of PTX that ptxas did not finish in two minutes. The corpus's
 * largest full unroll (nbody_step's 256 bodies) is about 9k
 * instructions. Over the cap, the stages from loops run again with unroll
 * counts 8, 4, 2 and 1, and the first under the cap is kept. */
enum { UNROLL_CAP = 40000 };

/* 1 when a trial replaced c->m (run through regpressure), else 0. */
static int cap_unroll(ks_stage_ctx *c, LLVMModuleRef saved, size_t loops,
                      size_t explain_at, int check, unsigned size) {
  static const unsigned counts[] = {8, 4, 2, 1};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    ks_diag td = {0};
    LLVMModuleRef t = trial(c, saved, counts[k], loops, check, &td);
    if (!t)
      break;
    unsigned got = kernel_size(t, c->spec);
    if (got > UNROLL_CAP && counts[k] > 1) {
      forget(t, c->tm, &td);
      continue;
    }
    adopt(c, t, &td, counts[k], explain_at);
    ks_diag_explain(c->diag, "regpressure",
                    "full unrolling made %u instructions, over the cap of "
                    "%u: unroll count %u instead (%u)",
                    size, (unsigned)UNROLL_CAP, counts[k], got);
    return 1;
  }
  return 0;
}

/* The explanation's last line: which optional stages changed the kernel,
 * so that a specialization that only folded constants shows at a glance. */
static void summarize(ks_diag *d) {
  char list[256];
  size_t n = 0;
  list[0] = '\0';
  for (size_t i = 0; i < NSTAGES && n < sizeof list; i++)
    if (d->changed & (1u << i))
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "",
                            stages[i].name);
  if (n)
    ks_diag_explain(d, "summary", "changed by %s", list);
  else
    ks_diag_explain(d, "summary",
                    "no optional pass changed the kernel: only the bound "
                    "values folded and LLVM's own optimizations");
}

/* Runs the stages from `first` on c->m. Measured on the H100 (BENCHMARKS.md,
 * "Register pressure"): a full unroll a little over the register budget
 * spills a little and still beats a partial unroll; far over it, the spills
 * dominate. Unroll less only beyond twice the budget. */
static int run_from(ks_stage_ctx *c, size_t first) {
  int check = verify_stages();
  ks_diag *d = c->diag;
  size_t loops = stage_index("loops"), rp = stage_index("regpressure");
  /* the guard's retries (spec->unroll, unroll_sync) set the counts */
  int control = stage_on(c->spec, "regpressure") && !c->spec->unroll &&
                !c->spec->unroll_sync;
  LLVMModuleRef saved = NULL;
  size_t explain_at = 0;
  int rc = 0;
  size_t unroll = stage_index("unroll");
  for (size_t i = first; i < NSTAGES && !rc; i++) {
    if (i == loops && control && has_loops(c->m, c->spec)) {
      saved = LLVMCloneModule(c->m);
      explain_at = d->explain_len;
    }
    rc = run_stage(c, i, check);
    unsigned size =
        !rc && i == unroll && saved ? kernel_size(c->m, c->spec) : 0;
    if (size > UNROLL_CAP) {
      double t0 = now_ms();
      int took = cap_unroll(c, saved, loops, explain_at, check, size);
      d->stage_ms[i] += now_ms() - t0;
      if (took) {
        LLVMDisposeModule(saved); /* counts chosen: no register retry */
        saved = NULL;
        i = rp; /* the trial ran the stages through regpressure */
        continue;
      }
    }
    if (!rc && i == rp && saved && d->est_regs > 2 * d->reg_budget) {
      double t0 = now_ms();
      retry_unroll(c, saved, loops, explain_at, check);
      d->stage_ms[i] += now_ms() - t0;
    } else if (!rc && i == rp && saved && d->est_regs > d->reg_budget) {
      ks_diag_explain(
          d, "regpressure",
          "full unroll needs ~%d registers, over the budget of %d but "
          "within twice it: kept (a few spills cost less than "
          "unrolling less)",
          d->est_regs, d->reg_budget);
    }
  }
  if (saved)
    LLVMDisposeModule(saved);
  if (!rc)
    ks_loops_release(c->m); /* loops kept rolled for the stages only */
  if (!rc)
    summarize(c->diag);
  return rc;
}

int ks_pipeline_run(LLVMModuleRef *mp, LLVMTargetMachineRef tm,
                    const ks_spec *s, ks_diag *d) {
  ks_stage_ctx c = context(*mp, tm, s, d);
  int rc = run_from(&c, 0);
  *mp = c.m;
  return rc;
}

/* The stages before bind see the template alone: no value, block, bound,
 * pass switch or target attribute of a request has reached the module yet,
 * and their LLVM passes depend on nothing else but tm. Of the canonicalize
 * stage, SROA runs here too, ahead of bind: it promotes the template's
 * locals whatever values are bound later (a local array indexed by a
 * parameter is left for the stage's own sroa, after bind, as before). The
 * same PTX for every built-in template over tools/ptx_identity.sh's grid,
 * and the stage's own sroa finds little left. early-cse could move too
 * (same PTX, no faster), simplifycfg not (conv1d's and stencil1d's PTX
 * change). Its time counts as the canonicalize stage's. */
#define PREPARE_PASSES "function(sroa)"

int ks_pipeline_prepare(LLVMModuleRef m, LLVMTargetMachineRef tm,
                        const ks_devlib *lib, ks_diag *d) {
  const ks_spec none = {.devlib = lib};
  ks_stage_ctx c = context(m, tm, &none, d);
  int check = verify_stages();
  for (size_t i = 0; i < stage_index("bind"); i++)
    if (run_stage(&c, i, check))
      return 1;
  size_t canon = stage_index("canonicalize");
  c.name = stages[canon].name;
  double t0 = now_ms();
  if (ks_pipeline_llvm(&c, PREPARE_PASSES) || (check && verify(m, c.name, d)))
    return 1;
  d->stage_ms[canon] += now_ms() - t0;
  return 0;
}

int ks_pipeline_run_prepared(LLVMModuleRef *mp, LLVMTargetMachineRef tm,
                             const ks_spec *s, ks_diag *d) {
  ks_stage_ctx c = context(*mp, tm, s, d);
  int rc = run_from(&c, stage_index("bind"));
  *mp = c.m;
  return rc;
}

/* The math stage ahead of bind leaves the library's functions out of line
 * (inline_later), and a copy of m is split (ks_math_split) into *out and
 * *bodies where it can be; m gets the functions inlined, as the stage in
 * the pipeline would, now where the split failed, else when a request
 * needs it (ks_pipeline_math_inline): most never do. */
int ks_pipeline_math_ahead(LLVMModuleRef m, LLVMTargetMachineRef tm,
                           const ks_spec *s, ks_diag *d, LLVMModuleRef *out,
                           LLVMModuleRef *bodies) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  *out = *bodies = NULL;
  if (!fn || LLVMIsDeclaration(fn) || ks_bind_drop_other_kernels(m, fn))
    return 1; /* bind says why */
  ks_diag ad = {0};
  ks_stage_ctx c = context(m, tm, s, &ad);
  size_t i = stage_index("math");
  c.inline_later = 1;
  int bad = run_stage(&c, i, verify_stages());
  double t0 = now_ms();
  LLVMModuleRef o = bad ? NULL : LLVMCloneModule(m);
  c.name = stages[i].name;
  if (!bad)
    ks_math_mark_ahead(m, ad.explain ? ad.explain : "");
  ks_stage_ctx oc = c;
  oc.m = o;
  if (!bad && o && ks_math_split(&oc, bodies) == 1) {
    ks_math_mark_ahead(o, ad.explain ? ad.explain : "");
    *out = o;
  } else {
    if (o)
      LLVMDisposeModule(o);
    bad = bad || ks_pipeline_llvm(&c, "always-inline");
  }
  ad.stage_ms[i] += now_ms() - t0;
  d->stage_ms[i] += ad.stage_ms[i];
  free(ad.explain);
  free(ad.dump);
  return bad;
}

int ks_pipeline_math_inline(LLVMModuleRef m, LLVMTargetMachineRef tm,
                            const ks_spec *s, ks_diag *d) {
  ks_stage_ctx c = context(m, tm, s, d);
  size_t i = stage_index("math");
  double t0 = now_ms();
  c.name = stages[i].name;
  int bad = ks_pipeline_llvm(&c, "always-inline");
  d->stage_ms[i] += now_ms() - t0;
  return bad;
}

/* The library's functions as the pipeline would leave them in a kernel:
 * canonicalize's and the optimize stage's LLVM passes, then the lower
 * stage. External meanwhile, so that the passes' globaldce keeps them. */
int ks_pipeline_math_bodies(LLVMModuleRef b, LLVMTargetMachineRef tm,
                            const ks_spec *s, ks_diag *d) {
  ks_stage_ctx c = context(b, tm, s, d);
  c.name = "math";
  ks_math_bodies_linkage(b, LLVMExternalLinkage);
  ks_bind_retarget(b, s);
  int bad = ks_pipeline_llvm_unnamed(&c, "function(sroa,early-cse<memssa>,"
                                         "instcombine<no-verify-fixpoint>,"
                                         "simplifycfg)") ||
            ks_pipeline_llvm_unnamed(&c, module_loops(b) == NO_LOOP
                                             ? OPTIMIZE_FLAT
                                             : OPTIMIZE_PASSES);
  c.name = "lower";
  bad = bad || (!s->codegen_lowers && ks_pass_lower(&c));
  ks_math_bodies_linkage(b, LLVMInternalLinkage);
  return bad || (verify_stages() && verify(b, "math", d));
}

int ks_pipeline_prepared_stage(const char *name) {
  return name && stage_index(name) < stage_index("bind");
}
