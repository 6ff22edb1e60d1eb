/*
 * smem_atomics.h - what the files of shared-memory promotion's atomic
 * family share (internal to passes/): the value ranges they bound indices
 * with (ranges.c), atomic privatization (smem_atomics.c), shared-array
 * sizing (smem_size.c), private arrays (smem_local.c) and the run-time
 * alias checks of privatization (alias.c). smem_promote.c runs them;
 * ks_passes.h has only the stage's entry.
 */
#ifndef KS_SMEM_ATOMICS_H
#define KS_SMEM_ATOMICS_H

#include "passes/ks_passes.h"

enum {
  KS_SMEM_CAP = 32 * 1024, /* bytes all privatized copies may take */
  KS_AS_GLOBAL = 1,
  KS_AS_SHARED = 3,
  KS_AS_CONST = 4,
  KS_AS_LOCAL = 5,
};

/* ---- ranges.c ------------------------------------------------------------ */

typedef __int128 ks_wide;

/* A set of integers of one width, in their signed view: every value is in
 * [lo, hi] and equal to r modulo g; g == 0 means the single value lo. */
typedef struct ks_iv {
  ks_wide lo, hi, g, r;
} ks_iv;

/* The least and greatest signed value of width w. */
ks_wide ks_iv_smin(unsigned w);
ks_wide ks_iv_smax(unsigned w);
/* Every value of width w; the one value v. */
ks_iv ks_iv_full(unsigned w);
ks_iv ks_iv_single(ks_wide v);
/* [lo, hi] with congruence (g, r) as a value of width w: a result outside
 * the width wrapped, which is poison under nsw (clamped), else anything. */
ks_iv ks_iv_make(unsigned w, ks_wide lo, ks_wide hi, ks_wide g, ks_wide r,
                 int nsw);
/* The congruence modulus a and b share (for a union or a sum). */
ks_wide ks_iv_join_g(ks_iv a, ks_iv b);
/* The union of a and b; their product. */
ks_iv ks_iv_join(unsigned w, ks_iv a, ks_iv b);
ks_iv ks_iv_mul(unsigned w, ks_iv a, ks_iv b, int nsw);

enum {
  KS_RANGES_DEPTH = 48, /* of the analysis' recursion */
  KS_RANGES_MEMO = 512,
};

typedef struct ks_iv_memo {
  LLVMValueRef v;
  ks_iv r;
} ks_iv_memo;

/* The analysis' state: its recursion, the ranges it knows (a caller may
 * seed them, as ks_range_path_bounds does) and the fixed block. */
typedef struct ks_ranges {
  LLVMValueRef stack[KS_RANGES_DEPTH];
  unsigned depth;
  ks_iv_memo m[KS_RANGES_MEMO];
  unsigned nm;
  unsigned block[3]; /* shared-array sizing: %tid's bounds; 0: unknown */
} ks_ranges;

/* The width of integer v; 0 for other types. */
unsigned ks_range_width(LLVMValueRef v);
/* The constant c of width <= 64 as signed (or unsigned) value; 0 if v is
 * no such constant. */
int ks_range_const(LLVMValueRef v, int is_unsigned, ks_wide *c);
/* The values v (an integer of width <= 64) can take, memoized in R. */
ks_iv ks_range_of(ks_ranges *R, LLVMValueRef v);
/* Seeds R with the bounds the branch conditions on the way to bb's start
 * imply; fresh is scratch with R's block. */
void ks_range_path_bounds(ks_ranges *R, ks_ranges *fresh, LLVMBasicBlockRef bb);

/* ---- smem_atomics.c ------------------------------------------------------ */

/* Atomic privatization: global atomic updates whose index range is bounded
 * after binding go to a per-block shared copy, merged once per block. */
