/*
 * conv1d - 1-D convolution, one output per thread, everything in global
 * memory: y[i] = sum_{k < FILTER_LEN} x[i + k] * f[k], for i < n.
 * x holds n + FILTER_LEN - 1 floats.
 */
// clang-format off
KS_KERNEL KS_PARAM(FILTER_LEN, 32, 1, 128)
KS_DOC("1-D convolution y[i] = sum_k x[i+k]*f[k]; x has n+FILTER_LEN-1 floats")
void conv1d(const float *x, const float *f, float *y, int n, int FILTER_LEN) {
  // clang-format on
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
  for (int k = 0; k < FILTER_LEN; k++)
    s += x[i + k] * f[k];
  y[i] = s;
}
