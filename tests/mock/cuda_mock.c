/*
 * cuda_mock.c - a mocked CUDA driver for the CPU tests: a shared library
 * with every entry point driver/driver.c looks up (and a few more), which
 * kspec opens in place of libcuda.so.1 when KSPEC_LIBCUDA names it.
 *
 * It plays one device, "NVIDIA H100 80GB HBM3 (kspec mock)", sm_90 with an
 * H100's limits (132 SMs, 64 Ki registers and 228 KiB of shared memory per
 * SM, 48 KiB per block without opt-in), and a CUDA 13.0 driver
 * (KSPEC_MOCK_DRIVER_VERSION=12080 plays another; KSPEC_MOCK_DEVICES=0 a
 * machine whose driver sees no device, KSPEC_MOCK_DEVICES=4 one with four
 * alike, ordinals 0..3, of which a process uses one at a time;
 * KSPEC_MOCK_SM=80 an sm_80 device, without clusters;
 * KSPEC_MOCK_OTHER=N device N of another model; KSPEC_MOCK_SLOW=N:MS
 * device N's primary context takes MS ms to retain (a GPU that opens
 * late); KSPEC_MOCK_LOG=FILE
 * appends "retain PID DEVICE" for every primary context retained, "load
 * PID ptx|cubin" for every module loaded, so that a test sees which
 * processes opened which GPUs and what they loaded). What it does:
 *
 *  - the primary context is retained and released with a count; calls that
 *    need a context fail with CUDA_ERROR_INVALID_CONTEXT when none is
 *    current on the calling thread, as the real driver does;
 *  - cuModuleLoadData(Ex) check that the input looks like
 *    PTX (it starts with "//" or ".version", has a .version the driver
 *    accepts, a .target it can run, balanced braces, entries defined once):
 *    otherwise CUDA_ERROR_INVALID_PTX (or _UNSUPPORTED_PTX_VERSION) with a
 *    ptxas-like line in the error log buffer when one is given. Every
 *    ".entry NAME" becomes a function, with its parameters, .reqntid,
 *    .maxntid and .maxnreg, the module's static shared and constant bytes,
 *    and a register count estimated from the virtual registers declared;
 *  - a mock cubin (cuda_mock.h; ptxas_mock.c writes them) loads as its
 *    PTX does, on a device of its sm only;
 *  - cuLaunchKernel checks the launch as the driver would (grid and block
 *    against the device and the function's limits, .reqntid, shared memory
 *    against the function's MAX_DYNAMIC_SHARED_SIZE_BYTES, the stream, one
 *    argument pointer per parameter, each read), counts it and runs
 *    nothing; cuLaunchKernelEx and cuLaunchCooperativeKernel too, with a
 *    cooperative grid against the co-resident blocks and a cluster against
 *    the device and the grid; the last launch's attributes are recorded;
 *  - cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) up to the opt-in
 *    limit, counted;
 *  - device memory is host memory (malloc; at most KSPEC_MOCK_MEM bytes
 *    live, default 1 GiB), so copies and memsets work; ranges are checked
 *    against live allocations;
 *  - texture objects over pitched memory or CUDA arrays (cuArray3DCreate,
 *    filled by cuMemcpy3DAsync), which kspec_mock_tex_fetch samples on the
 *    CPU as the hardware does;
 *  - events record the host's monotonic clock; streams exist and are
 *    checked; synchronizing returns at once.
 *
 * Handles are checked against registries of live objects (one rwlock);
 * counters are atomics, so any number of threads may call in at once.
 * kspec_mock_counters_get (cuda_mock.h) tells a test what happened.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#include "../sim/tex_ref.h"
#include "cuda_mock.h"

#define EXPORT __attribute__((visibility("default")))

enum {
  SM_DEFAULT = 90,
  SM_COUNT = 132,
  MAX_THREADS_BLOCK = 1024,
  MAX_THREADS_SM = 2048,
  MAX_BLOCKS_SM = 32,
  REGS_SM = 65536,
  REGS_BLOCK = 65536,
  SMEM_BLOCK = 48 * 1024,
  SMEM_BLOCK_OPTIN = 227 * 1024,
  SMEM_SM = 228 * 1024,
  SMEM_RESERVED = 1024,
  MAX_PARAMS = 512,
};
#define TOTAL_MEM 85520809984ull /* what an H100 80GB HBM3 reports */
#define DEVICE_NAME "NVIDIA H100 80GB HBM3 (kspec mock)"

/* ---- live objects --------------------------------------------------------
 */

enum { K_MODULE, K_ALLOC, K_EVENT, K_STREAM, K_TEX, K_ARRAY, NKINDS };

typedef struct obj {
  int kind;
  struct obj *prev, *next;
} obj;

static pthread_rwlock_t reg_lock = PTHREAD_RWLOCK_INITIALIZER;
static obj *live[NKINDS];
static _Atomic int64_t nlive[NKINDS];

static void reg_add(obj *o, int kind) {
  o->kind = kind;
  o->prev = NULL;
  pthread_rwlock_wrlock(&reg_lock);
  o->next = live[kind];
  if (o->next)
    o->next->prev = o;
  live[kind] = o;
  pthread_rwlock_unlock(&reg_lock);
  atomic_fetch_add(&nlive[kind], 1);
}

/* Unlinks o when it is live: 1, else 0. */
static int reg_remove(const void *p, int kind) {
  int found = 0;
  pthread_rwlock_wrlock(&reg_lock);
  for (obj *o = live[kind]; o; o = o->next)
    if (o == p) {
      if (o->prev)
        o->prev->next = o->next;
      else
        live[kind] = o->next;
      if (o->next)
        o->next->prev = o->prev;
      found = 1;
      break;
    }
  pthread_rwlock_unlock(&reg_lock);
  if (found)
    atomic_fetch_sub(&nlive[kind], 1);
  return found;
}

static int reg_has(const void *p, int kind) {
  int found = 0;
  if (!p)
    return 0;
  pthread_rwlock_rdlock(&reg_lock);
  for (obj *o = live[kind]; o && !found; o = o->next)
    found = o == p;
  pthread_rwlock_unlock(&reg_lock);
  return found;
}

/* ---- counters ------------------------------------------------------------
 */

static _Atomic uint64_t n_launches, n_launch_errors, n_loads, n_rejected,
    n_unloads, n_retains, n_releases, n_const_copies, n_stream_waits,
    n_func_attr_sets, n_tex_creates, n_tex_destroys, n_array_creates,
    n_array_copies;
static _Atomic int64_t ctx_refs;
static _Atomic int initialized;
static _Atomic int64_t mem_live_bytes;

/* The last launch (kspec_mock_counters.last_*), under its lock. */
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned last_geom[7]; /* grid, block, parameters */
static uint64_t last_param;
/* how: 1 cuLaunchKernel, 2 cuLaunchKernelEx, 3 cuLaunchCooperativeKernel */
static unsigned last_smem, last_how, last_cluster[3];
static int last_cooperative, last_dyn_smem_attr;
static uint64_t last_copy_bytes, last_copy_head; /* to a module's global */
static uint64_t last_array_copy; /* bytes the last cuMemcpy3DAsync copied */
static unsigned last_tex[7]; /* format, filter, address, flags, w, h, pitch */
static atomic_int retained_device = -1; /* of the last primary context */

EXPORT void kspec_mock_counters_get(kspec_mock_counters *out) {
  pthread_mutex_lock(&last_lock);
  unsigned geom[7];
  uint64_t param = last_param, cbytes = last_copy_bytes, chead = last_copy_head;
  uint64_t acopy = last_array_copy;
  unsigned tex[7];
  memcpy(geom, last_geom, sizeof geom);
  memcpy(tex, last_tex, sizeof tex);
  kspec_mock_counters ex = {
      .last_smem = last_smem,
      .last_launch_fn = last_how,
      .last_cooperative = last_cooperative,
      .last_cluster = {last_cluster[0], last_cluster[1], last_cluster[2]},
      .last_dyn_smem_attr = last_dyn_smem_attr,
  };
  pthread_mutex_unlock(&last_lock);
  *out = (kspec_mock_counters){
      .last_grid = {geom[0], geom[1], geom[2]},
      .last_block = {geom[3], geom[4], geom[5]},
      .last_nparams = geom[6],
      .last_param = param,
      .launches = atomic_load(&n_launches),
      .launch_errors = atomic_load(&n_launch_errors),
      .module_loads = atomic_load(&n_loads),
      .ptx_rejected = atomic_load(&n_rejected),
      .module_unloads = atomic_load(&n_unloads),
      .ctx_retains = atomic_load(&n_retains),
      .ctx_releases = atomic_load(&n_releases),
      .live_modules = atomic_load(&nlive[K_MODULE]),
      .live_allocs = atomic_load(&nlive[K_ALLOC]),
      .live_events = atomic_load(&nlive[K_EVENT]),
      .live_streams = atomic_load(&nlive[K_STREAM]),
      .ctx_refs = atomic_load(&ctx_refs),
      .const_copies = atomic_load(&n_const_copies),
      .stream_waits = atomic_load(&n_stream_waits),
      .last_copy_bytes = cbytes,
      .last_copy_head = chead,
      .func_attr_sets = atomic_load(&n_func_attr_sets),
      .tex_creates = atomic_load(&n_tex_creates),
      .live_texs = atomic_load(&nlive[K_TEX]),
      .last_tex = {tex[0], tex[1], tex[2], tex[3], tex[4], tex[5], tex[6]},
      .last_smem = ex.last_smem,
      .last_launch_fn = ex.last_launch_fn,
      .last_cooperative = ex.last_cooperative,
      .last_cluster = {ex.last_cluster[0], ex.last_cluster[1],
                       ex.last_cluster[2]},
      .last_dyn_smem_attr = ex.last_dyn_smem_attr,
      .device = atomic_load(&retained_device),
      .tex_destroys = atomic_load(&n_tex_destroys),
      .array_creates = atomic_load(&n_array_creates),
      .live_arrays = atomic_load(&nlive[K_ARRAY]),
      .array_copies = atomic_load(&n_array_copies),
      .last_array_copy_bytes = acopy,
  };
}

