/*
 * test_window.c - window staging (smem_promote) on the GPU: conv1d and the
 * separable filters specialized with many block shapes (2-D ones the
 * workloads do not launch: 16x16, 8x32, 24x5, 33x3, ...), parameters and
 * problem sizes (none a multiple of the block, down to 1 element), with the
 * taps baked (immediates; the launch passes the same taps), each
 * compared with the generic kernel (bit for bit: the staged kernel sums in
 * the same order) and with a CPU reference. Outputs are poisoned before
 * every launch. Prints one line per case and whether it was staged.
 *
 * Without a driver or a device the program prints "skipped: ..." and exits
 * 77. KSPEC_TEST_SEED=N changes the inputs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_open.h"
#include "kspec.h"

typedef struct run {
  ks_ctx *ctx;
  uint64_t rng;
  int failures, staged, cases;
} run;

static float frand(run *r) {
  r->rng ^= r->rng << 13;
  r->rng ^= r->rng >> 7;
  r->rng ^= r->rng << 17;
  return (float)((r->rng >> 40) / (double)(1 << 24)) * 2.0f - 1.0f;
}

static int check(run *r, ks_status s, const char *what) {
  if (s == KS_OK)
    return 0;
  printf("FAIL %s: %s %s\n", what, ks_status_name(s), ks_errmsg(r->ctx));
  r->failures++;
  return 1;
}

/* Specialized (param = v, block bx x by, the taps in buffer `arg` baked:
 * window staging along x weighs the other loads, so that is how it stages
 * there) or, with param NULL, generic. */
static ks_kernel *spec(run *r, ks_template *t, const char *param, long v,
                       unsigned bx, unsigned by, const char *arg,
                       const float *taps, int ntaps) {
  ks_binding b = {.name = param, .kind = KS_VALUE_INT, .v.i = v};
  ks_spec_req req = {.bindings = &b, .nbindings = param ? 1 : 0};
  double *vals = malloc((size_t)ntaps * sizeof *vals);
  ks_bake bake = {.arg = arg, .values = vals, .n = (size_t)ntaps};
  if (param && vals) {
    req.bounds.block[0] = bx;
    req.bounds.block[1] = by;
    req.bounds.block[2] = 1;
    for (int i = 0; i < ntaps; i++)
      vals[i] = taps[i];
    req.bakes = &bake;
    req.nbakes = 1;
  }
  ks_kernel *k = NULL;
  ks_status s = ks_specialize(r->ctx, t, &req, &k);
  free(vals);
  return check(r, s, "specialize") ? NULL : k;
}

/* Runs k on args, poisoning out first; copies out to host. */
static int launch(run *r, ks_kernel *k, ks_dim3 grid, ks_dim3 blk, void **args,
                  ks_devptr out, float *host, size_t n) {
  return check(r, ks_memset8(r->ctx, out, 0xff, n * 4), "memset") ||
         check(r, ks_launch(k, grid, blk, 0, NULL, args), "launch") ||
         check(r, ks_synchronize(r->ctx), "synchronize") ||
         check(r, ks_memcpy_dtoh(r->ctx, host, out, n * 4), "copy");
}

/* Both kernels on the same inputs; compares with ref (n values). */
static void compare(run *r, const char *what, ks_kernel *ks, ks_kernel *kg,
                    ks_dim3 grid, ks_dim3 blk, void **args, ks_devptr out,
                    size_t n, const double *ref, const double *mag) {
  float *a = malloc(n * 4), *b = malloc(n * 4);
  int bad = !a || !b || launch(r, ks, grid, blk, args, out, a, n) ||
            launch(r, kg, grid, blk, args, out, b, n);
  size_t wrong = 0, differ = 0;
  for (size_t i = 0; !bad && i < n; i++) {
    if (!(fabs(a[i] - ref[i]) <= 1e-5 * mag[i] + 1e-6) && wrong++ < 3)
      printf("  %s: [%zu] = %g, want %g\n", what, i, a[i], ref[i]);
    differ += memcmp(&a[i], &b[i], 4) != 0;
  }
  int staged = strstr(ks_kernel_explain(ks), "smem_promote: staged") != NULL;
  bad |= wrong || differ;
  printf("%s %s: staged %d, %zu wrong, %zu differ from generic\n",
         bad ? "FAIL" : "ok  ", what, staged, wrong, differ);
  r->failures += bad;
  r->staged += staged;
  r->cases++;
  free(a);
  free(b);
}

