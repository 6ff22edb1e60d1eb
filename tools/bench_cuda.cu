/*
 * bench_cuda.cu - kspec against hand-written CUDA, on the GPU, in one run.
 *
 *   kspec-bench-cuda [--reps N] [--seed S] [--quick] [--only TEMPLATE]
 *
 * 1. Copy bandwidth: a 1 GiB device-to-device copy, bytes read + written,
 *    median of 20 event-timed copies.
 * 2. Per built-in template, on one workload (tools/workloads.c: random
 *    inputs, the CPU reference, the checker), side by side:
 *      kspec generic      nothing bound, the template's own launch
 *      kspec no passes    parameters and block bound, every optional pass
 *                         switched off (ks_spec_req.no_pass)
 *      kspec specialized  parameters and block bound, all passes
 *      hand               the best CUDA version written here
 *                         (bench_kernels.cuh), compiled by nvcc
 *      CUB                histogram only: cub::DeviceHistogram::HistogramEven
 *    Every variant is first checked against the CPU reference with its
 *    outputs poisoned, then timed: median of N launches, each between
 *    device events, after 3 warm-ups. Reported: ms, time over the hand
 *    version's, and the fraction of the copy bandwidth at the fewest bytes
 *    the kernel must move.
 * 3. Seed 000's tables (sections 9.1, 9.2) on the same workloads: conv1d by
 *    where its operands live, the histogram by global or shared atomics,
 *    as speed-ups over the first row.
 *
 * kspec launches through the driver API in the device's primary context;
 * the CUDA runtime here uses the same context, so buffers, the default
 * stream and the timing events are shared. Exit status: 0 when every
 * variant matched its reference, 1 otherwise (or without a device), 2 on
 * bad usage.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include "kspec.h"
#include "workloads.h"

#include "bench_kernels.cuh"

/* The blackscholes template itself, built by nvcc (its markings mean
 * nothing here; its math is CUDA's own expf, logf, sqrtf): the baseline of
 * kspec's build of the same source. */
#define KS_KERNEL extern "C" __global__
#define KS_PARAM(name, def, lo, hi)
#define KS_DOC(text)
#include "../templates/blackscholes.cu"

/* ---- small helpers --------------------------------------------------- */

static int die(const char *what, const char *msg) {
  fprintf(stderr, "kspec-bench-cuda: %s: %s\n", what, msg);
  return EXIT_FAILURE;
}

static ks_status cuda_status(cudaError_t e, const char *what, char *err,
                             size_t cap) {
  if (e == cudaSuccess)
    return KS_OK;
  snprintf(err, cap, "%s: %s (%s)", what, cudaGetErrorName(e),
           cudaGetErrorString(e));
  return KS_ELAUNCH;
}

/* The last launch's status. */
static ks_status launched(const char *what, char *err, size_t cap) {
  return cuda_status(cudaGetLastError(), what, err, cap);
}

template <class T> static T *dev(const ks_wl *w, const char *name) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(ks_wl_buffer(w, name)));
}

static unsigned blocks(size_t n, size_t per) {
  return static_cast<unsigned>((n + per - 1) / per);
}

static int cmp_float(const void *a, const void *b) {
  float x = *static_cast<const float *>(a), y = *static_cast<const float *>(b);
  return (x > y) - (x < y);
}

/* Blocks of `threads` resident on the whole device, for grid-stride
 * kernels. */
template <class K> static unsigned resident(K kernel, int threads, int sms) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                    0) != cudaSuccess ||
      per_sm < 1)
    per_sm = 1;
  return static_cast<unsigned>(per_sm * sms);
}

/* GB/s of a device-to-device copy of `bytes`, counting read + write. */
static int copy_bandwidth(size_t bytes, int reps, double *gbs) {
  void *a = NULL, *b = NULL;
  cudaEvent_t e0, e1;
  float ms[64];
  int n = reps < 64 ? reps : 64;
  if (cudaMalloc(&a, bytes) != cudaSuccess ||
      cudaMalloc(&b, bytes) != cudaSuccess ||
      cudaMemset(a, 0x5a, bytes) != cudaSuccess ||
      cudaEventCreate(&e0) != cudaSuccess ||
      cudaEventCreate(&e1) != cudaSuccess)
    return die("copy", cudaGetErrorString(cudaGetLastError()));
  for (int i = -2; i < n; i++) { /* two warm-ups */
    float t = 0;
    if (cudaEventRecord(e0, 0) != cudaSuccess ||
        cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0) !=
            cudaSuccess ||
        cudaEventRecord(e1, 0) != cudaSuccess ||
        cudaEventSynchronize(e1) != cudaSuccess ||
        cudaEventElapsedTime(&t, e0, e1) != cudaSuccess)
      return die("copy", cudaGetErrorString(cudaGetLastError()));
    if (i >= 0)
      ms[i] = t;
  }
  qsort(ms, static_cast<size_t>(n), sizeof *ms, cmp_float);
  double med = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  *gbs = 2.0 * static_cast<double>(bytes) / (med * 1e6);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return 0;
}