/* ---- errors --------------------------------------------------------------
 */

#define MOCK_ERRORS(X)                                                         \
  X(CUDA_SUCCESS, "no error")                                                  \
  X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                              \
  X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                 \
  X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                        \
  X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                          \
  X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                \
  X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                       \
  X(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")                \
  X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                      \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed")                   \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for "          \
                                  "execution on the device")                   \
  X(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")                    \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "the provided PTX was compiled with "  \
                                        "an unsupported toolchain.")           \
  X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                      \
  X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                            \
  X(CUDA_ERROR_NOT_READY, "device not ready")                                  \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")    \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for "    \
                                        "launch")                              \
  X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                       \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "too many blocks in cooperative " \
                                             "launch")                         \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE, "invalid cluster size")                   \
  X(CUDA_ERROR_UNKNOWN, "unknown error")

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define MOCK_NAME(code, text)                                                  \
  case code:                                                                   \
    *pStr = #code;                                                             \
    return CUDA_SUCCESS;
    MOCK_ERRORS(MOCK_NAME)
#undef MOCK_NAME
  default:
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define MOCK_TEXT(code, text)                                                  \
  case code:                                                                   \
    *pStr = text;                                                              \
    return CUDA_SUCCESS;
    MOCK_ERRORS(MOCK_TEXT)
#undef MOCK_TEXT
  default:
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

/* ---- driver, device, context ---------------------------------------------
 */

static int env_int(const char *name, int def) {
  const char *e = getenv(name);
  char *end = NULL;
  long v = e && *e ? strtol(e, &end, 10) : def;
  return e && *e && *end ? def : (int)v;
}

/* The compute capability played, x10. */
static int mock_sm(void) { return env_int("KSPEC_MOCK_SM", SM_DEFAULT); }

static int driver_version(void) {
  return env_int("KSPEC_MOCK_DRIVER_VERSION", 13000);
}

/* The highest PTX ISA (x10) a driver of version v JIT-compiles. */
static int driver_max_ptx(int v) {
  static const int table[][2] = {
      {13000, 90}, {12090, 88}, {12080, 87}, {12050, 85}, {12040, 84},
      {12030, 83}, {12020, 82}, {12010, 81}, {12000, 80}, {11080, 78},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (v >= table[i][0])
      return table[i][1];
  return 70;
}

struct CUctx_st {
  int device;
};
static struct CUctx_st primary = {0};
static _Thread_local CUcontext current;

CUresult cuInit(unsigned int Flags) {
  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (env_int("KSPEC_MOCK_DEVICES", 1) < 1)
    return CUDA_ERROR_NO_DEVICE;
  atomic_store(&initialized, 1);
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *driverVersion) {
  if (!driverVersion)
    return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = driver_version();
  return CUDA_SUCCESS;
}

static CUresult need_init(void) {
  return atomic_load(&initialized) ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

/* How many devices the driver sees. */
static int device_count(void) { return env_int("KSPEC_MOCK_DEVICES", 1); }

static CUresult need_device(CUdevice dev) {
  CUresult r = need_init();
  return r != CUDA_SUCCESS                  ? r
         : dev >= 0 && dev < device_count() ? CUDA_SUCCESS
                                            : CUDA_ERROR_INVALID_DEVICE;
}

/* A current, retained context on the calling thread. */
static CUresult need_ctx(void) {
  CUresult r = need_init();
  if (r != CUDA_SUCCESS)
    return r;
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  return atomic_load(&ctx_refs) > 0 ? CUDA_SUCCESS
                                    : CUDA_ERROR_CONTEXT_IS_DESTROYED;
}

CUresult cuDeviceGetCount(int *count) {
  CUresult r = need_init();
  if (r != CUDA_SUCCESS)
    return r;
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = device_count();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  CUresult r = need_init();
  if (r != CUDA_SUCCESS)
    return r;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= device_count())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  CUresult r = need_device(dev);
  if (r != CUDA_SUCCESS)
    return r;
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  snprintf(name, (size_t)len, "%s%s", DEVICE_NAME,
           env_int("KSPEC_MOCK_OTHER", -1) == dev ? " (other)" : "");
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
                              CUdevice dev) {
  static const struct {
    CUdevice_attribute a;
    int v;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, MAX_THREADS_BLOCK},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, SMEM_BLOCK},
      {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 65536},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_PITCH, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, REGS_BLOCK},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
      {CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, 512},
      {CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, 32},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH, 131072},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, 65000},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH, 2097120},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, 16384},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, 16384},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, 16384},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, SM_COUNT},
      {CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, 0},
      {CU_DEVICE_ATTRIBUTE_INTEGRATED, 0},
      {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0},
      {CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 1},
      {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 1},
      {CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0x1b},
      {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 50 * 1024 * 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, MAX_THREADS_SM},
      {CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 3},
      {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
      {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0}, /* mock_sm() */
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
      {CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, SMEM_SM},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, REGS_SM},
      {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 1},
      {CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, 0},
      {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, 1},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 1},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, SMEM_BLOCK_OPTIN},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, MAX_BLOCKS_SM},
      {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, SMEM_RESERVED},
      {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0}, /* mock_sm() >= 90 */
  };
  CUresult r = need_device(dev);
  if (r != CUDA_SUCCESS)
    return r;
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  size_t i = 0;
  while (i < sizeof attrs / sizeof attrs[0] && attrs[i].a != attrib)
    i++;
  if (i == sizeof attrs / sizeof attrs[0])
    return CUDA_ERROR_INVALID_VALUE;
  *pi = attrs[i].v;
  if (attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *pi = mock_sm() / 10;
  else if (attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *pi = mock_sm() % 10;
  else if (attrib == CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)
    *pi = mock_sm() >= 90;
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  CUresult r = need_device(dev);
  if (r != CUDA_SUCCESS)
    return r;
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  *bytes = (size_t)TOTAL_MEM;
  return CUDA_SUCCESS;
}

/* A line for KSPEC_MOCK_LOG, when set: "WHAT PID ARG". */
static void mock_log(const char *what, const char *arg) {
  const char *path = getenv("KSPEC_MOCK_LOG");
  FILE *f = path && *path ? fopen(path, "a") : NULL;
  if (!f)
    return;
  fprintf(f, "%s %ld %s\n", what, (long)getpid(), arg);
  fclose(f);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  CUresult r = need_device(dev);
  if (r != CUDA_SUCCESS)
    return r;
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  char d[16];
  snprintf(d, sizeof d, "%d", dev);
  mock_log("retain", d);
  const char *slow = getenv("KSPEC_MOCK_SLOW");
  int slow_dev = -1, slow_ms = 0;
  if (slow && sscanf(slow, "%d:%d", &slow_dev, &slow_ms) == 2 &&
      slow_dev == dev && slow_ms > 0)
    usleep((useconds_t)slow_ms * 1000);
  atomic_fetch_add(&ctx_refs, 1);
  atomic_fetch_add(&n_retains, 1);
  primary.device = dev; /* one device per process */
  atomic_store(&retained_device, dev);
  *pctx = &primary;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  CUresult r = need_device(dev);
  if (r != CUDA_SUCCESS)
    return r;
  int64_t refs = atomic_load(&ctx_refs);
  do {
    if (refs <= 0)
      return CUDA_ERROR_INVALID_CONTEXT;
  } while (!atomic_compare_exchange_weak(&ctx_refs, &refs, refs - 1));
  atomic_fetch_add(&n_releases, 1);
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  CUresult r = need_init();
  if (r != CUDA_SUCCESS)
    return r;
  if (ctx && ctx != &primary)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx && atomic_load(&ctx_refs) <= 0)
    return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  CUresult r = need_init();
  if (r != CUDA_SUCCESS)
    return r;
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = current;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) { return need_ctx(); }

