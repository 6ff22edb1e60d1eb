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
 * kernel taken after the loops stage and kept rolled through unroll
 * (ks_tcoarsen_keep_rolled): a small loop for the later stages and codegen, not
 * a fifth copy of the unrolled body. coarsen comes before smem_promote because
 * it may only move the updates of global atomics between blocks; smem_promote
 * then privatizes the coarsened loop's atomics.
 *
 * After the optimize stage, minmax (optional) turns the clamps that
 * instcombine leaves as a compare and a select into min and max (after
 * it, as instcombine has no rule that would turn them back).
 *
 * The last stage, regpressure (optional), estimates the registers the final
 * IR needs against the budget of the launch bounds. When full unrolling
 * went over twice the budget, the stages from loops on run again on a copy
 * of the module taken before loops, with smaller unroll counts
 * (retry_unroll); switching regpressure off (--no-pass regpressure) keeps
 * full unrolling.
 *
 * The canonicalize stage ends with the toolchain guard (redux_guard.c):
 * the first point where a warp reduction's mask and value are folded
 * enough to tell a toolchain's swap.
 *
 * jit/ then emits PTX from the result. Inlining comes before bind so that
 * the %ntid reads of helper functions land in the kernel, where a fixed
 * block size can replace them. With KSPEC_VERIFY_STAGES set in the
 * environment (always in debug builds) the module is verified after every
 * stage.
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
 * for every built-in template, specialized and generic, in about a third of
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
 * O3's second sccp, bdce, adce and dse were here too. Over 33 requests of
 * tools/ptx_identity.sh's grid, sccp, adce and dse changed nothing (opt
 * -print-changed), bdce only reduce_sum's IR, which the later passes make
 * up for; without the four, the PTX of the whole grid (every built-in
 * template, bound at its range ends and default, generic, each optional
 * pass off) is the same, 3-4% of a specialization sooner (conv1d 78.9 ->
 * 76.3 M instructions). Without the second instcombine or
 * correlated-propagation it is not: they stay.
 * constraint-elimination comes before correlated-propagation, which then
 * runs once instead of on either side of it: over tools/ptx_identity.sh's
 * grid the PTX changes only for 27 requests of sepfilter_rows with a
 * block, whose SASS is as long (21) or 8 instructions shorter (5; the
 * sm_70 one not assembled, CUDA 13's ptxas has no sm_70), and not for the
 * 224 requests without a block; the histogram specializes in 28.5
 * M instructions instead of 28.8, reduce_sum in 24.4 instead of 24.6.
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
 * after licm. Without the simplifycfg, loop-unroll and instcombine that
 * follow, the PTX is byte for byte the same over tools/ptx_identity.sh's
 * grid and over 224 requests without a block (the six templates and
 * stencil1d at their latency values and others, each optional pass
 * switched off, sm_90 and sm_80); the histogram specializes in 30.1 M
 * instructions instead of 32.6, reduce_sum in 25.1 instead of 26.0.
 * Without loop-unroll alone the PTX is not the same (the loops tcoarsen
 * and smem_store keep rolled lose the preheaders loop-unroll's
 * canonicalization gave them: up to 8 more SASS instructions); with
 * loop-simplify in its place it is, for 1.3 M more. */
#define OPTIMIZE_ROLLED                                                        \
  OPTIMIZE_LOOPS                                                               \
  "infer-alignment,div-rem-pairs),cgscc(function-attrs),globaldce"
/* The optimize stage of a kernel with no loop left (full unrolling leaves
 * none in most specializations): licm, loop-unroll and the instcombine that
 * tidies after a run-time unroll have nothing to do. It ends with
 * early-cse instead: unrolling and instcombine leave a sign extension and
 * an address per unrolled iteration (conv1d: 32 of each) that codegen's
 * own passes would otherwise carry until its early-cse. The same PTX over
 * tools/ptx_identity.sh's grid; conv1d FILTER_LEN=32 without a block
 * specializes in 5% fewer instructions (25.1 -> 23.8 M). (With loops, a
 * final early-cse costs more than it saves.)
 * Without loops, sccp and the second instcombine go too (conv1d 23.4 ->
 * 22.1 M instructions). Over tools/ptx_identity.sh's grid, the machine
 * code ptxas makes (tools/sass_identity.sh) is the same for every request
 * but five of sepfilter_rows (coarsened, or with launch bounds), where
 * IMAD.WIDE takes the place of IMAD.WIDE.U32 one for one: the second
 * instcombine proved a row index non-negative and made its sign extension
 * a zero extension. Without the first early-cse it is not (the column
 * filter's coarsened kernels grow by up to a quarter).
 * constraint-elimination then one correlated-propagation, in place of
 * correlated-propagation, constraint-elimination, correlated-propagation
 * and simplifycfg: over tools/ptx_identity.sh's grid and 224 requests
 * without a block the PTX changes only for the column filter without a
 * block, where constraint-elimination, seeing the clamps before
 * correlated-propagation rewrote them, drops the upper clamp of the taps
 * above the centre (y - k <= h - 1 as y < h): its SASS is as long or
 * shorter (RADIUS=32 on sm_80: 616 -> 584 instructions). sepfilter_rows
 * specializes in 28.2 M instructions instead of 29.0, sepfilter_cols in
 * 28.9 instead of 30.2. */
#define OPTIMIZE_FLAT                                                          \
  OPTIMIZE_HEAD                                                                \
  "instcombine<no-verify-fixpoint>,simplifycfg,constraint-elimination,"        \
  "correlated-propagation,infer-alignment,div-rem-pairs,early-cse),"           \
  "cgscc(function-attrs),globaldce"

/* The optimize stage ends with LLVM's load/store vectorizer, run here
 * rather than in codegen (jit/target.c switches codegen's off), and only
 * where ks_vectorize_worth finds two accesses it could merge. Over
 * tools/ptx_identity.sh's grid, the machine code ptxas makes
 * (tools/sass_identity.sh) is the same as with codegen's vectorizer, run
 * here always or screened; screened, it runs for 29 of the 303 requests
 * (conv1d's and the row filter's shared windows, some histograms), and
 * conv1d FILTER_LEN=32 without a block specializes in 21.0 M
 * instructions instead of 22.3 (its x[i + k] touch but are aligned to 4). */
#define VECTORIZE "function(load-store-vectorizer)"

typedef struct stage {
  const char *name;
  const char *llvm_passes; /* a new-pass-manager pipeline, or NULL */
  /* then this one, with the names of new values discarded (NULL: none) */
  const char *llvm_unnamed;
  int (*pass)(LLVMModuleRef, const ks_spec *, ks_diag *);
  int optional; /* can be switched off (--no-pass) */
} stage;

/* Value names: LLVM names every value it makes after the one it comes
 * from ("mul7.12" for the 12th unrolled copy of %mul7), work that
 * nothing reads but the IR dumps (--stage) and the explanations. Full
 * unrolling and the optimize stage, whose new values no pass quotes, run
 * with the names of new values discarded (LLVMContextSetDiscardValueNames;
 * values keep the names they have), with the same PTX over
 * tools/ptx_identity.sh's grid. The rotated loop's phi keeps its name for
 * coarsen's explanation ("coarsened loop i.0"), so the unroll stage runs
 * in two parts, the second recomputing the analyses of the first: conv1d
 * specializes in 23.4 M instructions instead of 23.8 (with the unroll
 * stage unnamed whole, 23.1), the histogram, whose loop stays, in 0.4%
 * more. With a dump asked for, every stage keeps its names. */
static const stage stages[] = {
    {"input", NULL, NULL, NULL, 0},
    {"inline", "always-inline,cgscc(inline)", NULL, NULL, 0},
    {"bind", NULL, NULL, ks_pass_bind, 0},
    {"canonicalize",
     "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,"
     "simplifycfg)",
     NULL, ks_pass_redux_guard, 0},
    {"loops", NULL, NULL, ks_pass_loops, 0},
    {"unroll", "function(loop-simplify,lcssa,loop(loop-rotate,indvars))",
     "function(loop-unroll<O3;no-partial;no-runtime;no-upperbound>,sroa)", NULL,
     0},
    {"tcoarsen", NULL, NULL, ks_pass_tcoarsen, 1},
    {"unclamp", NULL, NULL, ks_pass_unclamp, 1},
    {"coarsen", NULL, NULL, ks_pass_coarsen, 1},
    {"gcoarsen", NULL, NULL, ks_pass_gcoarsen, 1},
    {"smem_promote", NULL, NULL, ks_pass_smem_promote, 1},
    {"const_promote", NULL, NULL, ks_pass_const_promote, 1},
    {"optimize", NULL, OPTIMIZE_PASSES, NULL, 0},
    {"minmax", NULL, NULL, ks_pass_minmax, 1},
    {"regpressure", NULL, NULL, ks_pass_regpressure, 1},
    {"lower", NULL, NULL, NULL, 0},
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

/* Runs `passes` on m; with `unnamed`, the names of new values are
 * discarded meanwhile. */
static int run_llvm(LLVMModuleRef m, LLVMTargetMachineRef tm, const stage *st,
                    const char *passes, int unnamed, ks_diag *d) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  int was = LLVMContextShouldDiscardValueNames(c);
  LLVMContextSetDiscardValueNames(c, was || unnamed);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, passes, tm, o);
  LLVMDisposePassBuilderOptions(o);
  LLVMContextSetDiscardValueNames(c, was);
  if (!e)
    return 0;
  char *msg = LLVMGetErrorMessage(e); /* consumes e */
  ks_diag_fail(d, KS_EPASS, "%s: %s", st->name, msg);
  LLVMDisposeErrorMessage(msg);
  return 1;
}

