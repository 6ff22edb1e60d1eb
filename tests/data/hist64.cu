/*
 * hist64.cu - a user's 64-bin histogram without __restrict__ (the source of
 * hist64.ll, kept in the repository; regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O3 -emit-llvm -S hist64.cu -o hist64.ll
 *
 * Every byte's top six bits pick a bin, incremented with a global atomic
 * over a grid-stride loop. `data` and `bins` may overlap as far as the
 * compiler knows: kspec privatizes the bins under a run-time check that
 * they do not (passes/alias.c), and runs the original kernel where they do.
 */
#include <__clang_cuda_builtin_vars.h>

static __attribute__((device)) unsigned atomic_add(unsigned *p,
                                                   unsigned v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

extern "C" __attribute__((global)) void hist64(const unsigned char *data,
                                                unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    atomic_add(&bins[data[i] >> 2], 1u);
}
