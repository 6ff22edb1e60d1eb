/*
 * tex_grid.c - runs tex_kernels.cu's sampling kernels, compiled for the
 * host from kspec's IR (tex_sim.sh), over a simulated grid (every thread
 * in turn) and checks every sample against a reference written here from
 * CUDA's texture rules (the CUDA C Programming Guide's "Texture Fetching"
 * appendix): nearest takes T[floor(x)], linear the weights (1 - a, a) of
 * T[i], T[i + 1] with i = floor(x - 0.5) along each axis, and the boundary
 * modes as its address modes (clamp, wrap, mirror with the edge texel
 * repeated, border 0). Every element type, 1-D, 2-D and 3-D, every
 * filter and mode (or the one the request bound), at coordinates on texel
 * edges and centres, outside on both sides and several periods away. The
 * image is a heap block of exactly pitch * h * d elements, so that
 * AddressSanitizer reports any read past it.
 *
 * The reference is tex_ref.h's, shared with tests/gpu/test_tex.c and the
 * mocked driver.
 *
 * Built with TEX_HW (tex_hw_sim.sh), the kernel is the one --tex img
 * made: it takes a texture object after its arguments, and its fetches
 * (llvm.nvvm.tex.unified.2d and .3d, renamed to tex_hw.ll's stand-ins)
 * come to sim_tex_fetch and sim_tex_fetch3 below, which sample as the
 * hardware would (normalized coordinates for wrap and mirror, integers
 * read as such; a 3-D texture is a dense copy of the array, which samples
 * as the array itself), exactly. Each check then runs twice: with an
 * object (every sample must be fetched, none in software) and with 0 (the
 * software path, no fetch).
 *
 *   tex_grid DIM TYPE BLOCK [FILTER MODE]
 *   (TYPE: f32 f16 u8 s8 u16 s16; BLOCK: the block's width, as fixed by the
 *   request or any; FILTER and MODE: the values bound, if any; with
 *   TEX_SHAPE=K in the environment, only shape K, as the request bound it)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tex_ref.h"

static unsigned g_tid, g_ctaid, g_ntid = 32, g_nctaid;
unsigned sreg_tid_x(void) { return g_tid; }
unsigned sreg_ctaid_x(void) { return g_ctaid; }
unsigned sreg_ntid_x(void) { return g_ntid; }
unsigned sreg_nctaid_x(void) { return g_nctaid; }

#ifdef TEX_HW
typedef void kernel(const void *img, int w, int h, int d, int pitch,
                    const float *cx, const float *cy, const float *cz,
                    float *out, int n, int filter, int mode, uint64_t tex);
static uint64_t g_tex; /* the texture object of the runs: 0 or &g_obj */
static unsigned long g_fetches;
#define SAMPLER(...) sampler(__VA_ARGS__, g_tex)
#else
typedef void kernel(const void *img, int w, int h, int d, int pitch,
                    const float *cx, const float *cy, const float *cz,
                    float *out, int n, int filter, int mode);
#define SAMPLER(...) sampler(__VA_ARGS__)
#endif
kernel sampler; /* tex_sim.sh renames the kernel under test to this */

#ifdef TEX_HW
/* The texture object: what ks_launch would make of the launch. */
static struct {
  const tex_image *im;
  int filter, mode;
} g_obj;

/* The hardware's fetch at c of texture tex: out4 (floats) or i4
 * (integers read as such) element 0. */
static void fetch(uint64_t tex, double c[3], float *out4, int32_t *i4) {
  const tex_image *im = g_obj.im;
  if (tex != (uint64_t)(uintptr_t)&g_obj) {
    printf("a fetch with texture object %#llx\n", (unsigned long long)tex);
    exit(1);
  }
  g_fetches++;
  if (g_obj.mode == TEX_WRAP || g_obj.mode == TEX_MIRROR) /* normalized */
    for (int k = 0; k < 3; k++)
      c[k] *= im->n[k];
  if (im->dim == 1)
    c[1] = 0.5; /* one row */
  tex_image row = *im;
  row.dim = im->dim == 1 ? 2 : im->dim; /* a 1-D array is a row of 2-D */
  double v = tex_reference(&row, c, g_obj.filter, g_obj.mode, NULL);
  out4[0] = (float)v;
  i4[0] = (int32_t)v;
}

