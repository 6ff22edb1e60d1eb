/*
 * tex_kernels.cu - one kernel per dimension and element type of the
 * dialect's sampling functions (kspec_device.h's ks_sample1d/2d/3d), for
 * tex_sim.sh: thread i samples img at (cx[i], cy[i], cz[i]) into out[i],
 * the filter and the boundary mode as arguments (or bound by the request).
 * test_gpu_tex runs the same kernels on a GPU, in software and with --tex.
 */
#define TEX_KERNELS(T, sfx)                                                    \
  KS_KERNEL void s1_##sfx(const T *img, int w, int h, int d, int pitch,        \
                          const float *cx, const float *cy, const float *cz,   \
                          float *out, int n, int filter, int mode) {           \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i < n)                                                                 \
      out[i] = ks_sample1d(img, w, cx[i], filter, mode);                       \
  }                                                                            \
  KS_KERNEL void s2_##sfx(const T *img, int w, int h, int d, int pitch,        \
                          const float *cx, const float *cy, const float *cz,   \
                          float *out, int n, int filter, int mode) {           \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i < n)                                                                 \
      out[i] = ks_sample2d(img, w, h, pitch, cx[i], cy[i], filter, mode);      \
  }                                                                            \
  KS_KERNEL void s3_##sfx(const T *img, int w, int h, int d, int pitch,        \
                          const float *cx, const float *cy, const float *cz,   \
                          float *out, int n, int filter, int mode) {           \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i < n)                                                                 \
      out[i] = ks_sample3d(img, w, h, d, pitch, cx[i], cy[i], cz[i], filter,   \
                           mode);                                              \
  }
TEX_KERNELS(float, f32)
TEX_KERNELS(__half, f16)
TEX_KERNELS(unsigned char, u8)
TEX_KERNELS(signed char, s8)
TEX_KERNELS(unsigned short, u16)
TEX_KERNELS(short, s16)
