/*
 * lat_plain.cu - lat_math.cu's kernel with its three math calls replaced
 * by arithmetic of about their size in the source: the baseline of
 * kspec-latency's pair (BENCHMARKS.md, "The device library").
 */

// PTX(lat_plain): fma.rn.f32
KS_KERNEL void lat_plain(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = (v + 0.5f * v * v) * (v - v * v * v / 3.0f);
  }
}
