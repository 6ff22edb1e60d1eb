/*
 * reduce_sum - the sum of n floats: *out += sum_{i < n} x[i].
 *
 * Each block of BLOCK threads loads BLOCK elements (0 beyond n) into shared
 * memory, reduces them by a tree that is correct for any BLOCK (powers of
 * two or not), and thread 0 adds the block's sum to *out atomically. x holds
 * n floats, out one float, accumulated into (not cleared). Launch with
 * blockDim.x == BLOCK and ceil(n / BLOCK) blocks.
 */
// clang-format off
KS_KERNEL KS_PARAM_BLOCK_X(BLOCK, 256, 1, 1024)
KS_DOC("*out += sum of n floats; shared-memory tree, blockDim.x == BLOCK")
void reduce_sum(const float *x, float *out, int n, int BLOCK) {
  // clang-format on
  __shared__ float sh[1024];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  sh[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  int half = 1;
  while (half < BLOCK)
    half <<= 1;
  /* Every thread reaches every barrier; only the lower half adds. */
  for (int s = half / 2; s > 0; s >>= 1) {
    if (tid < s && tid + s < BLOCK)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sh[0]);
}