/* ---- JIT logs --------------------------------------------------------------
 */

typedef struct jit_logs {
  char *buf[2]; /* error, info */
  size_t cap[2];
  void **used[2]; /* the size options' values: bytes written go back */
} jit_logs;

enum { LOG_ERR, LOG_INFO };

static CUresult parse_opts(unsigned n, const CUjit_option *opt, void **val,
                           jit_logs *l) {
  memset(l, 0, sizeof *l);
  if (n && (!opt || !val))
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < n; i++)
    switch (opt[i]) {
    case CU_JIT_ERROR_LOG_BUFFER:
      l->buf[LOG_ERR] = val[i];
      break;
    case CU_JIT_INFO_LOG_BUFFER:
      l->buf[LOG_INFO] = val[i];
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      l->cap[LOG_ERR] = (size_t)(uintptr_t)val[i];
      l->used[LOG_ERR] = &val[i];
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      l->cap[LOG_INFO] = (size_t)(uintptr_t)val[i];
      l->used[LOG_INFO] = &val[i];
      break;
    default: /* LOG_VERBOSE, optimization levels, ...: accepted */
      break;
    }
  for (int k = 0; k < 2; k++) {
    if (l->buf[k] && l->cap[k])
      l->buf[k][0] = '\0';
    if (l->used[k])
      *l->used[k] = (void *)(uintptr_t)0;
  }
  return CUDA_SUCCESS;
}

/* Appends a line to log k, truncating; the size option gets the bytes. */
static void log_line(jit_logs *l, int k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void log_line(jit_logs *l, int k, const char *fmt, ...) {
  if (!l || !l->buf[k] || !l->cap[k])
    return;
  size_t used = strnlen(l->buf[k], l->cap[k]);
  if (used + 1 >= l->cap[k])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->buf[k] + used, l->cap[k] - used, fmt, ap);
  va_end(ap);
  used = strnlen(l->buf[k], l->cap[k]);
  if (used + 1 < l->cap[k]) {
    l->buf[k][used++] = '\n';
    l->buf[k][used] = '\0';
  }
  if (l->used[k])
    *l->used[k] = (void *)(uintptr_t)(used + 1);
}

/* ---- PTX -----------------------------------------------------------------
 */

struct CUmod_st;

struct CUfunc_st {
  struct CUmod_st *mod;
  char *name;
  unsigned reqntid[3]; /* 0: none */
  unsigned maxntid;    /* product of .maxntid; 0: none */
  int maxnreg;
  int regs;
  int max_threads;
  unsigned nparams;
  unsigned param_off[MAX_PARAMS], param_size[MAX_PARAMS];
  size_t param_bytes;
  _Atomic uint64_t launches;
  _Atomic int dyn_smem_set; /* MAX_DYNAMIC_SHARED_SIZE_BYTES; 0: not set */
};

/* A .visible .const variable of a module, with its storage. */
typedef struct mock_global {
  char *name;
  size_t bytes;
  unsigned char *data;
} mock_global;

struct CUmod_st {
  obj hdr;
  int ptx_version; /* x10 */
  int sm;
  int smem, cmem; /* static shared and constant bytes */
  size_t nfuncs;
  struct CUfunc_st *funcs;
  size_t nglobals;
  mock_global *globals;
};

/* The text with comments blanked (newlines kept, for line numbers). */
static char *strip_comments(const char *s) {
  char *t = strdup(s);
  if (!t)
    return NULL;
  for (char *p = t; *p; p++) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        *p++ = ' ';
      if (!*p)
        break;
    } else if (p[0] == '/' && p[1] == '*') {
      *p++ = ' ';
      *p++ = ' ';
      while (*p && !(p[0] == '*' && p[1] == '/')) {
        if (*p != '\n')
          *p = ' ';
        p++;
      }
      if (!*p)
        break;
      p[0] = p[1] = ' ';
      p++;
    }
  }
  return t;
}

static int line_of(const char *text, const char *p) {
  int n = 1;
  for (const char *q = text; q < p && *q; q++)
    n += *q == '\n';
  return n;
}

static int ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' ||
         c == '%';
}

/* The next occurrence of directive tok in text from p as a token. */
static const char *find_tok(const char *text, const char *p, const char *tok) {
  size_t n = strlen(tok);
  for (const char *q = strstr(p, tok); q; q = strstr(q + 1, tok)) {
    int start = q == text || isspace((unsigned char)q[-1]) ||
                strchr("{};(),", q[-1]) != NULL;
    if (start && !ident_char(q[n]))
      return q;
  }
  return NULL;
}

/* Bytes of a PTX type token at p (".b8", ".u64", ".f32"); 0 when none. */
static unsigned type_bytes(const char *p) {
  if (p[0] != '.' || !strchr("bsuf", p[1]))
    return 0;
  char *end = NULL;
  long bits = strtol(p + 2, &end, 10);
  if (end == p + 2 || ident_char(*end))
    return 0;
  return bits == 8 || bits == 16 || bits == 32 || bits == 64
             ? (unsigned)(bits / 8)
             : 0;
}

/* Size and alignment of one declaration between p and end: its type
 * token, ".align N", "[count]". 0 when it has no type. A scalar
 * parameter's ".align" (after ".ptr") is its pointee's: scalars are
 * aligned to their size. */
static unsigned decl_bytes(const char *p, const char *end, unsigned *align) {
  unsigned elem = 0, count = 1, array = 0;
  *align = 0;
  for (const char *q = p; q < end; q++) {
    if (*q == '.' && !elem && (q == p || !ident_char(q[-1])))
      elem = type_bytes(q);
    if (!strncmp(q, ".align", 6) && !ident_char(q[6]))
      *align = (unsigned)strtoul(q + 6, NULL, 10);
    if (*q == '[') {
      count = (unsigned)strtoul(q + 1, NULL, 10);
      array = 1;
    }
  }
  if (!*align || !array)
    *align = elem;
  return elem * count;
}

/* The static bytes of every `state` (".shared", ".const") variable. */
static int state_bytes(const char *text, const char *state) {
  unsigned long long total = 0;
  for (const char *p = find_tok(text, text, state); p;
       p = find_tok(text, p + 1, state)) {
    const char *ls = p;
    while (ls > text && ls[-1] != '\n' && ls[-1] != ';' && ls[-1] != '{')
      ls--;
    const char *end = strchr(p, ';');
    if (!end)
      break;
    const char *ext = find_tok(text, ls, ".extern");
    if (ext && ext < p)
      continue; /* dynamic shared memory: no static size */
    const char *b = p;
    while (b > text && isspace((unsigned char)b[-1]))
      b--;
    if (b - text >= 4 && !strncmp(b - 4, ".ptr", 4))
      continue; /* a parameter's pointee, not a variable */
    unsigned align = 0, n = decl_bytes(p + strlen(state), end, &align);
    if (align > 1)
      total = (total + align - 1) / align * align;
    total += n;
  }
  return total > INT32_MAX ? INT32_MAX : (int)total;
}

/* Registers per thread, roughly as ptxas might allocate them: the virtual
 * registers declared (".reg .b32 %r<12>;" is 12, 64-bit ones count twice)
 * are single assignments that ptxas packs about eight to a register, plus
 * 16; within the bounds the launch bounds leave. */
static int estimate_regs(const char *body, const char *end,
                         const struct CUfunc_st *f) {
  long vregs = 0;
  for (const char *p = body; p && p < end; p = strstr(p + 1, ".reg")) {
    const char *semi = strchr(p, ';'), *lt = strchr(p, '<');
    if (strncmp(p, ".reg", 4) || !semi || semi > end)
      continue;
    unsigned bytes = type_bytes(p + 4 + strspn(p + 4, " \t"));
    long n = lt && lt < semi ? strtol(lt + 1, NULL, 10) : 1;
    if (bytes) /* .pred: predicate registers, not counted */
      vregs += n * (bytes > 4 ? 2 : 1);
  }
  long regs = 16 + vregs / 8;
  regs = regs > 255 ? 255 : (regs + 7) / 8 * 8;
  if (f->maxnreg && regs > f->maxnreg)
    regs = f->maxnreg;
  unsigned threads = f->reqntid[0]
                         ? f->reqntid[0] * f->reqntid[1] * f->reqntid[2]
                         : f->maxntid;
  if (threads) { /* ptxas keeps a bounded block within the register file */
    long cap = REGS_BLOCK / (long)((threads + 31) / 32 * 32) / 8 * 8;
    if (cap < regs)
      regs = cap < 16 ? 16 : cap;
  }
  return (int)regs;
}

/* Registers a warp is allocated: per thread, rounded to 256 per warp. */
static int warp_regs(int regs) { return (regs * 32 + 255) / 256 * 256; }

