/*
 * ks_driver.h - internal interface of driver/: the CUDA Driver API, opened at
 * run time with dlopen("libcuda.so.1", or $KSPEC_LIBCUDA when set). cuda.h
 * is used for types only; no symbol of libcuda is linked. This module knows
 * nothing of LLVM.
 *
 * Every CUresult is checked where it is returned; failures are written to the
 * caller's buffer as one line: "driver: cuModuleLoadDataEx: CUDA_ERROR_... (
 * message)[: JIT log]".
 */
#ifndef KS_DRIVER_H
#define KS_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "kspec.h"

/* Opaque: the loaded driver, one device and its retained primary context. */
typedef struct ks_drv ks_drv;

/* Opens the driver and retains device ordinal dev's primary context.
 * KS_ENODRIVER when libcuda.so.1 cannot be opened or cuInit fails with
 * CUDA_ERROR_NO_DEVICE-like errors that mean "no GPU here"; KS_ENODEVICE when
 * the ordinal does not exist. err gets the message (cap bytes). */
ks_status ks_drv_open(int dev, ks_drv **out, char *err, size_t cap);
/* Releases the primary context and closes the library. NULL is a no-op. */
void ks_drv_close(ks_drv *d);

/* Fills *out from cuDeviceGetAttribute and friends. */
ks_status ks_drv_device_info(ks_drv *d, ks_device_info *out, char *err,
                             size_t cap);

/* Loaded module with one function. */
typedef struct ks_drv_module {
  void *module;   /* CUmodule */
  void *function; /* CUfunction */
} ks_drv_module;

/* cuModuleLoadDataEx with the JIT info and error logs captured; the error log
 * is appended to the message on failure (KS_ELOAD). Then cuModuleGetFunction
 * for fn (KS_ENOKERNEL if missing). */
ks_status ks_drv_module_load(ks_drv *d, const char *ptx, const char *fn,
                             ks_drv_module *out, char *err, size_t cap);
/* cuModuleLoadData of a cubin (KS_ELOAD when the driver refuses it), then
 * cuModuleGetFunction for fn. */
ks_status ks_drv_module_load_image(ks_drv *d, const void *image, const char *fn,
                                   ks_drv_module *out, char *err, size_t cap);
void ks_drv_module_unload(ks_drv *d, ks_drv_module *m);

/* Function attributes from cuFuncGetAttribute. */
typedef struct ks_drv_func_attrs {
  int regs, static_smem, local_bytes, max_threads, const_bytes;
  int ptx_version, binary_version;
} ks_drv_func_attrs;
ks_status ks_drv_func_attrs_get(ks_drv *d, void *function,
                                ks_drv_func_attrs *out, char *err, size_t cap);

/* cuOccupancyMaxActiveBlocksPerMultiprocessor: the blocks of function
 * resident per SM with block threads and dyn_smem bytes of dynamic shared
 * memory. */
ks_status ks_drv_occupancy(ks_drv *d, void *function, int block,
                           size_t dyn_smem, int *blocks, char *err, size_t cap);
/* cuOccupancyMaxPotentialBlockSize with dyn_smem bytes for every block size;
 * limit 0: no limit beyond the function's. */
ks_status ks_drv_best_block(ks_drv *d, void *function, size_t dyn_smem,
                            int limit, int *min_grid, int *block, char *err,
                            size_t cap);

/* cuLaunchKernel; then cuGetLastError-like check via cuCtxGetCurrent is not
 * needed: launch errors are returned synchronously as KS_ELAUNCH. */
ks_status ks_drv_launch(ks_drv *d, void *function, const unsigned grid[3],
                        const unsigned block[3], unsigned smem, void *stream,
                        void **args, char *err, size_t cap);

/* A launch with attributes: geometry, dynamic shared memory, stream (a
 * CUstream; NULL: the default), a cooperative launch (non-zero) and a
 * cluster shape (cluster[0] 0: none; else every dimension >= 1). */
typedef struct ks_drv_launch_cfg {
  unsigned grid[3], block[3];
  unsigned smem;
  void *stream;
  int cooperative;
  unsigned cluster[3];
} ks_drv_launch_cfg;
/* Without attributes, cuLaunchKernel; with them, cuLaunchKernelEx, or
 * cuLaunchCooperativeKernel for a cooperative launch where the driver
 * lacks cuLaunchKernelEx (a cluster then is KS_ENODRIVER). The driver's
 * refusals are KS_ELAUNCH. */
ks_status ks_drv_launch_ex(ks_drv *d, void *function,
                           const ks_drv_launch_cfg *c, void **args, char *err,
                           size_t cap);
/* cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES): launches of function
 * may ask for up to bytes of dynamic shared memory (KS_ELAUNCH when the
 * driver refuses). */
ks_status ks_drv_func_max_dyn_smem(ks_drv *d, void *function, unsigned bytes,
                                   char *err, size_t cap);

ks_status ks_drv_mem_alloc(ks_drv *d, size_t bytes, uint64_t *out, char *err,
                           size_t cap);
void ks_drv_mem_free(ks_drv *d, uint64_t p);
ks_status ks_drv_htod(ks_drv *d, uint64_t dst, const void *src, size_t n,
                      char *err, size_t cap);
ks_status ks_drv_dtoh(ks_drv *d, void *dst, uint64_t src, size_t n, char *err,
                      size_t cap);
