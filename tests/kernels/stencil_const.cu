// stencil_const.cu - a 1-D stencil of radius `radius` (at most MAX_RADIUS)
// whose weights live in a __constant__ table, c_coef[MAX_RADIUS + k] for
// offset k, set by the host before the launch (cudaMemcpyToSymbol in a CUDA
// program). Reads past either end are clamped to the edge.
#define MAX_RADIUS 16

__constant__ float c_coef[2 * MAX_RADIUS + 1];

extern "C" __global__ void stencil_const(const float *in, float *out, int n,
                                         int radius) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = -radius; k <= radius; k++) {
    int j = min(max(i + k, 0), n - 1);
    acc += c_coef[MAX_RADIUS + k] * in[j];
  }
  out[i] = acc;
}
