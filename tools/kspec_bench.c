/*
 * kspec_bench.c - the benchmark behind BENCHMARKS.md (run on a GPU).
 *
 *   kspec-bench [--reps N] [--quick] [--fused]
 *   kspec-bench --latency
 *
 * 1. Copy bandwidth: a large device-to-device copy, bytes read + written.
 * 2. Per template: the generic kernel and the specialized one (default
 *    values, block folded) on the same inputs, both checked against the CPU
 *    reference first, then timed (median of N event-timed launches); time
 *    and fraction of the copy bandwidth.
 * 3. Specialization latency: median of many cold specializations (a fresh
 *    context each, so no cache; LLVM start-up excluded by a warm-up), and
 *    NVRTC compiling the same kernel as a C++ template in this process
 *    (nvrtc_kernels.h), cold and with NVRTC's own cache on; taken in
 *    rounds of one sample of each, every template's alike, so that a
 *    slow moment of the host falls on all of them.
 *
 * --fused: in place of 2. and 3., sepfilter_fused (one cooperative kernel:
 * rows, grid barrier, columns) against sepfilter_rows + sepfilter_cols,
 * generic and specialized, over image sides and radii: times, ratios and
 * fractions of the copy bandwidth (BENCHMARKS.md).
 *
 * --latency: the latency table of conv1d FILTER_LEN=32, block 256: cold
 * (template load -> loaded function), a fresh process from the disk cache
 * (a child per sample: template load without parsing, ks_specialize from
 * the disk, ks_kernel_load from the cached cubin, their total, and apart
 * the context's creation with the driver's start), an in-memory hit of
 * ks_specialize, and NVRTC. Without a GPU it prints the rows that need
 * none (without loading) and exits 1.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <nvrtc.h>

#include "kspec.h"
#include "nvrtc_kernels.h"
#include "workloads.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int die(const char *what, const char *msg) {
  fprintf(stderr, "kspec-bench: %s: %s\n", what, msg);
  return EXIT_FAILURE;
}

/* GB/s of a device-to-device copy of `bytes`, counting read + write. */
static int copy_bandwidth(ks_ctx *ctx, size_t bytes, int reps, double *gbs) {
  ks_devptr a = 0, b = 0;
  double t[64];
  if (ks_mem_alloc(ctx, bytes, &a) != KS_OK ||
      ks_mem_alloc(ctx, bytes, &b) != KS_OK ||
      ks_memset8(ctx, a, 0x5a, bytes) != KS_OK)
    return die("copy", ks_errmsg(ctx));
  for (int i = 0; i < reps + 2 && i < 64; i++) {
    float ms = 0;
    if (ks_timer_start(ctx) != KS_OK ||
        ks_memcpy_dtod(ctx, b, a, bytes) != KS_OK ||
        ks_timer_stop(ctx, &ms) != KS_OK)
      return die("copy", ks_errmsg(ctx));
    t[i] = ms;
  }
  int n = reps < 62 ? reps : 62;
  *gbs = 2.0 * bytes / (median(t + 2, n) * 1e6);
  ks_mem_free(ctx, a);
  ks_mem_free(ctx, b);
  return 0;
}

/* Binds every parameter of kernel 0 to its default; returns how many. */
static size_t default_bindings(const ks_template *t, ks_binding *b,
                               size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < ks_template_param_count(t, 0) && n < cap; i++) {
    ks_param_info p = {.size = sizeof p};
    ks_template_param(t, 0, i, &p);
    if (p.marked) /* the others have no default */
      b[n++] =
          (ks_binding){.name = p.name, .kind = KS_VALUE_REAL, .v.f = p.def};
  }
  return n;
}

static int spec_kernel(ks_ctx *ctx, ks_template *t, ks_wl *w, int generic,
                       ks_kernel **k) {
  ks_spec_req req = {0};
  ks_binding b[8];
  size_t nb = 0;
  if (!generic) {
    nb = default_bindings(t, b, 8);
    ks_dim3 blk = ks_wl_block(w);
    req.bounds.block[0] = blk.x;
    req.bounds.block[1] = blk.y;
    req.bounds.block[2] = blk.z;
  }
  req.bindings = b;
  req.nbindings = nb;
  return ks_specialize(ctx, t, &req, k) != KS_OK;
}

/* Times generic vs specialized for one template; prints a table row. */
static int bench_template(ks_ctx *ctx, const char *name, size_t size, int reps,
                          double copy_gbs) {
  ks_template *t = NULL;
  ks_wl *w = NULL;
  ks_kernel *kg = NULL, *ks = NULL;
  char err[512];
  double tg = 0, tsp = 0;
  int rc = 1;
  if (ks_template_load(ctx, name, &t) != KS_OK) {
    rc = die(name, ks_errmsg(ctx));
    goto out;
  }
  if (ks_wl_create(ctx, t, NULL, size, NULL, 0, 0, 12345, &w, err,
                   sizeof err) != KS_OK) {
    rc = die(name, err);
    goto out;
  }
  if (spec_kernel(ctx, t, w, 1, &kg) || spec_kernel(ctx, t, w, 0, &ks)) {
    rc = die(name, ks_errmsg(ctx));
    goto out;
  }
  if (ks_wl_check(w, kg, err, sizeof err) != KS_OK ||
      ks_wl_check(w, ks, err, sizeof err) != KS_OK ||
      ks_wl_time(w, kg, reps, &tg, err, sizeof err) != KS_OK ||
      ks_wl_time(w, ks, reps, &tsp, err, sizeof err) != KS_OK) {
    rc = die(name, err);
    goto out;
  }
  double bytes = ks_wl_bytes(w);
  printf("| %-15s | %-28s | %8.4f | %8.4f | %5.2fx | %5.1f%% | %5.1f%% |\n",
         name, ks_wl_describe(w), tg, tsp, tg / tsp,
         100 * bytes / (tg * 1e6) / copy_gbs,
         100 * bytes / (tsp * 1e6) / copy_gbs);
  rc = 0;
out:
  ks_wl_destroy(w);
  ks_template_destroy(t);
  return rc;
}

