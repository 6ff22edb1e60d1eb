/*
 * shim.h - all that tune/ uses of the library besides kspec.h: the
 * per-thread message (errors.c), the size check of the structs it fills
 * (api.c), and four questions about a template and a context. tune/ holds
 * no pointer into the library's internals; ks_jit.h includes this too, so
 * that the definitions are checked against it.
 */
#ifndef KS_JIT_TUNE_SHIM_H
#define KS_JIT_TUNE_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "kspec.h"

/* ---- errors.c ---------------------------------------------------------- */

/* Sets the calling thread's message and returns s. */
ks_status ks_jit_fail(ks_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The calling thread's message buffer, for modules that write it directly. */
char *ks_jit_errbuf(size_t *cap);
/* Clears the calling thread's message. */
void ks_jit_clear(void);

/* ---- api.c ------------------------------------------------------------- */

/* The end of field f of T: the size of T's first version when f was its
 * last field. */
#define KS_OUT_END(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))
/* The first version's size of each struct the library fills (kspec.h,
 * "Conventions"): a field appended later leaves these as they are, so that
 * programs built before it go on working. */
#define KS_OUT_MIN_ks_device_info KS_OUT_END(ks_device_info, cluster_launch)
#define KS_OUT_MIN_ks_param_info KS_OUT_END(ks_param_info, sign_unknown)
#define KS_OUT_MIN_ks_global_info KS_OUT_END(ks_global_info, has_init)
#define KS_OUT_MIN_ks_kernel_info KS_OUT_END(ks_kernel_info, grid_sync)
#define KS_OUT_MIN_ks_kernel_resources                                         \
  KS_OUT_END(ks_kernel_resources, const_bytes)
#define KS_OUT_MIN_ks_occupancy KS_OUT_END(ks_occupancy, smem_per_block)
#define KS_OUT_MIN_ks_cache_counters                                           \
  KS_OUT_END(ks_cache_counters, template_misses)
#define KS_OUT_MIN_ks_cache_usage KS_OUT_END(ks_cache_usage, limit)
#define KS_OUT_MIN_ks_prewarm_result KS_OUT_END(ks_prewarm_result, failed)
#define KS_OUT_MIN_ks_tune_result KS_OUT_END(ks_tune_result, store)
#define KS_OUT_MIN_ks_tune_best KS_OUT_END(ks_tune_best, names)

/* KS_OK when out is not NULL and its size reaches T's first version; else
 * KS_EINVAL with a message naming stage and T. */
ks_status ks_jit_out_check(const void *out, size_t min, const char *stage,
                           const char *type);
#define KS_OUT_CHECK(out, stage, T)                                            \
  ks_jit_out_check((out), KS_OUT_MIN_##T, (stage), #T)
/* Copies the library's filled struct full (full_size bytes, its size field
 * aside) into out as far as out's size reaches, zeros past full_size. */
void ks_jit_out_put(void *out, const void *full, size_t full_size);

/* ---- for tune/ (template/describe.c, ctx.c) -------------------------- */

/* The index of t's kernel name (NULL: the only one), or -1 with
 * KS_ENOKERNEL's message. */
long ks_jit_kernel_index(const ks_template *t, const char *name);
/* The argument position of kernel ki of t that name (or "@N", or pos when
 * name is NULL) binds, as a request's binding would; KS_EPARAM (with the
 * message) when there is none. */
ks_status ks_jit_arg_at(const ks_template *t, long ki, const char *name,
                        int pos, unsigned *arg);
/* The position of kernel ki's pointer argument name (or "@N"); KS_EPARAM
 * (with the message) when it has none. */
ks_status ks_jit_buffer_at(const ks_template *t, long ki, const char *name,
                           unsigned *arg);
/* The hash of t's bytes. */
void ks_jit_template_hash(const ks_template *t, uint64_t hash[2]);
/* Non-zero when ctx was made with no_driver. */
int ks_jit_ctx_no_driver(const ks_ctx *ctx);
/* Makes ctx open device gpu instead of its own (a tuner's worker for that
 * GPU, in its own process): KS_EINVAL when ctx opened the driver already. */
ks_status ks_jit_ctx_use_device(ks_ctx *ctx, int gpu);
/* Can ctx's code run on dev: its architecture within the device's, its
 * PTX ISA within what the driver takes? 1; or 0 with why (cap bytes). In
 * either case arch (acap bytes) and *ptx get the target ks_ctx_create
 * would choose for dev. */
int ks_jit_ctx_fits(const ks_ctx *ctx, const ks_device_info *dev, char *arch,
                    size_t acap, unsigned *ptx, char *why, size_t cap);

/* ---- for tune/ (kernel/resources.c, cache/cubin.c) ----------------------- */

/* ptxas's figures of k (as ks_kernel_resources_get with KS_RES_PTXAS) and,
 * from the same run, its whole-program cubin for the context's
 * architecture (*cubin malloc'd, *n bytes; NULL where ptxas made none).
 * Errors: those of ks_kernel_resources_get. */
ks_status ks_jit_resources_cubin(ks_kernel *k, ks_kernel_resources *out,
                                 void **cubin, size_t *n);
/* Loads k (ks_kernel_load) from cubin (n bytes, made for it elsewhere:
 * another process's ks_jit_resources_cubin), kept in the disk cache as
 * the load's own cubins are; where the driver refuses it, as without it.
 * Errors: those of ks_kernel_load. */
ks_status ks_jit_kernel_load_cubin(ks_kernel *k, const void *cubin, size_t n);

/* ---- for tune/ (cache/share.c) ------------------------------------------- */

/* k as bytes a worker process takes back with ks_jit_kernel_adopt
 * (malloc'd, *len of them), or NULL. */
void *ks_jit_kernel_pack(const ks_kernel *k, size_t *len);
/* The kernel of req in ctx: the one ctx holds already, else the one image
 * (len bytes, from ks_jit_kernel_pack in another process) holds, checked
 * as a disk cache entry is; nothing is compiled. Errors: those of the
 * request's checks; KS_EINVAL when image is NULL or is not req's kernel
 * for ctx's target; KS_ENOMEM. */
ks_status ks_jit_kernel_adopt(ks_ctx *ctx, const ks_template *t,
                              const ks_spec_req *req, const void *image,
                              size_t len, ks_kernel **out);

#endif /* KS_JIT_TUNE_SHIM_H */