int ks_smem_atomics(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
/* The thread's linear index in a block of dims r (i32), built at b;
 * r[0] == 0: the block is not fixed, its dims are read from %ntid. */
LLVMValueRef ks_smem_linear_tid(LLVMModuleRef m, LLVMBuilderRef b,
                                const unsigned r[3]);

/* ---- smem_size.c --------------------------------------------------------- */

/* First in smem_promote: a shared array declared larger than its accesses
 * can reach, once values and block are bound (reduce_sum's sh[1024] with
 * BLOCK=256), shrinks to what they reach. */
int ks_smem_size(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* The kernel a sizing works on. */
typedef struct ks_smem_kernel {
  LLVMModuleRef m;
  LLVMContextRef c;
  LLVMValueRef fn;
  LLVMTargetDataRef dl;
} ks_smem_kernel;

ks_smem_kernel ks_smem_kernel_of(LLVMModuleRef m, LLVMValueRef fn);
/* The bytes of shared memory m's globals take already. */
unsigned long long ks_smem_existing(LLVMModuleRef m);
/* Two ks_ranges for ks_smem_reach (the analysis and its scratch), knowing
 * the real block: after thread coarsening, the launch's divided. NULL: out
 * of memory; the caller frees it. */
ks_ranges *ks_smem_reach_work(const ks_spec *s, const ks_diag *d);
/* The furthest byte (exclusive) any access of g reaches through value v (g
 * or a pointer derived from it), the maximum of *end and it in *end; 0 with
 * *why when one cannot be bounded. */
int ks_smem_reach(const ks_smem_kernel *K, ks_ranges *work, LLVMValueRef g,
                  LLVMValueRef v, ks_wide *end, const char **why, int depth);
/* Is call a lifetime marker of alloca v, or a memset of pointer v of a
 * constant length (*len; 0 for a marker)? */
int ks_smem_marker_or_memset(LLVMValueRef call, LLVMValueRef v,
                             unsigned long long *len);

/* ---- smem_local.c -------------------------------------------------------- */

/* Last in smem_promote: a private array left in local memory (indexed by
 * data) becomes the thread's slice of a shared array, with a fixed block
 * (or maxntid) and where every access is bounded. */
int ks_smem_local(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- alias.c ------------------------------------------------------------- */

/* A run-time alias check being built: a block appended to the kernel
 * (ks.alias) that computes, from arguments, constants and the launch's
 * shape alone, whether accesses stay clear of bytes a transformation
 * changes; ks_alias_version makes it the kernel's entry. */
typedef struct ks_alias ks_alias;

/* A check for kernel fn of m with block (all 0: not fixed); NULL when out
 * of memory. */
ks_alias *ks_alias_create(LLVMModuleRef m, LLVMValueRef fn,
                          const unsigned block[3]);
/* Deletes the check block unless ks_alias_version used it; NULL: no-op. */
void ks_alias_destroy(ks_alias *a);
/* The check block (to stop a copy of the kernel's blocks before it). */
LLVMBasicBlockRef ks_alias_block(const ks_alias *a);

/* The bytes an access touches, relative to its base, where constant. */
typedef struct ks_alias_bytes {
  int known;
  ks_wide lo, hi;  /* [lo, hi) */
  uint64_t leaves; /* else what its bounds read at launch: */
} ks_alias_bytes;
#define KS_ALIAS_ARG(i) (1ull << (i))        /* argument i < 32 */
#define KS_ALIAS_DIM(d) (1ull << (32 + (d))) /* ntid.xyz, nctaid.xyz */

/* An i1 in the check block, true only where access inst (a load, store,
 * atomicrmw or cmpxchg) touches no byte of [P + lo, P + hi) in any thread;
 * NULL when its addresses cannot be bounded from the launch (or the check
 * could never hold). *out: the access's bytes where constant. */
LLVMValueRef ks_alias_disjoint(ks_alias *a, LLVMValueRef inst, LLVMValueRef P,
                               ks_wide lo, ks_wide hi, ks_alias_bytes *out);
/* x && y in the check block (x NULL: y). */
LLVMValueRef ks_alias_and(ks_alias *a, LLVMValueRef x, LLVMValueRef y);
/* The check becomes fn's entry: `br ok, fast, slow`, with the static
 * allocas of fast and slow (both former entries) moved into it. */
void ks_alias_version(ks_alias *a, LLVMValueRef ok, LLVMBasicBlockRef fast,
                      LLVMBasicBlockRef slow);

#endif