/* ---- --fused: one cooperative kernel against two passes ----------------- */

/* t with RADIUS = radius and the workload's block bound (generic: none). */
static int fused_spec(ks_ctx *ctx, ks_template *t, const ks_wl *w, long radius,
                      int generic, ks_kernel **k) {
  ks_binding b = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = radius};
  ks_spec_req req = {.bindings = &b, .nbindings = generic ? 0 : 1};
  if (!generic) {
    ks_dim3 blk = ks_wl_block(w);
    req.bounds.block[0] = blk.x;
    req.bounds.block[1] = blk.y;
    req.bounds.block[2] = blk.z;
  }
  return ks_specialize(ctx, t, &req, k) != KS_OK
             ? die(ks_template_name(t), ks_errmsg(ctx))
             : 0;
}

/* One row: the two passes and the fused kernel, generic and specialized,
 * each checked against the CPU reference, then timed (median of reps). */
static int fused_row(ks_ctx *ctx, ks_template *const tpl[3], size_t side,
                     long radius, int reps, double copy_gbs) {
  ks_binding v = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = radius};
  ks_wl *w = NULL;
  char err[512];
  double ms[4] = {0}; /* two-pass generic, specialized; fused the same */
  int bad = 0;
  if (ks_wl_create(ctx, tpl[0], NULL, side, &v, 1, 0, 12345, &w, err,
                   sizeof err) != KS_OK)
    return die("sepfilter_fused", err);
  ks_dim3 grid = {0, 0, 0};
  for (int g = 1; g >= 0 && !bad; g--) {
    ks_kernel *kf = NULL, *kp[2] = {NULL, NULL};
    bad = fused_spec(ctx, tpl[0], w, radius, g, &kf) ||
          fused_spec(ctx, tpl[1], w, radius, g, &kp[0]) ||
          fused_spec(ctx, tpl[2], w, radius, g, &kp[1]);
    if (!bad &&
        (ks_wl_check_run(w, ks_wl_two_pass, kp, err, sizeof err) != KS_OK ||
         ks_wl_check(w, kf, err, sizeof err) != KS_OK ||
         ks_wl_time_run(w, ks_wl_two_pass, kp, reps, &ms[1 - g], err,
                        sizeof err) != KS_OK ||
         ks_wl_time(w, kf, reps, &ms[3 - g], err, sizeof err) != KS_OK))
      bad = die("sepfilter_fused", err);
    if (!g)
      grid = ks_wl_grid(w);
  }
  if (!bad) {
    double bytes = ks_wl_bytes(w); /* the same for both: in, tmp twice, out */
    printf("| %5zu^2 | %2ld | %8.4f | %8.4f | %8.4f | %8.4f | %5ux%-4u | "
           "%5.2fx | %5.2fx | %5.1f%% | %5.1f%% |\n",
           side, radius, ms[0], ms[1], ms[2], ms[3], grid.x, grid.y,
           ms[0] / ms[2], ms[1] / ms[3], 100 * bytes / (ms[1] * 1e6) / copy_gbs,
           100 * bytes / (ms[3] * 1e6) / copy_gbs);
  }
  ks_wl_destroy(w);
  return bad;
}

/* The table for BENCHMARKS.md: sides 512 .. 8192 (quick: 512 .. 2048),
 * RADIUS 3 and 8, block 32 x 8. */
static int fused_table(ks_ctx *ctx, int reps, int quick, double copy_gbs) {
  static const char *const names[3] = {"sepfilter_fused", "sepfilter_rows",
                                       "sepfilter_cols"};
  ks_template *tpl[3] = {NULL, NULL, NULL};
  int bad = 0;
  for (int i = 0; i < 3 && !bad; i++)
    if (ks_template_load(ctx, names[i], &tpl[i]) != KS_OK)
      bad = die(names[i], ks_errmsg(ctx));
  printf("sepfilter_fused (rows, grid barrier, columns: one cooperative "
         "launch on at most the co-resident grid, each thread striding) "
         "against sepfilter_rows + sepfilter_cols (two launches over the "
         "whole image), block 32 x 8, median of %d runs (the two passes "
         "timed together); bandwidth: in read, tmp written and read, out "
         "written (16 bytes a pixel, both ways), as a fraction of the "
         "copy's\n\n"
         "| image | RADIUS | two-pass generic ms | two-pass spec. ms | "
         "fused generic ms | fused spec. ms | fused grid | two-pass / fused "
         "(generic) | two-pass / fused (spec.) | two-pass spec. BW | fused "
         "spec. BW |\n|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n",
         reps);
  static const size_t sides[] = {512, 1024, 2048, 4096, 8192};
  static const long radii[] = {3, 8};
  size_t nsides = quick ? 3 : sizeof sides / sizeof *sides;
  for (size_t i = 0; i < nsides && !bad; i++)
    for (size_t j = 0; j < 2 && !bad; j++)
      bad = fused_row(ctx, tpl, sides[i], radii[j], reps, copy_gbs);
  for (int i = 0; i < 3; i++)
    ks_template_destroy(tpl[i]);
  return bad;
}

