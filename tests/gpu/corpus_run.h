/*
 * corpus_run.h - one corpus case on the GPU three ways (test_gpu_corpus.c):
 * the nvcc cubin through the driver API, kspec's generic kernel and kspec's
 * specialized kernel, on the same device buffers.
 */
#ifndef KS_TEST_CORPUS_RUN_H
#define KS_TEST_CORPUS_RUN_H

#include <cuda.h>

#include "kspec.h"
#include "manifest.h"

enum { CR_NVCC, CR_GENERIC, CR_SPEC, CR_VARIANTS };

/* The driver entry points the harness calls itself (dlopen'ed). */
#define CR_CU_SYMBOLS                                                          \
  X(cuInit, "cuInit")                                                          \
  X(cuDeviceGet, "cuDeviceGet")                                                \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")                              \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                      \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")                 \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                        \
  X(cuCtxSynchronize, "cuCtxSynchronize")                                      \
  X(cuGetErrorString, "cuGetErrorString")                                      \
  X(cuModuleLoad, "cuModuleLoad")                                              \
  X(cuModuleUnload, "cuModuleUnload")                                          \
  X(cuModuleGetFunction, "cuModuleGetFunction")                                \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2")                                 \
  X(cuFuncSetAttribute, "cuFuncSetAttribute")                                  \
  X(cuLaunchKernel, "cuLaunchKernel")                                          \
  X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel")                    \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                               \
    "cuOccupancyMaxActiveBlocksPerMultiprocessor")                             \
  X(cuArray3DCreate, "cuArray3DCreate_v2")                                     \
  X(cuArrayDestroy, "cuArrayDestroy")                                          \
  X(cuMemcpy2D, "cuMemcpy2D_v2")                                               \
  X(cuTexObjectCreate, "cuTexObjectCreate")                                    \
  X(cuTexObjectDestroy, "cuTexObjectDestroy")                                  \
  X(cuSurfObjectCreate, "cuSurfObjectCreate")                                  \
  X(cuSurfObjectDestroy, "cuSurfObjectDestroy")

typedef struct cr_gpu {
  void *lib;
  ks_ctx *ctx;
  CUdevice dev;
  CUcontext primary;
  int sms;
  struct {
#define X(f, s) __typeof__(&f) f;
    CR_CU_SYMBOLS
#undef X
  } cu;
} cr_gpu;

/* A case's host inputs, from the seed of its name. */
typedef struct cr_host {
  void *data[KM_MAX_ARGS];     /* in, io, tex2d: the random input */
  void *gdata[KM_MAX_GLOBALS]; /* gset */
  size_t bytes;                /* all of them */
} cr_host;

/* One case set up on the device. */
typedef struct cr_run {
  cr_gpu *g;
  const km_case *c;
  cr_host h;
  ks_template *t;
  ks_kernel *k[CR_VARIANTS]; /* [CR_NVCC] unused */
  CUmodule mod;
  CUfunction fn;
  ks_dim3 grid, block;
  ks_devptr buf[KM_MAX_ARGS];
  CUarray arr[KM_MAX_ARGS];
  unsigned long long obj[KM_MAX_ARGS]; /* texture or surface objects */
  _Alignas(8) unsigned char val[KM_MAX_ARGS][8];
  void *args[KM_MAX_ARGS];
  void *out[CR_VARIANTS][KM_MAX_ARGS + KM_MAX_GLOBALS]; /* results */
} cr_run;

/* Opens libcuda.so.1 and makes the device's primary context (kspec's)
 * current on this thread. 0, or -1 with err. */
int cr_gpu_open(cr_gpu *g, ks_ctx *ctx, char *err, size_t cap);
void cr_gpu_close(cr_gpu *g);

/* Allocates and fills c's host inputs (dry: only a prefix of each is
 * filled, for the CPU dry run). 0, or -1 with err. */
int cr_host_setup(const km_case *c, cr_host *h, int dry, char *err, size_t cap);
void cr_host_free(cr_host *h);

/* Sets case c up: bitcode DIR/STEM.bc specialized twice, DIR/STEM.cubin
 * loaded, buffers and objects made. 0 ready; 1 skipped (err says why: this
 * kspec lacks an API the case needs); -1 failed. cr_teardown in any case. */
int cr_setup(cr_gpu *g, const char *dir, const km_case *c, cr_run *x, char *err,
             size_t cap);
/* Runs each variant once on fresh inputs and poisoned outputs; compares
 * generic and specialized with nvcc. 0 all matched, -1 (err names the
 * variant, the argument and the first difference). */
int cr_compare(cr_run *x, char *err, size_t cap);
/* One launch of variant v, timed with events. 0 or -1. */
int cr_launch_timed(cr_run *x, int v, float *ms);
/* The passes that changed the specialized kernel (ks_kernel_explain). */
void cr_fired(const cr_run *x, char *buf, size_t cap);
void cr_teardown(cr_run *x);

#endif
