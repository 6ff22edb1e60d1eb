/*
 * test_tex.c - the dialect's sampling functions on the GPU, in software
 * and in hardware (--tex): tests/sim/tex_kernels.cu's kernels (tex.bc,
 * built with the dialect's other tests and carried by tools/gpu-pack.sh)
 * in 1-D, 2-D and 3-D for every element type, filter (nearest, linear, and
 * normalized for integers) and boundary mode, each specialized with the
 * filter and mode bound, once as compiled (software) and once with --tex
 * img (a texture object made by ks_launch; 3-D: over a CUDA array the
 * launch copies the data into, from rows of a pitch off the texture
 * alignment), against the CPU's reference of CUDA's texture rules
 * (tests/sim/tex_ref.h, as tests/sim/tex_grid.c's):
 *   software   within float rounding of the reference;
 *   hardware   nearest: the reference's texel bit for bit (normalized
 *              integers within 1e-6), or the texel at a position within
 *              1/256 of a texel of it (a coordinate the hardware or the
 *              kernel's normalization for wrap and mirror rounded across a
 *              texel edge: counted and printed); linear: within D/256 of
 *              the range of the texels it blends (the hardware's 8-bit
 *              fractional weights, README "Textures"), plus float
 *              rounding (at wrap and mirror, at such a position, and
 *              of x / w and back), plus the hardware's own rounding
 *              of half data and normalized integers (hw_rounding).
 * Every hardware kernel must have had its texture object made (no launch
 * note). Then a pitch off the texture alignment: the same kernel samples
 * in software, its launch note says why, its results are the software's;
 * and a 3-D texture sampled again after new contents were written to its
 * memory: the new contents (each launch copies). Linear filtering of
 * integers read as values must be refused. The worst error of each group
 * is printed, for BENCHMARKS.md.
 *
 *   test_gpu_tex [DIR [N]]   (DIR holds tex.bc, default the build's
 *                             tests/dialect; N points a run, default 4096)
 * Without a driver or a device: "skipped: ...", exit 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/tex_ref.h"
#include "gpu_open.h"
#include "kspec.h"

#ifndef KS_TEX_BC_DIR
#define KS_TEX_BC_DIR "."
#endif

static const char *const modes[] = {"clamp", "wrap", "mirror", "border"};

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_tex: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

/* ---- data ---------------------------------------------------------------- */

static uint32_t g_rand = 2026u;
static uint32_t next(void) { return g_rand = g_rand * 1664525u + 1013904223u; }

static void fill(void *img, int t, size_t count) {
  unsigned char *p = img;
  for (size_t i = 0; i < count; i++) {
    uint32_t r = next();
    if (t == 0) {
      float v = (float)(int)(r >> 16) / 256.0f - 128.0f;
      memcpy(p + 4 * i, &v, 4);
    } else if (t == 1) {
      _Float16 v = (_Float16)((float)(int)(r >> 20) / 16.0f - 128.0f);
      memcpy(p + 2 * i, &v, 2);
    } else if (tex_type_bytes[t] == 1) {
      p[i] = (unsigned char)(r >> 24);
    } else {
      uint16_t v = (uint16_t)(r >> 16);
      memcpy(p + 2 * i, &v, 2);
    }
  }
}

/* Coordinates over [-2.5 n, 3.5 n): texel edges and centres, then random. */
static void coords(float *c, int count, int n) {
  static const float fixed[] = {0,     0.5f, 0.25f, 0.75f, 1,    1.5f,
                                -0.5f, -1,   -3.3f, 2.5f,  2.49f};
  int k = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed && k < count; i++)
    c[k++] = fixed[i];
  const float ends[] = {n - 1.0f, n - 0.5f,     n,
                        n + 0.5f, 2 * n + 0.3f, -n - 0.6f};
  for (size_t i = 0; i < sizeof ends / sizeof *ends && k < count; i++)
    c[k++] = ends[i];
  while (k < count)
    c[k++] = ((float)(next() >> 8) / 16777216.0f) * 6 * n - 2.5f * n;
}

/* ---- one run ------------------------------------------------------------- */

typedef struct run_in {
  ks_ctx *ctx;
  ks_template *t;
  int n; /* points */
  ks_devptr cx, cy, cz, out;
  const float *hx, *hy, *hz;
  float *got;
} run_in;