/* The name and default of template `name`'s one parameter (what NVRTC's
 * C++ form takes as its template argument). */
static int first_param(ks_ctx *ctx, const char *name, char *param, size_t cap,
                       long *def) {
  ks_template *t = NULL;
  ks_param_info p = {.size = sizeof p};
  if (ks_template_load(ctx, name, &t) != KS_OK)
    return die(name, ks_errmsg(ctx));
  ks_param_info next = {.size = sizeof next};
  size_t np = ks_template_param_count(t, 0);
  int bad = np < 1 || ks_template_param(t, 0, 0, &p) != KS_OK || !p.marked ||
            (np > 1 && (ks_template_param(t, 0, 1, &next) != KS_OK ||
                        next.marked)); /* one marked parameter */
  if (!bad) {
    snprintf(param, cap, "%s", p.name);
    *def = (long)p.def;
  }
  ks_template_destroy(t);
  return bad ? die(name, "not one parameter: no C++ form for NVRTC") : 0;
}

/* One cold specialization of template `name` with its defaults (a fresh
 * context with no disk cache: nothing to hit), its ms in *ms; with the
 * block of the benchmark's workload (size elements) when `block`, which
 * lets the passes that need a fixed block run, else with none. */
static int kspec_once(const char *arch, unsigned isa, const char *name,
                      size_t size, int block, double *ms) {
  ks_ctx_opts o = {
      .arch = arch, .ptx_isa = isa, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *tp = NULL;
  ks_kernel *k = NULL;
  ks_wl *w = NULL;
  char err[512];
  int rc = 1;
  if (ks_ctx_create(&o, &ctx) != KS_OK ||
      ks_template_load(ctx, name, &tp) != KS_OK) {
    die(name, ks_errmsg(ctx));
    goto out;
  }
  ks_binding b[8];
  ks_spec_req req = {.bindings = b, .nbindings = default_bindings(tp, b, 8)};
  if (block) {
    if (ks_wl_prepare(ctx, tp, NULL, size, NULL, 0, 0, 1, &w, err,
                      sizeof err) != KS_OK) {
      die(name, err);
      goto out;
    }
    ks_dim3 blk = ks_wl_block(w);
    req.bounds.block[0] = blk.x;
    req.bounds.block[1] = blk.y;
    req.bounds.block[2] = blk.z;
  }
  double t0 = now_ms();
  ks_status s = ks_specialize(ctx, tp, &req, &k);
  *ms = now_ms() - t0;
  if (s != KS_OK)
    die(name, ks_errmsg(ctx));
  else
    rc = 0;
out:
  ks_wl_destroy(w);
  ks_template_destroy(tp);
  ks_ctx_destroy(ctx);
  return rc;
}

typedef struct nvrtc_api {
  __typeof__(nvrtcCreateProgram) *create;
  __typeof__(nvrtcAddNameExpression) *add_name;
  __typeof__(nvrtcCompileProgram) *compile;
  __typeof__(nvrtcGetPTXSize) *ptx_size;
  __typeof__(nvrtcGetPTX) *ptx;
  __typeof__(nvrtcDestroyProgram) *destroy;
} nvrtc_api;

static void *open_nvrtc(nvrtc_api *api) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12",
                                      "libnvrtc.so"};
  void *h = NULL;
  for (size_t i = 0; i < 3 && !h; i++)
    h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return NULL;
  *(void **)&api->create = dlsym(h, "nvrtcCreateProgram");
  *(void **)&api->add_name = dlsym(h, "nvrtcAddNameExpression");
  *(void **)&api->compile = dlsym(h, "nvrtcCompileProgram");
  *(void **)&api->ptx_size = dlsym(h, "nvrtcGetPTXSize");
  *(void **)&api->ptx = dlsym(h, "nvrtcGetPTX");
  *(void **)&api->destroy = dlsym(h, "nvrtcDestroyProgram");
  if (!api->create || !api->add_name || !api->compile || !api->ptx_size ||
      !api->ptx || !api->destroy) {
    dlclose(h);
    return NULL;
  }
  return h;
}

/* cuModuleLoadData and cuModuleUnload from libcuda.so.1, for timing the
 * driver's load of NVRTC's PTX in the context current on this thread (the
 * one kspec made current); NULL functions when there is no driver. */
typedef struct cu_load_api {
  void *h;
  __typeof__(cuModuleLoadData) *load;
  __typeof__(cuModuleUnload) *unload;
} cu_load_api;