/* The loops of fn, by the back edges of a depth-first walk from the entry
 * (ir/cfg.c): NO_LOOP, ROLLED (every back edge is the only one into its
 * header and its branch says llvm.loop.unroll.disable: LLVM's loop-unroll
 * would leave every loop as it is), LOOPS (any other), -1 when out of
 * memory. */
enum { NO_LOOP, ROLLED, LOOPS };

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

static int verify_stages(void) {
#ifndef NDEBUG
  return 1;
#else
  return getenv("KSPEC_VERIFY_STAGES") != NULL;
#endif
}

static int verify(LLVMModuleRef m, const stage *st, ks_diag *d) {
  char *msg = NULL;
  int bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
  if (bad)
    ks_diag_fail(d, KS_EPASS, "%s: module broken after stage: %.200s", st->name,
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

static size_t stage_index(const char *name);

/* The lowering stage: what NVPTX's codegen did to the module before
 * instruction selection, which jit/target.c has codegen skip (it starts
 * at nvptx-lower-unreachable), in codegen's order: LLVM's intrinsic and
 * wide division expansions where the module has them, PTX-valid local
 * names, generic globals moved to the global space, kernel arguments
 * lowered, SROA and the local space for allocas, address-space inference,
 * atomics on local memory lowered (passes/lower.c), then atomic-expand,
 * expand-variadics and lower-constant-intrinsics where the module has
 * what they expand (see lower.c for what else is skipped). Codegen's
 * straight-line passes (separate-const-offset-from-gep .. nary-reassociate,
 * with their early-cse) run only where a loop is left: over
 * tools/ptx_identity.sh's grid and 224 requests without a block, only kernels
 * with a loop (the histogram, reduce_sum, the transpose, stencil1d) had SASS
 * that they shortened (reduce_sum without them: up to 18 instructions longer,
 * the transpose 12); without a loop they found nothing that ptxas does not (the
 * same SASS) and cost up to a sixth of a specialization in ScalarEvolution
 * (sepfilter_rows without a block 28.2 -> 23.4 M instructions). Where they
 * run, slsr and nary-reassociate (and the early-cse after nary-reassociate)
 * run only where straight.c's screens find a candidate for them, which
 * their ScalarEvolution would look for in vain otherwise (the histogram
 * without a block 27.4 -> 23.1 M instructions, reduce_sum 23.2 -> 22.8; the
 * PTX the same over the grid and the requests without a block). The
 * transpose's store exchange (smem_store.c) builds its slots
 * strength-reduced, and slsr's screen tells a base that moves with a loop
 * from one that does not: slsr is not run there either (20.2 -> 18.5). */
#define STRAIGHT_LINE "separate-const-offset-from-gep,speculative-execution"
#define SPLIT_GEP "separate-const-offset-from-gep,early-cse"

/* The rest of codegen's straight-line passes, after STRAIGHT_LINE: slsr
 * where it has a candidate, early-cse, then nary-reassociate and early-cse
 * where nary-reassociate has one. nary-reassociate's screen looks at the
 * module before slsr first: where it finds a candidate there, all run at
 * once; else it looks again after slsr and early-cse, which may make
 * one. */
static int straight_rest(LLVMModuleRef m, LLVMTargetMachineRef tm,
                         const stage *st, int unnamed, ks_diag *d) {
  int slsr = ks_lower_slsr(m);
  if (!slsr)
    ks_explain(d, st->name,
               "no candidate for straight-line strength reduction: slsr "
               "not run");
  const char *first = slsr ? "slsr,early-cse" : "early-cse";
  char passes[128];
  if (ks_lower_nary(m)) {
    snprintf(passes, sizeof passes, "function(%s,nary-reassociate,early-cse)",
             first);
    return run_llvm(m, tm, st, passes, unnamed, d);
  }
  snprintf(passes, sizeof passes, "function(%s)", first);
  if (run_llvm(m, tm, st, passes, unnamed, d))
    return 1;
  if (!ks_lower_nary(m)) {
    ks_explain(d, st->name,
               "no candidate for n-ary reassociation: nary-reassociate not "
               "run");
    return 0;
  }
  return run_llvm(m, tm, st, "function(nary-reassociate,early-cse)", unnamed,
                  d);
}

static int lower(LLVMModuleRef m, LLVMTargetMachineRef tm, const stage *st,
                 int unnamed, ks_diag *d) {
  int need = ks_lower_needs(m), copied = 0;
  if ((need & KS_LOWER_INTRINSICS) &&
      run_llvm(m, tm, st, "pre-isel-intrinsic-lowering", unnamed, d))
    return 1;
  if ((need & KS_LOWER_WIDE) &&
      run_llvm(m, tm, st,
               "function(expand-large-div-rem,expand-large-fp-convert)",
               unnamed, d))
    return 1;
  if (ks_lower_names(m))
    return ks_diag_fail(d, KS_ENOMEM, "lower: out of memory");
  if ((need & KS_LOWER_GENERIC) &&
      run_llvm(m, tm, st, "generic-to-nvvm", unnamed, d))
    return 1;
  if (ks_lower_args(m, &copied))
    return ks_diag_fail(d, KS_ENOMEM, "lower: out of memory");
  int allocas = ks_lower_has_allocas(m);
  if (allocas && (run_llvm(m, tm, st, "function(sroa)", unnamed, d) ||
                  ks_lower_allocas(m)))
    return d->status ? 1 : ks_diag_fail(d, KS_ENOMEM, "lower: out of memory");
  int sl = ks_lower_straight_line(m);
  const char *group = NULL;
  int full = module_loops(m) != NO_LOOP || (sl & KS_LOWER_STRENGTH);
  if (full)
    group = STRAIGHT_LINE;
  else if (sl & KS_LOWER_SPLIT_GEP)
    group = SPLIT_GEP;
  else
    ks_explain(d, st->name,
               "no loop, no strength to reduce: codegen's straight-line "
               "passes not run");
  char passes[256];
  snprintf(passes, sizeof passes, "function(infer-address-spaces%s%s)",
           group && !allocas ? "," : "", group && !allocas ? group : "");
  if (run_llvm(m, tm, st, passes, unnamed, d))
    return 1;
  snprintf(passes, sizeof passes, "function(%s)", group ? group : "");
  if (allocas && (ks_lower_local_atomics(m, d) ||
                  (group && run_llvm(m, tm, st, passes, unnamed, d))))
    return 1;
  if (full && straight_rest(m, tm, st, unnamed, d))
    return 1;
  if (!(need & (KS_LOWER_ATOMICS | KS_LOWER_VARIADIC | KS_LOWER_CONSTANTS)))
    return 0;
  snprintf(passes, sizeof passes, "%s%s%s%s",
           need & KS_LOWER_ATOMICS ? "function(atomic-expand)," : "",
           need & KS_LOWER_VARIADIC ? "expand-variadics," : "",
           need & KS_LOWER_CONSTANTS ? "function(lower-constant-intrinsics),"
                                     : "",
           need & KS_LOWER_VARIADIC ? "function(early-cse,sroa)," : "");
  passes[strlen(passes) - 1] = '\0'; /* the last comma */
  return run_llvm(m, tm, st, passes, unnamed, d);
}

static int tcoarsen_on(const ks_spec *s) {
  return !(s->disabled & (1u << stage_index("tcoarsen")));
}

/* Runs stage i on m; loops with unroll count `count` (0: full). */
static int run_stage(LLVMModuleRef m, LLVMTargetMachineRef tm, const ks_spec *s,
                     ks_diag *d, size_t i, unsigned count, int check) {
  const stage *st = &stages[i];
  double t0 = now_ms();
  int off = st->optional && (s->disabled & (1u << i));
  if (off)
    ks_explain(d, st->name, "switched off");
  int optimize = strcmp(st->name, "optimize") == 0;
  stage flat = *st; /* the optimize stage without loops, or rolled ones */
  int loops = optimize ? module_loops(m) : LOOPS;
  if (loops == NO_LOOP || loops == ROLLED) {
    flat.llvm_unnamed = loops == NO_LOOP ? OPTIMIZE_FLAT : OPTIMIZE_ROLLED;
    st = &flat;
    if (loops == ROLLED)
      ks_explain(d, st->name, "every loop is kept rolled: loop-unroll not run");
  }
  if (!off && st->llvm_passes && run_llvm(m, tm, st, st->llvm_passes, 0, d))
    return 1;
  if (!off && st->llvm_unnamed &&
      run_llvm(m, tm, st, st->llvm_unnamed, !s->dump_stage, d))
    return 1;
  if (!off && optimize) {
    if (!ks_vectorize_worth(m))
      ks_explain(d, st->name,
                 "load/store vectorizer not run: no two loads or stores "
                 "of a block are adjacent and aligned for a vector");
    else if (run_llvm(m, tm, st, VECTORIZE, !s->dump_stage, d))
      return 1;
  }
  if (strcmp(st->name, "lower") == 0 && s->codegen_lowers)
    ks_explain(d, st->name, "not run: codegen lowers the module itself");
  else if (strcmp(st->name, "lower") == 0 &&
           lower(m, tm, st, s->dump_stage == NULL, d))
    return 1;
  if (!off && st->pass == ks_pass_loops && ks_loops_mark(m, s, count, d))
    return 1;
  /* the serial copy of tcoarsen comes from the body before unrolling */
  if (st->pass == ks_pass_loops && count == 0 && tcoarsen_on(s) &&
      ks_tcoarsen_keep_rolled(m, s, d))
    return 1;
  if (!off && st->pass && st->pass != ks_pass_loops && st->pass(m, s, d))
    return 1;
  if (st->pass == ks_pass_tcoarsen)
    ks_tcoarsen_drop_rolled(m, s);
  if (check && verify(m, st, d))
    return 1;
  d->stage_ms[i] += now_ms() - t0; /* verification included */
  if (s->dump_stage && strcmp(s->dump_stage, st->name) == 0 && dump(m, d))
    return 1;
  return 0;
}

static size_t stage_index(const char *name) {
  for (size_t i = 0; i < NSTAGES; i++)
    if (strcmp(stages[i].name, name) == 0)
      return i;
  return NSTAGES;
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
      ks_explain(d, pass, "%.*s", (int)(p + len - colon - 2), colon + 2);
    }
    p += len + (nl ? 1 : 0);
  }
}

