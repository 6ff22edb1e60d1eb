/*
 * ks_jit.h - internal interface of jit/, the engine behind kspec.h: target
 * selection, templates, specialization (bind + passes + NVPTX codegen), the
 * in-memory cache, and the bridge to driver/.
 */
#ifndef KS_JIT_H
#define KS_JIT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <llvm-c/TargetMachine.h>

#include "driver/ks_driver.h"
#include "ir/ks_ir.h"
#include "kspec.h"
#include "passes/ks_passes.h"

/* errors.c and api.c, and what tune/ may use of the rest: */
#include "jit/tune/shim.h"

/* ---- arch.c, codegen/target.c ------------------------------------------ */

/* One GPU architecture: data, not scattered ifs. */
typedef struct ks_arch {
  const char *name; /* "sm_90" */
  unsigned sm;      /* 90 */
  unsigned min_ptx; /* lowest PTX ISA (x10) that knows it */
  unsigned max_threads_block, max_block_z;
  unsigned max_blocks_sm;
  unsigned max_regs_thread;
  unsigned max_smem_block_optin; /* bytes */
  /* For the occupancy calculator (occupancy.c). */
  unsigned max_threads_sm;
  unsigned regs_sm, regs_block;
  unsigned reg_unit;      /* registers are allocated per warp in these */
  unsigned subpartitions; /* register file partitions (warp schedulers) */
  unsigned smem_sm;       /* bytes of shared memory per SM, at most */
  unsigned smem_block;    /* bytes per block without opt-in */
  unsigned smem_reserved; /* bytes the driver reserves per block */
  unsigned smem_unit;     /* allocation granularity, bytes */
} ks_arch;

const ks_arch *ks_jit_arch_find(const char *name);
/* The table entry for a device's sm (major*10+minor), or NULL. */
const ks_arch *ks_jit_arch_for_sm(int sm);
/* Highest PTX ISA (x10) the LLVM NVPTX backend can emit. */
unsigned ks_jit_llvm_max_ptx(void);
/* Highest PTX ISA a driver of this version (13000 = 13.0) accepts. */
unsigned ks_jit_driver_max_ptx(int driver_version);

/* ---- ptxedit.c --------------------------------------------------------- */

/* Shared-memory register spilling for kernel in the PTX text *ptx (*len
 * bytes, replaced on success): .version 9.0 and `.pragma
 * "enable_smem_spilling"` at the start of the entry's body. KS_EPARAM when
 * the PTX has dynamic shared memory (ptxas rejects the pragma then). */
ks_status ks_jit_ptx_smem_spill(char **ptx, size_t *len, const char *kernel);
/* A copy of the PTX text ptx (len bytes) with `.maxnreg n` among kernel's
 * directives, malloc'd into *out (*out_len bytes). */
ks_status ks_jit_ptx_maxnreg(const char *ptx, size_t len, const char *kernel,
                             unsigned n, char **out, size_t *out_len);
/* The same with `.minnctapersm n`. */
ks_status ks_jit_ptx_minctasm(const char *ptx, size_t len, const char *kernel,
                              unsigned n, char **out, size_t *out_len);
/* `red` for each `atom.global` of the PTX text *ptx (*len bytes, replaced
 * when something changed) whose old value its function never reads, where
 * red has the operation (not exch, cas, acquire orderings or vectors). */
ks_status ks_jit_ptx_red(char **ptx, size_t *len);
/* Registers the NVPTX target once (thread-safe), and sets LLVM's
 * command-line options with it where the process's LLVM is kspec's
 * (ks_llvm_own_process, or the static build): target.c says which and
 * why. */
void ks_jit_llvm_init(void);
/* 1 when LLVM's options are set (codegen starts at
 * nvptx-lower-unreachable and the lower stage must run), 0 when codegen
 * runs all of its own passes; fixed from the first call on. */
int ks_jit_llvm_options(void);
/* A context holds LLVM's pools (target machines, prepared templates) while
 * it lives: ks_jit_llvm_release by the last one disposes of them. */
void ks_jit_llvm_hold(void);
void ks_jit_llvm_release(void);
/* How many target machines and prepared templates (LLVM contexts) the
 * pools keep now (for tests). */
void ks_jit_llvm_pooled(size_t *machines, size_t *contexts);
/* A target machine for arch and ISA; NULL with a message on failure. */
LLVMTargetMachineRef ks_jit_target_machine(const ks_arch *a, unsigned ptx);
/* A target machine borrowed from a pool (made when none is
 * free), for one compile at a time; give it back with ks_jit_tm_put, reuse
 * 0 after a failed compile (it is then disposed of). */
