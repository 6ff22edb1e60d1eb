/*
 * tex_refuse.cu - kernels that --tex must refuse, one reason each
 * (tex_test.sh): the array written, read directly beside the sampling,
 * not sampled at all, sampled with two filters, a filter only the launch
 * knows.
 */
KS_KERNEL void writes(float *img, int w, int h, float *out) {
  int i = threadIdx.x;
  out[i] = ks_sample2d(img, w, h, w, i + 0.5f, 0.5f, KS_LINEAR, KS_CLAMP);
  img[i] = 0;
}
KS_KERNEL void direct(const float *img, int w, int h, float *out) {
  int i = threadIdx.x;
  out[i] = ks_sample2d(img, w, h, w, i + 0.5f, 0.5f, KS_LINEAR, KS_CLAMP) +
           img[i];
}
KS_KERNEL void unsampled(const float *img, int w, int h, float *out) {
  out[threadIdx.x] = w + h;
}
KS_KERNEL void two_filters(const float *img, int w, int h, float *out) {
  int i = threadIdx.x;
  out[i] = ks_sample2d(img, w, h, w, i + 0.5f, 0.5f, KS_LINEAR, KS_CLAMP) +
           ks_sample2d(img, w, h, w, i + 0.5f, 0.5f, KS_NEAREST, KS_CLAMP);
}
KS_KERNEL void computed_pitch(const float *img, int w, int h, float *out) {
  int i = threadIdx.x;
  out[i] = ks_sample2d(img, w, h, w + 1, i + 0.5f, 0.5f, KS_LINEAR, KS_CLAMP);
}
