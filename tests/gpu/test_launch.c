/*
 * test_launch.c - launches a real kernel needs, on the GPU, with
 * tests/data/launch.ll's kernels (source: tests/data/launch.cu):
 *
 *  - gridsync_sum: a reduction whose blocks meet at a grid-wide barrier
 *    (a counter in global memory), launched cooperatively with the largest
 *    co-resident grid ks_kernel_max_coresident_grid gives, generic and
 *    specialized for its block, three times each (a fresh counter each
 *    time); the sum must equal the CPU's exactly. One block more than the
 *    maximum must be refused (KS_EBOUNDS), never hang.
 *  - smem_reverse: 100 KiB of dynamic shared memory per block (over the
 *    48 KiB default: the kernel's attribute is raised by the launch),
 *    through ks_launch_ex and ks_launch; every output checked.
 *
 *   test_gpu_launch [PATH/TO/launch.ll]
 *
 * (default: tests/data/launch.ll, from the repository's root).
 * Without a driver or a device: "skipped: ...", exit 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_open.h"
#include "kspec.h"

enum {
  BLOCK = 256,
  SUM_N = (1 << 22) + 37,
  SMEM_N = 25600, /* ints: 100 KiB */
  SMEM_BLOCKS = 264,
  RUNS = 3,
};

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_launch: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

static uint64_t next_rand(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

/* x[i] in [-1000, 1000]. */
static void fill(int *x, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++)
    x[i] = (int)(next_rand(&seed) % 2001) - 1000;
}

static ks_status spec(ks_ctx *ctx, ks_template *t, const char *kernel,
                      unsigned block, ks_kernel **k) {
  ks_spec_req req = {.kernel = kernel,
                     .bounds.block = {block, block ? 1 : 0, block ? 1 : 0}};
  return ks_specialize(ctx, t, &req, k);
}

/* One cooperative run of gridsync_sum over x (on the device at dx) with
 * the largest co-resident grid; 0 when its sum is want. */
static int run_sum(ks_ctx *ctx, ks_kernel *k, ks_devptr dx, long long want,
                   const char *label) {
  unsigned most = 0;
  if (ks_kernel_max_coresident_grid(k, BLOCK, 0, &most) != KS_OK)
    return fail("max_coresident_grid", ctx);
  if (!most)
    return fail("no block of gridsync_sum fits", NULL);
  ks_devptr partial = 0, bar = 0, out = 0;
  int n = SUM_N, rc = 1;
  long long got = 0;
  if (ks_mem_alloc(ctx, most * sizeof(int), &partial) != KS_OK ||
      ks_mem_alloc(ctx, sizeof(unsigned), &bar) != KS_OK ||
      ks_mem_alloc(ctx, sizeof got, &out) != KS_OK) {
    fail("alloc", ctx);
    goto done;
  }
  void *args[] = {&dx, &n, &partial, &bar, &out};
  ks_launch_attrs a = {.cooperative = 1};
  for (int r = 0; r < RUNS; r++) {
    if (ks_memset8(ctx, bar, 0, sizeof(unsigned)) != KS_OK ||
        ks_memset8(ctx, out, 0xa5, sizeof got) != KS_OK ||
        ks_launch_ex(k, (ks_dim3){most, 1, 1}, (ks_dim3){BLOCK, 1, 1}, &a,
                     args) != KS_OK ||
        ks_synchronize(ctx) != KS_OK ||
        ks_memcpy_dtoh(ctx, &got, out, sizeof got) != KS_OK) {
      fail(label, ctx);
      goto done;
    }
    if (got != want) {
      fprintf(stderr, "test_launch: %s: run %d: sum %lld, want %lld\n", label,
              r, got, want);
      goto done;
    }
  }
  /* one block over: refused before the device sees it */
  if (ks_launch_ex(k, (ks_dim3){most + 1, 1, 1}, (ks_dim3){BLOCK, 1, 1}, &a,
                   args) != KS_EBOUNDS ||
      !strstr(ks_errmsg(ctx), "cooperative launch: grid of")) {
    fail("a grid over the co-resident maximum was not refused", ctx);
    goto done;
  }
  printf("%s: sum of %d ints over %u co-resident blocks of %d: ok\n", label,
         SUM_N, most, BLOCK);
  rc = 0;
done:
  ks_mem_free(ctx, partial);
  ks_mem_free(ctx, bar);
  ks_mem_free(ctx, out);
  return rc;
}