typedef struct ks_jit_tm {
  LLVMTargetMachineRef tm;
  unsigned uses;
} ks_jit_tm;
ks_status ks_jit_tm_get(const ks_arch *a, unsigned ptx, ks_jit_tm *out);
void ks_jit_tm_put(const ks_arch *a, unsigned ptx, ks_jit_tm t, int reuse);

/* ---- codegen/libdevice.c ------------------------------------------------ */

/* The device library the pipeline links from (passes/ks_passes.h's
 * ks_devlib): libdevice, found once per process. */
extern const ks_devlib ks_jit_devlib;
/* What the search reads, so that tests can give their own: the
 * environment's variables (NULL: unset), root prefixed to the fixed
 * directories ("" for the real ones), and whether this build carries a
 * copy of its own. */
typedef struct ks_jit_ld_env {
  const char *kspec_libdevice, *cuda_home, *cuda_path, *path, *home;
  const char *virtual_env, *conda_prefix, *pythonpath;
  const char *root;
  int embedded;
} ks_jit_ld_env;
/* Where libdevice is, in the order libdevice.c gives: 0 with the file in
 * path; 1: none found but the built-in copy; -1: none at all, the places
 * looked at in searched; -2: $KSPEC_LIBDEVICE names no libdevice (why in
 * searched). */
int ks_jit_libdevice_find(const ks_jit_ld_env *e, char *path, size_t cap,
                          char *searched, size_t scap);
/* The identity of the library for the cache key (a hash of its bytes), or
 * "none" when there is none to be had. Finds and reads it on first use. */
void ks_jit_libdevice_id(char *buf, size_t cap);
/* Forgets the library and what was linked from it (ks_jit_llvm_release). */
void ks_jit_libdevice_drain(void);

/* ---- isolate.c --------------------------------------------------------- */

/* Runs fn(arg) in a forked child process, so that LLVM ending the process
 * (report_fatal_error, a crash) ends only the child. fn answers with
 * ks_jit_child_write; a fatal LLVM error answers 'E' and its reason. On
 * return 0, *ans (malloc'd, *n bytes, not NUL-terminated) holds what the
 * child wrote and how says how it ended ("exit status 0", "signal 11,
 * Segmentation fault"); -1: no answer (fork failed, or the child was
 * killed over lim's time), how says why. */
typedef void (*ks_jit_child_fn)(void *arg);
typedef struct ks_jit_limits {
  unsigned seconds; /* the child is killed after this long */
  /* The child's address space may grow by at most this many bytes over
   * its size at the fork (RLIMIT_AS in the child; what it inherited from
   * the caller does not count); 0: no limit. */
  unsigned long long max_growth;
} ks_jit_limits;
int ks_jit_child_run(ks_jit_child_fn fn, void *arg, const ks_jit_limits *lim,
                     char **ans, size_t *n, char *how, size_t cap);
/* In the child: appends n bytes to the answer. */
void ks_jit_child_write(const void *p, size_t n);

/* ptxinline.c: in *ptx (*len bytes, replaced), the calls of the n
 * functions names that *ptx defines as straight PTX (no call, no stack
 * frame, 32- and 64-bit scalars) replaced by their bodies, each in a block
 * of its own with its registers and labels renamed; other calls stay. */
ks_status ks_jit_ptx_inline(char **ptx, size_t *len, const char *const *names,
                            size_t n);

/* Emits m as PTX with tm in a child process. diag is the sink of m's
 * context (ks_ir_context_create); tname and kname name the template and
 * kernel in messages. On success *ptx is malloc'd and NUL-terminated,
 * *len its length. KS_ECODEGEN with LLVM's message, or how the child
 * died, otherwise. */
ks_status ks_jit_emit_isolated(LLVMTargetMachineRef tm, LLVMModuleRef m,
                               const char *diag, const char *tname,
                               const char *kname, char **ptx, size_t *len);

/* ---- ctx.c ------------------------------------------------------------- */

typedef struct ks_cache ks_cache;
typedef struct ks_disk_entry ks_disk_entry;
typedef struct ks_disk ks_disk;
typedef struct ks_async ks_async;
typedef struct ks_record ks_record;

