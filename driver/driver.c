/*
 * driver.c - the CUDA Driver API, opened at run time.
 *
 * libcuda.so.1 is dlopen()ed and every entry point is looked up into a table
 * of function pointers; cuda.h supplies only types and prototypes, so kspec
 * builds and runs (up to PTX) on machines without a driver. The environment
 * variable KSPEC_LIBCUDA=/path/to/lib opens that library instead (the CPU
 * tests point it at tests/mock/cuda_mock.c's mocked driver); a path that
 * cannot be opened is KS_ENODRIVER with a message naming it, never a silent
 * fall back to libcuda.so.1. cuda.h #defines
 * many names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2); the table
 * members and the looked-up names are both spelled through the macros, so
 * each pointer has exactly the type of the symbol it holds.
 *
 * One ks_drv holds one device and its retained primary context. The context
 * is made current on the calling thread before every call, so a ks_drv may
 * be used from any thread. Every CUresult goes through ks_drv_check(), which
 * writes "driver: <call>: <name> (<description>)" into the caller's buffer.
 * Texture objects are in driver_tex.c; driver_int.h holds what both share.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "driver_int.h"

#define STR(x) #x
#define XSTR(x) STR(x) /* expands cuda.h's renames first */

struct ks_drv_timer {
  unsigned long long owner; /* thread_id() */
  CUevent t0, t1;           /* NULL until made */
  struct ks_drv_timer *next;
};

enum { JIT_LOG_CAP = 8192 };

/* Writes a formatted message into err, truncating; err may be NULL. */
static void say(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;

  if (!err || !cap)
    return;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
}

/* The one place a CUresult is judged: KS_OK for success, otherwise the
 * message "driver: fn: NAME (description)" and the status st. */
ks_status ks_drv_check(const ks_drv *d, CUresult r, const char *fn,
                       ks_status st, char *err, size_t cap) {
  const char *name = NULL, *desc = NULL;

  if (r == CUDA_SUCCESS)
    return KS_OK;
  /* Both fail, leaving NULL, for codes newer than the driver. */
  d->cu.cuGetErrorName(r, &name);
  d->cu.cuGetErrorString(r, &desc);
  if (name)
    say(err, cap, "driver: %s: %s (%s)", fn, name, desc ? desc : "?");
  else
    say(err, cap, "driver: %s: CUresult %d", fn, (int)r);
  return st;
}

/* Appends ": log" to the message in err, each run of line breaks turned into
 * "; " so the message stays on one line. */
static void append_log(char *err, size_t cap, const char *log) {
  const char *sep = ": ";
  size_t n, start = 0, end = strlen(log);

  if (!err || !cap || (n = strnlen(err, cap)) == cap)
    return;
  while (start < end && isspace((unsigned char)log[start]))
    start++;
  while (end > start && isspace((unsigned char)log[end - 1]))
    end--;
  for (size_t i = start; i < end; i++) {
    if (log[i] == '\n' || log[i] == '\r') {
      sep = "; ";
      continue;
    }
    for (; sep && *sep && n + 1 < cap; sep++)
      err[n++] = *sep;
    sep = NULL;
    if (n + 1 < cap)
      err[n++] = log[i];
  }
  err[n] = '\0';
}

/* Versioned symbols newer than some drivers still in use, with the older
 * symbol of the same prototype to fall back on. */
static const char *fallback_name(const char *name) {
  static const char *const same_proto[][2] = {
      {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, /* before 12.8 */
  };

  for (size_t i = 0; i < sizeof same_proto / sizeof same_proto[0]; i++)
    if (!strcmp(name, same_proto[i][0]))
      return same_proto[i][1];
  return NULL;
}

/* Fills d->cu from d->lib. KS_ENODRIVER names the first missing symbol
 * of KS_CU_SYMBOLS; those of KS_CU_OPTIONAL may stay NULL. */
static ks_status resolve(ks_drv *d, char *err, size_t cap) {
  static const struct {
    const char *name;
    size_t off;
    int optional;
  } syms[] = {
#define KS_CU_ENTRY(f) {XSTR(f), offsetof(struct ks_cu, f), 0},
#define KS_CU_OPT_ENTRY(f) {XSTR(f), offsetof(struct ks_cu, f), 1},
      KS_CU_SYMBOLS(KS_CU_ENTRY) KS_CU_OPTIONAL(KS_CU_OPT_ENTRY)
#undef KS_CU_OPT_ENTRY
#undef KS_CU_ENTRY
  };

  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    const char *alt = fallback_name(syms[i].name);
    void *p = dlsym(d->lib, syms[i].name);

    if (!p && alt)
      p = dlsym(d->lib, alt);
    if (!p && syms[i].optional)
      continue;
    if (!p) {
      say(err, cap, "driver: %s lacks %s (driver too old?)", d->lib_name,
          syms[i].name);
      return KS_ENODRIVER;
    }
    /* POSIX: a data pointer from dlsym converts to a function pointer. */
    memcpy((char *)&d->cu + syms[i].off, &p, sizeof p);
  }
  return KS_OK;
}

