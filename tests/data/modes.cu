/*
 * modes.cu - a user's kernel with a private array indexed at run time (the
 * source of modes.ll, kept in the repository; regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O3 -emit-llvm -S modes.cu -o modes.ll
 *
 * Thread i counts the 4-bit values of its `samples` bytes x[k * n + i] in a
 * private array of 16 counters and writes the most frequent value (the
 * smallest on a tie). The counters' index is data: no unrolling makes it
 * constant, so without smem_promote the array lives in local memory.
 */
#include <__clang_cuda_builtin_vars.h>

extern "C" __attribute__((global)) void modes(const unsigned char *x,
                                               int *out, int n, int samples) {
  /* blocks of any shape, one thread per output */
  int i = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int count[16];
  for (int b = 0; b < 16; b++)
    count[b] = 0;
  for (int k = 0; k < samples; k++)
    count[x[(long)k * n + i] & 15]++;
  int best = 0;
  for (int b = 1; b < 16; b++)
    if (count[b] > count[best])
      best = b;
  out[i] = best;
}
