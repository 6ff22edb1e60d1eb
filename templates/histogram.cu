/*
 * histogram - a histogram of n 8-bit samples with BINS bins, by global
 * atomics in a grid-stride loop (seed 000 §9.2.3's hist_kernel, without its
 * shared-memory scratchpad):
 *
 *   hist[(data[i] * BINS) / 256] += 1   for every i < n
 *
 * data holds n bytes, hist BINS unsigned counters, accumulated into (not
 * cleared); the two must not overlap. With BINS > 256 some bins are never
 * hit. Any grid and block.
 */
// clang-format off
KS_KERNEL KS_PARAM(BINS, 256, 1, 4096)
KS_DOC("histogram of n bytes, hist[v*BINS/256] += 1 by global atomics")
void histogram(const unsigned char *__restrict__ data,
               unsigned *__restrict__ hist, int n, int BINS) {
  // clang-format on
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    int bin = ((int)data[i] * BINS) / 256;
    atomicAdd(&hist[bin], 1u);
  }
}