/* dlopen of libcuda.so.1, or of $KSPEC_LIBCUDA when set, with a message
 * that says what is missing. */
static ks_status load_library(ks_drv *d, char *err, size_t cap) {
  const char *path = getenv("KSPEC_LIBCUDA"), *why;

  if (path && *path) {
    snprintf(d->lib_name, sizeof d->lib_name, "KSPEC_LIBCUDA=%s", path);
    d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (d->lib)
      return KS_OK;
    why = dlerror();
    if (!why || strstr(why, "No such file"))
      say(err, cap,
          "driver: KSPEC_LIBCUDA=%s not found (point it at a CUDA driver "
          "library, or unset it for libcuda.so.1)",
          path);
    else
      say(err, cap, "driver: cannot load KSPEC_LIBCUDA=%s: %s", path, why);
    return KS_ENODRIVER;
  }
  snprintf(d->lib_name, sizeof d->lib_name, "libcuda.so.1");
  d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (d->lib)
    return KS_OK;
  why = dlerror();
  if (!why || strstr(why, "No such file"))
    say(err, cap,
        "driver: libcuda.so.1 not found (no CUDA driver on this machine)");
  else
    say(err, cap, "driver: cannot load libcuda.so.1: %s", why);
  return KS_ENODRIVER;
}

/* cuInit and the device ordinal. Any cuInit failure (no device, stub
 * library, driver older than the kernel module, ...) means "no usable
 * driver here": KS_ENODRIVER, with the driver's reason in the message. */
static ks_status find_device(ks_drv *d, int dev, char *err, size_t cap) {
  const struct ks_cu *cu = &d->cu;
  int count = 0;
  ks_status st;

  st = ks_drv_check(d, cu->cuInit(0), "cuInit", KS_ENODRIVER, err, cap);
  if (!st)
    st = ks_drv_check(d, cu->cuDriverGetVersion(&d->version),
                      "cuDriverGetVersion", KS_EDRIVER, err, cap);
  if (!st)
    st = ks_drv_check(d, cu->cuDeviceGetCount(&count), "cuDeviceGetCount",
                      KS_ENODEVICE, err, cap);
  if (st)
    return st;
  if (dev < 0 || dev >= count) {
    say(err, cap, "driver: no CUDA device %d (the driver sees %d)", dev, count);
    return KS_ENODEVICE;
  }
  return ks_drv_check(d, cu->cuDeviceGet(&d->dev, dev), "cuDeviceGet",
                      KS_ENODEVICE, err, cap);
}

ks_status ks_drv_open(int dev, ks_drv **out, char *err, size_t cap) {
  ks_drv *d;
  ks_status st;

  *out = NULL;
  d = calloc(1, sizeof *d);
  if (!d) {
    say(err, cap, "driver: out of memory");
    return KS_ENOMEM;
  }
  pthread_mutex_init(&d->timer_lock, NULL);
  st = load_library(d, err, cap);
  if (st)
    goto fail_free;
  st = resolve(d, err, cap);
  if (!st)
    st = find_device(d, dev, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev),
                      "cuDevicePrimaryCtxRetain", KS_EDRIVER, err, cap);
  if (st)
    goto fail_close;
  st = ks_drv_check(d, d->cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent",
                    KS_EDRIVER, err, cap);
  if (st)
    goto fail_release;
  *out = d;
  return KS_OK;

fail_release:
  d->cu.cuDevicePrimaryCtxRelease(d->dev);
