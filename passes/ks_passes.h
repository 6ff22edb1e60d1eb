/*
 * ks_passes.h - internal interface of passes/: kspec's own LLVM passes and
 * the pipeline that runs them with LLVM's. Plain C over LLVMModuleRef; knows
 * nothing of CUDA. A pass has the signature
 *
 *   int ks_pass_NAME(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
 *
 * returning 0 on success and non-zero with d filled on failure; a stage
 * that needs more of the pipeline (the target machine, LLVM's own passes,
 * the unroll count, what other stages will run) takes the stage's context
 * instead, int ks_pass_NAME(ks_stage_ctx *c) (see pipeline.c below).
 */
#ifndef KS_PASSES_H
#define KS_PASSES_H

#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "ir/ks_ir.h"
#include "kspec.h"

typedef struct ks_stage_ctx ks_stage_ctx; /* pipeline.c, below */

/* One value to fold: argument arg_index of the kernel becomes a constant. */
typedef struct ks_spec_value {
  unsigned arg_index;
  ks_type type;
  int64_t i; /* integer types */
  double f;  /* floating types */
} ks_spec_value;

/* The known contents of a read-only buffer argument or module global (a
 * request's bake). */
typedef struct ks_spec_bake {
  unsigned arg_index; /* a pointer argument of the kernel (global NULL) */
  const double *values;
  size_t n;
  /* Non-NULL: the module global of this name instead of an argument;
   * n 0 (values NULL): its contents are its initializer. */
  const char *global;
} ks_spec_bake;

/* Where the libdevice stage gets the device library's functions
 * (jit/codegen/libdevice.c gives the one kspec uses). link() links the
 * definitions of the n named functions, of those of the nopt optional ones
 * the library has, and of what they call, into m, each with linkonce_odr
 * linkage (the stage internalizes them): 0, or non-zero with a one-line
 * message in err (no library found, a file that is not NVPTX bitcode, a
 * name it does not define). path() says where the library came from, for
 * explanations. */
typedef struct ks_devlib {
  int (*link)(LLVMModuleRef m, const char *const *names, size_t n,
              const char *const *opt, size_t nopt, char *err, size_t cap);
  const char *(*path)(void);
} ks_devlib;

/* Everything that specializes a module. */
typedef struct ks_spec {
  const char *kernel; /* the kernel's symbol */
  const ks_spec_value *values;
  size_t nvalues;
  unsigned block[3]; /* 0: not fixed */
  unsigned maxntid, minctasm, maxnreg;
  const char *cpu;        /* "sm_90" */
  const char *features;   /* "+ptx85,+sm_90" */
  const char *dump_stage; /* keep the IR after this stage; NULL: none */
  unsigned disabled;      /* bit i set: optional stage i is switched off */
  const ks_spec_bake *bakes;
  size_t nbakes;
  /* Non-zero: codegen runs its own IR passes (LLVM's options are not set
   * in this process, jit/codegen/target.c), so the lower stage is skipped: its
   * rewrites are written for a codegen that skips NVPTX's (lower-args,
   * lower-alloca and the rest would run again on what they produced), and
   * each would be done twice. */
  int codegen_lowers;
  /* Floating-point modes (kspec.h's KS_FP_* bits): the math stage's. */
  unsigned fp;
  /* The device library; NULL: calls to it stay declarations (the codegen
   * screen then refuses them). */
  const ks_devlib *devlib;
  /* The loops stage's unroll count for every loop (0: full, the default;
   * 1: none) and, when non-zero, for the loops that hold a barrier: the
   * never-slower guard's retries (jit/codegen/guard.c). */
  unsigned unroll, unroll_sync;
  /* Bit i: argument i's sampling becomes hardware texture fetches (the
   * tex stage; ks_spec_req.tex). */
  uint64_t tex;
} ks_spec;