void sim_tex_fetch(uint64_t tex, float x, float y, float *out4, int32_t *i4) {
  double c[3] = {x, y, 0.5};
  if (g_obj.im->dim == 3) {
    printf("a 2-D fetch of a 3-D texture\n");
    exit(1);
  }
  fetch(tex, c, out4, i4);
}

void sim_tex_fetch3(uint64_t tex, float x, float y, float z, float *out4,
                    int32_t *i4) {
  double c[3] = {x, y, z};
  if (g_obj.im->dim != 3) {
    printf("a 3-D fetch of a %d-D texture\n", g_obj.im->dim);
    exit(1);
  }
  fetch(tex, c, out4, i4);
}
#endif

static uint32_t g_rand = 12345u;
static uint32_t next(void) { return g_rand = g_rand * 1664525u + 1013904223u; }

/* The coordinates: texel edges and centres, just inside and outside each
 * end, several periods away, and random ones over [-2.5 n, 3.5 n). */
static int coords(float *c, int n) {
  static const float fixed[] = {0,     0.5f,   0.25f, 0.75f,  1,
                                1.5f,  -0.25f, -0.5f, -0.75f, -1,
                                -3.3f, 2.49f,  2.5f,  2.51f};
  int k = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    c[k++] = fixed[i];
  const float ends[] = {n - 1.0f,     n - 0.75f, n - 0.5f,
                        n - 0.25f,    n,         n + 0.25f,
                        n + 0.5f,     n + 1.7f,  2 * n + 0.3f,
                        3 * n - 0.1f, -n - 0.6f, -2 * n + 0.2f};
  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
    c[k++] = ends[i];
  while (k < 64)
    c[k++] = ((float)(next() >> 8) / 16777216.0f) * 6 * n - 2.5f * n;
  return k;
}

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

/* Runs the kernel over every point of a grid of coordinates (one axis
 * varying at a time through the coordinate list, the others random). */
