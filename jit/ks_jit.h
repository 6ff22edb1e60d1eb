/*
 * ks_jit.h - internal interface of jit/, the engine behind kspec.h: target
 * selection, templates, specialization (bind + passes + NVPTX codegen), the
 * in-memory cache, and the bridge to driver/.
 */
#ifndef KS_JIT_H
#define KS_JIT_H

#include <pthread.h>
#include <stdint.h>

#include <llvm-c/TargetMachine.h>

#include "driver/ks_driver.h"
#include "ir/ks_ir.h"
#include "kspec.h"
#include "passes/ks_passes.h"

/* ---- errors.c ---------------------------------------------------------- */

/* Sets the calling thread's message and returns s. */
ks_status ks_jit_fail(ks_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The calling thread's message buffer, for modules that write it directly. */
char *ks_jit_errbuf(size_t *cap);
/* Clears the calling thread's message. */
void ks_jit_clear(void);

/* ---- target.c ---------------------------------------------------------- */

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
  unsigned smem_sm;         /* bytes of shared memory per SM, at most */
  unsigned smem_block;      /* bytes per block without opt-in */
  unsigned smem_reserved;   /* bytes the driver reserves per block */
  unsigned smem_unit;       /* allocation granularity, bytes */
} ks_arch;

const ks_arch *ks_jit_arch_find(const char *name);
/* The table entry for a device's sm (major*10+minor), or NULL. */
const ks_arch *ks_jit_arch_for_sm(int sm);
/* Highest PTX ISA (x10) the LLVM NVPTX backend can emit. */
unsigned ks_jit_llvm_max_ptx(void);
/* Highest PTX ISA a driver of this version (13000 = 13.0) accepts. */
unsigned ks_jit_driver_max_ptx(int driver_version);
/* Registers the NVPTX target once (thread-safe). */
void ks_jit_llvm_init(void);
/* A target machine for arch and ISA; NULL with a message on failure. */
LLVMTargetMachineRef ks_jit_target_machine(const ks_arch *a, unsigned ptx);

/* ---- ctx.c ------------------------------------------------------------- */

typedef struct ks_cache ks_cache;

struct ks_ctx {
  const ks_arch *arch;
  unsigned ptx_isa;
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
};

/* The driver, opened on first use. Sets the thread's message on failure. */
ks_status ks_jit_driver(ks_ctx *ctx, ks_drv **out);

/* ---- template.c -------------------------------------------------------- */

struct ks_template {
  char *name;
  unsigned char *bitcode; /* canonical bytes, as written by LLVM */
  size_t len;
  uint64_t hash[2]; /* XXH3-128 of the bitcode */
  ks_ir_desc desc;
};

/* Index of kernel name in t (NULL: the only one), or -1 with a message. */
long ks_jit_kernel_index(const ks_template *t, const char *name);

/* ---- kernel and cache (specialize.c, cache.c) --------------------------- */

struct ks_kernel {
  ks_ctx *ctx;
  char *name;
  char *ptx;
  size_t ptx_len;
  char *ir;
  size_t ir_len;
  char *explain; /* the passes' account, never NULL once compiled */
  ks_kernel_info info;
  uint64_t key[2];
  pthread_mutex_t load_lock; /* guards mod, const_bytes, ptxas_res */
  ks_drv_module mod;
  int loaded;
  int const_bytes;               /* the driver's, once loaded */
  ks_kernel_resources ptxas_res; /* valid when ptxas_done */
  int ptxas_done;
};

ks_cache *ks_cache_create(void);
void ks_cache_destroy(ks_cache *c, ks_drv *drv);
/* The kernel under key, or NULL. */
ks_kernel *ks_cache_get(ks_cache *c, const uint64_t key[2]);
/* Inserts k; if another thread got there first, frees k and returns the
 * kernel already cached. NULL (k freed) when out of memory. */
ks_kernel *ks_cache_put(ks_cache *c, ks_kernel *k, ks_drv *drv);
void ks_kernel_free(ks_kernel *k, ks_drv *drv);

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
/* Reads the figures of function fn from the output of `ptxas -v`: 1 when
 * fn's "Used N registers" line was found, else 0. out->source and arch are
 * left alone. */
int ks_jit_ptxas_parse(const char *log, const char *fn,
                       ks_kernel_resources *out);

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