fail_close:
  dlclose(d->lib);
fail_free:
  pthread_mutex_destroy(&d->timer_lock);
  free(d);
  return st;
}

void ks_drv_close(ks_drv *d) {
  if (!d)
    return;
  d->cu.cuCtxSetCurrent(d->ctx);
  while (d->timers) {
    struct ks_drv_timer *t = d->timers;
    d->timers = t->next;
    if (t->t0)
      d->cu.cuEventDestroy(t->t0);
    if (t->t1)
      d->cu.cuEventDestroy(t->t1);
    free(t);
  }
  d->cu.cuDevicePrimaryCtxRelease(d->dev);
  dlclose(d->lib);
  pthread_mutex_destroy(&d->timer_lock);
  free(d);
}

int ks_drv_version(const ks_drv *d) { return d ? d->version : 0; }

/* Makes d's primary context current on the calling thread. */
ks_status ks_drv_bind(ks_drv *d, char *err, size_t cap) {
  return ks_drv_check(d, d->cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent",
                      KS_EDRIVER, err, cap);
}

/* ---- device --------------------------------------------------------- */

/* Whether the device takes cooperative and cluster launches. A driver
 * older than the attribute answers CUDA_ERROR_INVALID_VALUE: it cannot
 * launch that way either, so a failure reads as 0. */
static void launch_features(ks_drv *d, ks_device_info *out) {
  if (d->cu.cuDeviceGetAttribute(&out->cooperative_launch,
                                 CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
                                 d->dev) != CUDA_SUCCESS)
    out->cooperative_launch = 0;
  if (d->cu.cuDeviceGetAttribute(&out->cluster_launch,
                                 CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                                 d->dev) != CUDA_SUCCESS)
    out->cluster_launch = 0;
}

ks_status ks_drv_device_info(ks_drv *d, ks_device_info *out, char *err,
                             size_t cap) {
  int major = 0, minor = 0;
  const struct {
    CUdevice_attribute attr;
    int *dst;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &out->multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &out->max_threads_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &out->max_block_dim[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &out->max_block_dim[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &out->max_block_dim[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &out->max_grid_dim[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &out->max_grid_dim[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &out->max_grid_dim[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &out->max_regs_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
       &out->max_regs_per_sm},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
       &out->max_smem_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &out->max_smem_per_block_optin},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
       &out->max_smem_per_sm},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
       &out->max_threads_per_sm},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &out->warp_size},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, &out->compute_mode},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor},
  };
  ks_status st;

  memset(out, 0, sizeof *out);
  st = ks_drv_bind(d, err, cap);
  for (size_t i = 0; !st && i < sizeof attrs / sizeof attrs[0]; i++)
    st = ks_drv_check(
        d, d->cu.cuDeviceGetAttribute(attrs[i].dst, attrs[i].attr, d->dev),
        "cuDeviceGetAttribute", KS_EDRIVER, err, cap);
  if (!st)
    st = ks_drv_check(
        d, d->cu.cuDeviceGetName(out->name, sizeof out->name, d->dev),
        "cuDeviceGetName", KS_EDRIVER, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuDeviceTotalMem(&out->total_mem, d->dev),
                      "cuDeviceTotalMem", KS_EDRIVER, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuDeviceGetCount(&out->device_count),
                      "cuDeviceGetCount", KS_EDRIVER, err, cap);
  out->name[sizeof out->name - 1] = '\0';
  if (!st)
    launch_features(d, out);
  out->sm = major * 10 + minor;
  out->driver_version = d->version;
  return st;
}

/* ---- modules and launches ------------------------------------------- */

/* cuModuleLoadDataEx with both JIT logs captured in logs (2 * JIT_LOG_CAP
 * bytes: error log, then info log). */
static CUresult load_ptx(ks_drv *d, const char *ptx, char *logs,
                         CUmodule *mod) {
  CUjit_option opt[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE,
  };
  /* Scalar option values travel in the pointer itself. */
  void *val[] = {
      logs,
      (void *)(uintptr_t)JIT_LOG_CAP,
      logs + JIT_LOG_CAP,
      (void *)(uintptr_t)JIT_LOG_CAP,
      (void *)(uintptr_t)1,
  };

  return d->cu.cuModuleLoadDataEx(mod, ptx, sizeof opt / sizeof opt[0], opt,
                                  val);
}