/* Specializes kernel s<dim>_<type> with the filter and mode bound (and
 * --tex img when hw), launches it over im (on the device at dimg) and
 * leaves the samples in r->got: 0, 1 on failure, 2 when --tex was
 * refused (KS_EPASS; nothing launched). */
static int launch(run_in *r, const tex_image *im, ks_devptr dimg, int filter,
                  int mode, int hw, ks_kernel **kp) {
  char kernel[16];
  snprintf(kernel, sizeof kernel, "s%d_%s", im->dim, tex_type_names[im->t]);
  ks_binding b[] = {{.name = "filter", .kind = KS_VALUE_INT, .v.i = filter},
                    {.name = "mode", .kind = KS_VALUE_INT, .v.i = mode}};
  const char *tex[] = {"img"};
  ks_spec_req req = {.kernel = kernel,
                     .bindings = b,
                     .nbindings = 2,
                     .bounds = {.block = {128, 1, 1}},
                     .tex = hw ? tex : NULL,
                     .ntex = hw ? 1 : 0};
  ks_kernel *k = NULL;
  ks_status st = ks_specialize(r->ctx, r->t, &req, &k);
  if (hw && st == KS_EPASS)
    return 2;
  if (st != KS_OK)
    return fail(kernel, r->ctx);
  int w = im->n[0], h = im->n[1], d = im->n[2], pitch = im->pitch, n = r->n;
  void *args[] = {&dimg,  &w,     &h,      &d, &pitch,  &r->cx,
                  &r->cy, &r->cz, &r->out, &n, &filter, &mode};
  ks_dim3 grid = {(unsigned)(n + 127) / 128, 1, 1}, block = {128, 1, 1};
  if (ks_memset8(r->ctx, r->out, 0xff, (size_t)n * 4) != KS_OK ||
      ks_launch(k, grid, block, 0, NULL, args) != KS_OK ||
      ks_synchronize(r->ctx) != KS_OK ||
      ks_memcpy_dtoh(r->ctx, r->got, r->out, (size_t)n * 4) != KS_OK)
    return fail(kernel, r->ctx);
  *kp = k;
  return 0;
}

/* What hardware linear filtering adds beyond its weights: half data is
 * filtered in half precision (results come back as halves: an ulp of the
 * result), and normalized integers are converted less exactly than
 * v / max (BENCHMARKS.md, "Textures": allowed 2^-15). */
static double hw_rounding(const tex_image *im, int filter, double want) {
  if (im->t == 1) {
    int e;
    frexp(want, &e);
    return ldexp(1, (e < -13 ? -13 : e) - 11);
  }
  return filter & TEX_NORMALIZED ? 0x1p-15 : 0;
}

/* The error of sample i against the reference, the bound it must keep, at
 * the best of the positions allowed (jitter: within 1/256 of a texel). */
static double excess(const run_in *r, const tex_image *im, int i, int filter,
                     int mode, int hw, int jit, double *err) {
  double scale = im->t < 2                    ? 128
                 : (filter & TEX_NORMALIZED)  ? 1
                 : tex_type_bytes[im->t] == 1 ? 255
                                              : 65535;
  int lin = filter & TEX_LINEAR;
  double best = INFINITY, besterr = INFINITY;
  int jz3 = im->dim == 3 ? jit : 0;
  for (int jx = -jit; jx <= jit; jx++)
    for (int jy = -jit; jy <= jit; jy++)
      for (int jz = -jz3; jz <= jz3; jz++) {
        double c[3] = {r->hx[i] + jx / 256.0, r->hy[i] + jy / 256.0,
                       r->hz[i] + jz / 256.0};
        double range = 0, want = tex_reference(im, c, filter, mode, &range);
        double tol = lin ? (hw ? im->dim * range / 256.0 : 0) + 4e-6 * scale
                     : filter & TEX_NORMALIZED ? 1e-6
                                               : 0; /* the texel itself */
        if (lin && hw)
          tol += hw_rounding(im, filter, want);
        if (lin && (mode == TEX_WRAP || mode == TEX_MIRROR)) { /* x / w * w */
          double sum = fabs(c[0]) + fabs(c[1]) + im->n[0] + im->n[1];
          if (im->dim == 3)
            sum += fabs(c[2]) + im->n[2];
          tol += range * sum * 0x1p-22;
        }
        double e = fabs(r->got[i] - want);
        if (isnan(e))
          e = INFINITY;
        if (e - tol < best) {
          best = e - tol;
          besterr = e;
        }
      }
  *err = besterr;
  return best; /* > 0: over the bound */
}