/* The parameter list between open and close: sizes and offsets. */
static int parse_params(const char *open, const char *close,
                        struct CUfunc_st *f) {
  size_t off = 0;
  for (const char *p = open + 1; p < close;) {
    const char *comma = memchr(p, ',', (size_t)(close - p));
    const char *end = comma ? comma : close;
    const char *q = p;
    while (q < end && isspace((unsigned char)*q))
      q++;
    if (q < end) {
      unsigned align = 0, n = decl_bytes(q, end, &align);
      if (strncmp(q, ".param", 6) || !n || f->nparams == MAX_PARAMS)
        return -1;
      if (align > 1)
        off = (off + align - 1) / align * align;
      f->param_off[f->nparams] = (unsigned)off;
      f->param_size[f->nparams++] = n;
      off += n;
    }
    p = end + 1;
  }
  f->param_bytes = off;
  return 0;
}

/* Three numbers "a, b, c" (fewer allowed, the rest 1) after a directive. */
static void parse_dims(const char *p, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  for (int i = 0; i < 3; i++) {
    char *end = NULL;
    unsigned long v = strtoul(p, &end, 10);
    if (end == p)
      break;
    d[i] = (unsigned)v;
    p = end + strspn(end, " \t");
    if (*p != ',')
      break;
    p++;
  }
}

typedef struct ptx_info {
  int version, sm, smem, cmem;
  size_t nfuncs;
  struct CUfunc_st *funcs;
  size_t nglobals;
  mock_global *globals;
} ptx_info;

static void globals_free(mock_global *g, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(g[i].name);
    free(g[i].data);
  }
  free(g);
}

static void ptx_info_free(ptx_info *pi) {
  for (size_t i = 0; i < pi->nfuncs; i++)
    free(pi->funcs[i].name);
  free(pi->funcs);
  globals_free(pi->globals, pi->nglobals);
  memset(pi, 0, sizeof *pi);
}

/* Is [ls, p) only the linkage directives of a module-scope declaration
 * (".visible", ".weak"; not ".extern", whose storage is elsewhere)? */
static int module_scope(const char *ls, const char *p) {
  for (const char *q = ls; q < p;) {
    if (isspace((unsigned char)*q)) {
      q++;
    } else if (!strncmp(q, ".visible", 8) && !ident_char(q[8])) {
      q += 8;
    } else if (!strncmp(q, ".weak", 5) && !ident_char(q[5])) {
      q += 5;
    } else {
      return 0;
    }
  }
  return 1;
}

/* One initializer item of elem bytes at p ("0f3F800000", "0d...", an
 * integer) into out; items the mock cannot read (generic(sym)) stay 0. */
static void init_item(const char *p, unsigned elem, unsigned char *out) {
  uint64_t v = 0;
  if ((p[0] == '0' && (p[1] == 'f' || p[1] == 'd')) && isxdigit(p[2]))
    v = strtoull(p + 2, NULL, 16);
  else if (isdigit((unsigned char)*p) || *p == '-')
    v = (uint64_t)strtoll(p, NULL, 0);
  for (unsigned i = 0; i < elem && i < 8; i++)
    out[i] = (unsigned char)(v >> (8 * i));
}

/* The initializer "= {a, b, ...}" or "= a" between eq and end into data. */
static void init_data(const char *eq, const char *end, unsigned elem,
                      unsigned char *data, size_t bytes) {
  size_t at = 0;
  for (const char *q = eq + 1; q < end && elem && at + elem <= bytes;) {
    while (q < end && (isspace((unsigned char)*q) || *q == '{' || *q == '}'))
      q++;
    if (q >= end)
      break;
    init_item(q, elem, data + at);
    at += elem;
    while (q < end && *q != ',')
      q++;
    q++;
  }
}

/* Adds the module-scope variable declared at p (its state directive) up to
 * end to out, with its initializer. 0, or -1 when memory ran out. */
static int add_global(const char *p, const char *end, ptx_info *out) {
  const char *eq = memchr(p, '=', (size_t)(end - p));
  const char *stop = eq ? eq : end, *br = memchr(p, '[', (size_t)(stop - p));
  const char *ne = br ? br : stop;
  while (ne > p && isspace((unsigned char)ne[-1]))
    ne--;
  const char *nm = ne;
  while (nm > p && ident_char(nm[-1]))
    nm--;
  if (nm == ne || *nm == '.')
    return 0; /* no name: not a variable */
  unsigned align = 0, elem = 0;
  size_t bytes = decl_bytes(p, stop, &align);
  for (const char *q = p; q < stop && !elem; q++)
    if (*q == '.' && (q == p || !ident_char(q[-1])))
      elem = type_bytes(q);
  mock_global *grown =
      realloc(out->globals, (out->nglobals + 1) * sizeof *grown);
  if (!grown)
    return -1;
  out->globals = grown;
  mock_global *g = &out->globals[out->nglobals];
  g->name = strndup(nm, (size_t)(ne - nm));
  g->data = calloc(1, bytes ? bytes : 1);
  g->bytes = bytes;
  if (!g->name || !g->data) {
    free(g->name);
    free(g->data);
    return -1;
  }
  if (eq)
    init_data(eq, end, elem, g->data, bytes);
  out->nglobals++;
  return 0;
}

/* The module-scope .const and .global variables of text, zero-filled or
 * initialized as the PTX says; CUDA_ERROR_OUT_OF_MEMORY when memory ran
 * out. */
static CUresult parse_globals(const char *text, ptx_info *out) {
  static const char *const states[] = {".const", ".global"};
  for (int s = 0; s < 2; s++)
    for (const char *p = find_tok(text, text, states[s]); p;
         p = find_tok(text, p + 1, states[s])) {
      const char *ls = p;
      while (ls > text && ls[-1] != '\n')
        ls--;
      const char *end = strchr(p, ';');
      if (!end || !module_scope(ls, p))
        continue;
      if (add_global(p + strlen(states[s]), end, out))
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
  return CUDA_SUCCESS;
}

/* One entry: its name, parameters, directives and body from the ".entry"
 * at p. NULL with a message on a syntax error. */
static const char *parse_entry(const char *text, const char *p,
                               struct CUfunc_st *f, jit_logs *l) {
  const char *q = p + strlen(".entry");
  q += strspn(q, " \t\r\n");
  size_t n = 0;
  while (ident_char(q[n]) && q[n] != '%')
    n++;
  if (!n) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line %d; error   : entry without "
             "a name",
             line_of(text, p));
    return NULL;
  }
  f->name = strndup(q, n);
  if (!f->name)
    return NULL;
  q += n;
  q += strspn(q, " \t\r\n");
  if (*q == '(') {
    const char *close = strchr(q, ')');
    if (!close || parse_params(q, close, f)) {
      log_line(l, LOG_ERR,
               "ptxas application ptx input, line %d; error   : malformed "
               "parameter list of '%s'",
               line_of(text, q), f->name);
      return NULL;
    }
    q = close + 1;
  }
  const char *body = strchr(q, '{');
  if (!body) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line %d; error   : entry '%s' "
             "has no body",
             line_of(text, p), f->name);
    return NULL;
  }
  const char *d;
  if ((d = find_tok(text, q, ".reqntid")) && d < body)
    parse_dims(d + 8, f->reqntid);
  if ((d = find_tok(text, q, ".maxntid")) && d < body) {
    unsigned m[3];
    parse_dims(d + 8, m);
    f->maxntid = m[0] * m[1] * m[2];
  }
  if ((d = find_tok(text, q, ".maxnreg")) && d < body)
    f->maxnreg = (int)strtol(d + 8, NULL, 10);
  /* the body ends at its matching brace */
  int depth = 0;
  const char *e = body;
  for (; *e; e++) {
    depth += *e == '{';
    depth -= *e == '}';
    if (!depth)
      break;
  }
  f->regs = estimate_regs(body, e, f);
  unsigned limit = f->reqntid[0] ? f->reqntid[0] * f->reqntid[1] * f->reqntid[2]
                   : f->maxntid  ? f->maxntid
                                 : MAX_THREADS_BLOCK;
  unsigned by_regs = REGS_BLOCK / warp_regs(f->regs) * 32;
  f->max_threads = (int)(limit < by_regs ? limit : by_regs);
  if (f->max_threads > MAX_THREADS_BLOCK)
    f->max_threads = MAX_THREADS_BLOCK;
  return e;
}

/* Checks that ptx looks like PTX this driver compiles and describes it.
 * On failure: the CUresult and a line in the error log. */
