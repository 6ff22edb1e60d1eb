/*
 * workloads.h - problem instances of the built-in templates on the device:
 * random inputs, launch geometry, a CPU reference and a checker. Shared by
 * `kspec run`, the GPU tests and the benchmark; uses only the public API.
 */
#ifndef KS_WORKLOADS_H
#define KS_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "kspec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_wl ks_wl;

/* Does a built-in template of this name have a workload? */
int ks_wl_supported(const char *template_name);

/* Creates a problem for kernel `kernel` (NULL: the only one) of template t
 * (a built-in, by name). size: the problem size (elements for 1-D templates,
 * the matrix side for 2-D ones; 0 = the template's default). values: text or
 * int bindings giving every parameter's value, missing ones take the
 * default; they are the values passed as kernel arguments, whether or not a
 * specialization folds them. block: threads per block for templates whose
 * block is free (0 = 256); ignored where a parameter fixes the block.
 * Allocates device buffers and fills inputs with random data from seed.
 * Errors: KS_EINVAL (unknown template, bad size), KS_EPARAM, KS_ERANGE,
 * driver errors. Message through ks_errmsg's thread-local slot is not
 * available to tools code, so a message is written to err. */
ks_status ks_wl_create(ks_ctx *ctx, const ks_template *t, const char *kernel,
                       size_t size, const ks_binding *values, size_t nvalues,
                       unsigned block, uint64_t seed, ks_wl **out, char *err,
                       size_t cap);
void ks_wl_destroy(ks_wl *w);

/* ks_wl_create in two steps: everything but the device buffers (no driver
 * needed: values, geometry, arguments), then the buffers and inputs. */
ks_status ks_wl_prepare(ks_ctx *ctx, const ks_template *t, const char *kernel,
                        size_t size, const ks_binding *values, size_t nvalues,
                        unsigned block, uint64_t seed, ks_wl **out, char *err,
                        size_t cap);
ks_status ks_wl_alloc(ks_wl *w, char *err, size_t cap);
/* The host side of ks_wl_alloc (ks_wl_fill: the host copies, inputs
 * filled) and the CPU reference (ks_wl_reference, filling first where
 * needed; else the first check makes it), without the driver: a process
 * that forks workers makes them once (while it waits for something else),
 * the workers inherit them and ks_wl_alloc only allocates and uploads
 * (after ks_wl_rebind to the context they use). Errors: KS_EINVAL,
 * KS_ENOMEM. */
ks_status ks_wl_fill(ks_wl *w, char *err, size_t cap);
ks_status ks_wl_reference(ks_wl *w, char *err, size_t cap);
/* Moves w, which has no device buffers yet, to ctx (KS_EINVAL when it has
 * some): the context of ks_wl_prepare may then be destroyed, but not the
 * template. */
ks_status ks_wl_rebind(ks_wl *w, ks_ctx *ctx);

/* The block the kernel must be launched with; pass it as the
 * specialization's bounds.block to fold blockDim. */
ks_dim3 ks_wl_block(const ks_wl *w);

/* Changes the threads per block (as ks_wl_create's block) and with them
 * the grid; the buffers stay. */
void ks_wl_set_block(ks_wl *w, unsigned block);
/* The block `--block X,Y,Z` asks for: the separable filters take any X x Y
 * as it is (X alone is X x 1); the others only X x 1 x 1 (where a
 * parameter fixes the block, as ks_wl_create, the block is kept). 0 on
 * success; else a message in err. */
int ks_wl_set_block3(ks_wl *w, ks_dim3 block, char *err, size_t cap);

/* Launches k once on the current inputs (no check, no sync). A kernel
 * that synchronizes the grid (sepfilter_fused) is launched with at most
 * the blocks that can be resident at once (ks_kernel_max_coresident_grid
 * for k and the block, asked once per kernel); it strides over the rest. */
ks_status ks_wl_launch(ks_wl *w, ks_kernel *k, char *err, size_t cap);