typedef struct ks_diag {
  ks_status status;
  char msg[1024];
  char *dump; /* malloc'd IR text after spec->dump_stage, or NULL */
  /* What the passes did and declined, one line each ("pass: text\n"),
   * malloc'd; NULL when nothing was said (or memory ran out). */
  char *explain;
  size_t explain_len, explain_cap;
  double stage_ms[32]; /* wall time of each pipeline stage */
  int est_regs;        /* regpressure: registers per thread estimated on the
                          final IR; 0 when the stage did not run */
  int reg_budget;      /* and the budget the launch bounds give */
  /* How the kernel must be launched (kspec.h's ks_launch_plan), set by
   * the passes that change it: coarsen_x by tcoarsen, coarsen_y by
   * smem_promote's store exchange, grid_coarsen by gcoarsen, const_copy_*
   * by const_promote. A coarsening of 0 (as zeroed) means none, as 1. */
  ks_launch_plan plan;
  /* Bit i: optional stage i changed the kernel (pipeline.c compares the
   * kernel before and after each; regpressure's unrolling less counts). */
  unsigned changed;
  /* The loops stage found a barrier inside a loop of the kernel (asked only
   * where the guard may look: a fixed block, no register bounds). */
  int sync_loop;
} ks_diag;

/* ---- diag.c ------------------------------------------------------------ */

