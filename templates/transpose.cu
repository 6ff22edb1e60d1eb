/*
 * transpose - a matrix transpose, one element per thread, straight from
 * global memory to global memory (no shared-memory tile):
 *
 *   out[x*rows + y] = in[y*cols + x]   for y < rows, x < cols
 *
 * in is rows x cols row-major (rows*cols floats), out is cols x rows. Launch
 * with TILE x TILE blocks and a ceil(cols/TILE) x ceil(rows/TILE) grid. The
 * index math uses TILE, not blockDim, so binding TILE folds it.
 */
// clang-format off
KS_KERNEL KS_PARAM_BLOCK_XY(TILE, 32, 1, 32)
KS_DOC("out = in^T for a rows x cols float matrix, TILE x TILE blocks")
void transpose(const float *in, float *out, int rows, int cols, int TILE) {
  // clang-format on
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows)
    out[(long)x * rows + y] = in[(long)y * cols + x];
}