/* The register budget: full unrolling (the loops stage) made *m need more
 * registers than the launch bounds allow. The stages from loops on are run
 * again on copies of `saved` (the module before loops) with unroll counts
 * 8, 4, 2 and 1 (no unrolling), and the first copy within the budget
 * (with 1/8 to spare, the estimate's error), or
 * else the one with the smallest estimate if it beats full unrolling,
 * replaces *m. Explanations of the replaced run after `explain_at` are
 * dropped for the copy's. */
static int retry_unroll(LLVMModuleRef *m, LLVMModuleRef saved,
                        LLVMTargetMachineRef tm, const ks_spec *s, ks_diag *d,
                        size_t loops, size_t explain_at, int check) {
  static const unsigned counts[] = {8, 4, 2, 1};
  int full = d->est_regs, budget = d->reg_budget;
  LLVMModuleRef best = NULL;
  ks_diag bestd = {0};
  unsigned bestc = 0;
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    LLVMModuleRef t = LLVMCloneModule(saved);
    ks_diag td = {0};
    int bad = !t;
    for (size_t i = loops; !bad && i <= stage_index("regpressure"); i++)
      bad = run_stage(t, tm, s, &td, i, counts[c], check);
    if (bad || td.est_regs >= (best ? bestd.est_regs : full)) {
      ks_ir_forget_annotations(t, tm);
      if (t)
        LLVMDisposeModule(t);
      free(td.dump);
      free(td.explain);
      if (bad)
        break; /* keep what there is */
      continue;
    }
    if (best) {
      ks_ir_forget_annotations(best, tm);
      LLVMDisposeModule(best);
    }
    free(bestd.dump);
    free(bestd.explain);
    best = t;
    bestd = td;
    bestc = counts[c];
    if (td.est_regs + td.est_regs / 8 <= budget)
      break; /* within the budget, with a margin for the estimate's error */
  }
  if (!best) {
    ks_explain(d, "regpressure",
               "full unroll needs ~%d registers over the budget of %d; "
               "unrolling less does not need fewer: kept",
               full, budget);
    return 0;
  }
  ks_ir_forget_annotations(*m, tm);
  LLVMDisposeModule(*m);
  *m = best;
  if (d->explain && explain_at <= d->explain_len) {
    d->explain_len = explain_at;
    d->explain[explain_at] = '\0';
  }
  take_explain(d, &bestd);
  if (bestd.dump) {
    free(d->dump);
    d->dump = bestd.dump;
  }
  free(bestd.explain);
  d->est_regs = bestd.est_regs;
  /* the launch geometry is the copy's, which may have declined */
  d->plan = bestd.plan;
  if (bestc == 1)
    ks_explain(d, "regpressure",
               "full unroll would need ~%d registers over the budget of %d: "
               "loops left rolled instead (~%d)",
               full, budget, bestd.est_regs);
  else
    ks_explain(d, "regpressure",
               "full unroll would need ~%d registers over the budget of %d: "
               "unrolled by %u instead (~%d)",
               full, budget, bestc, bestd.est_regs);
  return 0;
}