static CUresult parse_ptx(const char *ptx, jit_logs *l, ptx_info *out) {
  memset(out, 0, sizeof *out);
  const char *s = ptx + strspn(ptx, " \t\r\n");
  if (strncmp(s, "//", 2) && strncmp(s, ".version", 8)) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line 1; fatal   : the input is "
             "not PTX (it starts with neither \"//\" nor \".version\")");
    return CUDA_ERROR_INVALID_PTX;
  }
  char *t = strip_comments(ptx);
  if (!t)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult r = CUDA_ERROR_INVALID_PTX;
  int major = 0, minor = 0;
  const char *v = find_tok(t, t, ".version");
  const char *tg = find_tok(t, t, ".target");
  long depth = 0;
  for (const char *p = t; *p && depth >= 0; p++)
    depth += (*p == '{') - (*p == '}');
  if (!v || sscanf(v, ".version %d.%d", &major, &minor) != 2) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line 1; fatal   : missing .version "
             "directive at start of file");
    goto done;
  }
  out->version = major * 10 + minor;
  if (out->version > driver_max_ptx(driver_version())) {
    int mx = driver_max_ptx(driver_version());
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line %d; fatal   : Unsupported "
             ".version %d.%d; current version is '%d.%d'",
             line_of(t, v), major, minor, mx / 10, mx % 10);
    r = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    goto done;
  }
  if (!tg || sscanf(tg, ".target sm_%d", &out->sm) != 1) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line %d; fatal   : missing or "
             "unknown .target directive",
             tg ? line_of(t, tg) : 1);
    goto done;
  }
  if (out->sm > mock_sm()) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line %d; fatal   : SM version "
             "specified by .target is higher than default SM version "
             "assumed (sm_%d)",
             line_of(t, tg), mock_sm());
    goto done;
  }
  if (depth != 0) {
    log_line(l, LOG_ERR,
             "ptxas application ptx input, line %d; fatal   : Parsing error "
             "near end of file: syntax error (unbalanced braces)",
             line_of(t, t + strlen(t)));
    goto done;
  }
  out->smem = state_bytes(t, ".shared");
  out->cmem = state_bytes(t, ".const");
  r = parse_globals(t, out);
  if (r != CUDA_SUCCESS)
    goto done;
  r = CUDA_ERROR_INVALID_PTX;
  for (const char *p = find_tok(t, t, ".entry"); p;
       p = find_tok(t, p + 1, ".entry")) {
    struct CUfunc_st *grown =
        realloc(out->funcs, (out->nfuncs + 1) * sizeof *grown);
    if (!grown) {
      r = CUDA_ERROR_OUT_OF_MEMORY;
      goto done;
    }
    out->funcs = grown;
    struct CUfunc_st *f = &out->funcs[out->nfuncs++];
    memset(f, 0, sizeof *f);
    const char *end = parse_entry(t, p, f, l);
    if (!end)
      goto done;
    for (size_t i = 0; i + 1 < out->nfuncs; i++)
      if (!strcmp(out->funcs[i].name, f->name)) {
        log_line(l, LOG_ERR,
                 "ptxas application ptx input, line %d; error   : Duplicate "
                 "definition of function '%s'",
                 line_of(t, p), f->name);
        goto done;
      }
    p = end > p ? end - 1 : p;
  }
  for (size_t i = 0; i < out->nfuncs; i++) {
    const struct CUfunc_st *f = &out->funcs[i];
    log_line(l, LOG_INFO,
             "ptxas info    : Compiling entry function '%s' for 'sm_%d'",
             f->name, mock_sm());
    log_line(l, LOG_INFO,
             "ptxas info    : Used %d registers, %d bytes smem, %zu bytes "
             "cmem[0]",
             f->regs, out->smem, f->param_bytes);
  }
  r = CUDA_SUCCESS;
done:
  if (r != CUDA_SUCCESS)
    ptx_info_free(out);
  free(t);
  return r;
}

/* ---- modules -------------------------------------------------------------
 */

/* A new module from PTX text (or a mock cubin). */
static CUresult load(CUmodule *module, const void *image, jit_logs *l) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  const char *ptx = image;
  kspec_mock_cubin_header h;
  size_t magic = sizeof KSPEC_MOCK_CUBIN_MAGIC - 1;
  int cubin = strnlen(image, magic + 1) == magic &&
              !memcmp(image, KSPEC_MOCK_CUBIN_MAGIC, magic);
  if (cubin) {
    memcpy(&h, image, sizeof h);
    if (h.sm != (uint32_t)mock_sm())
      return CUDA_ERROR_NO_BINARY_FOR_GPU;
    ptx = (const char *)image + sizeof h;
    if (strnlen(ptx, h.ptx_len + 1) != h.ptx_len)
      return CUDA_ERROR_INVALID_IMAGE;
  }
  ptx_info pi;
  r = parse_ptx(ptx, l, &pi);
  if (r != CUDA_SUCCESS) {
    atomic_fetch_add(&n_rejected, 1);
    return r;
  }
  struct CUmod_st *m = calloc(1, sizeof *m);
  if (!m) {
    ptx_info_free(&pi);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  m->ptx_version = pi.version;
  m->sm = pi.sm;
  m->smem = pi.smem;
  m->cmem = pi.cmem;
  m->nfuncs = pi.nfuncs;
  m->funcs = pi.funcs;
  m->nglobals = pi.nglobals;
  m->globals = pi.globals;
  for (size_t i = 0; i < m->nfuncs; i++)
    m->funcs[i].mod = m;
  reg_add(&m->hdr, K_MODULE);
  atomic_fetch_add(&n_loads, 1);
  mock_log("load", cubin ? "cubin" : "ptx");
  *module = m;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int numOptions, CUjit_option *options,
                            void **optionValues) {
  jit_logs l;
  CUresult r = parse_opts(numOptions, options, optionValues, &l);
  return r != CUDA_SUCCESS ? r : load(module, image, &l);
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return load(module, image, NULL);
}

CUresult cuModuleUnload(CUmodule hmod) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!reg_remove(hmod, K_MODULE))
    return CUDA_ERROR_INVALID_HANDLE;
  for (size_t i = 0; i < hmod->nfuncs; i++)
    free(hmod->funcs[i].name);
  free(hmod->funcs);
  globals_free(hmod->globals, hmod->nglobals);
  free(hmod);
  atomic_fetch_add(&n_unloads, 1);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
                             const char *name) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!hfunc || !name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!reg_has(hmod, K_MODULE))
    return CUDA_ERROR_INVALID_HANDLE;
  for (size_t i = 0; i < hmod->nfuncs; i++)
    if (!strcmp(hmod->funcs[i].name, name)) {
      *hfunc = &hmod->funcs[i];
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                           const char *name) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  if (!reg_has(hmod, K_MODULE))
    return CUDA_ERROR_INVALID_HANDLE;
  for (size_t i = 0; i < hmod->nglobals; i++)
    if (!strcmp(hmod->globals[i].name, name)) {
      if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)hmod->globals[i].data;
      if (bytes)
        *bytes = hmod->globals[i].bytes;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}

/* [p, p+n) within a global of a live module. */
static int global_range_ok(CUdeviceptr p, size_t n) {
  int ok = 0;
  pthread_rwlock_rdlock(&reg_lock);
  for (obj *o = live[K_MODULE]; o && !ok; o = o->next) {
    const struct CUmod_st *m = (const struct CUmod_st *)o;
    for (size_t i = 0; i < m->nglobals && !ok; i++) {
      uintptr_t lo = (uintptr_t)m->globals[i].data;
      ok = p >= lo && p - lo <= m->globals[i].bytes &&
           n <= m->globals[i].bytes - (p - lo);
    }
  }
  pthread_rwlock_unlock(&reg_lock);
  return ok;
}

/* f belongs to a live module. */
static int func_live(const struct CUfunc_st *f) {
  int found = 0;
  if (!f)
    return 0;
  pthread_rwlock_rdlock(&reg_lock);
  for (obj *o = live[K_MODULE]; o && !found; o = o->next) {
    const struct CUmod_st *m = (const struct CUmod_st *)o;
    found = m->nfuncs && f >= m->funcs && f < m->funcs + m->nfuncs;
  }
  pthread_rwlock_unlock(&reg_lock);
  return found;
}

/* The dynamic shared memory launches of f may ask for. */
static int max_dyn_smem(const struct CUfunc_st *f) {
  int set = atomic_load(&f->dyn_smem_set); /* the value + 1 */
  return set ? set - 1 : SMEM_BLOCK - f->mod->smem;
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                            int value) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!func_live(hfunc))
    return CUDA_ERROR_INVALID_HANDLE;
  if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    return CUDA_ERROR_NOT_SUPPORTED; /* the only one kspec sets */
  if (value < 0 || value + hfunc->mod->smem > SMEM_BLOCK_OPTIN)
    return CUDA_ERROR_INVALID_VALUE;
  atomic_store(&hfunc->dyn_smem_set, value + 1);
  atomic_fetch_add(&n_func_attr_sets, 1);
  pthread_mutex_lock(&last_lock);
  last_dyn_smem_attr = value;
  pthread_mutex_unlock(&last_lock);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                            CUfunction hfunc) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (!func_live(hfunc))
    return CUDA_ERROR_INVALID_HANDLE;
  const struct CUmod_st *m = hfunc->mod;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = hfunc->max_threads;
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *pi = m->smem;
    break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *pi = m->cmem;
    break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    *pi = 0;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *pi = hfunc->regs;
    break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    *pi = m->ptx_version;
    break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
    *pi = mock_sm();
    break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *pi = 0;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *pi = max_dyn_smem(hfunc);
    break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    *pi = -1;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* ---- occupancy -----------------------------------------------------------
 */