/* The function fn of a freshly loaded mod into out; mod is unloaded when
 * fn is missing (KS_ENOKERNEL) or the call fails. */
static ks_status get_function(ks_drv *d, CUmodule mod, const char *fn,
                              ks_drv_module *out, char *err, size_t cap) {
  CUfunction f = NULL;
  CUresult r = d->cu.cuModuleGetFunction(&f, mod, fn);
  ks_status st = ks_drv_check(
      d, r, "cuModuleGetFunction",
      r == CUDA_ERROR_NOT_FOUND ? KS_ENOKERNEL : KS_EDRIVER, err, cap);

  if (st) {
    append_log(err, cap, fn);
    d->cu.cuModuleUnload(mod);
    return st;
  }
  out->module = mod;
  out->function = f;
  return KS_OK;
}

/* The JIT logs (error log first; some failures only fill the info log)
 * appended to the message of a failed call. */
static void append_logs(char *err, size_t cap, char *logs) {
  logs[JIT_LOG_CAP - 1] = logs[2 * JIT_LOG_CAP - 1] = '\0';
  append_log(err, cap, logs[0] ? logs : logs + JIT_LOG_CAP);
}

ks_status ks_drv_module_load(ks_drv *d, const char *ptx, const char *fn,
                             ks_drv_module *out, char *err, size_t cap) {
  CUmodule mod = NULL;
  char *logs;
  ks_status st;

  memset(out, 0, sizeof *out);
  st = ks_drv_bind(d, err, cap);
  if (st)
    return st;
  logs = calloc(2, JIT_LOG_CAP);
  if (!logs) {
    say(err, cap, "driver: out of memory for the JIT logs");
    return KS_ENOMEM;
  }
  st = ks_drv_check(d, load_ptx(d, ptx, logs, &mod), "cuModuleLoadDataEx",
                    KS_ELOAD, err, cap);
  if (st)
    append_logs(err, cap, logs);
  free(logs);
  return st ? st : get_function(d, mod, fn, out, err, cap);
}

ks_status ks_drv_module_load_image(ks_drv *d, const void *image, const char *fn,
                                   ks_drv_module *out, char *err, size_t cap) {
  CUmodule mod = NULL;
  ks_status st;

  memset(out, 0, sizeof *out);
  st = ks_drv_bind(d, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuModuleLoadData(&mod, image),
                      "cuModuleLoadData", KS_ELOAD, err, cap);
  return st ? st : get_function(d, mod, fn, out, err, cap);
}

void ks_drv_module_unload(ks_drv *d, ks_drv_module *m) {
  if (!d || !m || !m->module)
    return;
  if (d->cu.cuCtxSetCurrent(d->ctx) == CUDA_SUCCESS)
    d->cu.cuModuleUnload((CUmodule)m->module);
  m->module = NULL;
  m->function = NULL;
}

ks_status ks_drv_func_attrs_get(ks_drv *d, void *function,
                                ks_drv_func_attrs *out, char *err, size_t cap) {
  const struct {
    CUfunction_attribute attr;
    int *dst;
  } attrs[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, &out->regs},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &out->static_smem},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &out->local_bytes},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &out->max_threads},
      {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &out->const_bytes},
      {CU_FUNC_ATTRIBUTE_PTX_VERSION, &out->ptx_version},
      {CU_FUNC_ATTRIBUTE_BINARY_VERSION, &out->binary_version},
  };
  ks_status st;

  memset(out, 0, sizeof *out);
  st = ks_drv_bind(d, err, cap);
  for (size_t i = 0; !st && i < sizeof attrs / sizeof attrs[0]; i++)
    st = ks_drv_check(d,
                      d->cu.cuFuncGetAttribute(attrs[i].dst, attrs[i].attr,
                                               (CUfunction)function),
                      "cuFuncGetAttribute", KS_EDRIVER, err, cap);
  return st;
}

ks_status ks_drv_occupancy(ks_drv *d, void *function, int block,
                           size_t dyn_smem, int *blocks, char *err,
                           size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  *blocks = 0;
  if (st)
    return st;
  return ks_drv_check(d,
                      d->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                          blocks, (CUfunction)function, block, dyn_smem),
                      "cuOccupancyMaxActiveBlocksPerMultiprocessor", KS_EDRIVER,
                      err, cap);
}