/* ---- runners: one launch of a variant on the workload's buffers -------- */

static int g_sms; /* multiprocessors, for grids of resident blocks */

static ks_status run_kspec(ks_wl *w, void *k, char *err, size_t cap) {
  return ks_wl_launch(w, static_cast<ks_kernel *>(k), err, cap);
}

enum { FL = 32, RADIUS = 8, BINS = 256, RED_BLOCK = 256, TR_TILE_K = 32 };

static ks_status run_conv_hand(ks_wl *w, void *, char *err, size_t cap) {
  int n = static_cast<int>(ks_wl_size(w));
  conv1d_hand<FL><<<blocks(n, conv_geom<FL>::out), CONV_THREADS>>>(
      dev<float>(w, "x"), dev<float>(w, "y"), n);
  return launched("conv1d_hand", err, cap);
}

static ks_status run_conv_global(ks_wl *w, void *, char *err, size_t cap) {
  int n = static_cast<int>(ks_wl_size(w));
  conv1d_global<FL><<<blocks(n, CONV_THREADS), CONV_THREADS>>>(
      dev<float>(w, "x"), dev<float>(w, "f"), dev<float>(w, "y"), n);
  return launched("conv1d_global", err, cap);
}

static ks_status run_conv_const(ks_wl *w, void *, char *err, size_t cap) {
  int n = static_cast<int>(ks_wl_size(w));
  conv1d_const<FL><<<blocks(n, CONV_THREADS), CONV_THREADS>>>(
      dev<float>(w, "x"), dev<float>(w, "y"), n);
  return launched("conv1d_const", err, cap);
}

static ks_status run_conv_ldg(ks_wl *w, void *, char *err, size_t cap) {
  int n = static_cast<int>(ks_wl_size(w));
  conv1d_ldg<FL><<<blocks(n, CONV_THREADS), CONV_THREADS>>>(
      dev<float>(w, "x"), dev<float>(w, "f"), dev<float>(w, "y"), n);
  return launched("conv1d_ldg", err, cap);
}

static ks_status run_conv_shared(ks_wl *w, void *, char *err, size_t cap) {
  int n = static_cast<int>(ks_wl_size(w));
  conv1d_shared<FL><<<blocks(n, CONV_THREADS), CONV_THREADS>>>(
      dev<float>(w, "x"), dev<float>(w, "y"), n);
  return launched("conv1d_shared", err, cap);
}

static ks_status run_rows_hand(ks_wl *w, void *, char *err, size_t cap) {
  int side = static_cast<int>(ks_wl_size(w));
  dim3 grid(blocks(side, ROWS_TILE), blocks(side, ROWS_BY));
  sep_rows_hand<RADIUS><<<grid, dim3(ROWS_BX, ROWS_BY)>>>(
      dev<float>(w, "in"), dev<float>(w, "out"), side, side);
  return launched("sep_rows_hand", err, cap);
}

static ks_status run_cols_hand(ks_wl *w, void *, char *err, size_t cap) {
  int side = static_cast<int>(ks_wl_size(w));
  dim3 grid(blocks(side, COLS_W), blocks(side, COLS_H));
  sep_cols_hand<RADIUS><<<grid, dim3(COLS_BX, COLS_BY)>>>(
      dev<float>(w, "in"), dev<float>(w, "out"), side, side);
  return launched("sep_cols_hand", err, cap);
}

static ks_status run_hist_hand(ks_wl *w, void *, char *err, size_t cap) {
  static unsigned grid; /* resident blocks, computed once */
  if (!grid)
    grid = resident(histogram_hand<BINS>, HIST_THREADS, g_sms);
  histogram_hand<BINS><<<grid, HIST_THREADS>>>(dev<unsigned char>(w, "data"),
                                               dev<unsigned>(w, "hist"),
                                               static_cast<int>(ks_wl_size(w)));
  return launched("histogram_hand", err, cap);
}