/* Blocks of f resident per SM with block threads and smem dynamic bytes. */
static int blocks_per_sm(const struct CUfunc_st *f, int block, size_t smem) {
  if (block <= 0 || block > f->max_threads)
    return 0;
  int warps = (block + 31) / 32;
  int by_warps = MAX_THREADS_SM / 32 / warps;
  int by_regs = REGS_SM / (warp_regs(f->regs) * warps);
  size_t per_block =
      (f->mod->smem + smem + SMEM_RESERVED + 127) / 128 * 128; /* granule */
  int by_smem = smem > (size_t)max_dyn_smem(f) ? 0 : (int)(SMEM_SM / per_block);
  int b = MAX_BLOCKS_SM;
  b = by_warps < b ? by_warps : b;
  b = by_regs < b ? by_regs : b;
  return by_smem < b ? by_smem : b;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                     CUfunction func,
                                                     int blockSize,
                                                     size_t dynamicSMemSize) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!numBlocks || blockSize <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (!func_live(func))
    return CUDA_ERROR_INVALID_HANDLE;
  *numBlocks = blocks_per_sm(func, blockSize, dynamicSMemSize);
  return CUDA_SUCCESS;
}

CUresult
cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                 CUfunction func,
                                 CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                 size_t dynamicSMemSize, int blockSizeLimit) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!minGridSize || !blockSize || blockSizeLimit < 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (!func_live(func))
    return CUDA_ERROR_INVALID_HANDLE;
  int top = func->max_threads;
  if (blockSizeLimit && blockSizeLimit < top)
    top = blockSizeLimit;
  int best = 0, best_blocks = 0;
  for (int b = (top + 31) / 32 * 32; b > 0; b -= 32) {
    int threads = b > top ? top : b;
    size_t smem = blockSizeToDynamicSMemSize
                      ? blockSizeToDynamicSMemSize(threads)
                      : dynamicSMemSize;
    int n = blocks_per_sm(func, threads, smem);
    if (n * threads > best_blocks * best) {
      best = threads;
      best_blocks = n;
    }
  }
  *blockSize = best;
  *minGridSize = best_blocks * SM_COUNT;
  return CUDA_SUCCESS;
}

/* ---- streams and launches ------------------------------------------------
 */

struct CUstream_st {
  obj hdr;
  unsigned flags;
};