static int open_cu_load(cu_load_api *a) {
  memset(a, 0, sizeof *a);
  a->h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a->h)
    return 0;
  *(void **)&a->load = dlsym(a->h, "cuModuleLoadData");
  *(void **)&a->unload = dlsym(a->h, "cuModuleUnload");
  if (!a->load || !a->unload) {
    dlclose(a->h);
    a->h = NULL;
    return 0;
  }
  return 1;
}

/* The built-in template `name`'s C++ form for NVRTC, or NULL. */
static const nvrtc_kernel *nvrtc_kernel_of(const char *name) {
  for (size_t i = 0; i < sizeof nvrtc_kernels / sizeof nvrtc_kernels[0]; i++)
    if (strcmp(nvrtc_kernels[i].name, name) == 0)
      return &nvrtc_kernels[i];
  return NULL;
}

/* How NVRTC compiles. Since CUDA 12.9 NVRTC keeps the PTX of a compile in
 * the driver's compute cache (the one CUDA_CACHE_DISABLE=1 switches off)
 * and, given the same program and options again, finds it there and skips
 * its optimizer and PTX translation: only the C++ front end runs (on the
 * H100 host, 10.7 ms against 46.8 ms for conv1d<32>). NV_COLD passes
 * --no-cache, so that every compile compiles, as every cold
 * specialization of kspec's does; NV_CACHED leaves the cache on and, all
 * runs after the warm-up repeating the same program, times its hits. An
 * NVRTC older than 12.9 has no such cache and refuses --no-cache: its
 * compiles are cold either way. */
typedef enum { NV_COLD, NV_CACHED } nv_mode;

/* One NVRTC compile of kn's source with the name expression expr; the
 * PTX (malloc'd) in *ptx. */
static nvrtcResult nvrtc_compile(const nvrtc_api *api, const nvrtc_kernel *kn,
                                 const char *expr, int nopts,
                                 const char *const *opts, char **ptx) {
  char file[64];
  snprintf(file, sizeof file, "%s.cu", kn->name);
  nvrtcProgram p;
  size_t n = 0;
  *ptx = NULL;
  nvrtcResult r = api->create(&p, kn->src, file, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS)
    return r;
  r = api->add_name(p, expr);
  if (r == NVRTC_SUCCESS)
    r = api->compile(p, nopts, opts);
  if (r == NVRTC_SUCCESS)
    r = api->ptx_size(p, &n);
  if (r == NVRTC_SUCCESS && !(*ptx = malloc(n)))
    r = NVRTC_ERROR_OUT_OF_MEMORY;
  if (r == NVRTC_SUCCESS)
    r = api->ptx(p, *ptx);
  api->destroy(&p);
  return r;
}

/* An NVRTC program to time: kernel kn instantiated at a value, compiled
 * for an architecture in a mode. */
typedef struct nv_prog {
  const nvrtc_kernel *kn;
  char archopt[64], expr[64];
  const char *opts[3];
  int nopts;
} nv_prog;

/* Sets p up and compiles it once, untimed: NVRTC's start-up, and with
 * NV_CACHED the compile its cache then holds. Also finds out whether
 * --no-cache is known (12.9 on). */
static int nv_setup(const nvrtc_api *api, const nvrtc_kernel *kn, long value,
                    const char *arch, nv_mode mode, nv_prog *p) {
  p->kn = kn;
  snprintf(p->archopt, sizeof p->archopt, "--gpu-architecture=%s", arch);
  snprintf(p->expr, sizeof p->expr, "%s<%ld>", kn->name, value);
  p->opts[0] = p->archopt;
  p->opts[1] = "-default-device";
  p->opts[2] = "--no-cache";
  p->nopts = mode == NV_COLD ? 3 : 2;
  char *ptx = NULL;
  nvrtcResult r = nvrtc_compile(api, kn, p->expr, p->nopts, p->opts, &ptx);
  if (r == NVRTC_ERROR_INVALID_OPTION && p->nopts == 3)
    r = nvrtc_compile(api, kn, p->expr, p->nopts = 2, p->opts, &ptx);
  free(ptx);
  return r == NVRTC_SUCCESS ? 0 : die("nvrtc", "compile failed");
}

/* One timed compile of p, its ms in *ms; with cu non-NULL, the driver's
 * load of the PTX (cuModuleLoadData) too, in the same clock. */
static int nv_once(const nvrtc_api *api, const nv_prog *p,
                   const cu_load_api *cu, double *ms) {
  char *ptx = NULL;
  CUmodule mod = NULL;
  double t0 = now_ms();
  nvrtcResult r = nvrtc_compile(api, p->kn, p->expr, p->nopts, p->opts, &ptx);
  int loaded = r != NVRTC_SUCCESS || !cu || cu->load(&mod, ptx) == CUDA_SUCCESS;
  *ms = now_ms() - t0;
  if (mod)
    cu->unload(mod);
  free(ptx);
  if (r != NVRTC_SUCCESS)
    return die("nvrtc", "compile failed");
  return loaded ? 0 : die("nvrtc", "the driver refused NVRTC's PTX");
}

/* Median ms of NVRTC compiling kernel kn instantiated at `value` to PTX;
 * with cu non-NULL, also of the driver loading that PTX, in the same
 * clock. */
