// histogram64.cu - the naive 64-bin histogram: every byte's top six bits
// pick a bin, incremented with a global atomicAdd (no privatization), over
// a grid-stride loop.
extern "C" __global__ void histogram64_naive(const unsigned char *data,
                                             unsigned int *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] >> 2], 1u);
}
