// transpose.cu - out (cols x rows) = transpose of in (rows x cols), floats
// (doubles in transpose_int_f64).
// The naive form reads rows and writes columns (every store a separate
// transaction); the tiled form stages a TILE x TILE tile in shared memory,
// padded by one column so that reading it by columns hits 32 banks, and a
// block of TILE x blockDim.y threads walks its tile's rows.
extern "C" __global__ void transpose_naive(const float *in, float *out,
                                           int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

// The naive form as real code often writes it, with int indices (clang's
// sext of nsw arithmetic) and doubles: out (w x h) = in (h x w) transposed.
extern "C" __global__ void transpose_int_f64(const double *in, double *out,
                                             int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

template <int TILE>
__global__ void transpose_tiled(const float *in, float *out, int rows,
                                int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  for (int j = threadIdx.y; j < TILE; j += blockDim.y) {
    int r = r0 + j, c = c0 + threadIdx.x;
    if (r < rows && c < cols)
      tile[j][threadIdx.x] = in[(size_t)r * cols + c];
  }
  __syncthreads();
  // the block's tile lands at rows c0.. and columns r0.. of out
  for (int j = threadIdx.y; j < TILE; j += blockDim.y) {
    int r = c0 + j, c = r0 + threadIdx.x;
    if (r < cols && c < rows)
      out[(size_t)r * rows + c] = tile[threadIdx.x][j];
  }
}

template __global__ void transpose_tiled<32>(const float *, float *, int,
                                             int);
template __global__ void transpose_tiled<16>(const float *, float *, int,
                                             int);