/* Runs the stages from `first` on. */
static int run_from(LLVMModuleRef *mp, LLVMTargetMachineRef tm,
                    const ks_spec *s, ks_diag *d, size_t first) {
  int check = verify_stages();
  size_t loops = stage_index("loops"), rp = stage_index("regpressure");
  int control = !(s->disabled & (1u << rp));
  LLVMModuleRef saved = NULL;
  size_t explain_at = 0;
  for (size_t i = first; i < NSTAGES; i++) {
    if (i == loops && control && has_loops(*mp, s)) {
      saved = LLVMCloneModule(*mp);
      explain_at = d->explain_len;
    }
    if (run_stage(*mp, tm, s, d, i, 0, check))
      goto fail;
    /* Measured on the H100 (stencil1d, BENCHMARKS.md): a full unroll a
     * little over the budget spills a little and still beats a partial
     * unroll (RADIUS=16, block 1024: 0.26 ms against 0.66); far over it,
     * the spills dominate (RADIUS=64: 6.6 ms against 2.5). Unroll less
     * only beyond twice the budget. */
    if (i == rp && saved && d->est_regs > 2 * d->reg_budget) {
      double t0 = now_ms();
      retry_unroll(mp, saved, tm, s, d, loops, explain_at, check);
      d->stage_ms[i] += now_ms() - t0;
    } else if (i == rp && saved && d->est_regs > d->reg_budget) {
      ks_explain(d, "regpressure",
                 "full unroll needs ~%d registers, over the budget of %d but "
                 "within twice it: kept (a few spills cost less than "
                 "unrolling less)",
                 d->est_regs, d->reg_budget);
    }
  }
  if (saved)
    LLVMDisposeModule(saved);
  ks_loops_release(*mp); /* loops kept rolled for the stages only */
  return 0;
fail:
  if (saved)
    LLVMDisposeModule(saved);
  return 1;
}

