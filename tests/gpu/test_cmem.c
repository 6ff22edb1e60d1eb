/*
 * test_cmem.c - constant copies on the GPU (const_promote, ks_launch):
 * conv1d's taps are read from a __constant__ copy that every launch fills
 * from the taps buffer first. Launches with different taps, back to back
 * on one stream and on two streams with no synchronization between them,
 * each get their own taps: the second launch's copy waits for the first
 * kernel. The first kernel is long (2^24 outputs) so that a copy that did
 * not wait would land while it runs. Every output is checked against the
 * CPU; outputs are poisoned before each round.
 *
 * Without a driver or a device: "skipped: ...", exit 77.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h> /* types only */

#include "gpu_open.h"
#include "kspec.h"

enum { TAPS = 32, N = 1 << 24, BLOCK = 256, ROUNDS = 4 };

/* the functions' own types: a call through another is undefined */
typedef CUresult (*stream_create_fn)(CUstream *, unsigned);
typedef CUresult (*stream_destroy_fn)(CUstream);

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_cmem: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

/* Max relative error of y against x (*) taps, over every output. */
static double check(const float *x, const float *taps, const float *y) {
  double worst = 0;
  for (size_t i = 0; i < N; i++) {
    double want = 0, mag = 0;
    for (int k = 0; k < TAPS; k++) {
      want += (double)x[i + k] * taps[k];
      mag += fabs((double)x[i + k] * taps[k]);
    }
    double e = fabs(y[i] - want) / (mag > 1e-30 ? mag : 1e-30);
    if (!(e <= worst)) /* NaN too */
      worst = isnan(e) ? INFINITY : e;
  }
  return worst;
}

int main(void) {
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(NULL, &ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK)
    return fail("device", ctx);
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  stream_create_fn stream_create =
      lib ? (stream_create_fn)dlsym(lib, "cuStreamCreate") : NULL;
  stream_destroy_fn stream_destroy =
      lib ? (stream_destroy_fn)dlsym(lib, "cuStreamDestroy_v2") : NULL;
  if (!stream_create || !stream_destroy)
    return fail("libcuda.so.1: no cuStreamCreate", NULL);

  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_kernel_info info = {.size = sizeof info};
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = TAPS};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
  if (ks_template_load(ctx, "conv1d", &t) != KS_OK ||
      ks_specialize(ctx, t, &req, &k) != KS_OK ||
      ks_kernel_info_get(k, &info) != KS_OK)
    return fail("conv1d", ctx);
  if (info.plan.const_copies != 1 ||
      info.plan.const_copy_bytes[0] != TAPS * 4) {
    fprintf(stderr, "test_cmem: conv1d has %u constant copies, want 1\n",
            info.plan.const_copies);
    return 1;
  }

  size_t nx = (size_t)N + TAPS - 1;
  float *x = malloc(nx * sizeof *x), *y = malloc((size_t)N * sizeof *y);
  float taps[2][TAPS];
  uint64_t r = (uint64_t)time(NULL) * 2654435761u + 1;
  printf("seed %llu\n", (unsigned long long)r);
  for (size_t i = 0; i < nx; i++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((r >> 40) % 2001) / 1000.0f - 1.0f;
  }
  for (int v = 0; v < 2; v++)
    for (int k2 = 0; k2 < TAPS; k2++)
      taps[v][k2] = v ? (float)(TAPS - k2) : 0.25f * (float)(k2 + 1);
  ks_devptr dx = 0, df[2] = {0}, dy[2] = {0};
  if (!x || !y || ks_mem_alloc(ctx, nx * sizeof *x, &dx) != KS_OK ||
      ks_mem_alloc(ctx, sizeof taps[0], &df[0]) != KS_OK ||
      ks_mem_alloc(ctx, sizeof taps[1], &df[1]) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)N * sizeof *y, &dy[0]) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)N * sizeof *y, &dy[1]) != KS_OK ||
      ks_memcpy_htod(ctx, dx, x, nx * sizeof *x) != KS_OK ||
      ks_memcpy_htod(ctx, df[0], taps[0], sizeof taps[0]) != KS_OK ||
      ks_memcpy_htod(ctx, df[1], taps[1], sizeof taps[1]) != KS_OK)
    return fail("memory", ctx);
  CUstream st[2] = {NULL, NULL};
  if (stream_create(&st[0], 0) || stream_create(&st[1], 0))
    return fail("cuStreamCreate", NULL);

  int n = N, len = TAPS, bad = 0;
  ks_dim3 grid = {(N + BLOCK - 1) / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
  /* round 0, 2: one stream; 1, 3: two streams */
  for (int round = 0; round < ROUNDS && !bad; round++) {
    for (int v = 0; v < 2; v++)
      if (ks_memset8(ctx, dy[v], 0xff, (size_t)N * sizeof *y) != KS_OK)
        return fail("poison", ctx);
    if (ks_synchronize(ctx) != KS_OK)
      return fail("synchronize", ctx);
    for (int v = 0; v < 2; v++) {
      void *args[] = {&dx, &df[v], &dy[v], &n, &len};
      void *stream = round % 2 ? st[v] : st[0];
      if (ks_launch(k, grid, block, 0, stream, args) != KS_OK)
        return fail("launch", ctx);
    }
    if (ks_synchronize(ctx) != KS_OK)
      return fail("synchronize", ctx);
    for (int v = 0; v < 2 && !bad; v++) {
      if (ks_memcpy_dtoh(ctx, y, dy[v], (size_t)N * sizeof *y) != KS_OK)
        return fail("copy back", ctx);
      double e = check(x, taps[v], y);
      printf("round %d (%s), taps %d: max relative error %.2e\n", round,
             round % 2 ? "two streams" : "one stream", v, e);
      bad = !(e < 1e-5);
    }
  }
  stream_destroy(st[0]);
  stream_destroy(st[1]);
  ks_mem_free(ctx, dx);
  for (int v = 0; v < 2; v++) {
    ks_mem_free(ctx, df[v]);
    ks_mem_free(ctx, dy[v]);
  }
  free(x);
  free(y);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  dlclose(lib);
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
