/*
 * saxpy.cu - a user's kernel with no kspec markings, the source of
 * saxpy.ll (kept in the repository, regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O1 -emit-llvm -S saxpy.cu -o saxpy.ll
 */
#include <__clang_cuda_builtin_vars.h>

extern "C" __attribute__((global)) void saxpy(int n, float a, const float *x,
                                               float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
