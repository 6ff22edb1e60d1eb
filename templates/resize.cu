/*
 * resize - image scaling by an integer factor (seed 000 §9.3's
 * interpolate): each output pixel samples the input at its centre mapped
 * back, nearest or bilinear (trilinear), clamped at the border:
 *
 *   dst[oy*n*F + ox] = sample(src, (ox + 0.5) / F, (oy + 0.5) / F)
 *
 * src is n x n floats, rows pitch floats apart; dst is (n*F) x (n*F),
 * dense. FILTER is KS_NEAREST (0) or KS_LINEAR (1). The sampling is the
 * dialect's ks_sample2d: software as compiled, a hardware texture fetch
 * with `--tex src`. Launch 2-D blocks over the output. resize3d is the
 * same for a cube.
 */
// clang-format off
KS_KERNEL KS_PARAM(FACTOR, 2, 1, 16) KS_PARAM(FILTER, 1, 0, 1)
KS_DOC("dst = src scaled by FACTOR, nearest (FILTER=0) or bilinear (1), clamped")
void resize(const float *src, float *dst, int n, int pitch, int FACTOR,
            int FILTER) {
  // clang-format on
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int on = n * FACTOR;
  if (ox < on && oy < on) {
    float inv = 1.0f / FACTOR;
    dst[(long)oy * on + ox] =
        ks_sample2d(src, n, n, pitch, (ox + 0.5f) * inv, (oy + 0.5f) * inv,
                    FILTER, KS_CLAMP);
  }
}
