/*
 * sepfilter_fused - a separable filter in one kernel (seed 000 §9.8.1):
 * the row pass into tmp, a barrier across the whole grid, the column pass
 * from tmp. For a w x h float image (row-major):
 *
 *   tmp[y*w + x] = sum_{k=-RADIUS..RADIUS} in[y*w + clamp(x+k, 0, w-1)]
 *                                          * c[k + RADIUS]
 *   out[y*w + x] = sum_{k=-RADIUS..RADIUS} tmp[clamp(y+k, 0, h-1)*w + x]
 *                                           * c[k + RADIUS]
 *
 * the same sums, in the same order, as sepfilter_rows then sepfilter_cols.
 * in, out and tmp hold w*h floats, c holds 2*RADIUS+1 taps. Edges are
 * clamped. The grid barrier needs every block resident at once: kspec
 * launches the kernel cooperatively and refuses a larger grid, so each
 * thread strides over the image by the grid's size, and any grid (2-D,
 * up to ks_kernel_max_coresident_grid blocks) covers it all. The block is
 * free (e.g. 32 x 8).
 */
// clang-format off
KS_KERNEL KS_PARAM(RADIUS, 8, 1, 32)
KS_DOC("separable filter in one kernel: rows, grid barrier, columns (cooperative launch)")
void sepfilter_fused(const float *in, const float *c, float *out, float *tmp,
                     int w, int h, int RADIUS) {
  // clang-format on
  int x0 = blockIdx.x * blockDim.x + threadIdx.x;
  int y0 = blockIdx.y * blockDim.y + threadIdx.y;
  int sx = gridDim.x * blockDim.x, sy = gridDim.y * blockDim.y;
  for (int y = y0; y < h; y += sy) {
    const float *row = in + (long)y * w;
    for (int x = x0; x < w; x += sx) {
      float s = 0.0f;
      for (int k = -RADIUS; k <= RADIUS; k++)
        s += row[ks_clamp(x + k, 0, w - 1)] * c[k + RADIUS];
      tmp[(long)y * w + x] = s;
    }
  }
  ks_grid_sync(); /* every row of tmp is written */
  /* y innermost: with x innermost, the 2*RADIUS+1 rows' addresses would
   * stay the same through the x loop, and live in registers */
  for (int x = x0; x < w; x += sx)
    for (int y = y0; y < h; y += sy) {
      float s = 0.0f;
      for (int k = -RADIUS; k <= RADIUS; k++)
        s += tmp[(long)ks_clamp(y + k, 0, h - 1) * w + x] * c[k + RADIUS];
      out[(long)y * w + x] = s;
    }
}
