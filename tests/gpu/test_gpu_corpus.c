/*
 * test_gpu_corpus.c - the kernel corpus on the GPU (issue 31 item 8): every
 * MANIFEST case (tests/kernels/MANIFEST) runs three ways on identical
 * inputs from a fixed seed: the cubin nvcc made of the same .cu (the
 * judge), kspec's generic kernel (clang-19's bitcode, only its block
 * given) and kspec's specialized kernel (its block and the scalars bind=
 * names bound). Outputs are poisoned (0xFF bytes) before each run and
 * compared after: integers exactly, floats within the case's tol. Then the
 * three are timed side by side (median of reps launches, interleaved) and
 * a table is printed: times, ratios, the passes that fired, a geomean.
 *
 *   test_gpu_corpus [--list] [--check] [--manifest FILE] [--dir DIR] [CASE..]
 *
 *   --list   parse MANIFEST, set up each case's host inputs and print the
 *            cases (no driver needed: the CPU dry run)
 *   --check  one run each, no timing (for compute-sanitizer)
 *   --dir    where NAME.bc and NAME.cubin are (default: the build's)
 *   CASE     only these cases
 *
 * The nvcc cubin is loaded through the driver API (libcuda.so.1, dlopen)
 * in the primary context, the one kspec uses. Exit: 0 all matched, 1 a
 * mismatch or error, 77 no driver or device.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* types only: libcuda.so.1 is opened at run time */

#include "corpus_run.h"
#include "gpu_open.h"
#include "kspec.h"
#include "manifest.h"

#ifndef KS_CORPUS_BUILD_DIR
#define KS_CORPUS_BUILD_DIR "."
#endif
#ifndef KS_CORPUS_MANIFEST
#define KS_CORPUS_MANIFEST "MANIFEST"
#endif

/* A row of the table. */
typedef struct row {
  const char *name;
  float ms[CR_VARIANTS];
  char fired[256];
  int ok;
} row;

static int wanted(int argc, char **argv, int first, const char *name) {
  if (first >= argc)
    return 1;
  for (int i = first; i < argc; i++)
    if (!strcmp(argv[i], name))
      return 1;
  return 0;
}

/* The dry run: every case's host side set up, described. */
static int list_cases(const km_case *c, size_t n, int argc, char **argv,
                      int first) {
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (!wanted(argc, argv, first, c[i].name))
      continue;
    cr_host h;
    char err[256];
    if (cr_host_setup(&c[i], &h, 1, err, sizeof err)) {
      printf("FAIL %s: %s\n", c[i].name, err);
      rc = 1;
      continue;
    }
    printf("%-20s %-28s grid %s%ux%ux%u block %ux%ux%u smem %u%s bind=%s "
           "args %zu globals %zu, %.1f MiB\n",
           c[i].name, c[i].kernel, c[i].grid_coresident ? "coresident " : "",
           c[i].grid[0], c[i].grid[1], c[i].grid[2], c[i].block[0],
           c[i].block[1], c[i].block[2], c[i].smem, c[i].coop ? " coop" : "",
           c[i].bind, c[i].nargs, c[i].nglobals,
           (double)h.bytes / (1024.0 * 1024.0));
    cr_host_free(&h);
  }
  return rc;
}