ks_status ks_drv_dtod(ks_drv *d, uint64_t dst, uint64_t src, size_t n,
                      char *err, size_t cap);
/* cuMemcpyDtoDAsync on stream (a CUstream; NULL: the default stream);
 * failures are KS_ELAUNCH. */
ks_status ks_drv_dtod_async(ks_drv *d, uint64_t dst, uint64_t src, size_t n,
                            void *stream, char *err, size_t cap);
/* cuMemcpyHtoDAsync / cuMemcpyDtoHAsync on stream (NULL: the default
 * stream); failures are KS_EDRIVER. From pageable host memory the driver
 * has taken the bytes when htod returns; dtoh into pageable memory has
 * finished when it returns. */
ks_status ks_drv_htod_async(ks_drv *d, uint64_t dst, const void *src, size_t n,
                            void *stream, char *err, size_t cap);
ks_status ks_drv_dtoh_async(ks_drv *d, void *dst, uint64_t src, size_t n,
                            void *stream, char *err, size_t cap);
/* cuModuleGetGlobal: the address and size of m's global `name` (KS_EINVAL
 * when it has none; KS_EDRIVER when the driver or context fails). */
ks_status ks_drv_module_global(ks_drv *d, const ks_drv_module *m,
                               const char *name, uint64_t *ptr, size_t *bytes,
                               char *err, size_t cap);
/* What the device takes for a texture over linear memory (pitch2D):
 * alignments of the address and pitch in bytes, the largest width and
 * height (texels) and pitch (bytes). */
typedef struct ks_drv_tex_limits_t {
  int align, pitch_align, max_width, max_height, max_pitch;
} ks_drv_tex_limits_t;
ks_status ks_drv_tex_limits(ks_drv *d, ks_drv_tex_limits_t *out, char *err,
                            size_t cap);
/* A texture object over a pitched array of one-channel texels of format
 * KS_TEX_* (kspec.h), width x height, rows pitch_bytes apart, with an
 * address mode of the dialect's (KS_CLAMP 0, KS_WRAP 1, KS_MIRROR 2,
 * KS_BORDER 3), linear or nearest filtering, integers read as such or
 * normalized, coordinates normalized or not (cuTexObjectCreate;
 * KS_EDRIVER when the driver refuses). */
typedef struct ks_drv_tex {
  uint64_t ptr;
  unsigned width, height;
  size_t pitch_bytes;
  unsigned format, mode;
  int linear, read_integers, normalized_coords;
} ks_drv_tex;
ks_status ks_drv_tex_create(ks_drv *d, const ks_drv_tex *t, uint64_t *obj,
                            char *err, size_t cap);
void ks_drv_tex_destroy(ks_drv *d, uint64_t obj);
/* The largest 3-D texture (a CUDA array) the device takes: width, height,
 * depth in texels. */
ks_status ks_drv_tex3d_limits(ks_drv *d, int max[3], char *err, size_t cap);
/* A texture object sampling as t says over a new CUDA 3-D array of
 * t->width x t->height x depth one-channel texels of t->format, both
 * made here (*array, *obj; 0s and KS_EDRIVER when the driver refuses
 * either); t->ptr and t->pitch_bytes are not read: ks_drv_tex3d_copy
 * fills the array. */
ks_status ks_drv_tex3d_create(ks_drv *d, const ks_drv_tex *t, unsigned depth,
                              uint64_t *array, uint64_t *obj, char *err,
                              size_t cap);
/* Copies the 3-D array at t->ptr (rows t->pitch_bytes apart, slices
 * t->height rows apart) into array, on stream (cuMemcpy3DAsync;
 * KS_ELAUNCH when refused). */
ks_status ks_drv_tex3d_copy(ks_drv *d, uint64_t array, const ks_drv_tex *t,
                            unsigned depth, void *stream, char *err,
                            size_t cap);
/* Destroys the object, then the array (0: none). */
void ks_drv_tex3d_destroy(ks_drv *d, uint64_t array, uint64_t obj);
/* The allocation that holds p: its base and size (cuMemGetAddressRange;
 * KS_EINVAL when p is in none). */
ks_status ks_drv_mem_range(ks_drv *d, uint64_t p, uint64_t *base, size_t *bytes,
                           char *err, size_t cap);
/* An event without timing, to order one stream after another: record it
 * on one (KS_ELAUNCH on failure), make another wait for it. */
ks_status ks_drv_event_create(ks_drv *d, void **ev, char *err, size_t cap);
void ks_drv_event_destroy(ks_drv *d, void *ev);
ks_status ks_drv_event_record(ks_drv *d, void *ev, void *stream, char *err,
                              size_t cap);
ks_status ks_drv_stream_wait(ks_drv *d, void *stream, void *ev, char *err,
                             size_t cap);
ks_status ks_drv_memset8(ks_drv *d, uint64_t dst, unsigned char v, size_t n,
                         char *err, size_t cap);
/* cuCtxSynchronize: asynchronous faults surface here (KS_ELAUNCH). */
ks_status ks_drv_sync(ks_drv *d, char *err, size_t cap);

/* Two events on the default stream; stop waits and reports milliseconds. */
ks_status ks_drv_timer_start(ks_drv *d, char *err, size_t cap);
ks_status ks_drv_timer_stop(ks_drv *d, float *ms, char *err, size_t cap);

/* cuDriverGetVersion, 13000 for CUDA 13.0. */
int ks_drv_version(const ks_drv *d);

#endif /* KS_DRIVER_H */