ks_status ks_drv_best_block(ks_drv *d, void *function, size_t dyn_smem,
                            int limit, int *min_grid, int *block, char *err,
                            size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  *min_grid = *block = 0;
  if (st)
    return st;
  return ks_drv_check(
      d,
      d->cu.cuOccupancyMaxPotentialBlockSize(
          min_grid, block, (CUfunction)function, NULL, dyn_smem, limit),
      "cuOccupancyMaxPotentialBlockSize", KS_EDRIVER, err, cap);
}

ks_status ks_drv_launch(ks_drv *d, void *function, const unsigned grid[3],
                        const unsigned block[3], unsigned smem, void *stream,
                        void **args, char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d,
                      d->cu.cuLaunchKernel((CUfunction)function, grid[0],
                                           grid[1], grid[2], block[0], block[1],
                                           block[2], smem, (CUstream)stream,
                                           args, NULL),
                      "cuLaunchKernel", KS_ELAUNCH, err, cap);
}

ks_status ks_drv_func_max_dyn_smem(ks_drv *d, void *function, unsigned bytes,
                                   char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(
      d,
      d->cu.cuFuncSetAttribute((CUfunction)function,
                               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               (int)bytes),
      "cuFuncSetAttribute", KS_ELAUNCH, err, cap);
}

/* cuLaunchKernelEx with c's cooperative and cluster attributes. */
static CUresult launch_attrs(ks_drv *d, CUfunction f,
                             const ks_drv_launch_cfg *c, void **args) {
  CUlaunchAttribute attr[2];
  CUlaunchConfig cfg = {
      .gridDimX = c->grid[0],
      .gridDimY = c->grid[1],
      .gridDimZ = c->grid[2],
      .blockDimX = c->block[0],
      .blockDimY = c->block[1],
      .blockDimZ = c->block[2],
      .sharedMemBytes = c->smem,
      .hStream = (CUstream)c->stream,
      .attrs = attr,
  };

  memset(attr, 0, sizeof attr);
  if (c->cooperative) {
    attr[cfg.numAttrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr[cfg.numAttrs++].value.cooperative = 1;
  }
  if (c->cluster[0]) {
    attr[cfg.numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr[cfg.numAttrs].value.clusterDim.x = c->cluster[0];
    attr[cfg.numAttrs].value.clusterDim.y = c->cluster[1];
    attr[cfg.numAttrs++].value.clusterDim.z = c->cluster[2];
  }
  return d->cu.cuLaunchKernelEx(&cfg, f, args, NULL);
}

ks_status ks_drv_launch_ex(ks_drv *d, void *function,
                           const ks_drv_launch_cfg *c, void **args, char *err,
                           size_t cap) {
  CUfunction f = (CUfunction)function;
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  if (!c->cooperative && !c->cluster[0])
    return ks_drv_launch(d, function, c->grid, c->block, c->smem, c->stream,
                         args, err, cap);
  if (d->cu.cuLaunchKernelEx)
    return ks_drv_check(d, launch_attrs(d, f, c, args), "cuLaunchKernelEx",
                        KS_ELAUNCH, err, cap);
  if (c->cluster[0]) {
    say(err, cap,
        "driver: %s has no cuLaunchKernelEx, which cluster launches need "
        "(CUDA 11.8 or later)",
        d->lib_name);
    return KS_ENODRIVER;
  }
  return ks_drv_check(
      d,
      d->cu.cuLaunchCooperativeKernel(f, c->grid[0], c->grid[1], c->grid[2],
                                      c->block[0], c->block[1], c->block[2],
                                      c->smem, (CUstream)c->stream, args),
      "cuLaunchCooperativeKernel", KS_ELAUNCH, err, cap);
}

ks_status ks_drv_sync(ks_drv *d, char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d, d->cu.cuCtxSynchronize(), "cuCtxSynchronize",
                      KS_ELAUNCH, err, cap);
}

/* ---- memory --------------------------------------------------------- */

/* Device memory running out is KS_ENOMEM; anything else KS_EDRIVER. */
ks_status ks_drv_mem_alloc(ks_drv *d, size_t bytes, uint64_t *out, char *err,
                           size_t cap) {
  CUdeviceptr p = 0;
  CUresult r;
  ks_status st;

  *out = 0;
  st = ks_drv_bind(d, err, cap);
  if (st)
    return st;
  r = d->cu.cuMemAlloc(&p, bytes);
  st = ks_drv_check(d, r, "cuMemAlloc",
                    r == CUDA_ERROR_OUT_OF_MEMORY ? KS_ENOMEM : KS_EDRIVER, err,
                    cap);
  if (!st)
    *out = (uint64_t)p;
  return st;
}

void ks_drv_mem_free(ks_drv *d, uint64_t p) {
  if (!d || !p)
    return;
  if (d->cu.cuCtxSetCurrent(d->ctx) == CUDA_SUCCESS)
    d->cu.cuMemFree((CUdeviceptr)p);
}

ks_status ks_drv_htod(ks_drv *d, uint64_t dst, const void *src, size_t n,
                      char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d, d->cu.cuMemcpyHtoD((CUdeviceptr)dst, src, n),
                      "cuMemcpyHtoD", KS_EDRIVER, err, cap);
}