static double median(float *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      float x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Times the three variants of a set-up case, interleaved, into r->ms. */
static int time_case(cr_run *x, int reps, row *r) {
  float *t = calloc((size_t)reps * CR_VARIANTS, sizeof *t);
  if (!t)
    return -1;
  int rc = 0;
  for (int i = 0; i < reps && !rc; i++)
    for (int v = 0; v < CR_VARIANTS && !rc; v++)
      rc = cr_launch_timed(x, v, &t[(size_t)v * reps + i]);
  for (int v = 0; v < CR_VARIANTS && !rc; v++)
    r->ms[v] = (float)median(&t[(size_t)v * reps], reps);
  free(t);
  return rc;
}

/* The registers and local memory of the generic and the specialized
 * kernel as the driver loaded them (through its linker where the disk
 * cache is on, as in this run: figures ptxas alone may not give). */
static void print_loaded(cr_run *x) {
  ks_kernel_resources r[2] = {{.size = sizeof r[0]}, {.size = sizeof r[1]}};
  for (int i = 0; i < 2; i++)
    if (ks_kernel_resources_get(x->k[i ? CR_SPEC : CR_GENERIC], KS_RES_DRIVER,
                                &r[i]) != KS_OK)
      return;
  printf("     loaded: registers %d/%d, local %d/%d B (generic/specialized)\n",
         r[0].regs, r[1].regs, r[0].stack_frame, r[1].stack_frame);
}

static void print_table(const row *rows, size_t n) {
  printf("\n| case | nvcc ms | generic ms | specialized ms | generic/nvcc | "
         "spec/nvcc | spec/generic | passes that fired |\n"
         "|---|---:|---:|---:|---:|---:|---:|---|\n");
  double lg[3] = {0, 0, 0};
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const float *ms = rows[i].ms;
    if (!rows[i].ok) {
      printf("| %s | | | | | | | not compared: see above |\n", rows[i].name);
      continue;
    }
    double a = ms[1] / ms[0], b = ms[2] / ms[0], c = ms[2] / ms[1];
    printf("| %s | %.4f | %.4f | %.4f | %.3f | %.3f | %.3f | %s |\n",
           rows[i].name, ms[0], ms[1], ms[2], a, b, c, rows[i].fired);
    if (a > 0 && b > 0 && c > 0) {
      lg[0] += log(a), lg[1] += log(b), lg[2] += log(c);
      m++;
    }
  }
  if (m)
    printf("| geomean (%zu cases) | | | | %.3f | %.3f | %.3f | |\n", m,
           exp(lg[0] / m), exp(lg[1] / m), exp(lg[2] / m));
}

int main(int argc, char **argv) {
  const char *manifest = KS_CORPUS_MANIFEST, *dir = KS_CORPUS_BUILD_DIR;
  int list = 0, check_only = 0, first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--list"))
      list = 1;
    else if (!strcmp(argv[first], "--check"))
      check_only = 1;
    else if (!strcmp(argv[first], "--manifest") && first + 1 < argc)
      manifest = argv[++first];
    else if (!strcmp(argv[first], "--dir") && first + 1 < argc)
      dir = argv[++first];
    else {
      fprintf(stderr, "usage: test_gpu_corpus [--list] [--check] [--manifest "
                      "FILE] [--dir DIR] [CASE...]\n");
      return 2;
    }
  }
  km_case *cases = NULL;
  size_t n = 0;
  char err[512];
  if (km_load(manifest, &cases, &n, err, sizeof err)) {
    printf("FAIL %s\n", err);
    return 1;
  }
  if (list) {
    int rc = list_cases(cases, n, argc, argv, first);
    free(cases);
    return rc;
  }
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(NULL, &ctx, &dev, &s)) {
    free(cases);
    return KS_TEST_SKIP;
  }
  cr_gpu g;
  if (s != KS_OK || cr_gpu_open(&g, ctx, err, sizeof err)) {
    printf("FAIL device: %s\n", s != KS_OK ? ks_errmsg(ctx) : err);
    return 1;
  }
  printf("%s, driver %d; corpus in %s\n", dev.name, dev.driver_version, dir);
  row *rows = calloc(n, sizeof *rows);
  size_t nrows = 0;
  int bad = 0;
  for (size_t i = 0; i < n && rows; i++) {
    if (!wanted(argc, argv, first, cases[i].name))
      continue;
    row *r = &rows[nrows++];
    r->name = cases[i].name;
    cr_run x;
    int st = cr_setup(&g, dir, &cases[i], &x, err, sizeof err);
    if (st > 0) {
      printf("skip %s: %s\n", cases[i].name, err);
      continue;
    }
    if (st == 0)
      st = cr_compare(&x, err, sizeof err);
    if (st == 0 && !check_only)
      st = time_case(&x, cases[i].reps ? cases[i].reps : 20, r) ? -1 : 0;
    if (st == 0) {
      r->ok = 1;
      cr_fired(&x, r->fired, sizeof r->fired);
      printf("ok   %s\n", cases[i].name);
      print_loaded(&x);
    } else {
      printf("FAIL %s: %s\n", cases[i].name, err[0] ? err : "timing");
      bad = 1;
    }
    cr_teardown(&x);
  }
  if (!check_only)
    print_table(rows, nrows);
  printf("%s\n", bad ? "FAILED" : "all matched");
  free(rows);
  free(cases);
  cr_gpu_close(&g);
  ks_ctx_destroy(ctx);
  return bad;
}