/* The seed table's histograms take the workload's own launch geometry. */
static ks_status run_hist_global(ks_wl *w, void *, char *err, size_t cap) {
  ks_dim3 g = ks_wl_grid(w), b = ks_wl_block(w);
  histogram_global<BINS><<<g.x, b.x>>>(dev<unsigned char>(w, "data"),
                                       dev<unsigned>(w, "hist"),
                                       static_cast<int>(ks_wl_size(w)));
  return launched("histogram_global", err, cap);
}

static ks_status run_hist_shared(ks_wl *w, void *, char *err, size_t cap) {
  ks_dim3 g = ks_wl_grid(w), b = ks_wl_block(w);
  histogram_shared<BINS><<<g.x, b.x>>>(dev<unsigned char>(w, "data"),
                                       dev<unsigned>(w, "hist"),
                                       static_cast<int>(ks_wl_size(w)));
  return launched("histogram_shared", err, cap);
}

/* CUB writes its histogram (the template accumulates into one): it goes to
 * `part`, and when `add` is set (the check) a one-block kernel adds it into
 * the workload's histogram. The timed runs call CUB alone. */
typedef struct cub_hist {
  void *tmp;
  size_t tmp_bytes;
  unsigned *part;
  int add;
} cub_hist;

static ks_status run_cub(ks_wl *w, void *user, char *err, size_t cap) {
  cub_hist *c = static_cast<cub_hist *>(user);
  cudaError_t e = cub::DeviceHistogram::HistogramEven(
      c->tmp, c->tmp_bytes, dev<unsigned char>(w, "data"), c->part, BINS + 1, 0,
      256, static_cast<int>(ks_wl_size(w)), 0);
  if (e != cudaSuccess)
    return cuda_status(e, "cub::DeviceHistogram::HistogramEven", err, cap);
  if (c->add)
    histogram_accumulate<<<1, 256>>>(dev<unsigned>(w, "hist"), c->part, BINS);
  return launched("cub::DeviceHistogram::HistogramEven", err, cap);
}

static ks_status run_reduce_hand(ks_wl *w, void *, char *err, size_t cap) {
  static unsigned grid;
  if (!grid)
    grid = resident(reduce_sum_hand, RED_THREADS, g_sms);
  reduce_sum_hand<<<grid, RED_THREADS>>>(dev<float>(w, "x"),
                                         dev<float>(w, "out"),
                                         static_cast<int>(ks_wl_size(w)));
  return launched("reduce_sum_hand", err, cap);
}

static ks_status run_transpose_hand(ks_wl *w, void *, char *err, size_t cap) {
  int side = static_cast<int>(ks_wl_size(w));
  dim3 grid(blocks(side, TR_TILE), blocks(side, TR_TILE));
  transpose_hand<<<grid, dim3(TR_TILE, TR_BY)>>>(
      dev<float>(w, "in"), dev<float>(w, "out"), side, side);
  return launched("transpose_hand", err, cap);
}

/* nvcc's build of templates/blackscholes.cu, at the template's defaults. */
static ks_status run_bs_nvcc(ks_wl *w, void *, char *err, size_t cap) {
  int n = static_cast<int>(ks_wl_size(w));
  blackscholes<<<blocks(n, 256), 256>>>(
      dev<float>(w, "call"), dev<float>(w, "put"), dev<float>(w, "S"),
      dev<float>(w, "X"), dev<float>(w, "T"), n, 0.02f, 0.3f);
  return launched("blackscholes (nvcc)", err, cap);
}

/* ---- the benchmark table ------------------------------------------------- */

typedef struct variant {
  const char *name;
  ks_wl_runner run;
} variant;

enum { MAX_SEED_ROWS = 4 };

/* One template: its size, the parameter value the hand kernels are
 * compiled for, the hand version, the seed table's rows. */
typedef struct bench {
  const char *name;
  size_t size;
  const char *param;
  int value;
  const char *taps; /* buffer copied into kb_taps, or NULL */
  int rows_mult4;   /* the hand kernel needs rows of whole float4s */
  ks_wl_runner hand;
  variant seed[MAX_SEED_ROWS];
} bench;

