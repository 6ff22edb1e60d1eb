/*
 * launch.cu - kernels that need more than a plain launch, the source of
 * launch.ll (kept in the repository; regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O1 -fno-discard-value-names \
 *            -include templates/kspec_device.h -emit-llvm -S \
 *            tests/data/launch.cu -o tests/data/launch.ll
 *
 * gridsync_sum: every block sums its share of x into partial[blockIdx.x],
 * all blocks meet at a grid-wide barrier, then block 0 adds the partials.
 * The barrier is a counter in global memory that each block's thread 0
 * increments and then waits on until every block has arrived: correct only
 * when all blocks are resident at once, which is what a cooperative launch
 * promises. *bar must be 0 before each launch.
 *
 * smem_reverse: each block stages n ints in dynamic shared memory (100 KiB
 * for n = 25600) and writes them back reversed and added to themselves,
 * out[i] = x[i] + x[n-1-i] within its segment of n, so every byte of the
 * buffer is written and read by different threads.
 */

/* A fence over the whole GPU: the block's partial is visible to every
 * other block before the arrival that announces it. */
static __device__ __forceinline__ void fence_gpu(void) { __nvvm_membar_gl(); }

static __device__ void grid_barrier(unsigned *bar) {
  unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_gpu();
    atomicAdd(bar, 1u);
    while (*(volatile unsigned *)bar < blocks)
      ;
    fence_gpu();
  }
  __syncthreads();
}

KS_KERNEL void gridsync_sum(const int *x, int n, int *partial, unsigned *bar,
                            long long *out) {
  __shared__ int s[1024];
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    sum += x[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
  grid_barrier(bar);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    long long total = 0;
    for (unsigned b = 0; b < gridDim.x; b++)
      total += *(volatile int *)&partial[b];
    *out = total;
  }
}

KS_KERNEL void smem_reverse(const int *x, int *out, int n) {
  extern __shared__ int buf[];
  const int *in = x + (long long)blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    buf[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[(long long)blockIdx.x * n + i] = buf[i] + buf[n - 1 - i];
}