/* Records a failure on d; returns 1 so passes can `return ks_diag_fail()`. */
int ks_diag_fail(ks_diag *d, ks_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends "pass: text" to d's explanation: what a pass transformed, or what
 * it declined and why. Never fails (an explanation that does not fit in
 * memory is dropped). */
void ks_diag_explain(ks_diag *d, const char *pass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* arg's name, or "argument N" when it has none, in buf; returns buf. */
const char *ks_diag_arg_name(LLVMValueRef arg, char *buf, size_t cap);

/* ---- libdevice.c, math.c ------------------------------------------------ */

/* The libdevice stage (before bind, so once per prepared template): calls
 * to LLVM's math intrinsics that the NVPTX backend cannot select
 * (llvm.exp, llvm.log, llvm.pow, llvm.sin, ...) become calls to their
 * libdevice functions (__nv_expf, ...; the __nv_fast_* form for a float
 * call marked afn), and the __nv_* functions the module declares are
 * linked from spec->devlib with what they call, internalized and kept out
 * of line (the math stage inlines them once __nvvm_reflect is answered).
 * The module's named metadata kspec.libdevice records what was linked. */
int ks_pass_libdevice(ks_stage_ctx *c);
/* Does m need the device library (calls a declared __nv_* function or an
 * intrinsic the libdevice stage maps)? For the cache key. */
int ks_libdevice_needed(LLVMModuleRef m);
/* The fast form of libdevice function name ("__nv_expf" ->
 * "__nv_fast_expf"), or NULL. */
const char *ks_libdevice_fast_form(const char *name);
/* The math stage (right after bind): every __nvvm_reflect query answered
 * for the request (__CUDA_ARCH, __CUDA_FTZ, __CUDA_PREC_DIV,
 * __CUDA_PREC_SQRT), the request's floating-point modes applied (spec->fp:
 * flush to zero, approximate division and square root, the fast forms of
 * libdevice's functions), then the linked libdevice functions inlined. */
int ks_pass_math(ks_stage_ctx *c);
/* Is m a prepared template worth running the math stage on ahead of bind
 * (ks_pipeline_math_ahead): it links libdevice, has no sampling function
 * for the tex stage to inline, and the stage has not run on it? */
int ks_math_ahead_worth(LLVMModuleRef m);
/* Marks m as one the math stage ran on ahead of bind, keeping the stage's
 * explanation (its "math: ..." lines) for the math stage to give when the
 * pipeline reaches it: it then applies the request's modes to what bind
 * and tex made since, and does nothing else. */
void ks_math_mark_ahead(LLVMModuleRef m, const char *explain);
/* Is f a definition of libdevice's (an __nv_* or __internal_* function)? */
int ks_math_libdevice_fn(LLVMValueRef f);

/* ---- math_outline.c ----------------------------------------------------- */

/* Splits c->m, a module the math stage ran on ahead of bind without
 * inlining the library (ks_stage_ctx.inline_later), in two: c->m's calls
 * into the library call declarations instead, listed in its named metadata
 * kspec.outlined and marked with the memory effects of their bodies, and
 * the library's code and globals leave it; *bodies gets a new module (the
 * caller's) of those functions, internal, with the library's helpers
 * inlined into them. 1 when split; 0 when c->m is not to be split (left
 * as it was: math_outline.c says which modules); -1 when out of memory. */
int ks_math_split(ks_stage_ctx *c, LLVMModuleRef *bodies);
/* Would a call of m's kernel (s->kernel) to a function ks_math_split left
 * out of line have an argument made constant by s's bind, or one already
 * (or may it: a request with bakes, a call from another function)? Such a
 * request specializes the inlined form, whose calls LLVM can fold. */
int ks_math_outline_folds(LLVMModuleRef m, const ks_spec *s);
/* In b, a copy of ks_math_split's *bodies: only the n functions named
 * (the ones a specialization calls) and the globals they use are left. */
void ks_math_bodies_keep(LLVMModuleRef b, const char *const *names, size_t n);
/* Every function b defines gets linkage l. */
void ks_math_bodies_linkage(LLVMModuleRef b, LLVMLinkage l);

/* ---- bind.c ------------------------------------------------------------ */

/* Folds bound arguments and the block size of spec->kernel into constants,
 * adds the launch-bound annotations (reqntid/maxntid/minctasm/maxnreg) and
 * retargets every function to spec->cpu/features. */
int ks_pass_bind(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* Deletes m's kernels but keep, as bind does (those something else refers
 * to stay); 1: out of memory. */
int ks_bind_drop_other_kernels(LLVMModuleRef m, LLVMValueRef keep);
/* Every function m defines gets s's target (cpu and features), as bind
 * gives it. */
void ks_bind_retarget(LLVMModuleRef m, const ks_spec *s);

/* ---- tex.c ------------------------------------------------------------- */

/* The tex stage (right after bind): the dialect's sampling functions
 * (__ks_tex<D>d_<type>, kspec_device.h) inlined as software. */
int ks_pass_tex(ks_stage_ctx *c);
/* Is fn one of the dialect's sampling functions (by its name)? */
int ks_tex_is_sampler(LLVMValueRef fn);

/* ---- redux_guard.c ----------------------------------------------------- */

/* The toolchain guard: a llvm.nvvm.redux.sync.* call whose value is all
 * lanes and whose mask is data has the two swapped (clang < 20 with CUDA's
 * headers, llvm/llvm-project#131415). Put back in order, with an
 * explanation, where llvm.ident names no clang newer than 19; refused
 * (KS_ECODEGEN) otherwise. Calls marked nomerge (kspec_device.h's) are in
 * order and left alone. Runs at the end of the canonicalize stage. */
int ks_pass_redux_guard(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- loops.c ----------------------------------------------------------- */

/* The loops stage: marks every loop of spec->kernel for the unroll stage
 * (ks_loops_mark with c->unroll); before a full unroll, keeps tcoarsen the
 * rolled body its serial copy comes from (ks_tcoarsen_keep_rolled) when
 * c->tcoarsen. */
int ks_pass_loops(ks_stage_ctx *c);
/* The same with llvm.loop.unroll.count = count instead (count 1: unroll
 * disabled; 0: full, as ks_pass_loops); loops that hold a barrier get
 * s->unroll_sync instead where it is set. Sets d->sync_loop when a loop
 * holds a barrier (looked for only with a fixed block and no maxnreg or
 * minctasm, or with s->unroll_sync). */
int ks_loops_mark(LLVMModuleRef m, const ks_spec *s, unsigned count,
                  ks_diag *d);
/* Gives the loop whose latch is br a new loop ID with its properties but
 * unroll directives replaced by llvm.loop.unroll.disable (a loop ID is
 * made for a br without one). 1: out of memory. */
int ks_loops_keep_rolled(LLVMValueRef br);
/* As ks_loops_keep_rolled, for kspec's stages only: ks_loops_release takes
 * the directive off again before codegen, which would otherwise pass it to
 * ptxas (.pragma "nounroll"), so that ptxas may unroll the loop itself. */
int ks_loops_keep_rolled_here(LLVMValueRef br);
void ks_loops_release(LLVMModuleRef m);
/* Does br's loop ID say llvm.loop.unroll.disable (and no other unroll
 * directive)? LLVM's loop-unroll leaves such a loop as it is. */
int ks_loops_rolled(LLVMValueRef br);
/* After the optimize stage's loop-unroll, in a specialization (values
 * bound or a fixed block): the small single-exit loops that LLVM left
 * rolled though they ask for full unrolling (a trip count bounded by the
 * bound values, but not constant) get llvm.loop.unroll.count 4 or 2, each
 * with an explanation. Returns how many (the optimize stage runs
 * loop-unroll again where any), -1 when out of memory (d says so). */
int ks_loops_runtime(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* At the end of the lower stage: a loop latch's test of its counter
 * before the increment against a constant (`i < C - S`, as instcombine
 * folds `i + S < C`) is put back on the incremented counter where that is
 * the same test (no wrap, by the start's range, %tid's from s's block),
 * the form in which ptxas
 * unrolls a loop. One explanation line when any was. 1: out of memory. */
int ks_loops_latch_next(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* In the loops stage, in a specialization (values bound or a fixed block):
 * a loop whose exit test compares a counter rising by a constant from a
 * start of known range (%tid's from s's block) with a constant, and which
 * runs the same number of times (fewer than 8) from every such start, is
 * tested on a new counter against that number instead, so that SCEV sees
 * its trip count and the unroll stage unrolls it in full. One explanation
 * line per loop. 1: out of memory. */
int ks_loops_counted(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- regpressure.c ----------------------------------------------------- */

/* Estimates the registers per thread that spec->kernel needs (liveness over
 * its CFG, weighted by width in 32-bit registers) and reports it with the
 * budget of the launch bounds (ks_diag.est_regs, .reg_budget). */
int ks_pass_regpressure(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* unclamp.c: the block with the most selects of thread-affine indices
 * against uniform bounds (clamps) gets a copy without them, run where the
 * whole block of threads is inside every bound. */
int ks_pass_unclamp(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* minmax.c: selects of a value against a bound that are a min or max of
 * it (clamps) become llvm.smin/smax/umin/umax. */
int ks_pass_minmax(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* shfl.c: the steps of a shared-memory tree reduction within the first
 * warp (the block fixed) become shfl.sync.down, or redux.sync for 32-bit
 * integer add/min/max/and/or/xor on sm_80 and later, where the result is
 * provably the same; their barriers and shared loads and stores go. */
int ks_pass_shfl(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* The estimate for fn, a function of m; -1 on no memory. */
int ks_regpressure_estimate(LLVMModuleRef m, LLVMValueRef fn);
/* Registers per thread the launch bounds of s allow (255 without bounds);
 * where the limit comes from in why. */
int ks_regpressure_budget(const ks_spec *s, char *why, size_t cap);

/* ---- lower.c ----------------------------------------------------------- */

/* NVPTX's lowering before instruction selection, which codegen no longer
 * does (jit/codegen/target.c starts it at nvptx-lower-unreachable); the
 * pipeline's last stage runs these with LLVM's own passes
 * (passes/pipeline.c). */
enum {
  KS_LOWER_INTRINSICS = 1,  /* pre-isel-intrinsic-lowering */
  KS_LOWER_WIDE = 2,        /* expand-large-div-rem, expand-large-fp-convert */
  KS_LOWER_GENERIC = 4,     /* generic-to-nvvm */
  KS_LOWER_ATOMICS = 32,    /* atomic-expand */
  KS_LOWER_VARIADIC = 64,   /* expand-variadics (then early-cse, sroa) */
  KS_LOWER_CONSTANTS = 128, /* lower-constant-intrinsics */
};
/* The lower stage: the lowering above, in codegen's order, LLVM's passes
 * and codegen's straight-line passes where m has work for them. */
int ks_pass_lower(ks_stage_ctx *c);
/* Which of LLVM's passes above m needs (KS_LOWER_* bits). */
int ks_lower_needs(LLVMModuleRef m);
/* Local symbols with '.' or '@' renamed ("_$_"); 1 on no memory. */
int ks_lower_names(LLVMModuleRef m);
/* Kernel pointers (arguments, pointers read out of byval arguments,
 * integers only cast to pointers) marked global; byval arguments copied
 * to locals (*copied set). 1 on no memory. */
int ks_lower_args(LLVMModuleRef m, int *copied);
int ks_lower_has_allocas(LLVMModuleRef m);
/* Allocas reached through a cast to the local space; 1 on no memory. */
int ks_lower_allocas(LLVMModuleRef m);
/* atomicrmw on local memory as load, operation, store. */
int ks_lower_local_atomics(LLVMModuleRef m, ks_diag *d);
/* Could codegen's straight-line passes find work in m? KS_LOWER_STRENGTH:
 * two multiplications (x + C1) * S and (x + C2) * S (C2 may be 0, either
 * through an extension) that straight-line strength reduction would
 * rewrite one from the other; KS_LOWER_SPLIT_GEP: a GEP index x + C (through
 * an extension) whose constant separate-const-offset-from-gep moves into
 * the address. */
enum { KS_LOWER_STRENGTH = 8, KS_LOWER_SPLIT_GEP = 16 };
int ks_lower_straight_line(LLVMModuleRef m);
/* Could slsr rewrite anything in m: two of its candidates (B + i * S,
 * (B + i) * S or &B[i * S]) of one form, type and stride S, one not in its
 * simplest form, the two addresses not off different opaque objects? A
 * necessary condition, found without ScalarEvolution (straight.c); 1 also
 * when out of memory. */
int ks_lower_slsr(LLVMModuleRef m);
/* Could nary-reassociate rewrite anything in m: (A + B) + C or
 * (A * B) * C with A op B used only there, &p[ext(A + B)], or a min or max
 * of a min or max? A necessary condition (straight.c). */
int ks_lower_nary(LLVMModuleRef m);

/* ---- vectorize.c ------------------------------------------------------- */

/* Could LLVM's load/store vectorizer merge anything in m: two loads (or
 * stores) in one block, one ending where the other starts, the first
 * aligned for the pair? A syntactic screen that decides whether the
 * optimize stage runs it. */
int ks_vectorize_worth(LLVMModuleRef m);

/* ---- coarsen.c --------------------------------------------------------- */

/* Thread coarsening: a grid-stride loop whose body reads P[i] and updates
 * memory only by commutative atomics processes 16 bytes of P per thread
 * and iteration, from one 16-byte load, where P is 16-byte aligned; the
 * original loop finishes the last n % W elements. */
int ks_pass_coarsen(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- gcoarsen.c -------------------------------------------------------- */

/* Grid coarsening of block-additive kernels: each real block runs C
 * consecutive blocks of the user's grid, evaluating only the region that
 * computes the block's per-thread value C times and summing it, then the
 * rest (tree, atomics) once; the kernel gets a trailing i32 parameter, the
 * user's grid.x (d->plan.grid_coarsen = C). Declines kernels whose result
 * is not a sum of the blocks' values (see gcoarsen.c). */
int ks_pass_gcoarsen(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- tcoarsen.c -------------------------------------------------------- */

/* Thread coarsening inside a fixed block: each real thread runs K
 * consecutive threads of the block along x (K*tid.x + j), so that loads
 * neighbouring threads share are issued once; the real block is
 * block.x/K (d->plan.coarsen_x = K, .reqntid: the real block). Declines
 * kernels where threads may interact other than through memory (barriers,
 * warp operations, shared memory, fences, waits on atomics) and kernels
 * without such shared loads. */
int ks_pass_tcoarsen(ks_stage_ctx *c);
/* Before unrolling (the loops stage calls it): keeps a clone of
 * spec->kernel with loops, <kernel>.ks.rolled, marked to stay rolled, from
 * which ks_pass_tcoarsen makes its serial copy (and then deletes it);
 * nothing when the kernel has no loop or its block rules coarsening out. */
int ks_tcoarsen_keep_rolled(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- smem_promote.c, smem_window.c, smem_store.c ------------------------ */

/* Shared-memory promotion: runs shared-array sizing, atomic privatization
 * (these two and private arrays: passes/smem_atomics.h), the two
 * transformations below, then private arrays. */
int ks_pass_smem_promote(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* Window staging: read-only global loads a block re-reads at offsets known
 * after binding are loaded once into a shared tile with its halo. */
int ks_smem_window(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* Store exchange: in a square 2-D block, one store per thread contiguous
 * along y but not along x (a transpose) goes through a shared tile, each
 * thread storing the element of its mirror thread, so that warps write
 * contiguous memory. */
int ks_smem_store(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- window_expr.c ------------------------------------------------------ */

/* Normal forms of index expressions over arguments, constants and special
 * registers (sums of constant multiples of atoms, modulo 2^bits), hash-
 * consed so that equal forms have equal ids; the expressions they describe
 * are equal for every value of the leaves. A context holds them all. */
typedef struct ks_wx ks_wx;
/* block: the block size, 1 for a coordinate known to be 0; NULL on no
 * memory. */
ks_wx *ks_wx_create(LLVMModuleRef m, const unsigned block[3]);
void ks_wx_destroy(ks_wx *x); /* NULL is a no-op */
/* The normal form of v (an integer or pointer) with %tid[dim] read as
 * %tid[dim] + delta (dim < 0: as it is); -1 when v is not understood, with
 * the reason in ks_wx_why. */
int ks_wx_norm(ks_wx *x, LLVMValueRef v, int dim, int64_t delta);
const char *ks_wx_why(const ks_wx *x);
/* Bit d set: the form depends on %tid[d]. */
unsigned ks_wx_dep(const ks_wx *x, int nf);
/* The pointer argument an address is based on (coefficient 1), or NULL. */
LLVMValueRef ks_wx_base(const ks_wx *x, int nf);
/* The first form inside nf (nf itself first, then depth first) with a
 * %tid[dim] term: its coefficient and constant, signed; *top when that is nf
 * itself. 0 when %tid[dim] does not occur. */
int ks_wx_find_tid(const ks_wx *x, int nf, int dim, int64_t *coef, int64_t *k,
                   int *top);
/* Is nf %tid[dim] + terms that depend on no thread coordinate? */
int ks_wx_is_tid_plus_uniform(const ks_wx *x, int nf, int dim);
/* Rebuilds v (which ks_wx_norm understood) at b's position, without
 * poison-generating flags, reading %tid.x/y/z as tid[0..2]. NULL when v is
 * not such an expression. */
LLVMValueRef ks_wx_clone(ks_wx *x, LLVMBuilderRef b, LLVMValueRef v,
                         LLVMValueRef const tid[3]);

/* Promises that the expressions normalized from now on are evaluated only
 * with tid[dim] in [0, bound) (the real block): an extension of V + W, V a
 * multiple of 2^s and W = (terms in tid[dim]) + constant within [0, 2^s)
 * over that range, then becomes ext(V) + W. Clones must then be evaluated
 * only at such coordinates. */
void ks_wx_set_range(ks_wx *x, int dim, unsigned bound);
/* From now on, an extension of an add, sub or mul that cannot wrap (sext
 * of nsw, zext of nuw) is normalized as the operation on the extended
 * operands: the forms then equal the expressions only where these are not
 * poison. For judging a pattern (which stores are contiguous), never for
 * rewriting by equal forms; clones keep the original's operations. */
void ks_wx_assume_nowrap(ks_wx *x);
/* Do forms a and b differ by a constant only? Then *diff = a - b, signed. */
int ks_wx_const_diff(const ks_wx *x, int a, int b, int64_t *diff);
/* Is nf  coef*tid[dim] + rest  with rest independent of tid[dim]? Then
 * *coef (signed) and *tz, the trailing zero bits common to every
 * coefficient and the constant (2^tz divides every value of nf). */
int ks_wx_tid_linear(const ks_wx *x, int nf, int dim, int64_t *coef,
                     unsigned *tz);

/* ---- const_promote.c --------------------------------------------------- */

/* Constant and read-only promotion: baked buffers become immediates, small
 * uniformly read buffers go to constant memory, read-only inputs take the
 * non-coherent path (ld.global.nc). */
int ks_pass_const_promote(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* Read-only path: marks !invariant.load (ld.global.nc) the loads of kernel
 * fn's pointer arguments that no write can disturb; see const_nc.c. */
int ks_const_nc(LLVMModuleRef m, LLVMValueRef fn, ks_diag *d);
/* NULL when the kernel only reads through pointer argument arg: every
 * pointer derived from it (GEP, cast, phi, select) is only loaded from
 * (plain loads) or compared, never stored to, updated, passed to a call or
 * converted. *loads (malloc'd, the caller frees) then holds those loads.
 * Otherwise the reason, and *loads is NULL. */
const char *ks_const_readonly(LLVMValueRef arg, LLVMValueRef **loads,
                              size_t *nloads);
/* The argument that pointer p is a constant byte *offset from (through GEPs
 * with constant indices and casts), or NULL. */
LLVMValueRef ks_const_base(LLVMTargetDataRef dl, LLVMValueRef p,
                           int64_t *offset);
/* What pointer p is computed from by GEPs and casts alone (a phi, a
 * select, an argument, a global, ...). */
LLVMValueRef ks_const_root(LLVMValueRef p);
/* The constant of type ty (an integer up to 64 bits, half, bfloat, float,
 * double) for v, or NULL when ty cannot hold it: an integer must fit,
 * a float rounds as the host's conversion does but not to infinity. */
LLVMValueRef ks_const_value(LLVMTypeRef ty, double v);

/* ---- bake_globals.c ------------------------------------------------------ */

/* Before the pipeline: each global baked with values gets them as its
 * initializer in m (KS_EPARAM when a value does not fit its number's type
 * or the count is not the global's). */
int ks_bake_global_init(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* In const_promote: loads in fn of a baked global's numbers at constant
 * offsets become the initializer's constants. */
int ks_bake_globals(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                    ks_diag *d);

/* ---- pipeline.c -------------------------------------------------------- */

/* What a stage works on, made by the pipeline for each run of it (a trial
 * run with a smaller unroll count has its own). */
struct ks_stage_ctx {
  LLVMModuleRef m;         /* the kernel's whole module */
  LLVMTargetMachineRef tm; /* the target, for LLVM's passes */
  const ks_spec *spec;     /* the request */
  ks_diag *diag;           /* failures, explanations, what a launch needs */
  const char *name;        /* the stage running, for its messages */
  unsigned unroll;         /* unroll count for the loops stage: 0 full */
  int keep_names;          /* an IR dump was asked for: new values named */
  int tcoarsen;            /* the tcoarsen stage will run */
  int const_promote;       /* the const_promote stage will run */
  int inline_later;        /* the math stage leaves the library's functions
                              out of line (ks_pipeline_math_ahead) */
  uint64_t print;          /* the kernel's fingerprint after the last stage */
  int print_valid;         /* when that stage was optional (pipeline.c) */
};

/* Runs LLVM's pass pipeline `passes` (the new pass manager's syntax,
 * "function(early-cse)") on c->m with c->tm: the one way kspec runs LLVM's
 * passes. On failure d says "<stage>: <LLVM's message>"; returns 1. */
int ks_pipeline_llvm(ks_stage_ctx *c, const char *passes);
/* The same with the names of the values it makes discarded, unless
 * c->keep_names: LLVM names them after their source ("mul7.12"), which
 * nothing but the dumps and explanations read. */
int ks_pipeline_llvm_unnamed(ks_stage_ctx *c, const char *passes);
/* Is a loop left in m's functions (or did memory run out looking)? */
int ks_pipeline_loops_left(LLVMModuleRef m);

/* Stage names, in pipeline order. */
size_t ks_pipeline_stage_count(void);
const char *ks_pipeline_stage_name(size_t i);
/* Can stage i be switched off (ks_spec.disabled bit i)? */
int ks_pipeline_stage_optional(size_t i);
/* Version of the pipeline, part of every cache key; bump on any change that
 * can alter generated code. */
#define KS_PIPELINE_VERSION 59

/* Runs every stage on *m (the kernel's whole module) with tm's target. When
 * the regpressure stage finds that full unrolling went over the register
 * budget, the stages from loops on are run again on a copy with a smaller
 * unroll factor, and *m may be replaced by that copy (the old module is
 * disposed of). */
int ks_pipeline_run(LLVMModuleRef *m, LLVMTargetMachineRef tm, const ks_spec *s,
                    ks_diag *d);

/* The same in two parts, for running the first once per template:
 * ks_pipeline_prepare runs the stages that depend on the template alone
 * (input, inline: those before bind) and SROA on m; ks_pipeline_run_prepared
 * runs the rest on (a copy of) such a module. Together they give the same
 * PTX as ks_pipeline_run for the built-in templates (tools/ptx_identity.sh),
 * but for s->dump_stage naming a stage of the first part
 * (ks_pipeline_prepared_stage), which ks_pipeline_run_prepared never
 * dumps. */
int ks_pipeline_prepare(LLVMModuleRef m, LLVMTargetMachineRef tm,
                        const ks_devlib *lib, ks_diag *d);
int ks_pipeline_run_prepared(LLVMModuleRef *m, LLVMTargetMachineRef tm,
                             const ks_spec *s, ks_diag *d);
/* The math stage run on a prepared template m ahead of bind, for requests
 * of s's kernel, target and floating-point modes (s->kernel, s->cpu,
 * s->fp; no dump): m's other kernels dropped first, as bind drops them,
 * what the stage does to a template that links libdevice
 * (ks_math_ahead_worth) depends on nothing else, so that copies of m, run
 * through ks_pipeline_run_prepared, get the same kernel as copies of the
 * prepared template, sooner. Where ks_math_split can split it, *out gets
 * a second such module whose kernel calls the library's functions out of
 * line instead, and *bodies those functions (both new, the caller's; NULL
 * otherwise): ks_pipeline_math_bodies compiles the latter for codegen;
 * m's functions are then still to be inlined (ks_pipeline_math_inline)
 * before a copy of m is specialized. Its time counts as d's math stage's;
 * a failure leaves m to be disposed of (the stage then fails again where
 * it runs in the pipeline, with its message). */
int ks_pipeline_math_ahead(LLVMModuleRef m, LLVMTargetMachineRef tm,
                           const ks_spec *s, ks_diag *d, LLVMModuleRef *out,
                           LLVMModuleRef *bodies);
/* The library's functions inlined into m, as ks_pipeline_math_ahead left
 * it when it split a copy; its time counts as d's math stage's. 1 on
 * failure (m is then to be disposed of), d saying why. */
int ks_pipeline_math_inline(LLVMModuleRef m, LLVMTargetMachineRef tm,
                            const ks_spec *s, ks_diag *d);
/* Is stage `name` one of those ks_pipeline_prepare runs? */
int ks_pipeline_prepared_stage(const char *name);
/* Readies b (ks_math_bodies_keep's) for codegen with tm, for requests like
 * s: retargeted as bind retargets, the LLVM passes a kernel's code gets
 * after bind, and the lower stage; b's functions stay internal. 1 on
 * failure, d saying why. */
int ks_pipeline_math_bodies(LLVMModuleRef b, LLVMTargetMachineRef tm,
                            const ks_spec *s, ks_diag *d);

#endif /* KS_PASSES_H */