static int nvrtc_latency_load(const nvrtc_kernel *kn, long value,
                              const char *arch, nv_mode mode, int reps,
                              const cu_load_api *cu, double *med) {
  nvrtc_api api;
  void *h = open_nvrtc(&api);
  double t[256];
  nv_prog p;
  if (!h)
    return die("nvrtc", "libnvrtc not found");
  reps = reps < 256 ? reps : 256;
  int bad = nv_setup(&api, kn, value, arch, mode, &p);
  for (int i = 0; !bad && i < reps; i++)
    bad = nv_once(&api, &p, cu, &t[i]);
  dlclose(h);
  if (!bad)
    *med = median(t, reps);
  return bad;
}

static int nvrtc_latency(const nvrtc_kernel *kn, long value, const char *arch,
                         nv_mode mode, int reps, double *med) {
  return nvrtc_latency_load(kn, value, arch, mode, reps, NULL, med);
}

/* ---- the latency table (--latency) ----------------------------------- */

enum { LAT_REPS = 20, HIT_CALLS = 100000 };

/* conv1d FILTER_LEN=32, block 256: the request of every latency row. */
static ks_spec_req lat_req(ks_binding *b) {
  *b = (ks_binding){.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 32};
  return (ks_spec_req){.bindings = b, .nbindings = 1, .bounds.block = {256}};
}

/* One sample of a fresh process (run as `kspec-bench --latency-child DIR
 * ARCH ISA LOAD`): ctx create (and, with LOAD, the driver's start), then
 * template load, ks_specialize (a disk hit) and ks_kernel_load (a cubin
 * hit); prints "CTX TEMPLATE SPECIALIZE LOAD" in ms. */
static int latency_child(char **argv) {
  double t0 = now_ms();
  ks_ctx_opts o = {.arch = argv[3],
                   .ptx_isa = (unsigned)atoi(argv[4]),
                   .cache_dir = argv[2],
                   .no_driver = !atoi(argv[5])};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_binding b;
  ks_spec_req req = lat_req(&b);
  if (ks_ctx_create(&o, &ctx) != KS_OK ||
      (!o.no_driver && ks_device_query(ctx, &dev) != KS_OK))
    return die("latency child", ks_errmsg(ctx));
  double t1 = now_ms();
  if (ks_template_load(ctx, "conv1d", &t) != KS_OK)
    return die("latency child", ks_errmsg(ctx));
  double t2 = now_ms();
  if (ks_specialize(ctx, t, &req, &k) != KS_OK)
    return die("latency child", ks_errmsg(ctx));
  double t3 = now_ms();
  if (!o.no_driver && ks_kernel_load(k) != KS_OK)
    return die("latency child", ks_errmsg(ctx));
  double t4 = now_ms();
  ks_kernel_info info = {.size = sizeof info};
  ks_cache_counters c = {.size = sizeof c};
  if (ks_kernel_info_get(k, &info) != KS_OK || ks_cache_stats(ctx, &c) != KS_OK)
    return die("latency child", ks_errmsg(ctx));
  if (!info.from_disk || c.template_hits != 1)
    return die("latency child", "not a disk cache hit");
  if (!o.no_driver && !info.from_cubin)
    return die("latency child", "not a cubin hit (no ptxas to make one?)");
  printf("%.4f %.4f %.4f %.4f\n", t1 - t0, t2 - t1, t3 - t2, t4 - t3);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return 0;
}

/* The medians of a cold specialization's parts (ms). */
typedef struct cold_times {
  double tload, spec, kload, total;
} cold_times;

/* (a) cold: template load -> loaded function, no cache; LLVM warmed up
 * once, the driver started before the clock. */
static int lat_cold(const char *arch, unsigned isa, int load, cold_times *out) {
  double t[4][LAT_REPS];
  ks_ctx_opts o = {
      .arch = arch, .ptx_isa = isa, .no_driver = !load, .no_disk_cache = 1};
  for (int i = -1; i < LAT_REPS; i++) {
    ks_ctx *ctx = NULL;
    ks_template *tp = NULL;
    ks_kernel *k = NULL;
    ks_device_info dev = {.size = sizeof dev};
    ks_binding b;
    ks_spec_req req = lat_req(&b);
    if (ks_ctx_create(&o, &ctx) != KS_OK ||
        (load && ks_device_query(ctx, &dev) != KS_OK))
      return die("latency", ks_errmsg(ctx));
    double t0 = now_ms();
    if (ks_template_load(ctx, "conv1d", &tp) != KS_OK)
      return die("latency", ks_errmsg(ctx));
    double t1 = now_ms();
    if (ks_specialize(ctx, tp, &req, &k) != KS_OK)
      return die("latency", ks_errmsg(ctx));
    double t2 = now_ms();
    if (load && ks_kernel_load(k) != KS_OK)
      return die("latency", ks_errmsg(ctx));
    double t3 = now_ms();
    if (i >= 0) {
      t[0][i] = t1 - t0;
      t[1][i] = t2 - t1;
      t[2][i] = t3 - t2;
      t[3][i] = t3 - t0;
    }
    ks_template_destroy(tp);
    ks_ctx_destroy(ctx);
  }
  out->tload = median(t[0], LAT_REPS);
  out->spec = median(t[1], LAT_REPS);
  out->kload = median(t[2], LAT_REPS);
  out->total = median(t[3], LAT_REPS);
  return 0;
}