ks_status ks_drv_dtoh(ks_drv *d, void *dst, uint64_t src, size_t n, char *err,
                      size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d, d->cu.cuMemcpyDtoH(dst, (CUdeviceptr)src, n),
                      "cuMemcpyDtoH", KS_EDRIVER, err, cap);
}

ks_status ks_drv_dtod(ks_drv *d, uint64_t dst, uint64_t src, size_t n,
                      char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d,
                      d->cu.cuMemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, n),
                      "cuMemcpyDtoD", KS_EDRIVER, err, cap);
}

ks_status ks_drv_dtod_async(ks_drv *d, uint64_t dst, uint64_t src, size_t n,
                            void *stream, char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d,
                      d->cu.cuMemcpyDtoDAsync((CUdeviceptr)dst,
                                              (CUdeviceptr)src, n,
                                              (CUstream)stream),
                      "cuMemcpyDtoDAsync", KS_ELAUNCH, err, cap);
}

ks_status ks_drv_htod_async(ks_drv *d, uint64_t dst, const void *src, size_t n,
                            void *stream, char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(
      d, d->cu.cuMemcpyHtoDAsync((CUdeviceptr)dst, src, n, (CUstream)stream),
      "cuMemcpyHtoDAsync", KS_EDRIVER, err, cap);
}

ks_status ks_drv_dtoh_async(ks_drv *d, void *dst, uint64_t src, size_t n,
                            void *stream, char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(
      d, d->cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, n, (CUstream)stream),
      "cuMemcpyDtoHAsync", KS_EDRIVER, err, cap);
}

ks_status ks_drv_module_global(ks_drv *d, const ks_drv_module *m,
                               const char *name, uint64_t *ptr, size_t *bytes,
                               char *err, size_t cap) {
  CUdeviceptr p = 0;
  size_t n = 0;
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  CUresult r = d->cu.cuModuleGetGlobal(&p, &n, (CUmodule)m->module, name);
  /* only a missing name is the caller's mistake; a context or driver
   * failure is told as one */
  st = ks_drv_check(d, r, "cuModuleGetGlobal",
                    r == CUDA_ERROR_NOT_FOUND ? KS_EINVAL : KS_EDRIVER, err,
                    cap);
  *ptr = st ? 0 : (uint64_t)p;
  *bytes = st ? 0 : n;
  return st;
}

ks_status ks_drv_mem_range(ks_drv *d, uint64_t p, uint64_t *base, size_t *bytes,
                           char *err, size_t cap) {
  CUdeviceptr b = 0;
  size_t n = 0;
  ks_status st = ks_drv_bind(d, err, cap);

  if (!st)
    st = ks_drv_check(d, d->cu.cuMemGetAddressRange(&b, &n, (CUdeviceptr)p),
                      "cuMemGetAddressRange", KS_EINVAL, err, cap);
  *base = st ? 0 : (uint64_t)b;
  *bytes = st ? 0 : n;
  return st;
}