static const bench benches[] = {
    {"conv1d",
     (size_t)1 << 26,
     "FILTER_LEN",
     FL,
     "f",
     0,
     run_conv_hand,
     {{"default (global)", run_conv_global},
      {"constant taps", run_conv_const},
      {"read-only path (__ldg/restrict)", run_conv_ldg},
      {"shared staging", run_conv_shared}}},
    {"sepfilter_rows", 8192, "RADIUS", RADIUS, "c", 1, run_rows_hand, {}},
    {"sepfilter_cols", 8192, "RADIUS", RADIUS, "c", 1, run_cols_hand, {}},
    {"histogram",
     (size_t)1 << 30,
     "BINS",
     BINS,
     NULL,
     0,
     run_hist_hand,
     {{"global atomics", run_hist_global},
      {"shared atomics", run_hist_shared}}},
    {"reduce_sum",
     (size_t)1 << 26,
     "BLOCK",
     RED_BLOCK,
     NULL,
     0,
     run_reduce_hand,
     {}},
    {"transpose", 8192, "TILE", TR_TILE_K, NULL, 0, run_transpose_hand, {}},
    /* param NULL: every marked parameter at its default (two floats) */
    {"blackscholes", (size_t)1 << 26, NULL, 0, NULL, 0, run_bs_nvcc, {}},
};

typedef struct options {
  int reps;
  uint64_t seed;
  int quick;
  const char *only;
} options;

typedef struct result {
  const char *name;
  double ms; /* < 0: failed */
} result;

/* The optional passes, all switched off for the "no passes" variant. */
static const char *g_no_pass[32];
static size_t g_nno_pass;

static void collect_optional_passes(void) {
  for (size_t i = 0; i < ks_stage_count() && g_nno_pass < 32; i++)
    if (ks_stage_optional(i))
      g_no_pass[g_nno_pass++] = ks_stage_name(i);
}

/* kind 0: generic; 1: bound, no optional passes; 2: bound, all passes. */
static ks_status specialize(ks_ctx *ctx, const ks_template *t, ks_wl *w,
                            const ks_binding *b, size_t nb, int kind,
                            ks_kernel **k) {
  ks_spec_req req = {};
  if (kind > 0) {
    ks_dim3 blk = ks_wl_block(w);
    req.bindings = b;
    req.nbindings = nb;
    req.bounds.block[0] = blk.x;
    req.bounds.block[1] = blk.y;
    req.bounds.block[2] = blk.z;
  }
  if (kind == 1) {
    req.no_pass = g_no_pass;
    req.nno_pass = g_nno_pass;
  }
  return ks_specialize(ctx, t, &req, k);
}

/* Checks one variant against the CPU reference; 0 when it matches. */
static int check(const char *tname, const char *vname, ks_wl *w,
                 ks_wl_runner run, void *user) {
  char err[512] = "";
  if (ks_wl_check_run(w, run, user, err, sizeof err) == KS_OK)
    return 0;
  fprintf(stderr, "kspec-bench-cuda: %s, %s: CHECK FAILED: %s\n", tname, vname,
          err);
  return -1;
}

/* Times one variant. Slow variants (the global-atomics histograms take a
 * quarter of a second) get fewer repetitions, at least 5. Returns the
 * median ms, or -1 after printing why it failed. */
static double time_variant(const char *tname, const char *vname, ks_wl *w,
                           ks_wl_runner run, void *user, int reps) {
  char err[512] = "";
  double first = 0, ms = 0;
  if (ks_wl_time_run(w, run, user, 1, &first, err, sizeof err) != KS_OK) {
    fprintf(stderr, "kspec-bench-cuda: %s, %s: %s\n", tname, vname, err);
    return -1;
  }
  if (first * reps > 3000.0)
    reps = first * 5 > 3000.0 ? 5 : static_cast<int>(3000.0 / first);
  if (ks_wl_time_run(w, run, user, reps, &ms, err, sizeof err) != KS_OK) {
    fprintf(stderr, "kspec-bench-cuda: %s, %s: %s\n", tname, vname, err);
    return -1;
  }
  return ms;
}

/* Checks, then times; -1 when either fails. */
static double measure(const char *tname, const char *vname, ks_wl *w,
                      ks_wl_runner run, void *user, int reps) {
  if (check(tname, vname, w, run, user) != 0)
    return -1;
  return time_variant(tname, vname, w, run, user, reps);
}

static void print_row(const char *tname, const char *vname, double ms,
                      double hand_ms, double bytes, double gbs) {
  if (ms < 0) {
    printf("| %-15s | %-22s | FAIL | | |\n", tname, vname);
    return;
  }
  char ratio[32] = "";
  if (hand_ms > 0)
    snprintf(ratio, sizeof ratio, "%.2fx", ms / hand_ms);
  printf("| %-15s | %-22s | %9.4f | %7s | %5.1f%% |\n", tname, vname, ms, ratio,
         100.0 * bytes / (ms * 1e6) / gbs);
}