/* The medians of a fresh process's parts (ms). */
typedef struct fresh_times {
  double ctx, tload, spec, kload, total;
} fresh_times;

/* (b) a fresh process per sample, from a disk cache filled here (with the
 * cubin, when loading). */
static int lat_fresh(const char *arch, unsigned isa, int load,
                     fresh_times *out) {
  char dir[] = "/tmp/kspec_lat_XXXXXX", cmd[512];
  double v[5][LAT_REPS];
  if (!mkdtemp(dir))
    return die("latency", "cannot make a cache directory");
  ks_ctx_opts o = {
      .arch = arch, .ptx_isa = isa, .no_driver = !load, .cache_dir = dir};
  ks_ctx *ctx = NULL;
  ks_template *tp = NULL;
  ks_kernel *k = NULL;
  ks_binding b;
  ks_spec_req req = lat_req(&b);
  int rc = 0;
  if (ks_ctx_create(&o, &ctx) != KS_OK ||
      ks_template_load(ctx, "conv1d", &tp) != KS_OK ||
      ks_specialize(ctx, tp, &req, &k) != KS_OK ||
      (load && ks_kernel_load(k) != KS_OK))
    rc = die("latency", ks_errmsg(ctx));
  ks_template_destroy(tp);
  ks_ctx_destroy(ctx);
  char self[256] = "";
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0)
    self[n] = '\0';
  snprintf(cmd, sizeof cmd, "'%s' --latency-child %s %s %u %d", self, dir, arch,
           isa, load);
  for (int i = -1; i < LAT_REPS && !rc; i++) {
    FILE *p = popen(cmd, "r");
    double x[4] = {0};
    int got = p ? fscanf(p, "%lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3]) : 0;
    if (!p || pclose(p) != 0 || got != 4)
      rc = die("latency", "the child process failed");
    else if (i >= 0) { /* i == -1 warms the page cache */
      for (int j = 0; j < 4; j++)
        v[j][i] = x[j];
      v[4][i] = x[1] + x[2] + x[3];
    }
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "kspec-bench: could not remove %s\n", dir);
  if (!rc) {
    out->ctx = median(v[0], LAT_REPS);
    out->tload = median(v[1], LAT_REPS);
    out->spec = median(v[2], LAT_REPS);
    out->kload = median(v[3], LAT_REPS);
    out->total = median(v[4], LAT_REPS);
  }
  return rc;
}

/* (c) in-memory hit: ns per ks_specialize of a cached key, median of
 * 100 batches of 1000. */