static int stream_ok(CUstream s) {
  return !s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD ||
         reg_has(s, K_STREAM);
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!phStream || (Flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
    return CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s = calloc(1, sizeof *s);
  if (!s)
    return CUDA_ERROR_OUT_OF_MEMORY;
  s->flags = Flags;
  reg_add(&s->hdr, K_STREAM);
  *phStream = s;
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!reg_remove(hStream, K_STREAM))
    return CUDA_ERROR_INVALID_HANDLE;
  free(hStream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  return stream_ok(hStream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult check_launch(const struct CUfunc_st *f, const unsigned g[3],
                             const unsigned b[3], unsigned smem, CUstream s,
                             void **params, void **extra) {
  static const unsigned max_grid[3] = {2147483647u, 65535, 65535};
  static const unsigned max_block[3] = {1024, 1024, 64};
  unsigned long long threads = 1;
  for (int i = 0; i < 3; i++) {
    if (!g[i] || !b[i] || g[i] > max_grid[i] || b[i] > max_block[i])
      return CUDA_ERROR_INVALID_VALUE;
    threads *= b[i];
  }
  if (threads > (unsigned long long)f->max_threads)
    return f->reqntid[0] || f->maxntid || threads > MAX_THREADS_BLOCK
               ? CUDA_ERROR_INVALID_VALUE
               : CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  if (f->reqntid[0])
    for (int i = 0; i < 3; i++)
      if (b[i] != f->reqntid[i])
        return CUDA_ERROR_INVALID_VALUE;
  if (smem > (unsigned)max_dyn_smem(f))
    return CUDA_ERROR_INVALID_VALUE;
  if (!stream_ok(s))
    return CUDA_ERROR_INVALID_HANDLE;
  if (extra)
    return CUDA_ERROR_NOT_SUPPORTED; /* the mock takes kernelParams only */
  if (f->nparams && !params)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < f->nparams; i++)
    if (!params[i])
      return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

/* What a launch asks beyond its geometry; how as last_how. */
typedef struct launch_attrs {
  unsigned smem;
  int cooperative;
  unsigned cluster[3]; /* 0: none */
  unsigned how;
} launch_attrs;

/* A cooperative grid against the blocks that can be co-resident, a
 * cluster against the device and the grid. */
static CUresult check_attrs(const struct CUfunc_st *f, const unsigned g[3],
                            const unsigned b[3], const launch_attrs *a) {
  if (a->cooperative) {
    int per_sm = blocks_per_sm(f, (int)(b[0] * b[1] * b[2]), a->smem);
    if ((unsigned long long)g[0] * g[1] * g[2] >
        (unsigned long long)per_sm * SM_COUNT)
      return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
  }
  if (!a->cluster[0])
    return CUDA_SUCCESS;
  if (mock_sm() < 90)
    return CUDA_ERROR_NOT_SUPPORTED;
  unsigned n = 1;
  for (int i = 0; i < 3; i++) {
    if (!a->cluster[i] || g[i] % a->cluster[i])
      return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    n *= a->cluster[i];
  }
  return n > 8 ? CUDA_ERROR_INVALID_CLUSTER_SIZE : CUDA_SUCCESS;
}

/* Every launch entry point: checks, reads the arguments, records. */
static CUresult launch(CUfunction f, const unsigned g[3], const unsigned b[3],
                       CUstream hStream, void **kernelParams, void **extra,
                       const launch_attrs *a) {
  CUresult r = need_ctx();
  if (r == CUDA_SUCCESS && !func_live(f))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS)
    r = check_launch(f, g, b, a->smem, hStream, kernelParams, extra);
  if (r == CUDA_SUCCESS)
    r = check_attrs(f, g, b, a);
  if (r != CUDA_SUCCESS) {
    atomic_fetch_add(&n_launch_errors, 1);
    return r;
  }
  /* the driver copies the arguments at launch: each pointer is read */
  unsigned char small[1024], *buf = small;
  if (f->param_bytes > sizeof small && !(buf = malloc(f->param_bytes)))
    return CUDA_ERROR_OUT_OF_MEMORY;
  for (unsigned i = 0; i < f->nparams; i++)
    memcpy(buf + f->param_off[i], kernelParams[i], f->param_size[i]);
  pthread_mutex_lock(&last_lock);
  memcpy(last_geom, g, 3 * sizeof *g);
  memcpy(last_geom + 3, b, 3 * sizeof *b);
  last_geom[6] = f->nparams;
  last_param = 0;
  if (f->nparams) {
    unsigned i = f->nparams - 1;
    memcpy(&last_param, buf + f->param_off[i],
           f->param_size[i] < 8 ? f->param_size[i] : 8);
  }
  last_smem = a->smem;
  last_how = a->how;
  last_cooperative = a->cooperative;
  memcpy(last_cluster, a->cluster, sizeof last_cluster);
  pthread_mutex_unlock(&last_lock);
  if (buf != small)
    free(buf);
  atomic_fetch_add_explicit(&f->launches, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&n_launches, 1, memory_order_relaxed);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                        unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                        CUstream hStream, void **kernelParams, void **extra) {
  const unsigned g[3] = {gridDimX, gridDimY, gridDimZ};
  const unsigned b[3] = {blockDimX, blockDimY, blockDimZ};
  const launch_attrs a = {.smem = sharedMemBytes, .how = 1};
  return launch(f, g, b, hStream, kernelParams, extra, &a);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                   unsigned int gridDimY, unsigned int gridDimZ,
                                   unsigned int blockDimX,
                                   unsigned int blockDimY,
                                   unsigned int blockDimZ,
                                   unsigned int sharedMemBytes,
                                   CUstream hStream, void **kernelParams) {
  const unsigned g[3] = {gridDimX, gridDimY, gridDimZ};
  const unsigned b[3] = {blockDimX, blockDimY, blockDimZ};
  const launch_attrs a = {.smem = sharedMemBytes, .cooperative = 1, .how = 3};
  return launch(f, g, b, hStream, kernelParams, NULL, &a);
}

/* The attributes kspec passes; any other is refused, as kspec sets none. */
static CUresult take_attrs(const CUlaunchConfig *c, launch_attrs *a) {
  for (unsigned i = 0; i < c->numAttrs; i++) {
    const CUlaunchAttribute *at = &c->attrs[i];
    if (at->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      a->cooperative = at->value.cooperative != 0;
    } else if (at->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      a->cluster[0] = at->value.clusterDim.x;
      a->cluster[1] = at->value.clusterDim.y;
      a->cluster[2] = at->value.clusterDim.z;
    } else {
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  }
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **kernelParams, void **extra) {
  if (!config || (config->numAttrs && !config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  launch_attrs a = {.smem = config->sharedMemBytes, .how = 2};
  CUresult r = take_attrs(config, &a);
  if (r != CUDA_SUCCESS)
    return r;
  const unsigned g[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  const unsigned b[3] = {config->blockDimX, config->blockDimY,
                         config->blockDimZ};
  return launch(f, g, b, config->hStream, kernelParams, extra, &a);
}

/* ---- memory --------------------------------------------------------------
 */

typedef struct mock_alloc {
  obj hdr;
  size_t bytes;
  unsigned char data[];
} mock_alloc;

static int64_t mem_limit(void) {
  const char *e = getenv("KSPEC_MOCK_MEM");
  long long v = e && *e ? strtoll(e, NULL, 10) : 0;
  return v > 0 ? v : (int64_t)1 << 30;
}

/* [p, p+n) within one live allocation. */
static int range_ok(CUdeviceptr p, size_t n) {
  int ok = 0;
  pthread_rwlock_rdlock(&reg_lock);
  for (obj *o = live[K_ALLOC]; o && !ok; o = o->next) {
    const mock_alloc *a = (const mock_alloc *)o;
    uintptr_t lo = (uintptr_t)a->data;
    ok = p >= lo && p - lo <= a->bytes && n <= a->bytes - (p - lo);
  }
  pthread_rwlock_unlock(&reg_lock);
  return ok;
}

/* ---- textures ------------------------------------------------------------
 * Objects over pitched linear memory, as the H100 takes it (address and
 * pitch multiples of 32 bytes, width x height within the linear limits,
 * the row within the pitch), or over a CUDA array (cuArray3DCreate, one
 * channel, filled by cuMemcpy3DAsync from device memory; an array with a
 * live object over it is not destroyed). What the last object was made
 * with is the last_tex counter; kspec_mock_tex_fetch samples an object on
 * the CPU as the hardware does (tests/sim/tex_ref.h), so that a test sees
 * what a kernel's fetch would return. */

typedef struct mock_array {
  obj o;
  CUarray_format format;
  unsigned w, h, d; /* h, d at least 1 */
  unsigned char data[];
} mock_array;

typedef struct mock_tex {
  obj o;
  const mock_array *array; /* NULL: over linear memory at ptr */
  const unsigned char *ptr;
  CUarray_format format;
  unsigned w, h, d, pitch; /* pitch in texels */
  int filter, mode, read_integers, normalized_coords;
} mock_tex;

static unsigned format_bytes(CUarray_format f) {
  switch (f) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
  case CU_AD_FORMAT_SIGNED_INT8:
    return 1;
  case CU_AD_FORMAT_UNSIGNED_INT16:
  case CU_AD_FORMAT_SIGNED_INT16:
  case CU_AD_FORMAT_HALF:
    return 2;
  default:
    return 4;
  }
}

/* tex_ref.h's element type of a format; -1 for one it has none for. */
static int format_type(CUarray_format f) {
  static const CUarray_format fm[] = {
      CU_AD_FORMAT_FLOAT,          CU_AD_FORMAT_HALF,
      CU_AD_FORMAT_UNSIGNED_INT8,  CU_AD_FORMAT_SIGNED_INT8,
      CU_AD_FORMAT_UNSIGNED_INT16, CU_AD_FORMAT_SIGNED_INT16};
  for (int i = 0; i < 6; i++)
    if (fm[i] == f)
      return i;
  return -1;
}

CUresult cuArray3DCreate(CUarray *pHandle,
                         const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  const CUDA_ARRAY3D_DESCRIPTOR *a = pAllocateArray;
  if (!pHandle || !a || !a->Width || a->Flags || a->NumChannels != 1 ||
      format_type(a->Format) < 0 || a->Width > 16384 || a->Height > 16384 ||
      a->Depth > 16384 || (a->Depth && !a->Height))
    return CUDA_ERROR_INVALID_VALUE;
  size_t h = a->Height ? a->Height : 1, d = a->Depth ? a->Depth : 1;
  size_t bytes = a->Width * h * d * format_bytes(a->Format);
  if (bytes > (uint64_t)mem_limit())
    return CUDA_ERROR_OUT_OF_MEMORY;
  mock_array *m = calloc(1, sizeof *m + bytes);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *m = (mock_array){.format = a->Format,
                    .w = (unsigned)a->Width,
                    .h = (unsigned)h,
                    .d = (unsigned)d};
  reg_add(&m->o, K_ARRAY);
  atomic_fetch_add(&n_array_creates, 1);
  *pHandle = (CUarray)m;
  return CUDA_SUCCESS;
}

/* Is a live texture object over array a? */
static int array_in_use(const mock_array *a) {
  int used = 0;
  pthread_rwlock_rdlock(&reg_lock);
  for (obj *o = live[K_TEX]; o && !used; o = o->next)
    used = ((const mock_tex *)o)->array == a;
  pthread_rwlock_unlock(&reg_lock);
  return used;
}

CUresult cuArrayDestroy(CUarray hArray) {
  if (!reg_has(hArray, K_ARRAY) || array_in_use((const mock_array *)hArray))
    return CUDA_ERROR_INVALID_VALUE;
  if (!reg_remove(hArray, K_ARRAY))
    return CUDA_ERROR_INVALID_VALUE;
  free(hArray);
  return CUDA_SUCCESS;
}

/* A device-to-array copy of the whole array or a corner of it, from a
 * live allocation, rows srcPitch apart and slices srcHeight rows. */
CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D *c, CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!c || c->srcMemoryType != CU_MEMORYTYPE_DEVICE ||
      c->dstMemoryType != CU_MEMORYTYPE_ARRAY || c->srcXInBytes || c->srcY ||
      c->srcZ || c->dstXInBytes || c->dstY || c->dstZ || c->srcLOD || c->dstLOD)
    return CUDA_ERROR_NOT_SUPPORTED; /* what kspec does not do */
  mock_array *a = (mock_array *)c->dstArray;
  if (!reg_has(a, K_ARRAY))
    return CUDA_ERROR_INVALID_HANDLE;
  size_t row = (size_t)a->w * format_bytes(a->format);
  if (!c->WidthInBytes || c->WidthInBytes > row || c->Height > a->h ||
      c->Depth > a->d || !c->Height || !c->Depth ||
      c->srcPitch < c->WidthInBytes || c->srcHeight < c->Height)
    return CUDA_ERROR_INVALID_VALUE;
  size_t span = c->srcPitch * c->srcHeight * (c->Depth - 1) +
                c->srcPitch * (c->Height - 1) + c->WidthInBytes;
  if (!range_ok(c->srcDevice, span))
    return CUDA_ERROR_INVALID_VALUE;
  const unsigned char *src = (const unsigned char *)(uintptr_t)c->srcDevice;
  for (size_t z = 0; z < c->Depth; z++)
    for (size_t y = 0; y < c->Height; y++)
      memcpy(a->data + (z * a->h + y) * row,
             src + (z * c->srcHeight + y) * c->srcPitch, c->WidthInBytes);
  pthread_mutex_lock(&last_lock);
  last_array_copy = c->WidthInBytes * c->Height * c->Depth;
  pthread_mutex_unlock(&last_lock);
  atomic_fetch_add(&n_array_copies, 1);
  return CUDA_SUCCESS;
}

/* The resource of an object into t: linear memory or an array. */
static CUresult tex_resource(const CUDA_RESOURCE_DESC *res, mock_tex *t) {
  if (res->resType == CU_RESOURCE_TYPE_ARRAY) {
    const mock_array *a = (const mock_array *)res->res.array.hArray;
    if (!reg_has(a, K_ARRAY))
      return CUDA_ERROR_INVALID_HANDLE;
    *t = (mock_tex){.array = a,
                    .ptr = a->data,
                    .format = a->format,
                    .w = a->w,
                    .h = a->h,
                    .d = a->d,
                    .pitch = a->w};
    return CUDA_SUCCESS;
  }
  if (res->resType != CU_RESOURCE_TYPE_PITCH2D)
    return CUDA_ERROR_NOT_SUPPORTED;
  const __typeof__(res->res.pitch2D) *p = &res->res.pitch2D;
  unsigned eb = format_bytes(p->format);
  if (!p->devPtr || p->devPtr % 32 || p->pitchInBytes % 32 ||
      p->numChannels != 1 || !p->width || !p->height || p->width > 131072 ||
      p->height > 65000 || p->pitchInBytes > 2097120 ||
      p->width * eb > p->pitchInBytes || format_type(p->format) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  *t = (mock_tex){.ptr = (const unsigned char *)(uintptr_t)p->devPtr,
                  .format = p->format,
                  .w = (unsigned)p->width,
                  .h = (unsigned)p->height,
                  .d = 1,
                  .pitch = (unsigned)(p->pitchInBytes / eb)};
  return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject *pTexObject,
                           const CUDA_RESOURCE_DESC *pResDesc,
                           const CUDA_TEXTURE_DESC *pTexDesc,
                           const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!pTexObject || !pResDesc || !pTexDesc || pResViewDesc)
    return CUDA_ERROR_INVALID_VALUE;
  mock_tex tex;
  if ((r = tex_resource(pResDesc, &tex)) != CUDA_SUCCESS)
    return r;
  if ((pTexDesc->flags & CU_TRSF_READ_AS_INTEGER) &&
      pTexDesc->filterMode == CU_TR_FILTER_MODE_LINEAR)
    return CUDA_ERROR_INVALID_VALUE;
  static const int modes[] = {1, 0, 2, 3}; /* CU_TR_ADDRESS_MODE_* */
  tex.filter = pTexDesc->filterMode == CU_TR_FILTER_MODE_LINEAR;
  tex.mode = modes[pTexDesc->addressMode[0] & 3];
  tex.read_integers = (pTexDesc->flags & CU_TRSF_READ_AS_INTEGER) != 0;
  tex.normalized_coords =
      (pTexDesc->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  mock_tex *t = malloc(sizeof *t);
  if (!t)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *t = tex;
  reg_add(&t->o, K_TEX);
  atomic_fetch_add(&n_tex_creates, 1);
  pthread_mutex_lock(&last_lock);
  last_tex[0] = (unsigned)tex.format;
  last_tex[1] = (unsigned)pTexDesc->filterMode;
  last_tex[2] = (unsigned)pTexDesc->addressMode[0];
  last_tex[3] = pTexDesc->flags;
  last_tex[4] = tex.w;
  last_tex[5] = tex.h;
  last_tex[6] = tex.pitch * format_bytes(tex.format);
  pthread_mutex_unlock(&last_lock);
  *pTexObject = (CUtexObject)(uintptr_t)t;
  return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject texObject) {
  void *t = (void *)(uintptr_t)texObject;
  if (!reg_remove(t, K_TEX))
    return CUDA_ERROR_INVALID_VALUE;
  free(t);
  atomic_fetch_add(&n_tex_destroys, 1);
  return CUDA_SUCCESS;
}

EXPORT int kspec_mock_tex_fetch(uint64_t tex, float x, float y, float z,
                                float *out) {
  const mock_tex *t = (const mock_tex *)(uintptr_t)tex;
  if (!reg_has(t, K_TEX))
    return -1;
  tex_image im = {.img = t->ptr,
                  .t = format_type(t->format),
                  .dim = t->d > 1 || t->array ? 3 : 2,
                  .n = {(int)t->w, (int)t->h, (int)t->d},
                  .pitch = (int)t->pitch};
  double c[3] = {x, y, z};
  for (int k = 0; t->normalized_coords && k < 3; k++)
    c[k] *= im.n[k];
  int filter = t->filter | (t->read_integers ? 0 : TEX_NORMALIZED);
  *out = (float)tex_reference(&im, c, filter, t->mode, NULL);
  return 0;
}

CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!dptr || !bytesize)
    return CUDA_ERROR_INVALID_VALUE;
  int64_t limit = mem_limit();
  if (bytesize > (uint64_t)limit)
    return CUDA_ERROR_OUT_OF_MEMORY;
  if (atomic_fetch_add(&mem_live_bytes, (int64_t)bytesize) + (int64_t)bytesize >
      limit) {
    atomic_fetch_sub(&mem_live_bytes, (int64_t)bytesize);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  mock_alloc *a = malloc(sizeof *a + bytesize);
  if (!a) {
    atomic_fetch_sub(&mem_live_bytes, (int64_t)bytesize);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  a->bytes = bytesize;
  reg_add(&a->hdr, K_ALLOC);
  *dptr = (CUdeviceptr)(uintptr_t)a->data;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr dptr) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!dptr)
    return CUDA_SUCCESS;
  mock_alloc *a = (mock_alloc *)((uintptr_t)dptr - offsetof(mock_alloc, data));
  if (!reg_remove(a, K_ALLOC))
    return CUDA_ERROR_INVALID_VALUE;
  atomic_fetch_sub(&mem_live_bytes, (int64_t)a->bytes);
  free(a);
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize,
                              CUdeviceptr dptr) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  r = CUDA_ERROR_NOT_FOUND;
  pthread_rwlock_rdlock(&reg_lock);
  for (obj *o = live[K_ALLOC]; o && r != CUDA_SUCCESS; o = o->next) {
    const mock_alloc *a = (const mock_alloc *)o;
    uintptr_t lo = (uintptr_t)a->data;
    if (dptr >= lo && dptr - lo < a->bytes) {
      if (pbase)
        *pbase = lo;
      if (psize)
        *psize = a->bytes;
      r = CUDA_SUCCESS;
    }
  }
  pthread_rwlock_unlock(&reg_lock);
  return r;
}

CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost,
                      size_t ByteCount) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!ByteCount)
    return CUDA_SUCCESS;
  if (!srcHost || !range_ok(dstDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!ByteCount)
    return CUDA_SUCCESS;
  if (!dstHost || !range_ok(srcDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                      size_t ByteCount) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!ByteCount)
    return CUDA_SUCCESS;
  if (!range_ok(dstDevice, ByteCount) || !range_ok(srcDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)dstDevice, (const void *)(uintptr_t)srcDevice,
          ByteCount);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                           size_t ByteCount, CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!ByteCount)
    return CUDA_SUCCESS;
  int to_global = global_range_ok(dstDevice, ByteCount);
  if ((!to_global && !range_ok(dstDevice, ByteCount)) ||
      !range_ok(srcDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  memmove((void *)(uintptr_t)dstDevice, (const void *)(uintptr_t)srcDevice,
          ByteCount);
  if (to_global) {
    uint64_t head = 0;
    memcpy(&head, (const void *)(uintptr_t)dstDevice,
           ByteCount < 8 ? ByteCount : 8);
    pthread_mutex_lock(&last_lock);
    last_copy_bytes = ByteCount;
    last_copy_head = head;
    pthread_mutex_unlock(&last_lock);
    atomic_fetch_add(&n_const_copies, 1);
  }
  return CUDA_SUCCESS;
}

/* Copies between the host and an allocation or a module's global. */
CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost,
                           size_t ByteCount, CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!ByteCount)
    return CUDA_SUCCESS;
  if (!srcHost || (!range_ok(dstDevice, ByteCount) &&
                   !global_range_ok(dstDevice, ByteCount)))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void *dstHost, CUdeviceptr srcDevice,
                           size_t ByteCount, CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!ByteCount)
    return CUDA_SUCCESS;
  if (!dstHost || (!range_ok(srcDevice, ByteCount) &&
                   !global_range_ok(srcDevice, ByteCount)))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!N)
    return CUDA_SUCCESS;
  if (!range_ok(dstDevice, N))
    return CUDA_ERROR_INVALID_VALUE;
  memset((void *)(uintptr_t)dstDevice, uc, N);
  return CUDA_SUCCESS;
}

