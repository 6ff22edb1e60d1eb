// counter.cu - a module-scope __device__ counter: count_above flags every
// element over a threshold and counts them in g_count with atomicAdd (the
// host zeroes it first and reads it after, through the symbol).
__device__ unsigned int g_count;

extern "C" __global__ void count_above(const float *in, int *flags,
                                       float threshold, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int above = in[i] > threshold;
  flags[i] = above;
  if (above)
    atomicAdd(&g_count, 1u);
}