ks_status ks_drv_event_create(ks_drv *d, void **ev, char *err, size_t cap) {
  CUevent e = NULL;
  ks_status st = ks_drv_bind(d, err, cap);

  *ev = NULL;
  if (st)
    return st;
  st = ks_drv_check(d, d->cu.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING),
                    "cuEventCreate", KS_EDRIVER, err, cap);
  if (!st)
    *ev = e;
  return st;
}

void ks_drv_event_destroy(ks_drv *d, void *ev) {
  if (d && ev && d->cu.cuCtxSetCurrent(d->ctx) == CUDA_SUCCESS)
    d->cu.cuEventDestroy((CUevent)ev);
}

ks_status ks_drv_event_record(ks_drv *d, void *ev, void *stream, char *err,
                              size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d, d->cu.cuEventRecord((CUevent)ev, (CUstream)stream),
                      "cuEventRecord", KS_ELAUNCH, err, cap);
}

ks_status ks_drv_stream_wait(ks_drv *d, void *stream, void *ev, char *err,
                             size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d,
                      d->cu.cuStreamWaitEvent((CUstream)stream, (CUevent)ev, 0),
                      "cuStreamWaitEvent", KS_ELAUNCH, err, cap);
}

ks_status ks_drv_memset8(ks_drv *d, uint64_t dst, unsigned char v, size_t n,
                         char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  return ks_drv_check(d, d->cu.cuMemsetD8((CUdeviceptr)dst, v, n), "cuMemsetD8",
                      KS_EDRIVER, err, cap);
}

/* ---- timer ---------------------------------------------------------- */

/* A number for the calling thread that no other thread of the process
 * ever gets (pthread_self's value is reused once a thread is joined). */
static unsigned long long thread_id(void) {
  static _Atomic unsigned long long last;
  static _Thread_local unsigned long long id;

  if (!id)
    id = ++last;
  return id;
}

/* The calling thread's timer, NULL when it has none and make is 0 (or
 * memory is short). Each thread gets its own pair of events, so that
 * threads timing at once on one ks_drv never stop each other's timer. */
static struct ks_drv_timer *thread_timer(ks_drv *d, int make) {
  struct ks_drv_timer *t;
  unsigned long long self = thread_id();

  pthread_mutex_lock(&d->timer_lock);
  for (t = d->timers; t && t->owner != self; t = t->next)
    ;
  if (!t && make && (t = calloc(1, sizeof *t)) != NULL) {
    t->owner = self;
    t->next = d->timers;
    d->timers = t;
  }
  pthread_mutex_unlock(&d->timer_lock);
  return t;
}

ks_status ks_drv_timer_start(ks_drv *d, char *err, size_t cap) {
  ks_status st = ks_drv_bind(d, err, cap);
  struct ks_drv_timer *t = st ? NULL : thread_timer(d, 1);

  if (!st && !t) {
    say(err, cap, "driver: timer: out of memory");
    return KS_ENOMEM;
  }
  if (!st && !t->t0)
    st = ks_drv_check(d, d->cu.cuEventCreate(&t->t0, CU_EVENT_DEFAULT),
                      "cuEventCreate", KS_EDRIVER, err, cap);
  if (!st && !t->t1)
    st = ks_drv_check(d, d->cu.cuEventCreate(&t->t1, CU_EVENT_DEFAULT),
                      "cuEventCreate", KS_EDRIVER, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuEventRecord(t->t0, NULL), "cuEventRecord",
                      KS_EDRIVER, err, cap);
  return st;
}

/* Faults of the timed kernels surface in cuEventSynchronize: KS_ELAUNCH. */
ks_status ks_drv_timer_stop(ks_drv *d, float *ms, char *err, size_t cap) {
  ks_status st;

  struct ks_drv_timer *t = thread_timer(d, 0);

  *ms = 0.0f;
  if (!t || !t->t0 || !t->t1) {
    say(err, cap, "driver: timer stopped before this thread started it");
    return KS_EINVAL;
  }
  st = ks_drv_bind(d, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuEventRecord(t->t1, NULL), "cuEventRecord",
                      KS_EDRIVER, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuEventSynchronize(t->t1), "cuEventSynchronize",
                      KS_ELAUNCH, err, cap);
  if (!st)
    st = ks_drv_check(d, d->cu.cuEventElapsedTime(ms, t->t0, t->t1),
                      "cuEventElapsedTime", KS_EDRIVER, err, cap);
  return st;
}
