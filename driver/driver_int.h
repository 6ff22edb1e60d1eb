/*
 * driver_int.h - what driver.c and driver_tex.c share: the table of
 * driver entry points, the ks_drv they live in, and the two calls every
 * entry point goes through (binding the context to the calling thread,
 * judging a CUresult). The rest of the driver module sees ks_driver.h.
 */
#ifndef KS_DRIVER_INT_H
#define KS_DRIVER_INT_H

#include <pthread.h>
#include <stddef.h>

#include <cuda.h>

#include "ks_driver.h"

/* X(symbol): every driver entry point this file calls. */
#define KS_CU_SYMBOLS(X)                                                       \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleGetFunction)                                                       \
  X(cuModuleGetGlobal)                                                         \
  X(cuModuleUnload)                                                            \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuOccupancyMaxPotentialBlockSize)                                          \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchCooperativeKernel)                                                 \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoD)                                                              \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuStreamWaitEvent)                                                         \
  X(cuMemsetD8)                                                                \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuTexObjectCreate)                                                         \
  X(cuTexObjectDestroy)                                                        \
  X(cuArray3DCreate)                                                           \
  X(cuArrayDestroy)                                                            \
  X(cuMemcpy3DAsync)                                                           \
  X(cuMemGetAddressRange)

/* X(symbol): entry points newer than some drivers still in use; a NULL
 * member when the driver lacks one, and the caller takes another way. */
#define KS_CU_OPTIONAL(X) X(cuLaunchKernelEx) /* CUDA 11.8 */

/* The member for cuMemAlloc is named cuMemAlloc_v2, as is every use of it. */
struct ks_cu {
#define KS_CU_MEMBER(f) __typeof__(f) *f;
  KS_CU_SYMBOLS(KS_CU_MEMBER)
  KS_CU_OPTIONAL(KS_CU_MEMBER)
#undef KS_CU_MEMBER
};

struct ks_drv {
  void *lib;          /* dlopen handle of libcuda.so.1 (or KSPEC_LIBCUDA) */
  char lib_name[256]; /* what was opened, for messages */
  struct ks_cu cu;
  int version; /* cuDriverGetVersion */
  CUdevice dev;
  CUcontext ctx; /* retained primary context */
  /* Timers, one per thread that used one (a thread's start and stop pair
   * up), made on first use and kept until close. */
  pthread_mutex_t timer_lock;
  struct ks_drv_timer *timers;
};

/* Makes d's context current on the calling thread; KS_EDRIVER and a
 * message when that fails. */
ks_status ks_drv_bind(ks_drv *d, char *err, size_t cap);

/* The one place a CUresult is judged: KS_OK for success, otherwise the
 * message "driver: fn: NAME (description)" and the status st. */
ks_status ks_drv_check(const ks_drv *d, CUresult r, const char *fn,
                       ks_status st, char *err, size_t cap);

#endif