static int test_gridsync(ks_ctx *ctx, ks_template *t) {
  int *x = malloc(SUM_N * sizeof *x);
  ks_devptr dx = 0;
  long long want = 0;
  int rc = 1;
  if (!x)
    return fail("out of memory", NULL);
  fill(x, SUM_N, 0x5eed);
  for (int i = 0; i < SUM_N; i++)
    want += x[i];
  if (ks_mem_alloc(ctx, SUM_N * sizeof *x, &dx) != KS_OK ||
      ks_memcpy_htod(ctx, dx, x, SUM_N * sizeof *x) != KS_OK) {
    fail("input", ctx);
    goto done;
  }
  static const unsigned blocks[] = {0, BLOCK};
  for (int i = 0; i < 2; i++) {
    ks_kernel *k = NULL;
    if (spec(ctx, t, "gridsync_sum", blocks[i], &k) != KS_OK) {
      fail("specialize gridsync_sum", ctx);
      goto done;
    }
    if (run_sum(ctx, k, dx, want,
                blocks[i] ? "gridsync_sum, block 256"
                          : "gridsync_sum, generic"))
      goto done;
  }
  rc = 0;
done:
  ks_mem_free(ctx, dx);
  free(x);
  return rc;
}

/* out[b*n + i] == x[b*n + i] + x[b*n + n-1-i] everywhere. */
static int check_reverse(const int *x, const int *out, const char *label) {
  for (long b = 0; b < SMEM_BLOCKS; b++)
    for (long i = 0; i < SMEM_N; i++) {
      long at = b * SMEM_N + i;
      int want = x[at] + x[b * SMEM_N + SMEM_N - 1 - i];
      if (out[at] != want) {
        fprintf(stderr, "test_launch: %s: out[%ld] = %d, want %d\n", label, at,
                out[at], want);
        return 1;
      }
    }
  printf("%s: %d blocks with %zu bytes of dynamic shared memory: ok\n", label,
         SMEM_BLOCKS, SMEM_N * sizeof(int));
  return 0;
}

/* Launches smem_reverse (plain: ks_launch, else ks_launch_ex) with
 * outputs poisoned, and checks them. */
static int run_reverse(ks_ctx *ctx, ks_kernel *k, ks_devptr dx, ks_devptr dout,
                       const int *x, int *out, int plain, const char *label) {
  size_t bytes = (size_t)SMEM_BLOCKS * SMEM_N * sizeof *out;
  int n = SMEM_N;
  void *args[] = {&dx, &dout, &n};
  ks_dim3 grid = {SMEM_BLOCKS, 1, 1}, block = {BLOCK, 1, 1};
  ks_launch_attrs a = {.smem = SMEM_N * sizeof(int)};
  ks_status s = ks_memset8(ctx, dout, 0xa5, bytes);
  if (s == KS_OK)
    s = plain ? ks_launch(k, grid, block, a.smem, NULL, args)
              : ks_launch_ex(k, grid, block, &a, args);
  if (s == KS_OK)
    s = ks_synchronize(ctx);
  if (s == KS_OK)
    s = ks_memcpy_dtoh(ctx, out, dout, bytes);
  if (s != KS_OK)
    return fail(label, ctx);
  return check_reverse(x, out, label);
}

static int test_smem(ks_ctx *ctx, ks_template *t) {
  size_t count = (size_t)SMEM_BLOCKS * SMEM_N;
  int *x = malloc(count * sizeof *x), *out = malloc(count * sizeof *out);
  ks_devptr dx = 0, dout = 0;
  ks_kernel *gen = NULL, *fixed = NULL;
  int rc = 1, per_sm = 0;
  if (!x || !out) {
    fail("out of memory", NULL);
    goto done;
  }
  fill(x, count, 0xfeed);
  if (ks_mem_alloc(ctx, count * sizeof *x, &dx) != KS_OK ||
      ks_mem_alloc(ctx, count * sizeof *out, &dout) != KS_OK ||
      ks_memcpy_htod(ctx, dx, x, count * sizeof *x) != KS_OK ||
      spec(ctx, t, "smem_reverse", 0, &gen) != KS_OK ||
      spec(ctx, t, "smem_reverse", BLOCK, &fixed) != KS_OK) {
    fail("setup", ctx);
    goto done;
  }
  if (ks_kernel_max_active_blocks(fixed, BLOCK, SMEM_N * sizeof(int),
                                  &per_sm) != KS_OK ||
      per_sm < 1) {
    fail("no block with 100 KiB of dynamic shared memory fits", ctx);
    goto done;
  }
  rc = run_reverse(ctx, gen, dx, dout, x, out, 1, "smem_reverse, generic") ||
       run_reverse(ctx, fixed, dx, dout, x, out, 0, "smem_reverse, block 256");
done:
  ks_mem_free(ctx, dx);
  ks_mem_free(ctx, dout);
  free(x);
  free(out);
  return rc;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/data/launch.ll";
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(NULL, &ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK)
    return fail("open", ctx);
  if (!dev.cooperative_launch) {
    printf("skipped: %s takes no cooperative launch\n", dev.name);
    ks_ctx_destroy(ctx);
    return KS_TEST_SKIP;
  }
  int rc = ks_template_load(ctx, path, &t) != KS_OK ? fail(path, ctx) : 0;
  if (!rc)
    rc = test_gridsync(ctx, t);
  if (!rc)
    rc = test_smem(ctx, t);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}
