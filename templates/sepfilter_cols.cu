/*
 * sepfilter_cols - the vertical pass of a separable filter, one output per
 * thread, everything in global memory. For a w x h float image (row-major):
 *
 *   out[y*w + x] = sum_{k=-RADIUS..RADIUS} in[clamp(y+k, 0, h-1)*w + x]
 *                                          * c[k + RADIUS]
 *
 * in and out hold w*h floats, c holds 2*RADIUS+1 taps. Edges are clamped.
 * Launch with a 2-D grid covering w x h; the block is free (e.g. 32 x 8).
 */
// clang-format off
KS_KERNEL KS_PARAM(RADIUS, 8, 1, 32)
KS_DOC("column pass of a separable filter, clamped edges, 2*RADIUS+1 taps")
void sepfilter_cols(const float *in, const float *c, float *out, int w, int h,
                    int RADIUS) {
  // clang-format on
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float s = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; k++)
    s += in[(long)ks_clamp(y + k, 0, h - 1) * w + x] * c[k + RADIUS];
  out[(long)y * w + x] = s;
}