struct ks_ctx {
  const ks_arch *arch;
  unsigned ptx_isa; /* what LLVM emits */
  /* The highest PTX ISA the loader takes: the driver's, or --ptx-isa when
   * given (then load_pinned); 0 when neither is known. */
  unsigned load_isa;
  int load_pinned;
  char features[64]; /* "+ptx85,+sm_90" */
  int device;
  int no_driver;
  pthread_mutex_t drv_lock; /* guards drv, drv_status, dev */
  ks_drv *drv;
  ks_status drv_status; /* KS_OK once opened; else why it failed */
  char drv_err[512];
  int drv_tried;
  ks_device_info dev;
  ks_cache *cache;
  ks_disk *disk;             /* NULL: no disk cache */
  ks_async *async;           /* the background compiles' workers */
  ks_record *record;         /* NULL: requests are not recorded */
  pthread_mutex_t warn_lock; /* guards warning */
  char warning[512];         /* the first warning; never changed after */
  int llvm_held;             /* ks_jit_llvm_hold was called for it */
  int shared;                /* share is plugged (ks_ctx_share) */
  ks_share_ops share;
  void *share_arg;
  long share_pid; /* the process that plugged it (getpid) */
  /* Non-zero once a launch made a texture entry (launch.c): only then does
   * ks_mem_free look through the kernels for objects over the memory. */
  _Atomic int tex_made;
  /* Non-zero once the driver refused a cubin ptxas made (a ptxas newer
   * than the driver): kernels are loaded as PTX from then on (cubin.c). */
  _Atomic int ptxas_refused;
};