/* Poisons the outputs (or seeds accumulators with random values), launches
 * k, synchronizes, copies back and compares with the CPU reference.
 * KS_OK when it matches; otherwise the launch's own status (KS_EBOUNDS,
 * KS_ELAUNCH, ...) or KS_ERANGE with the first mismatch described in err. */
ks_status ks_wl_check(ks_wl *w, ks_kernel *k, char *err, size_t cap);

/* The compare on the device, for checks repeated over many kernels (a
 * sweep): ks_wl_compile_checker specializes it in ctx (no driver needed:
 * it loads at its first launch; the kernel stays with ctx, and with fork
 * in the children that measure); ks_wl_use_checker gives it to w (NULL:
 * none). Where w's compare is element by element against its reference
 * (the float outputs of conv1d, stencil1d, the separable filters, resize
 * and blackscholes), ks_wl_check then keeps the reference on the device
 * (8 bytes per element, uploaded at the first check) and compares there;
 * an output the device does not find right in every element is read back
 * and compared on the host as without a checker, so the outcome and the
 * message stay the host's. Errors of ks_wl_compile_checker: those of
 * ks_template_load_mem and ks_specialize, said in err. */
ks_status ks_wl_compile_checker(ks_ctx *ctx, ks_kernel **out, char *err,
                                size_t cap);
void ks_wl_use_checker(ks_wl *w, ks_kernel *checker);
/* The checks of w the device decided (accepted) so far. */
size_t ks_wl_device_accepts(const ks_wl *w);

/* Median time in milliseconds of reps launches (after 3 warm-ups), each
 * timed with device events. */
ks_status ks_wl_time(ks_wl *w, ks_kernel *k, int reps, double *median_ms,
                     char *err, size_t cap);

/* A launch by other means than a kspec kernel (a hand-written CUDA kernel,
 * a library call): it computes the workload's function on its buffers
 * (ks_wl_buffer), asynchronously on the device's default stream, and
 * returns KS_OK or an error with a message in err. */
typedef ks_status (*ks_wl_runner)(ks_wl *w, void *user, char *err, size_t cap);

/* A ks_wl_runner for sepfilter_fused's workload: the same function in two
 * launches, sepfilter_rows (in -> tmp) then sepfilter_cols (tmp -> out),
 * each over the whole image with the workload's block. user: ks_kernel *[2]
 * (the rows kernel, then the columns kernel, specialized as the caller
 * likes). KS_EINVAL on another workload. */
ks_status ks_wl_two_pass(ks_wl *w, void *kernels, char *err, size_t cap);

/* ks_wl_check and ks_wl_time with run(w, user, ...) as the launch. */
ks_status ks_wl_check_run(ks_wl *w, ks_wl_runner run, void *user, char *err,
                          size_t cap);
ks_status ks_wl_time_run(ks_wl *w, ks_wl_runner run, void *user, int reps,
                         double *median_ms, char *err, size_t cap);

/* The device buffer called `name` in the template's signature ("x", "f",
 * "hist", ...); 0 when there is none. */
ks_devptr ks_wl_buffer(const ks_wl *w, const char *name);

/* The problem size (elements, or the side of the square) and the value of
 * the parameter that sizes it (FILTER_LEN, RADIUS, BINS, BLOCK, TILE). */
size_t ks_wl_size(const ks_wl *w);
long ks_wl_param(const ks_wl *w);

/* The grid ks_wl_launch uses (for sepfilter_fused, the one its last
 * launch used). */
ks_dim3 ks_wl_grid(const ks_wl *w);

/* The fewest bytes the kernel must move through device memory (each input
 * read once, each output written once), for bandwidth fractions. */
double ks_wl_bytes(const ks_wl *w);

/* Human-readable problem description, "n=67108864 FILTER_LEN=32". */
const char *ks_wl_describe(const ks_wl *w);

#ifdef __cplusplus
}
#endif

#endif /* KS_WORKLOADS_H */