static void print_seed_table(const bench *bn, const result *r, size_t nr) {
  printf("\n%s (seed 000 %s), speed-up over the first row\n\n"
         "| variant | ms | speed-up |\n|---|---:|---:|\n",
         bn->name, strcmp(bn->name, "conv1d") == 0 ? "9.1" : "9.2.3");
  for (size_t i = 0; i < nr; i++) {
    if (r[i].ms < 0 || r[0].ms < 0)
      printf("| %s | %s | |\n", r[i].name, r[i].ms < 0 ? "FAIL" : "");
    else
      printf("| %s | %.4f | %.2fx |\n", r[i].name, r[i].ms, r[0].ms / r[i].ms);
  }
}

/* Copies the workload's taps into constant memory (not timed). */
static ks_status load_taps(const bench *bn, ks_wl *w, char *err, size_t cap) {
  if (!bn->taps)
    return KS_OK;
  size_t n = bn->value;
  if (strcmp(bn->name, "conv1d") != 0)
    n = 2 * n + 1;
  return cuda_status(cudaMemcpyToSymbol(kb_taps, dev<float>(w, bn->taps),
                                        n * sizeof(float), 0,
                                        cudaMemcpyDeviceToDevice),
                     "taps to constant memory", err, cap);
}

/* All variants of one template. The seed table's timings land in r. */
static int run_bench(ks_ctx *ctx, const bench *bn, const options *o, double gbs,
                     result *seed, size_t *nseed) {
  ks_template *t = NULL;
  ks_wl *w = NULL;
  ks_kernel *k[3] = {NULL, NULL, NULL};
  static const char *const kname[3] = {"kspec generic", "kspec no passes",
                                       "kspec specialized"};
  ks_binding b[4] = {};
  size_t nb = 1;
  char err[512] = "";
  int bad = 1;
  size_t size = o->quick ? bn->size / 16 : bn->size;
  b[0].name = bn->param;
  b[0].kind = KS_VALUE_INT;
  b[0].v.i = bn->value;
  if (ks_template_load(ctx, bn->name, &t) != KS_OK) {
    die(bn->name, ks_errmsg(ctx));
    goto out;
  }
  if (!bn->param) /* the marked parameters at their defaults */
    for (nb = 0; nb < 4 && nb < ks_template_param_count(t, 0); nb++) {
      ks_param_info p = {};
      p.size = sizeof p;
      if (ks_template_param(t, 0, nb, &p) != KS_OK || !p.marked)
        break;
      b[nb].name = p.name;
      b[nb].kind = KS_VALUE_REAL;
      b[nb].v.f = p.def;
    }
  if (ks_wl_create(ctx, t, NULL, size, b, nb, 0, o->seed, &w, err,
                   sizeof err) != KS_OK) {
    die(bn->name, err);
    goto out;
  }
  if (bn->rows_mult4 && size % 4) {
    die(bn->name, "the hand kernel needs a side that is a multiple of 4");
    goto out;
  }
  for (int i = 0; i < 3; i++)
    if (specialize(ctx, t, w, b, nb, i, &k[i]) != KS_OK) {
      die(bn->name, ks_errmsg(ctx));
      goto out;
    }
  if (load_taps(bn, w, err, sizeof err) != KS_OK) {
    die(bn->name, err);
    goto out;
  }
  {
    double bytes = ks_wl_bytes(w), ms[5];
    const char *vn[5] = {kname[0], kname[1], kname[2],
                         bn->param ? "hand (CUDA)" : "nvcc, same source",
                         "CUB HistogramEven"};
    int nv = 4;
    cub_hist cub = {};
    bad = 0;
    for (int i = 0; i < 3; i++)
      ms[i] = measure(bn->name, vn[i], w, run_kspec, k[i], o->reps);
    ms[3] = measure(bn->name, vn[3], w, bn->hand, NULL, o->reps);
    if (strcmp(bn->name, "histogram") == 0) {
      nv = 5;
      ms[4] = -1;
      if (cudaMalloc(&cub.part, BINS * sizeof(unsigned)) == cudaSuccess &&
          run_cub(w, &cub, err, sizeof err) == KS_OK && /* sizes tmp */
          cudaMalloc(&cub.tmp, cub.tmp_bytes) == cudaSuccess) {
        cub.add = 1; /* checked with the add, timed without */
        if (check(bn->name, vn[4], w, run_cub, &cub) == 0) {
          cub.add = 0;
          ms[4] = time_variant(bn->name, vn[4], w, run_cub, &cub, o->reps);
        }
      } else {
        fprintf(stderr, "kspec-bench-cuda: CUB set-up: %s\n",
                err[0] ? err : cudaGetErrorString(cudaGetLastError()));
      }
      cudaFree(cub.tmp);
      cudaFree(cub.part);
    }
    for (int i = 0; i < nv; i++) {
      print_row(i ? "" : bn->name, vn[i], ms[i], ms[3], bytes, gbs);
      bad |= ms[i] < 0;
    }
    printf("| %-15s | %-22s | | | |\n", "", ks_wl_describe(w));
    fflush(stdout);
    for (*nseed = 0; *nseed < MAX_SEED_ROWS && bn->seed[*nseed].name;
         ++*nseed) {
      const variant *v = &bn->seed[*nseed];
      seed[*nseed].name = v->name;
      seed[*nseed].ms = measure(bn->name, v->name, w, v->run, NULL, o->reps);
      bad |= seed[*nseed].ms < 0;
    }
  }
out:
  ks_wl_destroy(w);
  ks_template_destroy(t);
  return bad;
}