/* Records a warning on ctx (ks_ctx_warning) unless it has one already. */
void ks_jit_warn(ks_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The driver, opened on first use. Sets the thread's message on failure. */
ks_status ks_jit_driver(ks_ctx *ctx, ks_drv **out);

/* ---- cache/share.c ------------------------------------------------------ */

/* Is the shared cache plugged, by this process? A child forked with the
 * context (a tuner's worker) has none of the threads or connections the
 * hooks rely on, and builds what it needs itself. */
int ks_jit_share_on(const ks_ctx *ctx);
/* The shared cache (ctx->shared): its detach, once, by the process that
 * plugged it. */
void ks_jit_share_detach(ks_ctx *ctx);
/* k's entry from the shared cache: 1 (k filled; written to the disk
 * cache when *owner), or 0: build it here, then put it. */
int ks_jit_share_get_kernel(ks_ctx *ctx, ks_kernel *k, int *owner);
/* What was built here for key: k, or NULL when the build failed. */
void ks_jit_share_put_kernel(ks_ctx *ctx, const uint64_t key[2],
                             const ks_kernel *k, const char *why);
/* The checked cubin entry's bytes of key (kernel name) from the shared
 * cache (malloc'd), or NULL: make it here, then put it. */
unsigned char *ks_jit_share_get_cubin(ks_ctx *ctx, const uint64_t key[2],
                                      const char *name, size_t *n, int *owner);
/* The cubin entry made here for key, or NULL when none was made. */
void ks_jit_share_put_cubin(ks_ctx *ctx, const uint64_t key[2],
                            const ks_disk_entry *e);

/* ---- template.c -------------------------------------------------------- */

struct ks_template {
  char *name;
  char *path; /* the absolute path of a file; NULL for built-ins, memory */
  unsigned char *bitcode; /* canonical bytes, as written by LLVM */
  size_t len;
  uint64_t hash[2]; /* XXH3-128 of the bitcode */
  ks_ir_desc desc;
};

/* ---- describe.c -------------------------------------------------------- */

/* ks_jit_kernel_index (shim.h): name is a kernel's symbol, its demangled
 * name with or without the argument list (blanks after commas do not
 * matter) or an unambiguous prefix of the demangled name. */

/* A parameter's range as text, "[1, 128]": an unmarked integer's exactly
 * (its type's limits; a double would round 2^63 - 1). */
void ks_jit_range_text(ks_type ty, ks_ir_sign sign, int marked, double min,
                       double max, char *buf, size_t cap);

/* The marking of argument arg of k, or NULL. */
const ks_ir_param *ks_jit_marking(const ks_ir_kernel *k, unsigned arg);

/* The position (*arg) of the scalar argument a binding names: name, "@N",
 * or (name NULL) position pos. KS_EPARAM with a message for a position out
 * of range, an unknown name, a name on IR without names, a pointer or an
 * aggregate. */
ks_status ks_jit_arg_of(const ks_template *t, const ks_ir_kernel *k,
                        const char *name, int pos, unsigned *arg);

/* A prepared template (below) that the math stage ran on ahead of bind
 * for one kernel and floating-point modes (ks_pipeline_math_ahead); a
 * prepared template keeps up to KS_JIT_AHEAD. */
enum { KS_JIT_AHEAD = 8, KS_JIT_BLOBS = 4 };
/* The PTX of a set of libdevice functions called out of line (mathptx.c):
 * the set ("__nv_expf,__nv_tanhf") and the text, both malloc'd. */
typedef struct ks_jit_blob {
  char *names, *ptx;
} ks_jit_blob;
typedef struct ks_jit_ahead {
  /* the library's functions inlined where inlined is 1; 0: not yet
   * (ks_pipeline_math_inline), -1: that failed, m not to be used */
  LLVMModuleRef m;
  int inlined;
  /* where ks_math_split could split m's copy (else NULL): its kernel,
   * which calls them out of line, and their bodies, with the PTX compiled
   * from those for the sets of functions specializations called, the most
   * recently made last */
  LLVMModuleRef out, bodies;
  ks_jit_blob blobs[KS_JIT_BLOBS];
  unsigned nblobs;
  char *kernel; /* the kernel's symbol (malloc'd) */
  unsigned fp;  /* KS_FP_* */
} ks_jit_ahead;
/* Disposes of what a holds and clears it. */
void ks_jit_ahead_free(ks_jit_ahead *a);

/* A template parsed into an LLVM context of its own, the stages before
 * bind run on it (ks_pipeline_prepare) for one target: what every
 * specialization of the template for that target starts from, as a copy
 * (LLVMCloneModule) in the same context. Borrowed from a pool
 * by one compile at a time, like target machines: ks_jit_tpl_get hands out
 * a free one for (t, a, ptx), else a fresh context with prepared NULL and
 * diag cleared, for the caller to parse and prepare into; ks_jit_tpl_put
 * gives it back (reuse 0 after a failure: it is then disposed of). A
 * context is retired after some compiles, since every compile leaves
 * constants and metadata in it. */
typedef struct ks_jit_tpl {
  LLVMContextRef c;
  char *diag; /* c's diagnostic sink, KS_IR_DIAG_CAP bytes */
  LLVMModuleRef prepared;
  /* copies of prepared that the math stage ran on ahead of bind, one a
   * kernel and floating-point modes (ks_pipeline_math_ahead), the most
   * recently made last */
  ks_jit_ahead ahead[KS_JIT_AHEAD];
  unsigned nahead;
  uint64_t hash[2]; /* the template's */
  const ks_arch *arch;
  unsigned ptx;
  unsigned uses;
} ks_jit_tpl;
ks_status ks_jit_tpl_get(const ks_template *t, const ks_arch *a, unsigned ptx,
                         ks_jit_tpl *out);
void ks_jit_tpl_put(ks_jit_tpl *t, int reuse);
/* Disposes of every pooled template (none may be lent), and how many the
 * pool keeps (ks_jit_llvm_release, ks_jit_llvm_pooled). */
void ks_jit_tpl_drain(void);
size_t ks_jit_tpl_pooled(void);

/* ---- kernel and cache (specialize.c, cache.c) --------------------------- */

/* Makes p info's launch plan, its coarsenings of 0 made 1 (none), and
 * derives launch_block from it and info's reqntid: the one place either
 * is set. */
void ks_jit_set_plan(ks_kernel_info *info, const ks_launch_plan *p);
/* Sets what k's PTX itself says about its launch: info.grid_sync when it
 * reads the grid workspace (%envreg), which only a cooperative launch
 * provides. For a kernel compiled now and one read from the disk cache
 * alike, so the disk entry needs no field for it. */
void ks_jit_ptx_launch_needs(ks_kernel *k);

struct ks_kernel {
  ks_ctx *ctx;
  char *name;
  char *ptx;
  size_t ptx_len;
  char *ir;
  size_t ir_len;
  char *explain; /* the passes' account, never NULL once compiled */
  ks_kernel_info info;
  unsigned nargs; /* the template kernel's arguments (not the hidden one) */
  uint64_t key[2];
  pthread_mutex_t load_lock; /* guards mod, const_bytes, ptxas_res */
  ks_drv_module mod;
  int loaded;
  int const_bytes;               /* the driver's, once loaded */
  ks_kernel_resources ptxas_res; /* valid when ptxas_done */
  int ptxas_done;
  /* A cubin made elsewhere for this kernel, tried first by the load in
   * progress (ks_jit_kernel_load_cubin; the caller's memory), under
   * load_lock. */
  const void *given_cubin;
  size_t given_cubin_len;
  /* Constant copies (info.plan.const_copies): the .const symbols' addresses,
   * set at load; launch_lock keeps copy and launch together, and the
   * event, recorded after each launch on cmem_stream, orders a launch on
   * another stream after it. */
  uint64_t cmem_ptr[KS_CMEM_MAX];
  pthread_mutex_t launch_lock;
  void *cmem_event;
  void *cmem_stream;
  int cmem_launched;
  /* The function's MAX_DYNAMIC_SHARED_SIZE_BYTES as launch.c last set it
   * (the largest asked so far; 0: the driver's default), under load_lock. */
  unsigned dyn_smem_max;
  /* Hardware textures (info.plan.texs): the texture objects launches
   * made (3-D: with their arrays), by texture and (pointer, width, height,
   * depth, pitch), kept until the kernel goes or ks_mem_free frees the
   * memory under them; why the first launch that could make none sampled
   * in software (ks_kernel_launch_note). Under launch_lock. */
  struct ks_tex_obj *texobjs;
  size_t ntexobjs, texobj_cap;
  char *tex_note;
};

/* The cache's counters (ks_cache_counters, in ns where it says ms). */
typedef enum ks_counter {
  KS_CTR_MEMORY_HITS,
  KS_CTR_WAITS,
  KS_CTR_DISK_HITS,
  KS_CTR_MISSES,
  KS_CTR_COMPILES,
  KS_CTR_COMPILE_NS,
  KS_CTR_SAVED_NS,
  KS_CTR_CORRUPT,
  KS_CTR_DISK_WRITES,
  KS_CTR_EVICTIONS,
  KS_CTR_CUBIN_HITS,
  KS_CTR_CUBIN_MISSES,
  KS_CTR_CUBIN_DROPPED,
  KS_CTR_TEMPLATE_HITS,
  KS_CTR_TEMPLATE_MISSES,
  KS_CTR_REMOTE_HITS,
  KS_CTR_CUBIN_REMOTE,
  KS_CTR_COUNT
} ks_counter;

ks_cache *ks_jit_cache_create(void);
/* Frees every kernel; no ks_jit_cache_acquire may be in progress. */
void ks_jit_cache_destroy(ks_cache *c, ks_drv *drv);
/* Single flight. The kernel under key (a memory hit; *claimed = 0); or,
 * while another thread compiles key, waits for it and returns its kernel or
 * its failure (status and message); or, when key is new, claims it
 * (*claimed = 1, *out = NULL): the caller builds the kernel and must then
 * call ks_jit_cache_finish once. KS_ENOMEM when no entry can be made. */
ks_status ks_jit_cache_acquire(ks_cache *c, const uint64_t key[2],
                               ks_kernel **out, int *claimed);
/* Ends a claim: k becomes the kernel of key (the cache owns it now) and
 * waiters get it; or k is NULL and waiters get status s with the calling
 * thread's message, and the key is forgotten. */
void ks_jit_cache_finish(ks_cache *c, const uint64_t key[2], ks_kernel *k,
                         ks_status s);
void ks_jit_cache_count(ks_cache *c, ks_counter which, uint64_t n);
/* ctx's disk cache, or NULL with the message of KS_EINVAL saying why. */
ks_disk *ks_jit_cache_disk_for(ks_ctx *ctx);
uint64_t ks_jit_cache_counter(const ks_cache *c, ks_counter which);
void ks_jit_kernel_free(ks_kernel *k, ks_drv *drv);
/* The texture objects k's launches made, destroyed (drv NULL: only
 * forgotten), and its note (launch.c). */
void ks_jit_tex_free(ks_kernel *k, ks_drv *drv);
/* Destroys k's texture objects (and 3-D arrays) over memory in [base,
 * base + bytes), under its launch_lock; how many (launch.c). */
size_t ks_jit_tex_forget(ks_kernel *k, ks_drv *drv, uint64_t base,
                         size_t bytes);
/* Calls fn on every kernel of c, under c's lock (fn must not use c). */
void ks_jit_cache_each(ks_cache *c, void (*fn)(ks_kernel *k, void *arg),
                       void *arg);

/* ---- diskcache.c ------------------------------------------------------- */

enum {
  KS_DISK_NAME, /* the entry's strings, in file order */
  KS_DISK_EXPLAIN,
  KS_DISK_PTX,
  KS_DISK_WHY, /* the key's components, "what value" lines */
  KS_DISK_NSTR,
  KS_DISK_NAME_CAP = 48,
  KS_DISK_DESC = KS_DISK_EXPLAIN, /* a template entry's description */
  KS_DISK_BLOB = KS_DISK_PTX,     /* a cubin, or a template's bitcode */
};
/* What an entry holds (diskcache.c says which fields). */
enum {
  KS_DISK_KIND_PTX,
  KS_DISK_KIND_CUBIN,
  KS_DISK_KIND_TEMPLATE,
  KS_DISK_NKINDS
};
#define KS_DISK_DEFAULT_MAX (256u << 20)
/* The format diskcache.c writes (an entry of another is a miss) and the
 * bytes of an entry's header, which its launch plan and strings follow. */
#define KS_DISK_FORMAT_VERSION 9
#define KS_DISK_HEADER_BYTES 112

/* A checked entry; the strings point into the buffer it was read from. */
typedef struct ks_disk_entry {
  unsigned kind; /* KS_DISK_KIND_* */
  uint64_t key[2];
  const char *str[KS_DISK_NSTR];
  uint32_t len[KS_DISK_NSTR];
  unsigned reqntid[3], maxntid, minctasm, maxnreg, smem_bytes;
  ks_launch_plan plan; /* zero in cubin and template entries */
  int est_regs;
  uint64_t compile_ns; /* the original compile's time */
} ks_disk_entry;

/* The disk cache that opts and the environment ask for (KSPEC_CACHE,
 * KSPEC_CACHE_DIR, XDG_CACHE_HOME, HOME, KSPEC_CACHE_MAX), created mode 0700
 * when missing; NULL when switched off, or with a warning on ctx when the
 * directory is unsafe (a symlink, another user's, writable by others) or
 * not writable. */
ks_disk *ks_disk_open(ks_ctx *ctx, const ks_ctx_opts *o);
void ks_disk_close(ks_disk *d);
const char *ks_disk_path(const ks_disk *d);
uint64_t ks_disk_limit(const ks_disk *d);
int ks_disk_fd(const ks_disk *d);
/* Open and not switched off by a failed write. */
int ks_disk_usable(const ks_disk *d);
/* The file name of key's entry. */
void ks_disk_name(const uint64_t key[2], char out[KS_DISK_NAME_CAP]);
int ks_disk_is_entry(const char *name);
/* A launch plan as an entry stores it: every element of every field of
 * ks_launch_plan, in diskcache.c's PLAN_FIELDS order, a little-endian
 * uint32 each. */
#define KS_DISK_PLAN_BYTES sizeof(ks_launch_plan)
void ks_disk_plan_encode(const ks_launch_plan *p,
                         unsigned char out[KS_DISK_PLAN_BYTES]);
/* The plan ks_disk_plan_encode wrote, for a kernel whose fixed block is
 * block (0s: none); -1 with the reason in why when a value is over its
 * field's limit or the plan does not fit the block (a thread coarsening
 * that does not divide it, grid coarsening without one), a constant copy
 * is of 0 bytes, or an element past const_copies is not 0. */
int ks_disk_plan_decode(const unsigned char in[KS_DISK_PLAN_BYTES],
                        const unsigned block[3], ks_launch_plan *p, char *why,
                        size_t cap);
/* Checks an entry's n bytes (against key, unless NULL) and describes it in
 * *e; -1 with the reason in why when anything is wrong. */
int ks_disk_check(const unsigned char *buf, size_t n, const uint64_t key[2],
                  ks_disk_entry *e, char *why, size_t cap);
/* The bytes of entry e (malloc'd; *n gets their count), as a write stores
 * them; NULL when out of memory or too large. ks_disk_check of them gives
 * back e. */
unsigned char *ks_disk_encode(const ks_disk_entry *e, size_t *n);
/* The whole regular file behind fd (malloc'd), or NULL. */
unsigned char *ks_disk_read_fd(int fd, size_t *n);
/* Fills k (whose key, name and bounds are set) from its entry: 1 on a hit;
 * 0 on a miss, counted as corrupt when an entry was there but bad. */
int ks_disk_get(ks_ctx *ctx, ks_disk *d, ks_kernel *k);
/* Fills k from its checked PTX entry e: 1, or 0 when e is another
 * request's (name or bounds differ) or out of memory. */
int ks_disk_fill(const ks_disk_entry *e, ks_kernel *k);
/* k's PTX entry's bytes, as ks_disk_put writes them (malloc'd), or NULL. */
unsigned char *ks_disk_kernel_blob(const ks_kernel *k, const char *why,
                                   size_t *n);
/* Stores k with the key's components text why; evicts when over the limit.
 * A failure to write switches the disk cache off, with a warning. */
void ks_disk_put(ks_ctx *ctx, ks_disk *d, const ks_kernel *k, const char *why);
/* Reads key's entry of kind: 1 on a hit, with *e describing it and its
 * fields pointing into *buf (malloc'd, the caller frees it); 0 on a miss,
 * counted as corrupt when an entry was there but bad or of another kind. */
int ks_disk_read(ks_ctx *ctx, ks_disk *d, unsigned kind, const uint64_t key[2],
                 ks_disk_entry *e, unsigned char **buf);
/* Stores entry e (its kind, key, fields and figures) as ks_disk_put. */
void ks_disk_write(ks_ctx *ctx, ks_disk *d, const ks_disk_entry *e);
/* Removes key's entry (one that turned out bad after its checks). */
void ks_disk_drop(ks_disk *d, const uint64_t key[2]);
/* Entries and their bytes. */
ks_status ks_disk_usage(ks_disk *d, uint64_t *entries, uint64_t *bytes);
/* Checks every entry and removes the bad ones (all, with remove_all). */
ks_status ks_disk_verify(ks_disk *d, int remove_all, uint64_t *good,
                         uint64_t *removed);
/* Calls fn(arg, components) for every sound entry. */
void ks_disk_each_why(ks_disk *d, void (*fn)(void *, const char *), void *arg);
/* Into why: "" when key's entry is there and sound, else what is wrong. */
void ks_disk_entry_state(ks_disk *d, const uint64_t key[2], char *why,
                         size_t cap);
/* A stable identity of the library's code (its ELF build id), n bytes. */
const unsigned char *ks_jit_build_id(size_t *n);

/* ---- cubin.c ----------------------------------------------------------- */

/* The key of the cubin the driver makes of k's PTX on device dev: k's key,
 * a hash of the PTX itself, and the device's name, compute capability and
 * driver version (another GPU or a driver update misses). */
void ks_jit_cubin_key(const ks_kernel *k, const ks_device_info *dev,
                      uint64_t out[2]);
/* Loads k (its PTX set) on drv: from its cubin entry in ctx's disk cache
 * (or from the processes sharing ctx's cache) when there is a good one;
 * otherwise the cubin ptxas makes of the PTX (whole-program), stored for
 * next time; without a ptxas whose cubins the driver takes, the PTX as
 * ks_drv_module_load loads it. An entry the driver refuses is removed.
 * Without a usable disk cache or sharing, as ks_drv_module_load. */
ks_status ks_jit_module_load(ks_kernel *k, ks_drv *drv, char *err, size_t cap);

/* ---- template cache (tplcache.c) ---------------------------------------- */

/* The key of the description of a template whose bytes (as given to
 * ks_template_load) are data: their hash, the library's build and LLVM's
 * version. */
void ks_jit_template_key(const void *data, size_t len, uint64_t out[2]);
/* A description in bytes, malloc'd (NULL when out of memory). */
unsigned char *ks_jit_desc_pack(const ks_ir_desc *d, size_t *n);
/* Reads a description from n bytes into *d: 0, or -1 (nothing allocated
 * left behind) when the bytes are not a well-formed description. */
int ks_jit_desc_unpack(const unsigned char *p, size_t n, ks_ir_desc *d);
/* Fills t's bitcode, hash and description from its entry under key: 1 on
 * a hit, 0 on a miss (nothing of t changed). */
int ks_jit_template_get(ks_ctx *ctx, const uint64_t key[2], ks_template *t);
/* Stores t's bitcode and description under key. */
void ks_jit_template_put(ks_ctx *ctx, const uint64_t key[2],
                         const ks_template *t);

/* ---- async.c ----------------------------------------------------------- */

/* The worker pool of a context: no thread until the first background
 * compile, then up to jobs (0: $KSPEC_JOBS, else the online CPUs, at most
 * 8). NULL when out of memory. */
ks_async *ks_async_create(unsigned jobs);
/* Drops queued compiles, waits for running ones, joins the workers and
 * leaves every future not yet freed finished with "context destroyed". */
void ks_async_destroy(ks_async *a);

/* ---- record.c ---------------------------------------------------------- */

/* The record file that opts or KSPEC_RECORD ask for, opened O_APPEND; NULL
 * when none is asked for, or with a warning on ctx when it cannot be
 * opened. */
ks_record *ks_record_open(ks_ctx *ctx, const ks_ctx_opts *o);
void ks_record_close(ks_record *r);
/* Appends req (already checked by ks_specialize) as one line, when ctx
 * records. */
void ks_record_request(ks_ctx *ctx, const ks_template *t,
                       const ks_spec_req *req);

/* ---- resources.c ------------------------------------------------------- */

/* Finds ptxas: $KSPEC_PTXAS when set (it must be executable), else `ptxas`
 * on PATH, else /usr/local/cuda/bin/ptxas. 0 with the path in path (cap
 * bytes); -1 with the reason in why (whycap bytes). */
int ks_jit_ptxas_find(char *path, size_t cap, char *why, size_t whycap);
/* Runs `ptxas -arch=ARCH -v -o /dev/null FILE` on the PTX (written to a
 * temporary file), without a shell, killing it after timeout_ms. *log gets
 * its standard output and error, malloc'd, even on failure (may be NULL).
 * Errors: KS_EARCH (ptxas does not know arch), KS_ELOAD (cannot run,
 * non-zero exit, timeout), KS_EIO (temporary file), KS_ENOMEM. */
ks_status ks_jit_ptxas_run(const char *ptxas, const char *arch, const char *ptx,
                           size_t len, int timeout_ms, char **log);
/* The PTX compiled whole-program (as nvcc's cubin and cuModuleLoadDataEx
 * compile it, not as the driver's linker does: relocatable code, which
 * ptxas optimizes less) into a cubin for arch: *cubin malloc'd, *n bytes.
 * *log as ks_jit_ptxas_run's; the errors too. */
ks_status ks_jit_ptxas_cubin(const char *ptxas, const char *arch,
                             const char *ptx, size_t len, int timeout_ms,
                             void **cubin, size_t *n, char **log);
/* Reads the figures of function fn from the output of `ptxas -v`: 1 when
 * fn's "Used N registers" line was found, else 0. out->source and arch are
 * left alone. */
int ks_jit_ptxas_parse(const char *log, const char *fn,
                       ks_kernel_resources *out);

/* ---- launch.c ---------------------------------------------------------- */

/* Lets loaded kernel k's launches ask for smem bytes of dynamic shared
 * memory: over the device's default per-block limit (static included),
 * its MAX_DYNAMIC_SHARED_SIZE_BYTES is raised to smem unless it is that
 * high already (k->dyn_smem_max). Nothing is done over the opt-in limit
 * (the driver then refuses, or counts no resident block). Errors: those
 * of the driver (KS_ELAUNCH), the message in the thread's buffer. */
ks_status ks_jit_allow_dyn_smem(ks_kernel *k, unsigned smem);

/* ---- occupancy.c ------------------------------------------------------- */

/* The limits the calculator works from: an architecture's, where a device
 * reports its own figures, the device's. */
typedef struct ks_occ_limits {
  const char *arch; /* for messages */
  unsigned warp, max_threads_block, max_threads_sm, max_blocks_sm;
  unsigned regs_sm, regs_block, reg_unit, max_regs_thread, subpartitions;
  unsigned smem_sm, smem_block, smem_optin, smem_reserved, smem_unit;
  int multiprocessors; /* 0 without a device */
} ks_occ_limits;

/* a's limits, overridden by dev's figures when dev is not NULL. */
void ks_jit_occ_limits(const ks_arch *a, const ks_device_info *dev,
                       ks_occ_limits *out);
/* The CUDA occupancy rules. Errors: KS_EBOUNDS (block or regs over the
 * limits), KS_EINVAL. */
ks_status ks_jit_occupancy(const ks_occ_limits *l, const ks_occ_input *in,
                           ks_occupancy *out);
/* The block size up to limit threads with the most resident threads per
 * SM (of those that tie, the largest), as cuOccupancyMaxPotentialBlockSize
 * chooses; *blocks gets its blocks per SM. KS_EBOUNDS when none fits. */
ks_status ks_jit_best_block(const ks_occ_limits *l, int regs, unsigned smem,
                            unsigned limit, unsigned *block, int *blocks);

#endif /* KS_JIT_H */