static int check(const tex_image *im, int filter, int mode) {
  enum { N = 64 * 3 };
  float c[3][64], cx[N], cy[N], cz[N], out[N];
  for (int k = 0; k < 3; k++)
    coords(c[k], im->n[k]);
  for (int i = 0; i < N; i++) {
    int axis = i / 64, j = i % 64;
    cx[i] = axis == 0 ? c[0][j] : c[0][next() % 64];
    cy[i] = axis == 1 ? c[1][j] : c[1][next() % 64];
    cz[i] = axis == 2 ? c[2][j] : c[2][next() % 64];
    out[i] = NAN;
  }
  g_nctaid = (N + g_ntid - 1) / g_ntid;
#ifdef TEX_HW
  g_fetches = 0;
  g_obj.im = im;
  g_obj.filter = filter;
  g_obj.mode = mode;
#endif
  for (g_ctaid = 0; g_ctaid < g_nctaid; g_ctaid++)
    for (g_tid = 0; g_tid < g_ntid; g_tid++)
      SAMPLER(im->img, im->n[0], im->n[1], im->n[2], im->pitch, cx, cy, cz, out,
              N, filter, mode);
#ifdef TEX_HW
  if (g_fetches != (g_tex ? (unsigned long)N : 0)) {
    printf("%dd %s: %lu fetches with texture object %#llx, want %d\n", im->dim,
           tex_type_names[im->t], g_fetches, (unsigned long long)g_tex,
           g_tex ? N : 0);
    return 1;
  }
  /* x / w * w may land a rounding off a texel edge: the texel beside */
  int jitter = g_tex && (mode == TEX_WRAP || mode == TEX_MIRROR);
#else
  int jitter = 0;
#endif
  double scale = (filter & TEX_NORMALIZED) || im->t >= 2 ? 1 : 128;
  if (im->t >= 2 && !(filter & TEX_NORMALIZED))
    scale = tex_type_bytes[im->t] == 1 ? 255 : 65535;
  int bad = 0;
  for (int i = 0; i < N && bad < 5; i++) {
    double p[3] = {cx[i], cy[i], cz[i]};
    double want = tex_reference(im, p, filter, mode, NULL);
    double tol = (filter & TEX_LINEAR ? 4e-6 : 1e-7) * scale;
    for (int j = 0; j < 2 * 3 * jitter && !(fabs(out[i] - want) <= tol);
         j++) { /* each axis, each way */
      double q[3] = {p[0], p[1], p[2]};
      q[j / 2] += (j & 1 ? 1 : -1) * 1e-4;
      want = tex_reference(im, q, filter, mode, NULL);
    }
    if (!(fabs(out[i] - want) <= tol)) {
      printf("%dd %s filter %d mode %d at (%g, %g, %g): %.9g, want %.9g\n",
             im->dim, tex_type_names[im->t], filter, mode, p[0], p[1], p[2],
             out[i], want);
      bad++;
    }
  }
  return bad != 0;
}

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  g_ntid = (unsigned)atoi(argv[3]);
  tex_image im = {.dim = atoi(argv[1]), .t = -1};
  for (int t = 0; t < 6; t++)
    if (strcmp(argv[2], tex_type_names[t]) == 0)
      im.t = t;
  if (im.t < 0 || im.dim < 1 || im.dim > 3 || g_ntid < 1)
    return 2;
  int bad = 0, runs = 0;
  /* sizes: a narrow one with a pitch beyond its width, one texel wide */
  const int shapes[][4] = {{5, 4, 3, 7}, {1, 1, 1, 1}, {13, 9, 6, 16}};
  const char *only = getenv("TEX_SHAPE");
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    if (only && (size_t)atoi(only) != s)
      continue;
    im.n[0] = shapes[s][0];
    im.n[1] = im.dim > 1 ? shapes[s][1] : 1;
    im.n[2] = im.dim > 2 ? shapes[s][2] : 1;
    im.pitch = im.dim > 1 ? shapes[s][3] : im.n[0];
    size_t count = (size_t)im.pitch * im.n[1] * im.n[2];
    void *img = malloc(count * tex_type_bytes[im.t]);
    if (!img)
      return 1;
    fill(img, im.t, count);
    im.img = img;
    for (int f = 0; f < 4; f++)
      for (int m = 0; m < 4; m++) {
        if (argc > 5 && (f != atoi(argv[4]) || m != atoi(argv[5])))
          continue;
        if ((f & TEX_NORMALIZED) && im.t < 2)
          continue; /* the same as without for float and half */
#ifdef TEX_HW
        g_tex = (uint64_t)(uintptr_t)&g_obj;
        bad |= check(&im, f, m);
        g_tex = 0;
#endif
        bad |= check(&im, f, m);
        runs++;
      }
    free(img);
  }
  /* a size of 0 reads 0 and touches nothing */
  float x = 0.5f, out = only ? 0 : 1;
  g_nctaid = 1;
  g_ctaid = g_tid = 0;
  if (!only)
    SAMPLER(NULL, 0, 0, 0, 0, &x, &x, &x, &out, 1, argc > 5 ? atoi(argv[4]) : 1,
            argc > 5 ? atoi(argv[5]) : 0);
  if (out != 0) {
    printf("%dd %s: size 0 read %g\n", im.dim, tex_type_names[im.t], out);
    bad = 1;
  }
  printf("%dd %s: %d filter/mode runs %s\n", im.dim, tex_type_names[im.t], runs,
         bad ? "FAILED" : "right");
  return bad;
}