/* ---- events --------------------------------------------------------------
 */

struct CUevent_st {
  obj hdr;
  unsigned flags;
  _Atomic int recorded;
  _Atomic int64_t ns; /* the host's monotonic clock when recorded */
};

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!phEvent || (Flags & ~0xfu))
    return CUDA_ERROR_INVALID_VALUE;
  struct CUevent_st *e = calloc(1, sizeof *e);
  if (!e)
    return CUDA_ERROR_OUT_OF_MEMORY;
  e->flags = Flags;
  reg_add(&e->hdr, K_EVENT);
  *phEvent = e;
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent hEvent) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!reg_remove(hEvent, K_EVENT))
    return CUDA_ERROR_INVALID_HANDLE;
  free(hEvent);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!reg_has(hEvent, K_EVENT) || !stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  atomic_store(&hEvent->ns, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
  atomic_store(&hEvent->recorded, 1);
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
                           unsigned int Flags) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!reg_has(hEvent, K_EVENT) || !stream_ok(hStream))
    return CUDA_ERROR_INVALID_HANDLE;
  if (Flags)
    return CUDA_ERROR_INVALID_VALUE;
  atomic_fetch_add(&n_stream_waits, 1);
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent hEvent) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  return reg_has(hEvent, K_EVENT) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
                            CUevent hEnd) {
  CUresult r = need_ctx();
  if (r != CUDA_SUCCESS)
    return r;
  if (!pMilliseconds)
    return CUDA_ERROR_INVALID_VALUE;
  if (!reg_has(hStart, K_EVENT) || !reg_has(hEnd, K_EVENT) ||
      !atomic_load(&hStart->recorded) || !atomic_load(&hEnd->recorded))
    return CUDA_ERROR_INVALID_HANDLE;
  if ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING)
    return CUDA_ERROR_INVALID_HANDLE;
  *pMilliseconds =
      (float)((atomic_load(&hEnd->ns) - atomic_load(&hStart->ns)) / 1e6);
  return CUDA_SUCCESS;
}

/* Drivers before 12.8 export the same call without the _v2 suffix. */
#undef cuEventElapsedTime
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
                            CUevent hEnd) {
  return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}
