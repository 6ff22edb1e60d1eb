/*
 * resize3d - resize's 3-D form: a cube scaled by an integer factor,
 * nearest or trilinear, clamped at the border:
 *
 *   dst[(oz*n*F + oy)*n*F + ox] = sample(src, (ox + 0.5) / F, ...)
 *
 * src is n x n x n floats, rows pitch floats apart, slices pitch * n;
 * dst is (n*F)^3, dense. Launch 2-D blocks over an output slice, the
 * grid's z over the slices. ks_sample3d is software as compiled; with
 * `--tex src` a hardware 3-D texture over a CUDA array, into which each
 * launch first copies src (README, "Textures").
 */
// clang-format off
KS_KERNEL KS_PARAM(FACTOR, 2, 1, 16) KS_PARAM(FILTER, 1, 0, 1)
KS_DOC("dst = src (a cube) scaled by FACTOR, nearest (FILTER=0) or trilinear (1), clamped")
void resize3d(const float *src, float *dst, int n, int pitch, int FACTOR,
              int FILTER) {
  // clang-format on
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int oz = blockIdx.z;
  int on = n * FACTOR;
  if (ox < on && oy < on && oz < on) {
    float inv = 1.0f / FACTOR;
    dst[((long)oz * on + oy) * on + ox] =
        ks_sample3d(src, n, n, n, pitch, (ox + 0.5f) * inv, (oy + 0.5f) * inv,
                    (oz + 0.5f) * inv, FILTER, KS_CLAMP);
  }
}