static void conv(run *r, ks_template *t, int F, unsigned B, int n) {
  size_t nx = (size_t)n + F - 1;
  float *x = malloc(nx * 4), *f = malloc((size_t)F * 4);
  double *ref = malloc((size_t)n * 8), *mag = malloc((size_t)n * 8);
  ks_devptr dx = 0, df = 0, dy = 0;
  char what[96];
  snprintf(what, sizeof what, "conv1d FILTER_LEN=%d block %u n=%d", F, B, n);
  for (size_t i = 0; i < nx; i++)
    x[i] = frand(r);
  for (int i = 0; i < F; i++)
    f[i] = frand(r);
  for (int i = 0; i < n; i++) {
    ref[i] = mag[i] = 0;
    for (int k = 0; k < F; k++) {
      ref[i] += (double)x[i + k] * f[k];
      mag[i] += fabs((double)x[i + k] * f[k]);
    }
  }
  ks_kernel *ks = spec(r, t, "FILTER_LEN", F, B, 1, "f", f, F),
            *kg = spec(r, t, 0, 0, 0, 0, NULL, NULL, 0);
  if (ks && kg && !check(r, ks_mem_alloc(r->ctx, nx * 4, &dx), "alloc") &&
      !check(r, ks_mem_alloc(r->ctx, (size_t)F * 4, &df), "alloc") &&
      !check(r, ks_mem_alloc(r->ctx, (size_t)n * 4, &dy), "alloc") &&
      !check(r, ks_memcpy_htod(r->ctx, dx, x, nx * 4), "copy") &&
      !check(r, ks_memcpy_htod(r->ctx, df, f, (size_t)F * 4), "copy")) {
    void *args[] = {&dx, &df, &dy, &n, &F};
    ks_dim3 grid = {(unsigned)((n + B - 1) / B), 1, 1}, blk = {B, 1, 1};
    compare(r, what, ks, kg, grid, blk, args, dy, (size_t)n, ref, mag);
  }
  ks_mem_free(r->ctx, dx);
  ks_mem_free(r->ctx, df);
  ks_mem_free(r->ctx, dy);
  free(x);
  free(f);
  free(ref);
  free(mag);
}

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static void sep(run *r, ks_template *t, int cols, int R, unsigned bx,
                unsigned by, int w, int h) {
  size_t n = (size_t)w * h;
  int nc = 2 * R + 1;
  float *in = malloc(n * 4), *c = malloc((size_t)nc * 4);
  double *ref = malloc(n * 8), *mag = malloc(n * 8);
  ks_devptr di = 0, dc = 0, dout = 0;
  char what[128];
  snprintf(what, sizeof what, "sepfilter_%s RADIUS=%d block %ux%u image %dx%d",
           cols ? "cols" : "rows", R, bx, by, w, h);
  for (size_t i = 0; i < n; i++)
    in[i] = frand(r);
  for (int i = 0; i < nc; i++)
    c[i] = frand(r);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double s = 0, m = 0;
      for (int k = -R; k <= R; k++) {
        float v = cols ? in[(size_t)clampi(y + k, 0, h - 1) * w + x]
                       : in[(size_t)y * w + clampi(x + k, 0, w - 1)];
        s += (double)v * c[k + R];
        m += fabs((double)v * c[k + R]);
      }
      ref[(size_t)y * w + x] = s;
      mag[(size_t)y * w + x] = m;
    }
  ks_kernel *ks = spec(r, t, "RADIUS", R, bx, by, "c", c, nc),
            *kg = spec(r, t, 0, 0, 0, 0, NULL, NULL, 0);
  if (ks && kg && !check(r, ks_mem_alloc(r->ctx, n * 4, &di), "alloc") &&
      !check(r, ks_mem_alloc(r->ctx, (size_t)nc * 4, &dc), "alloc") &&
      !check(r, ks_mem_alloc(r->ctx, n * 4, &dout), "alloc") &&
      !check(r, ks_memcpy_htod(r->ctx, di, in, n * 4), "copy") &&
      !check(r, ks_memcpy_htod(r->ctx, dc, c, (size_t)nc * 4), "copy")) {
    void *args[] = {&di, &dc, &dout, &w, &h, &R};
    ks_dim3 grid = {(w + bx - 1) / bx, (h + by - 1) / by, 1};
    ks_dim3 blk = {bx, by, 1};
    compare(r, what, ks, kg, grid, blk, args, dout, n, ref, mag);
  }
  ks_mem_free(r->ctx, di);
  ks_mem_free(r->ctx, dc);
  ks_mem_free(r->ctx, dout);
  free(in);
  free(c);
  free(ref);
  free(mag);
}

int main(void) {
  run r = {.rng = 88172645463325252ull};
  const char *seed = getenv("KSPEC_TEST_SEED");
  if (seed && *seed)
    r.rng ^= strtoull(seed, NULL, 0) * 0x9e3779b97f4a7c15ull;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(NULL, &r.ctx, &dev, &s))
    return KS_TEST_SKIP;
  ks_template *tc = NULL, *tr = NULL, *tl = NULL;
  if (check(&r, s, "device") ||
      check(&r, ks_template_load(r.ctx, "conv1d", &tc), "load") ||
      check(&r, ks_template_load(r.ctx, "sepfilter_rows", &tr), "load") ||
      check(&r, ks_template_load(r.ctx, "sepfilter_cols", &tl), "load"))
    return 1;
  static const int fl[] = {1, 2, 7, 32, 33, 128};
  static const unsigned blocks[] = {32, 64, 100, 256, 1024};
  static const int sizes[] = {1, 31, 1000, 100003, 1000003};
  for (int fi = 0; fi < 6; fi++)
    for (int bi = 0; bi < 5; bi++)
      for (int ni = 0; ni < 5; ni++)
        if (sizes[ni] < 100000 || blocks[bi] == 256 || fl[fi] == 32)
          conv(&r, tc, fl[fi], blocks[bi], sizes[ni]);
  static const int radii[] = {1, 3, 8, 32};
  static const unsigned shapes[][2] = {{32, 8}, {16, 16}, {8, 32},  {64, 4},
                                       {24, 5}, {1, 64},  {128, 1}, {33, 3}};
  static const int images[][2] = {{1001, 1001}, {333, 333}, {1, 1000},
                                  {1000, 1},    {17, 5},    {64, 64}};
  for (int cols = 0; cols < 2; cols++)
    for (int ri = 0; ri < 4; ri++)
      for (int si = 0; si < 8; si++)
        for (int ii = 0; ii < 6; ii++)
          sep(&r, cols ? tl : tr, cols, radii[ri], shapes[si][0], shapes[si][1],
              images[ii][0], images[ii][1]);
  printf("%d cases, %d staged, %d failed\n", r.cases, r.staged, r.failures);
  ks_template_destroy(tc);
  ks_template_destroy(tr);
  ks_template_destroy(tl);
  ks_ctx_destroy(r.ctx);
  return r.failures != 0;
}
