/*
 * cuda_mock.h - what the mocked CUDA driver (cuda_mock.c) tells its tests.
 *
 * The mock is a shared library that kspec opens in place of libcuda.so.1
 * when KSPEC_LIBCUDA names it. A test that wants its counters opens the
 * same file with dlopen (the loader returns the same instance, so the
 * counters are those kspec's calls moved) and looks up
 * KSPEC_MOCK_COUNTERS_FN.
 */
#ifndef KSPEC_CUDA_MOCK_H
#define KSPEC_CUDA_MOCK_H

#include <stdint.h>

/* Since the library was loaded; live_* are what exists now. */
typedef struct kspec_mock_counters {
  uint64_t launches;       /* cuLaunchKernel calls that succeeded */
  uint64_t launch_errors;  /* cuLaunchKernel calls that were refused */
  uint64_t module_loads;   /* modules loaded (PTX or mock cubin) */
  uint64_t ptx_rejected;   /* PTX refused by the JIT (invalid, too new) */
  uint64_t module_unloads; /* cuModuleUnload calls that succeeded */
  uint64_t ctx_retains;    /* cuDevicePrimaryCtxRetain */
  uint64_t ctx_releases;   /* cuDevicePrimaryCtxRelease */
  int64_t live_modules, live_allocs, live_events, live_streams;
  int64_t ctx_refs; /* retains minus releases of the primary context */
  /* The last launch that succeeded: its geometry, its number of
   * parameters and the bytes of its last parameter (up to 8,
   * little-endian). */
  unsigned last_grid[3], last_block[3], last_nparams;
  uint64_t last_param;
  /* cuMemcpyDtoDAsync calls into a module's .const variable, and the last
   * one's bytes and first 8 bytes copied; cuStreamWaitEvent calls. */
  uint64_t const_copies, stream_waits;
  uint64_t last_copy_bytes, last_copy_head;
  /* cuFuncSetAttribute calls that succeeded, and the last value set. */
  uint64_t func_attr_sets;
  int last_dyn_smem_attr;
  /* The last launch: its dynamic shared memory, the entry point (1
   * cuLaunchKernel, 2 cuLaunchKernelEx, 3 cuLaunchCooperativeKernel),
   * cooperative or not, its cluster (0s: none). */
  unsigned last_smem, last_launch_fn;
  int last_cooperative;
  unsigned last_cluster[3];
  /* The device (ordinal) of the last primary context retained; -1 none. */
  int device;
  /* cuTexObjectCreate calls that succeeded, objects not yet destroyed,
   * and the last one's format, filter mode, address mode, flags, width,
   * height and pitch (bytes). */
  uint64_t tex_creates;
  int64_t live_texs;
  unsigned last_tex[7];
  /* cuTexObjectDestroy calls that succeeded; CUDA arrays made
   * (cuArray3DCreate) and not yet destroyed; cuMemcpy3DAsync calls that
   * succeeded and the last one's bytes. */
  uint64_t tex_destroys, array_creates;
  int64_t live_arrays;
  uint64_t array_copies, last_array_copy_bytes;
} kspec_mock_counters;

/* A mock cubin: this header, then the PTX and its NUL (what ptxas_mock
 * writes; the mock loads it as it loads PTX, on an sm_NN device only). */
#define KSPEC_MOCK_CUBIN_MAGIC "KSMOCKCUBIN"
typedef struct kspec_mock_cubin_header {
  char magic[12]; /* KSPEC_MOCK_CUBIN_MAGIC and its NUL */
  uint32_t sm;
  uint32_t ptx_len;
} kspec_mock_cubin_header;

#define KSPEC_MOCK_COUNTERS_FN "kspec_mock_counters_get"
typedef void (*kspec_mock_counters_fn)(kspec_mock_counters *out);

/* Samples texture object tex at (x, y, z) on the CPU as the hardware
 * would (its resource, format, filter, address mode, flags; element 0)
 * into *out: 0, or -1 when tex is no live object. */
#define KSPEC_MOCK_TEX_FETCH_FN "kspec_mock_tex_fetch"
typedef int (*kspec_mock_tex_fetch_fn)(uint64_t tex, float x, float y, float z,
                                       float *out);

#endif /* KSPEC_CUDA_MOCK_H */