static int check(run_in *r, const tex_image *im, int filter, int mode, int hw,
                 double *worst, int *moved) {
  int bad = 0;
  for (int i = 0; i < r->n; i++) {
    double err = 0, exact = 0;
    int jit = hw && (!(filter & TEX_LINEAR) || mode == TEX_WRAP ||
                     mode == TEX_MIRROR);
    double over = excess(r, im, i, filter, mode, hw, jit, &err);
    if (jit && over <= 1e-12 &&
        excess(r, im, i, filter, mode, hw, 0, &exact) > 1e-12)
      (*moved)++; /* right only at a position within 1/256 of a texel */
    if (over > 1e-12 && bad++ < 3) {
      double range, c[3] = {r->hx[i], r->hy[i], r->hz[i]};
      printf("  %dd %s %s%s %s %s at (%g, %g, %g): %.9g, want %.9g\n", im->dim,
             tex_type_names[im->t], filter & TEX_LINEAR ? "linear" : "nearest",
             filter & TEX_NORMALIZED ? " normalized" : "", modes[mode],
             hw ? "hardware" : "software", c[0], c[1], c[2], r->got[i],
             tex_reference(im, c, filter, mode, &range));
    }
    if (err > *worst && isfinite(err))
      *worst = err;
  }
  return bad != 0;
}

/* A 3-D texture after new contents were written to its memory: each
 * launch copies them into the array, so the kernel, cached with its
 * object and array, samples them. img (count elements) is refilled. */
