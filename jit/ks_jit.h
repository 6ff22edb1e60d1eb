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
/* A target machine borrowed from a process-wide pool (made when none is
 * free), for one compile at a time; give it back with ks_jit_tm_put, reuse
 * 0 after a failed compile (it is then disposed of). */
typedef struct ks_jit_tm {
  LLVMTargetMachineRef tm;
  unsigned uses;
} ks_jit_tm;
ks_status ks_jit_tm_get(const ks_arch *a, unsigned ptx, ks_jit_tm *out);
void ks_jit_tm_put(const ks_arch *a, unsigned ptx, ks_jit_tm t, int reuse);

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
  ks_kernel_info info;
  uint64_t key[2];
  pthread_mutex_t load_lock; /* guards mod */
  ks_drv_module mod;
  int loaded;
};

ks_cache *ks_cache_create(void);
void ks_cache_destroy(ks_cache *c, ks_drv *drv);
/* The kernel under key, or NULL. */
ks_kernel *ks_cache_get(ks_cache *c, const uint64_t key[2]);
/* Inserts k; if another thread got there first, frees k and returns the
 * kernel already cached. NULL (k freed) when out of memory. */
ks_kernel *ks_cache_put(ks_cache *c, ks_kernel *k, ks_drv *drv);
void ks_kernel_free(ks_kernel *k, ks_drv *drv);

#endif /* KS_JIT_H */
