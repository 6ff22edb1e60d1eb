/*
 * tex_ref.h - CUDA's texture sampling rules on the CPU, the one reference
 * of the sampling tests: tex_grid.c (the dialect's sampling functions,
 * simulated), tests/gpu/test_tex.c (software and hardware on a GPU) and
 * the mocked driver's texture fetch (tests/mock/cuda_mock.c). From the
 * CUDA C Programming Guide's "Texture Fetching" appendix: nearest takes
 * T[floor(x)], linear the weights (1 - a, a) of T[i], T[i + 1] with
 * i = floor(x - 0.5) along each axis, exactly (the hardware's 9-bit
 * weights are the callers' tolerance), and the boundary modes as CUDA's
 * address modes: clamp, wrap, mirror (the edge texel repeated), border
 * (0 outside). Coordinates are unnormalized. Header-only (static
 * functions), for test programs alone.
 */
#ifndef KSPEC_TEX_REF_H
#define KSPEC_TEX_REF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { TEX_NEAREST = 0, TEX_LINEAR = 1, TEX_NORMALIZED = 2 };
enum { TEX_CLAMP, TEX_WRAP, TEX_MIRROR, TEX_BORDER };

/* Element types in kspec.h's KS_TEX_* order. */
static const char *const tex_type_names[] = {"f32", "f16", "u8",
                                             "s8",  "u16", "s16"};
static const size_t tex_type_bytes[] = {4, 2, 1, 1, 2, 2};

/* An array of dim dimensions, n[k] texels along axis k (1 past dim),
 * rows pitch elements apart, slices pitch * n[1]. */
typedef struct tex_image {
  const void *img;
  int t, dim, n[3], pitch;
} tex_image;

/* Element at of img (type t) as the sampling reads it: integers as their
 * value, or normalized (norm: v / 255, 65535; signed v / 127, 32767, at
 * least -1). */
static inline double tex_texel(const void *img, int t, long at, int norm) {
  const unsigned char *p = img;
  switch (t) {
  case 0: {
    float v;
    memcpy(&v, p + 4 * at, 4);
    return v;
  }
  case 1: {
    _Float16 v;
    memcpy(&v, p + 2 * at, 2);
    return (double)v;
  }
  case 2:
    return norm ? p[at] / 255.0 : p[at];
  case 3: {
    double v = (signed char)p[at];
    return norm ? fmax(v / 127.0, -1.0) : v;
  }
  case 4: {
    uint16_t v;
    memcpy(&v, p + 2 * at, 2);
    return norm ? v / 65535.0 : v;
  }
  default: {
    int16_t v;
    memcpy(&v, p + 2 * at, 2);
    return norm ? fmax(v / 32767.0, -1.0) : v;
  }
  }
}

/* Texel index i of an axis of n under mode: 0 with *in 0 outside (border). */
static inline long tex_address(long i, long n, int mode, int *in) {
  *in = 1;
  if (mode == TEX_CLAMP)
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
  if (mode == TEX_BORDER) {
    *in = i >= 0 && i < n;
    return *in ? i : 0;
  }
  while (i < 0 || i >= n) /* wrap: shift by n; mirror: reflect at an edge */
    if (mode == TEX_WRAP)
      i += i < 0 ? n : -n;
    else
      i = i < 0 ? -1 - i : 2 * n - 1 - i;
  return i;
}

/* The sample of im at c (filter TEX_* | TEX_NORMALIZED, mode TEX_CLAMP..),
 * and in *range (when not NULL) the range, largest minus smallest, of the
 * texels it blends: what the hardware's linear filter's error scales
 * with. */
static inline double tex_reference(const tex_image *im, const double c[3],
                                   int filter, int mode, double *range) {
  int lin = filter & TEX_LINEAR, norm = (filter & TEX_NORMALIZED) != 0;
  long base[3] = {0, 0, 0};
  double a[3] = {0, 0, 0}, sum = 0, lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < im->dim; k++) {
    double x = lin ? c[k] - 0.5 : c[k];
    base[k] = (long)floor(x);
    a[k] = lin ? x - floor(x) : 0;
  }
  for (int corner = 0; corner < (lin ? 1 << im->dim : 1); corner++) {
    double wt = 1;
    long at = 0, stride = 1;
    int in = 1;
    for (int k = 0; k < im->dim; k++) {
      int up = corner >> k & 1, ink;
      wt *= up ? a[k] : 1 - a[k];
      at += stride * tex_address(base[k] + up, im->n[k], mode, &ink);
      stride *= k == 0 ? im->pitch : im->n[k];
      in &= ink;
    }
    double v = in ? tex_texel(im->img, im->t, at, norm) : 0;
    if (wt != 0)
      sum += wt * v;
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  if (range)
    *range = hi - lo;
  return sum;
}

#endif /* KSPEC_TEX_REF_H */