static int new_contents(run_in *r, tex_image *im, void *img, size_t count,
                        ks_devptr dimg) {
  ks_kernel *k = NULL;
  double worst = 0;
  int moved = 0, bad = 0;
  for (int round = 0; round < 2 && !bad; round++) {
    fill(img, im->t, count);
    if (ks_memcpy_htod(r->ctx, dimg, img, count * tex_type_bytes[im->t]) !=
            KS_OK ||
        launch(r, im, dimg, TEX_NEAREST, TEX_BORDER, 1, &k))
      return fail("new contents", r->ctx);
    bad = check(r, im, TEX_NEAREST, TEX_BORDER, 1, &worst, &moved) ||
          ks_kernel_launch_note(k) != NULL;
  }
  printf("3d %-3s new contents, sampled again: %s\n", tex_type_names[im->t],
         bad ? "FAILED" : "the new ones");
  return bad;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : KS_TEX_BC_DIR;
  int n = argc > 2 ? atoi(argv[2]) : 4096;
  ks_ctx *ctx = NULL;
  ks_device_info dev;
  ks_status s;
  ks_ctx_opts o = {.no_disk_cache = 1};
  if (gpu_open(&o, &ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK)
    return fail("context", ctx);
  char path[1024];
  snprintf(path, sizeof path, "%s/tex.bc", dir);
  run_in r = {.ctx = ctx, .n = n};
  if (ks_template_load(ctx, path, &r.t) != KS_OK)
    return fail(path, ctx);
  float *hx = malloc((size_t)n * 4), *hy = malloc((size_t)n * 4),
        *hz = malloc((size_t)n * 4);
  r.got = malloc((size_t)n * 4);
  if (!hx || !hy || !hz || !r.got ||
      ks_mem_alloc(ctx, (size_t)n * 4, &r.cx) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)n * 4, &r.cy) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)n * 4, &r.cz) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)n * 4, &r.out) != KS_OK)
    return fail("memory", ctx);
  r.hx = hx, r.hy = hy, r.hz = hz;
  int bad = 0, runs = 0;
  for (int dim = 1; dim <= 3; dim++) {
    tex_image im = {.dim = dim, .n = {37, dim > 1 ? 23 : 1, dim > 2 ? 5 : 1}};
    coords(hx, n, im.n[0]);
    coords(hy, n, im.n[1]);
    coords(hz, n, im.n[2]);
    for (int i = 0; i < n; i++) { /* the axes' lists out of step */
      float t = hy[i];
      hy[i] = hy[(i * 7 + 3) % n];
      hy[(i * 7 + 3) % n] = t;
    }
    if (ks_memcpy_htod(ctx, r.cx, hx, (size_t)n * 4) != KS_OK ||
        ks_memcpy_htod(ctx, r.cy, hy, (size_t)n * 4) != KS_OK ||
        ks_memcpy_htod(ctx, r.cz, hz, (size_t)n * 4) != KS_OK)
      return fail("upload", ctx);
    for (im.t = 0; im.t < 6; im.t++) {
      /* rows 64 elements apart: a multiple of 32 bytes for every type; a
       * 3-D texture is a copy, which takes any pitch */
      im.pitch = dim == 3 ? 41 : dim > 1 ? 64 : 37;
      size_t count = (size_t)im.pitch * im.n[1] * im.n[2] + 64;
      void *img = malloc(count * tex_type_bytes[im.t]);
      ks_devptr dimg = 0;
      if (!img ||
          ks_mem_alloc(ctx, count * tex_type_bytes[im.t], &dimg) != KS_OK)
        return fail("memory", ctx);
      fill(img, im.t, count);
      im.img = img;
      if (ks_memcpy_htod(ctx, dimg, img, count * tex_type_bytes[im.t]) != KS_OK)
        return fail("upload", ctx);
      for (int f = 0; f < 4; f++)
        for (int m = 0; m < 4; m++) {
          if ((f & TEX_NORMALIZED) && im.t < 2)
            continue;
          double worst[2] = {0, 0};
          int moved = 0;
          for (int hw = 0; hw < 2; hw++) {
            ks_kernel *k = NULL;
            int must_refuse = hw && im.t >= 2 && f == TEX_LINEAR;
            int rc = launch(&r, &im, dimg, f, m, hw, &k);
            if (rc == 1)
              return 1;
            if (rc == 2 || must_refuse) {
              if (rc != 2 || !must_refuse) {
                printf("  %dd %s filter %d mode %d: --tex %s%s\n", dim,
                       tex_type_names[im.t], f, m,
                       rc == 2 ? "refused: " : "not refused",
                       rc == 2 ? ks_errmsg(ctx) : "");
                bad = 1;
              }
              continue;
            }
            bad |= check(&r, &im, f, m, hw, &worst[hw], &moved);
            if (hw && ks_kernel_launch_note(k)) {
              printf("  %dd %s: software: %s\n", dim, tex_type_names[im.t],
                     ks_kernel_launch_note(k));
              bad = 1;
            }
            runs++;
          }
          printf("%dd %-3s %-7s%-11s %-6s max error software %.3g, hardware "
                 "%.3g; %d of %d hardware samples right only within 1/256 "
                 "of a texel of their position\n",
                 dim, tex_type_names[im.t],
                 f & TEX_LINEAR ? "linear" : "nearest",
                 f & TEX_NORMALIZED ? " normalized" : "", modes[m], worst[0],
                 worst[1], moved, n);
        }
      /* a pitch off the alignment: software, said, the software's results */
      if (dim == 2) {
        tex_image odd = im;
        odd.pitch = 63;
        ks_kernel *k = NULL;
        if (launch(&r, &odd, dimg, TEX_NEAREST, TEX_CLAMP, 1, &k))
          return 1;
        double worst = 0;
        int moved = 0;
        int b2 = check(&r, &odd, TEX_NEAREST, TEX_CLAMP, 0, &worst, &moved);
        const char *note = ks_kernel_launch_note(k);
        if (!note || !strstr(note, "pitch")) {
          printf("  2d %s pitch 63: no launch note\n", tex_type_names[im.t]);
          b2 = 1;
        }
        printf("2d %-3s pitch 63: %s (%s)\n", tex_type_names[im.t],
               b2 ? "FAILED" : "software, right", note ? note : "no note");
        bad |= b2;
      }
      if (dim == 3)
        bad |= new_contents(&r, &im, img, count, dimg);
      ks_mem_free(ctx, dimg);
      free(img);
    }
  }
  printf("%d runs: %s\n", runs, bad ? "FAILED" : "PASSED");
  ks_mem_free(ctx, r.cx);
  ks_mem_free(ctx, r.cy);
  ks_mem_free(ctx, r.cz);
  ks_mem_free(ctx, r.out);
  free(hx), free(hy), free(hz), free(r.got);
  ks_template_destroy(r.t);
  ks_ctx_destroy(ctx);
  return bad;
}