static int lat_hit(const char *arch, unsigned isa, double *ns) {
  ks_ctx_opts o = {
      .arch = arch, .ptx_isa = isa, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *tp = NULL;
  ks_kernel *k = NULL;
  ks_binding b;
  ks_spec_req req = lat_req(&b);
  double t[HIT_CALLS / 1000];
  if (ks_ctx_create(&o, &ctx) != KS_OK ||
      ks_template_load(ctx, "conv1d", &tp) != KS_OK ||
      ks_specialize(ctx, tp, &req, &k) != KS_OK)
    return die("latency", ks_errmsg(ctx));
  for (int i = 0; i < HIT_CALLS / 1000; i++) {
    double t0 = now_ms();
    for (int j = 0; j < 1000; j++)
      if (ks_specialize(ctx, tp, &req, &k) != KS_OK)
        return die("latency", ks_errmsg(ctx));
    t[i] = (now_ms() - t0) * 1e6 / 1000;
  }
  *ns = median(t, HIT_CALLS / 1000);
  ks_template_destroy(tp);
  ks_ctx_destroy(ctx);
  return 0;
}

/* Prints the latency table; without a GPU, the rows that need none. */
static int latency_table(void) {
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  int gpu =
      ks_ctx_create(NULL, &ctx) == KS_OK && ks_device_query(ctx, &dev) == KS_OK;
  if (!gpu)
    fprintf(stderr, "kspec-bench: no GPU (%s): the rows without loading only\n",
            ks_errmsg(ctx));
  const char *arch = ctx ? ks_ctx_arch(ctx) : "sm_90";
  unsigned isa = ctx ? ks_ctx_ptx_isa(ctx) : 85;
  double hit = 0, nv = 0;
  cold_times cold = {0};
  fresh_times fr = {0};
  int bad = 0;
  printf("latency of conv1d FILTER_LEN=32, block 256, %s, PTX ISA %u.%u%s%s "
         "(medians)\n\n| path | latency |\n|---|---:|\n",
         arch, isa / 10, isa % 10, gpu ? ", " : ", no GPU",
         gpu ? dev.name : "");
  int rc_cold = lat_cold(arch, isa, gpu, &cold);
  bad |= rc_cold;
  if (!rc_cold) {
    printf("| cold: template load | %.3f ms |\n", cold.tload);
    printf("| cold: ks_specialize (template -> PTX) | %.2f ms |\n", cold.spec);
    if (gpu)
      printf("| cold: ks_kernel_load (the driver's load of the PTX) | %.2f ms "
             "|\n",
             cold.kload);
    printf("| cold: template load -> %s, no cache (%d runs) | %.2f ms |\n",
           gpu ? "loaded function" : "PTX", LAT_REPS, cold.total);
  }
  int rc_fresh = lat_fresh(arch, isa, gpu, &fr);
  bad |= rc_fresh;
  if (!rc_fresh) {
    printf("| fresh process, disk cache: template load (no parsing) | %.3f ms "
           "|\n",
           fr.tload);
    printf("| fresh process, disk cache: ks_specialize (disk hit) | %.3f ms "
           "|\n",
           fr.spec);
    if (gpu)
      printf("| fresh process, disk cache: ks_kernel_load (cubin hit) | %.3f "
             "ms |\n",
             fr.kload);
    printf("| fresh process, disk cache: total, template load -> %s (%d "
           "runs) | %.3f ms |\n",
           gpu ? "launchable function" : "kernel", LAT_REPS, fr.total);
    printf("| fresh process: ctx create%s (not in the total) | %.3f ms |\n",
           gpu ? " + driver start" : "", fr.ctx);
  }
  int rc_hit = lat_hit(arch, isa, &hit);
  bad |= rc_hit;
  if (!rc_hit)
    printf("| in-memory hit: ks_specialize (%d calls) | %.0f ns |\n", HIT_CALLS,
           hit);
  /* NVRTC's conv1d<FILTER_LEN>, at the value of kspec's rows */
  const nvrtc_kernel *kn = nvrtc_kernel_of("conv1d");
  ks_binding lb;
  long len = (long)lat_req(&lb).bindings[0].v.i;
  if (nvrtc_latency(kn, len, arch, NV_COLD, LAT_REPS, &nv) == 0)
    printf("| NVRTC, cold (--no-cache): C++ template -> PTX | %.2f ms |\n", nv);
  else
    bad = 1;
  if (nvrtc_latency(kn, len, arch, NV_CACHED, LAT_REPS, &nv) == 0)
    printf(
        "| NVRTC, its cache on (the same program again): C++ template -> PTX | "
        "%.2f ms |\n",
        nv);
  else
    bad = 1;
  cu_load_api cu;
  if (gpu && open_cu_load(&cu)) {
    if (nvrtc_latency_load(kn, len, arch, NV_COLD, LAT_REPS, &cu, &nv) == 0)
      printf("| NVRTC, cold, + driver load: C++ template -> loaded module | "
             "%.2f ms |\n",
             nv);
    else
      bad = 1;
    dlclose(cu.h);
  }
  ks_ctx_destroy(ctx);
  return bad || !gpu ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- the specialization latency table of the benchmark ---------------- */

typedef struct bench_run {
  const char *name;
  size_t size;
} bench_run;

enum { KS_NOBLOCK, KS_BLOCK, NV_COLD_T, NV_CACHED_T, NSERIES };

/* One template's latency samples: kspec without and with the block,
 * NVRTC cold and from its cache. */
typedef struct lat_row {
  const nvrtc_kernel *kn;
  char param[64];
  long def;
  nv_prog nv[2]; /* NV_COLD, NV_CACHED */
  size_t size;   /* the workload's, for its block */
  int ok;
  double t[NSERIES][256];
} lat_row;

/* The latency table of runs[0..n): reps rounds, each taking one sample of
 * every series of every template, so that a slow moment of a noisy host
 * falls on all of them alike rather than on one template's samples. In a
 * round the kspec samples come first, after one untimed specialization
 * (the round before ended in NVRTC's compiles, which leave other code in
 * the processor's caches), then NVRTC's. Before the first round, one
 * untimed sample of each series: LLVM's and NVRTC's start-up. */
static int latency_rounds(ks_ctx *ctx, const bench_run *runs, size_t n,
                          int quick, int reps) {
  const char *arch = ks_ctx_arch(ctx);
  unsigned isa = ks_ctx_ptx_isa(ctx);
  nvrtc_api api;
  void *h = open_nvrtc(&api);
  lat_row *row = calloc(n, sizeof *row);
  int bad = 0;
  if (!h || !row) {
    free(row);
    if (h)
      dlclose(h);
    return die("latency", h ? "out of memory" : "libnvrtc not found");
  }
  for (size_t i = 0; i < n; i++) {
    lat_row *r = &row[i];
    double ms;
    r->size = quick ? runs[i].size / 16 : runs[i].size;
    r->kn = nvrtc_kernel_of(runs[i].name);
    if (!r->kn) {
      bad = die(runs[i].name, "no C++ form for NVRTC in nvrtc_kernels.h");
      continue;
    }
    r->ok =
        !first_param(ctx, runs[i].name, r->param, sizeof r->param, &r->def) &&
        !kspec_once(arch, isa, runs[i].name, r->size, 0, &ms) &&
        !kspec_once(arch, isa, runs[i].name, r->size, 1, &ms) &&
        !nv_setup(&api, r->kn, r->def, arch, NV_COLD, &r->nv[0]) &&
        !nv_setup(&api, r->kn, r->def, arch, NV_CACHED, &r->nv[1]);
    bad |= !r->ok;
  }
  for (int k = 0; k < reps; k++) {
    double ms;
    for (size_t i = 0; i < n && k > 0; i++)
      if (row[i].ok) { /* warms the caches after the last round's NVRTC */
        row[i].ok = !kspec_once(arch, isa, runs[i].name, 0, 0, &ms);
        break;
      }
    for (int blk = 0; blk < 2; blk++)
      for (size_t i = 0; i < n; i++)
        if (row[i].ok)
          row[i].ok = !kspec_once(arch, isa, runs[i].name, row[i].size, blk,
                                  &row[i].t[KS_NOBLOCK + blk][k]);
    for (int m = 0; m < 2; m++)
      for (size_t i = 0; i < n; i++) {
        /* with other compiles in between, NVRTC's cache misses (as slow as
         * cold on the H100 host): a hit is timed right after a compile of
         * the same program */
        double *t = &row[i].t[NV_COLD_T + m][k];
        if (row[i].ok && m == 1)
          row[i].ok = !nv_once(&api, &row[i].nv[m], NULL, t);
        if (row[i].ok)
          row[i].ok = !nv_once(&api, &row[i].nv[m], NULL, t);
      }
  }
  for (size_t i = 0; i < n; i++) {
    lat_row *r = &row[i];
    if (!r->kn)
      continue;
    if (!r->ok) {
      bad = 1;
      continue;
    }
    double med[NSERIES];
    for (int j = 0; j < NSERIES; j++)
      med[j] = median(r->t[j], reps);
    printf("| %s (%s=%ld) | %.2f | %.2f | %.2f | %.2f | %.1fx; %.1fx |\n",
           runs[i].name, r->param, r->def, med[KS_NOBLOCK], med[KS_BLOCK],
           med[NV_COLD_T], med[NV_CACHED_T], med[NV_COLD_T] / med[KS_NOBLOCK],
           med[NV_COLD_T] / med[KS_BLOCK]);
  }
  free(row);
  dlclose(h);
  return bad;
}

int main(int argc, char **argv) {
  int reps = 50, quick = 0, fused = 0;
  /* This process runs no LLVM code but kspec's: LLVM's options for faster
   * codegen may be set (KSPEC_LLVM_OPTIONS=off: as a host program gets by
   * default; include/kspec.h, ks_llvm_own_process). */
  const char *lo = getenv("KSPEC_LLVM_OPTIONS");
  if (!lo || strcmp(lo, "off") != 0)
    ks_llvm_own_process();
  if (argc == 6 && strcmp(argv[1], "--latency-child") == 0)
    return latency_child(argv);
  if (argc == 2 && strcmp(argv[1], "--latency") == 0)
    return latency_table();
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--fused") == 0)
      fused = 1;
    else {
      fprintf(stderr, "usage: kspec-bench [--reps N] [--quick] [--fused] | "
                      "--latency\n");
      return 2;
    }
  }
  if (reps < 1 || reps > 200)
    reps = 50;
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  if (ks_ctx_create(NULL, &ctx) != KS_OK || ks_device_query(ctx, &dev))
    return die("device", ks_errmsg(ctx));
  double gbs = 0;
  if (copy_bandwidth(ctx, (size_t)1 << 30, 20, &gbs))
    return EXIT_FAILURE;
  printf("device: %s, %s, PTX ISA %u.%u, driver %d; copy bandwidth %.0f "
         "GB/s\n\n",
         dev.name, ks_ctx_arch(ctx), ks_ctx_ptx_isa(ctx) / 10,
         ks_ctx_ptx_isa(ctx) % 10, dev.driver_version, gbs);
  if (fused) {
    int bad = fused_table(ctx, reps, quick, gbs);
    ks_ctx_destroy(ctx);
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
  }
  printf("| template        | problem                      | generic ms | "
         "spec. ms | speed-up | generic BW | spec. BW |\n"
         "|---|---|---:|---:|---:|---:|---:|\n");
  static const bench_run runs[] = {
      {"conv1d", (size_t)1 << 26},     {"sepfilter_rows", 8192},
      {"sepfilter_cols", 8192},        {"histogram", (size_t)1 << 30},
      {"reduce_sum", (size_t)1 << 26}, {"transpose", 8192}};
  int bad = 0;
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
    bad |= bench_template(ctx, runs[i].name,
                          quick ? runs[i].size / 16 : runs[i].size, reps, gbs);
  printf("\nspecialization latency (template -> PTX, median of %d cold "
         "runs, taken in rounds of one of each, LLVM start-up excluded): "
         "defaults bound, no block (the "
         "passes that need one decline), and with the block above (every "
         "pass); NVRTC compiling the template's body as a C++ template "
         "instantiated at the same default, cold (--no-cache: every run "
         "compiles) and from its cache (the same program again: the front "
         "end only)\n\n| kernel | kspec ms, no block | kspec ms, block | "
         "NVRTC ms, cold | NVRTC ms, cache hit | NVRTC cold / kspec (no block; "
         "block) |\n|---|---:|---:|---:|---:|---:|\n",
         reps);
  bad |= latency_rounds(ctx, runs, sizeof runs / sizeof runs[0], quick, reps);
  ks_ctx_destroy(ctx);
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