int ks_pipeline_run(LLVMModuleRef *mp, LLVMTargetMachineRef tm,
                    const ks_spec *s, ks_diag *d) {
  return run_from(mp, tm, s, d, 0);
}

/* The stages before bind see the template alone: no value, block, bound,
 * pass switch or target attribute of a request has reached the module yet,
 * and their LLVM passes depend on nothing else but tm. Of the canonicalize
 * stage, SROA runs here too, ahead of bind: it promotes the template's
 * locals whatever values are bound later (a local array indexed by a
 * parameter is left for the stage's own sroa, after bind, as before). The
 * same PTX for every built-in template over tools/ptx_identity.sh's grid,
 * and the stage's own sroa finds little left (transpose: 8.31 -> 8.06 M
 * instructions a specialization). early-cse could move too (same PTX, no
 * faster), simplifycfg not (conv1d's and stencil1d's PTX change). Its time
 * counts as the canonicalize stage's. */
#define PREPARE_PASSES "function(sroa)"

int ks_pipeline_prepare(LLVMModuleRef m, LLVMTargetMachineRef tm, ks_diag *d) {
  const ks_spec none = {0};
  int check = verify_stages();
  for (size_t i = 0; i < stage_index("bind"); i++)
    if (run_stage(m, tm, &none, d, i, 0, check))
      return 1;
  size_t canon = stage_index("canonicalize");
  stage pre = stages[canon];
  pre.llvm_passes = PREPARE_PASSES;
  double t0 = now_ms();
  if (run_llvm(m, tm, &pre, pre.llvm_passes, 0, d) ||
      (check && verify(m, &pre, d)))
    return 1;
  d->stage_ms[canon] += now_ms() - t0;
  return 0;
}

int ks_pipeline_run_prepared(LLVMModuleRef *mp, LLVMTargetMachineRef tm,
                             const ks_spec *s, ks_diag *d) {
  return run_from(mp, tm, s, d, stage_index("bind"));
}

int ks_pipeline_prepared_stage(const char *name) {
  return name && stage_index(name) < stage_index("bind");
}