/* ---- main ------------------------------------------------------------------
 */

static int usage(void) {
  fprintf(stderr, "usage: kspec-bench-cuda [--reps N] [--seed S] [--quick] "
                  "[--only TEMPLATE]\n");
  return 2;
}

static int parse(int argc, char **argv, options *o) {
  o->reps = 50;
  o->seed = static_cast<uint64_t>(time(NULL));
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      o->reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      o->seed = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--quick") == 0)
      o->quick = 1;
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      o->only = argv[++i];
    else
      return -1;
  }
  if (o->reps < 1 || o->reps > 1000)
    return -1;
  return 0;
}

/* The runtime's device 0 and its primary context first, then kspec's
 * context on the same device. */
static int open_device(ks_ctx **ctx, cudaDeviceProp *prop) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fprintf(stderr, "kspec-bench-cuda: no CUDA device (%s)\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return -1;
  }
  if ((e = cudaSetDevice(0)) != cudaSuccess || (e = cudaFree(0)) ||
      (e = cudaGetDeviceProperties(prop, 0)) != cudaSuccess)
    return die("device", cudaGetErrorString(e)), -1;
  if (ks_ctx_create(NULL, ctx) != KS_OK)
    return die("device", ks_errmsg(*ctx)), -1;
  return 0;
}

int main(int argc, char **argv) {
  options o = {};
  ks_ctx *ctx = NULL;
  cudaDeviceProp prop;
  double gbs = 0;
  int bad = 0, ran = 0;
  if (parse(argc, argv, &o) != 0)
    return usage();
  if (open_device(&ctx, &prop) != 0)
    return EXIT_FAILURE;
  g_sms = prop.multiProcessorCount;
  collect_optional_passes();
  if (copy_bandwidth(o.quick ? (size_t)1 << 26 : (size_t)1 << 30, 20, &gbs))
    return EXIT_FAILURE;
  printf("device: %s, %s, PTX ISA %u.%u, %d SMs, L2 %d MiB; copy bandwidth "
         "%.0f GB/s; seed %llu; median of %d\n",
         prop.name, ks_ctx_arch(ctx), ks_ctx_ptx_isa(ctx) / 10,
         ks_ctx_ptx_isa(ctx) % 10, g_sms, prop.l2CacheSize >> 20, gbs,
         static_cast<unsigned long long>(o.seed), o.reps);
  printf("kspec no passes: switched off:");
  for (size_t i = 0; i < g_nno_pass; i++)
    printf(" %s", g_no_pass[i]);
  printf("%s\n\n| template        | variant                | ms        | "
         "/ hand  | copy BW |\n|---|---|---:|---:|---:|\n",
         g_nno_pass ? "" : " (none: no optional pass)");
  result seed[sizeof benches / sizeof benches[0]][MAX_SEED_ROWS];
  size_t nseed[sizeof benches / sizeof benches[0]] = {};
  for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++) {
    if (o.only && strcmp(o.only, benches[i].name) != 0)
      continue;
    ran = 1;
    bad |= run_bench(ctx, &benches[i], &o, gbs, seed[i], &nseed[i]);
  }
  for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
    if (nseed[i])
      print_seed_table(&benches[i], seed[i], nseed[i]);
  ks_ctx_destroy(ctx);
  if (!ran)
    return die(o.only, "no such template"), usage();
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
