/*
 * test_stress.c - many threads specializing, loading and launching through
 * one shared context, with the mocked CUDA driver (mock/cuda_mock.c, opened
 * through KSPEC_LIBCUDA), so that it runs on any machine and under
 * ThreadSanitizer (tools/check.sh).
 *
 * 8 threads x 200 iterations each pick a key at random (fixed seeds): conv1d
 * with FILTER_LEN from 10 values or histogram with BINS from 5, 256-thread
 * blocks; specialize, load, copy inputs in, launch, copy out, now and then
 * ask the driver for the occupancy. Then: every call succeeded, every key
 * was compiled once and loaded once, every thread got the same kernel for a
 * key, the mock counted exactly the launches issued, and destroying the
 * context unloaded every module and released the context.
 *
 *   sync        ks_specialize only, no disk cache
 *   async       ks_specialize and ks_specialize_async mixed, a fresh disk
 *               cache (so loads go through the driver's linker and cubin
 *               entries); then a second context on the same directory finds
 *               every kernel and cubin on disk
 *   contexts    4 threads each create a context, specialize and destroy it,
 *               over and over: LLVM's pools, held by the live contexts, are
 *               emptied whenever the last one goes, while others start
 */
#define _GNU_SOURCE /* nftw, setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h> /* types only */

#include "kspec.h"
#include "mock/cuda_mock.h"

enum {
  NTHREADS = 8,
  ITERS = 200,
  NCONV = 10,
  NHIST = 5,
  NKEYS = NCONV + NHIST,
  BLOCK = 256,
  N = 4096, /* elements per launch */
};

static const int conv_len[NCONV] = {1, 2, 3, 5, 7, 8, 16, 31, 32, 64};
static const int hist_bins[NHIST] = {16, 64, 100, 256, 1024};

static kspec_mock_counters_fn mock_counters;

static kspec_mock_counters mock_now(void) {
  kspec_mock_counters c;
  mock_counters(&c);
  return c;
}

typedef struct shared {
  ks_ctx *ctx;
  ks_template *conv, *hist;
  int async; /* mix in ks_specialize_async; the disk cache is on */
} shared;

typedef struct worker {
  const shared *sh;
  unsigned id;
  ks_kernel *got[NKEYS];
  unsigned long specializations, launches, failures;
  char first_error[512];
} worker;

static uint64_t next_rand(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

static void failed(worker *w, const char *what, ks_status s) {
  if (!w->failures++)
    snprintf(w->first_error, sizeof w->first_error, "%s: %s: %s", what,
             ks_status_name(s), ks_errmsg(w->sh->ctx));
}

/* Specializes key, synchronously or through a future. */
static ks_status specialize(worker *w, int key, uint64_t *rng, ks_kernel **k) {
  const shared *sh = w->sh;
  ks_binding b = {.kind = KS_VALUE_INT};
  const ks_template *t;
  if (key < NCONV) {
    t = sh->conv;
    b.name = "FILTER_LEN";
    b.v.i = conv_len[key];
  } else {
    t = sh->hist;
    b.name = "BINS";
    b.v.i = hist_bins[key - NCONV];
  }
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
  w->specializations++;
  if (!sh->async || next_rand(rng) % 2)
    return ks_specialize(sh->ctx, t, &req, k);
  ks_future *f = NULL;
  ks_status s = ks_specialize_async(sh->ctx, t, &req, &f);
  if (s != KS_OK)
    return s;
  b.v.i = -1; /* the request was copied: changing it changes nothing */
  while (next_rand(rng) % 4 && !ks_future_ready(f))
    if (ks_future_kernel_or(f, NULL))
      break;
  s = ks_future_wait(f, k);
  ks_kernel *again = ks_future_kernel_or(f, NULL);
  ks_future_free(f);
  return s == KS_OK && again != *k ? KS_EINVAL : s;
}

/* Copies inputs in, launches k, copies the output back. */
static ks_status run(worker *w, int key, ks_kernel *k, ks_devptr in,
                     ks_devptr aux, ks_devptr out, const float *host,
                     float *back) {
  ks_ctx *ctx = w->sh->ctx;
  ks_status s = ks_memcpy_htod(ctx, in, host, N * sizeof *host);
  if (s != KS_OK)
    return s;
  int n = N / 2;
  ks_dim3 grid = {(N / 2 + BLOCK - 1) / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
  if (key < NCONV) {
    int len = conv_len[key];
    void *args[] = {&in, &aux, &out, &n, &len};
    s = ks_launch(k, grid, block, 0, NULL, args);
  } else {
    int bins = hist_bins[key - NCONV];
    void *args[] = {&in, &out, &n, &bins};
    s = ks_launch(k, grid, block, 0, NULL, args);
  }
  if (s == KS_OK)
    s = ks_memcpy_dtoh(ctx, back, in, N * sizeof *back);
  return s;
}

static void *hammer(void *arg) {
  worker *w = arg;
  ks_ctx *ctx = w->sh->ctx;
  uint64_t rng = 0x9e3779b97f4a7c15ull * (w->id + 1);
  ks_devptr in = 0, aux = 0, out = 0;
  float *host = malloc(N * sizeof *host), *back = malloc(N * sizeof *back);
  ks_status s = host && back ? KS_OK : KS_ENOMEM;
  if (s == KS_OK)
    s = ks_mem_alloc(ctx, N * sizeof(float), &in);
  if (s == KS_OK)
    s = ks_mem_alloc(ctx, 128 * sizeof(float), &aux);
  if (s == KS_OK)
    s = ks_mem_alloc(ctx, 4096 * sizeof(float), &out);
  if (s == KS_OK)
    s = ks_memset8(ctx, out, 0, 4096 * sizeof(float));
  if (s != KS_OK) {
    failed(w, "setup", s);
    goto done;
  }
  for (int i = 0; i < N; i++)
    host[i] = (float)(i % 97) + (float)w->id;
  for (int it = 0; it < ITERS; it++) {
    int key = (int)(next_rand(&rng) % NKEYS);
    ks_kernel *k = NULL;
    if ((s = specialize(w, key, &rng, &k)) != KS_OK) {
      failed(w, "specialize", s);
      continue;
    }
    if (w->got[key] && w->got[key] != k)
      failed(w, "specialize gave another kernel for a key", KS_EINVAL);
    w->got[key] = k;
    if ((s = ks_kernel_load(k)) != KS_OK) {
      failed(w, "load", s);
      continue;
    }
    host[it % N] = (float)it;
    if ((s = run(w, key, k, in, aux, out, host, back)) != KS_OK) {
      failed(w, "launch", s);
      continue;
    }
    w->launches++;
    if (back[it % N] != (float)it)
      failed(w, "copy back", KS_EINVAL);
    if (it % 16 == 0) {
      ks_occupancy occ = {.size = sizeof occ};
      ks_kernel_info info = {.size = sizeof info};
      if ((s = ks_kernel_occupancy(k, BLOCK, 0, KS_RES_DRIVER, &occ)) != KS_OK)
        failed(w, "occupancy", s);
      else if (occ.blocks_per_sm < 1)
        failed(w, "occupancy: no block fits", KS_EINVAL);
      if (ks_kernel_info_get(k, &info) != KS_OK || !info.loaded ||
          info.regs <= 0)
        failed(w, "info after load", KS_EINVAL);
      ks_device_info dev = {.size = sizeof dev};
      if ((s = ks_device_query(ctx, &dev)) != KS_OK || dev.sm != 90)
        failed(w, "device query", s);
      ks_cache_counters c = {.size = sizeof c};
      if ((s = ks_cache_stats(ctx, &c)) != KS_OK || c.compiles > NKEYS)
        failed(w, "cache stats", s);
      ks_cache_usage u = {.size = sizeof u};
      if (w->sh->async && (s = ks_cache_usage_get(ctx, &u)) != KS_OK)
        failed(w, "cache usage", s);
    }
  }
done:
  ks_mem_free(ctx, in);
  ks_mem_free(ctx, aux);
  ks_mem_free(ctx, out);
  free(host);
  free(back);
  return NULL;
}

static ks_ctx *make_ctx(const char *cache_dir, const char *record) {
  ks_ctx_opts o = {.no_disk_cache = cache_dir == NULL,
                   .cache_dir = cache_dir,
                   .record = record,
                   .jobs = 4};
  ks_ctx *ctx = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  /* the architecture came from the mocked device */
  assert_string_equal(ks_ctx_arch(ctx), "sm_90");
  return ctx;
}

/* Runs the workers on sh; returns the specializations and launches issued
 * and checks that each succeeded and agreed on every key's kernel. */
static void hammer_all(shared *sh, unsigned long *specs,
                       unsigned long *launches, ks_kernel *kernels[NKEYS]) {
  pthread_t th[NTHREADS];
  worker *w = calloc(NTHREADS, sizeof *w);
  assert_non_null(w);
  assert_int_equal(ks_template_load(sh->ctx, "conv1d", &sh->conv), KS_OK);
  assert_int_equal(ks_template_load(sh->ctx, "histogram", &sh->hist), KS_OK);
  for (unsigned i = 0; i < NTHREADS; i++) {
    w[i] = (worker){.sh = sh, .id = i};
    assert_int_equal(pthread_create(&th[i], NULL, hammer, &w[i]), 0);
  }
  for (unsigned i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  *specs = *launches = 0;
  memset(kernels, 0, NKEYS * sizeof *kernels);
  for (unsigned i = 0; i < NTHREADS; i++) {
    if (w[i].failures)
      fail_msg("thread %u: %lu failures, the first: %s", i, w[i].failures,
               w[i].first_error);
    assert_int_equal(w[i].specializations, ITERS);
    *specs += w[i].specializations;
    *launches += w[i].launches;
    for (int k = 0; k < NKEYS; k++) {
      if (!w[i].got[k])
        continue;
      if (kernels[k])
        assert_ptr_equal(w[i].got[k], kernels[k]);
      kernels[k] = w[i].got[k];
    }
  }
  for (int k = 0; k < NKEYS; k++) /* 1600 random picks over 15 keys */
    assert_non_null(kernels[k]);
  assert_int_equal(*launches, NTHREADS * ITERS);
  free(w);
}

static ks_cache_counters counters(ks_ctx *ctx) {
  ks_cache_counters c = {.size = sizeof c};
  assert_int_equal(ks_cache_stats(ctx, &c), KS_OK);
  return c;
}

/* Destroys sh's context and templates; every module is unloaded, the
 * primary context released, nothing of the mock left alive. */
static void finish(shared *sh, const kspec_mock_counters *before,
                   unsigned long loads) {
  ks_template_destroy(sh->conv);
  ks_template_destroy(sh->hist);
  ks_ctx_destroy(sh->ctx);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.module_unloads - before->module_unloads, loads);
  assert_int_equal(m.live_modules, 0);
  assert_int_equal(m.live_allocs, 0);
  assert_int_equal(m.live_events, 0);
  assert_int_equal(m.ctx_refs, 0);
  assert_int_equal(m.ctx_releases - before->ctx_releases,
                   m.ctx_retains - before->ctx_retains);
}

/* The file ptxas_mock logs each cubin it makes to (main sets it). */
static char ptxas_log[512];

/* Lines of a file (0 when there is none). */
static unsigned long count_lines(const char *path);

/* Cubins ptxas_mock made since the test program started. */
static unsigned long cubins_made(void) { return count_lines(ptxas_log); }

/* ks_specialize from 8 threads, no disk cache. */
static void stress_sync(void **state) {
  (void)state;
  kspec_mock_counters before = mock_now();
  shared sh = {.ctx = make_ctx(NULL, NULL)};
  unsigned long specs = 0, launches = 0;
  ks_kernel *kernels[NKEYS];
  hammer_all(&sh, &specs, &launches, kernels);

  ks_cache_counters c = counters(sh.ctx);
  assert_int_equal(c.disk, 0);
  assert_int_equal(c.compiles, NKEYS);
  assert_int_equal(c.misses, NKEYS);
  assert_int_equal(c.disk_hits, 0);
  assert_int_equal(c.memory_hits, specs - NKEYS);
  assert_true(c.waits <= c.memory_hits);

  kspec_mock_counters m = mock_now();
  assert_int_equal(m.launches - before.launches, launches);
  assert_int_equal(m.launch_errors - before.launch_errors, 0);
  assert_int_equal(m.module_loads - before.module_loads, NKEYS);
  assert_int_equal(m.ptx_rejected - before.ptx_rejected, 0);
  assert_int_equal(cubins_made(), 0); /* no cubin cache */
  finish(&sh, &before, NKEYS);
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

static unsigned long count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  unsigned long n = 0;
  if (!f)
    return 0;
  for (int c; (c = getc(f)) != EOF;)
    n += c == '\n';
  fclose(f);
  return n;
}

/* ks_specialize and ks_specialize_async mixed, with a fresh disk cache and
 * the requests recorded; then a second context finds everything on disk. */
static void stress_async(void **state) {
  (void)state;
  char dir[] = "/tmp/kspec_stress_XXXXXX", record[64];
  assert_non_null(mkdtemp(dir));
  snprintf(record, sizeof record, "%s/requests", dir);
  kspec_mock_counters before = mock_now();
  shared sh = {.ctx = make_ctx(dir, record), .async = 1};
  unsigned long specs = 0, launches = 0;
  ks_kernel *kernels[NKEYS];
  hammer_all(&sh, &specs, &launches, kernels);

  ks_cache_counters c = counters(sh.ctx);
  assert_int_equal(c.disk, 1);
  assert_int_equal(c.compiles, NKEYS);
  assert_int_equal(c.misses, NKEYS);
  assert_int_equal(c.disk_hits, 0);
  assert_int_equal(c.memory_hits, specs - NKEYS);
  assert_int_equal(c.corrupt, 0);
  /* loads: ptxas made each cubin once, and it was stored */
  assert_int_equal(c.cubin_misses, NKEYS);
  assert_int_equal(c.cubin_hits, 0);
  assert_int_equal(c.cubin_dropped, 0);
  assert_int_equal(c.template_misses, 2);
  /* PTX and cubin entries, and the two templates' descriptions */
  assert_int_equal(c.disk_writes, 2 * NKEYS + 2);

  kspec_mock_counters m = mock_now();
  assert_int_equal(m.launches - before.launches, launches);
  assert_int_equal(m.launch_errors - before.launch_errors, 0);
  assert_int_equal(m.module_loads - before.module_loads, NKEYS);
  assert_int_equal(cubins_made(), NKEYS);
  finish(&sh, &before, NKEYS);
  /* one line per compile (memory hits are not recorded) */
  assert_int_equal(count_lines(record), NKEYS);

  /* a fresh context: every kernel and every cubin from the disk */
  before = mock_now();
  ks_ctx *ctx = make_ctx(dir, NULL);
  ks_template *t[2];
  assert_int_equal(ks_template_load(ctx, "conv1d", &t[0]), KS_OK);
  assert_int_equal(ks_template_load(ctx, "histogram", &t[1]), KS_OK);
  for (int key = 0; key < NKEYS; key++) {
    ks_binding b = {.kind = KS_VALUE_INT};
    b.name = key < NCONV ? "FILTER_LEN" : "BINS";
    b.v.i = key < NCONV ? conv_len[key] : hist_bins[key - NCONV];
    ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
    ks_kernel *k = NULL;
    ks_kernel_info info = {.size = sizeof info};
    assert_int_equal(ks_specialize(ctx, t[key >= NCONV], &req, &k), KS_OK);
    assert_int_equal(ks_kernel_load(k), KS_OK);
    assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
    assert_true(info.from_disk);
    assert_true(info.from_cubin);
  }
  c = counters(ctx);
  assert_int_equal(c.disk_hits, NKEYS);
  assert_int_equal(c.compiles, 0);
  assert_int_equal(c.cubin_hits, NKEYS);
  assert_int_equal(c.template_hits, 2);
  m = mock_now();
  assert_int_equal(m.module_loads - before.module_loads, NKEYS);
  assert_int_equal(cubins_made(), NKEYS); /* none more */
  ks_template_destroy(t[0]);
  ks_template_destroy(t[1]);
  ks_ctx_destroy(ctx);
  assert_int_equal(mock_now().live_modules, 0);
  assert_int_equal(mock_now().ctx_refs, 0);
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A grid-coarsened kernel (reduce_sum, gcoarsen) is launched with
 * ceil(grid.x / C) blocks and the user's grid.x appended to its arguments;
 * the generic kernel as asked. */
static void grid_coarsened_launch(void **state) {
  (void)state;
  ks_ctx_opts o = {.no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL, *generic = NULL;
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_template_load(ctx, "reduce_sum", &t), KS_OK);
  ks_binding b = {.name = "BLOCK", .kind = KS_VALUE_INT, .v.i = BLOCK};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_int_equal(info.plan.grid_coarsen, 16);
  assert_non_null(strstr(ks_kernel_explain(k), "gcoarsen: coarsened the grid"));
  ks_devptr x = 0, out = 0;
  assert_int_equal(ks_mem_alloc(ctx, N * sizeof(float), &x), KS_OK);
  assert_int_equal(ks_mem_alloc(ctx, sizeof(float), &out), KS_OK);
  int n = N, blk = BLOCK;
  void *args[] = {&x, &out, &n, &blk};
  static const unsigned grids[][2] = {{1, 1}, {16, 1}, {17, 2}, {1000, 63}};
  for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++) {
    ks_dim3 grid = {grids[i][0], 3, 1}, block = {BLOCK, 1, 1};
    assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
    kspec_mock_counters m = mock_now();
    assert_int_equal(m.last_grid[0], grids[i][1]);
    assert_int_equal(m.last_grid[1], 3);
    assert_int_equal(m.last_block[0], BLOCK);
    assert_int_equal(m.last_nparams, 5);
    assert_int_equal(m.last_param, grids[i][0]);
  }
  /* no pointer array where the kernel has arguments */
  assert_int_equal(
      ks_launch(k, (ks_dim3){4, 1, 1}, (ks_dim3){BLOCK, 1, 1}, 0, NULL, NULL),
      KS_EINVAL);
  /* switched off, or generic: the grid and the arguments as given */
  const char *off[] = {"gcoarsen"};
  req.no_pass = off;
  req.nno_pass = 1;
  assert_int_equal(ks_specialize(ctx, t, &req, &generic), KS_OK);
  assert_int_equal(ks_kernel_info_get(generic, &info), KS_OK);
  assert_int_equal(info.plan.grid_coarsen, 1);
  assert_int_equal(ks_launch(generic, (ks_dim3){1000, 1, 1},
                             (ks_dim3){BLOCK, 1, 1}, 0, NULL, args),
                   KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_grid[0], 1000);
  assert_int_equal(m.last_nparams, 4);
  assert_int_equal(m.last_param, BLOCK);
  ks_mem_free(ctx, x);
  ks_mem_free(ctx, out);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* conv1d's taps read a constant copy: each launch first copies f's 128
 * bytes into the module's ks_cmem_1 (on the launch's stream), and a launch
 * on another stream than the last waits for it; a NULL f is not copied;
 * the copies come back from the disk cache with the PTX. */
static void const_copy_launch(void **state) {
  (void)state;
  char dir[] = "/tmp/kspec_cmem_XXXXXX";
  assert_non_null(mkdtemp(dir));
  ks_ctx_opts o = {.cache_dir = dir};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL, *off = NULL;
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 32};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_int_equal(info.plan.const_copies, 1);
  assert_int_equal(info.plan.const_copy_arg[0], 1);
  assert_int_equal(info.plan.const_copy_bytes[0], 128);
  ks_devptr x = 0, f = 0, y = 0, none = 0;
  float taps[32];
  for (int i = 0; i < 32; i++)
    taps[i] = 0.5f + (float)i;
  assert_int_equal(ks_mem_alloc(ctx, (N + 31) * sizeof(float), &x), KS_OK);
  assert_int_equal(ks_mem_alloc(ctx, sizeof taps, &f), KS_OK);
  assert_int_equal(ks_mem_alloc(ctx, N * sizeof(float), &y), KS_OK);
  assert_int_equal(ks_memcpy_htod(ctx, f, taps, sizeof taps), KS_OK);
  int n = N, len = 32;
  void *args[] = {&x, &f, &y, &n, &len};
  ks_dim3 grid = {N / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
  kspec_mock_counters m0 = mock_now();
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.const_copies - m0.const_copies, 2);
  assert_int_equal(m.stream_waits - m0.stream_waits, 0);
  assert_int_equal(m.last_copy_bytes, 128);
  uint64_t head = 0;
  memcpy(&head, taps, sizeof head);
  assert_true(m.last_copy_head == head);
  /* another stream: ordered after the last launch, once */
  void *lib = dlopen(KS_MOCK_LIB, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(lib);
  /* the functions' own types: a call through another is undefined */
  CUresult (*stream_create)(CUstream *, unsigned) =
      (CUresult(*)(CUstream *, unsigned))dlsym(lib, "cuStreamCreate");
  CUresult (*stream_destroy)(CUstream) =
      (CUresult(*)(CUstream))dlsym(lib, "cuStreamDestroy_v2");
  assert_non_null(stream_create);
  assert_non_null(stream_destroy);
  CUstream st = NULL;
  assert_int_equal(stream_create(&st, 0), CUDA_SUCCESS);
  assert_int_equal(ks_launch(k, grid, block, 0, st, args), KS_OK);
  assert_int_equal(ks_launch(k, grid, block, 0, st, args), KS_OK);
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.const_copies - m0.const_copies, 5);
  assert_int_equal(m.stream_waits - m0.stream_waits, 2);
  /* a buffer smaller than the copy: a launch error naming the argument */
  ks_devptr small = 0;
  assert_int_equal(ks_mem_alloc(ctx, 64, &small), KS_OK);
  void *args_small[] = {&x, &small, &y, &n, &len};
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args_small), KS_ELAUNCH);
  assert_non_null(strstr(ks_errmsg(ctx), "constant copy of argument 1"));
  assert_int_equal(mock_now().const_copies - m0.const_copies, 5);
  ks_mem_free(ctx, small);
  /* a NULL buffer is not copied; no arguments is refused */
  void *args0[] = {&x, &none, &y, &n, &len};
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args0), KS_OK);
  assert_int_equal(mock_now().const_copies - m0.const_copies, 5);
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, NULL), KS_EINVAL);
  /* switched off: no copy */
  const char *nopass[] = {"const_promote"};
  req.no_pass = nopass;
  req.nno_pass = 1;
  assert_int_equal(ks_specialize(ctx, t, &req, &off), KS_OK);
  assert_int_equal(ks_kernel_info_get(off, &info), KS_OK);
  assert_int_equal(info.plan.const_copies, 0);
  assert_int_equal(ks_launch(off, grid, block, 0, NULL, args), KS_OK);
  assert_int_equal(mock_now().const_copies - m0.const_copies, 5);
  assert_int_equal(stream_destroy(st), CUDA_SUCCESS);
  dlclose(lib);
  ks_mem_free(ctx, x);
  ks_mem_free(ctx, f);
  ks_mem_free(ctx, y);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  /* a fresh context: from the disk cache, with its copy */
  req.no_pass = NULL;
  req.nno_pass = 0;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_true(info.from_disk);
  assert_int_equal(info.plan.const_copies, 1);
  assert_int_equal(info.plan.const_copy_arg[0], 1);
  assert_int_equal(info.plan.const_copy_bytes[0], 128);
  assert_int_equal(ks_mem_alloc(ctx, (N + 31) * sizeof(float), &x), KS_OK);
  assert_int_equal(ks_mem_alloc(ctx, sizeof taps, &f), KS_OK);
  assert_int_equal(ks_mem_alloc(ctx, N * sizeof(float), &y), KS_OK);
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  assert_int_equal(mock_now().const_copies - m0.const_copies, 6);
  ks_mem_free(ctx, x);
  ks_mem_free(ctx, f);
  ks_mem_free(ctx, y);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  assert_int_equal(mock_now().live_events, 0);
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

enum { CTX_THREADS = 4, CTX_ROUNDS = 12 };

typedef struct ctx_worker {
  unsigned id;
  unsigned long done;
  char first_error[512];
} ctx_worker;

/* Rounds of: a context of its own, a template, one specialization, all
 * destroyed; every thread's context may be the last one of the moment. */
static void *contexts_round(void *arg) {
  ctx_worker *w = arg;
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  for (unsigned i = 0; i < CTX_ROUNDS && !w->first_error[0]; i++) {
    ks_ctx *ctx = NULL;
    ks_template *tp = NULL;
    ks_kernel *k = NULL;
    ks_binding b = {.name = "FILTER_LEN",
                    .kind = KS_VALUE_INT,
                    .v.i = conv_len[(w->id + i) % NCONV]};
    ks_spec_req req = {.bindings = &b, .nbindings = 1};
    ks_status s = ks_ctx_create(&o, &ctx);
    if (s == KS_OK)
      s = ks_template_load(ctx, "conv1d", &tp);
    if (s == KS_OK)
      s = ks_specialize(ctx, tp, &req, &k);
    if (s != KS_OK)
      snprintf(w->first_error, sizeof w->first_error, "round %u: %s", i,
               ks_errmsg(ctx));
    else
      w->done++;
    ks_template_destroy(tp);
    ks_ctx_destroy(ctx);
  }
  return NULL;
}

static void contexts_come_and_go(void **state) {
  (void)state;
  pthread_t th[CTX_THREADS];
  ctx_worker w[CTX_THREADS];
  memset(w, 0, sizeof w);
  for (unsigned i = 0; i < CTX_THREADS; i++) {
    w[i].id = i;
    assert_int_equal(pthread_create(&th[i], NULL, contexts_round, &w[i]), 0);
  }
  for (unsigned i = 0; i < CTX_THREADS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (unsigned i = 0; i < CTX_THREADS; i++) {
    if (w[i].first_error[0])
      fail_msg("thread %u: %s", i, w[i].first_error);
    assert_int_equal(w[i].done, CTX_ROUNDS);
  }
}

/* Loads conv1d at FILTER_LEN=len from ctx; returns from_cubin. */
static int load_conv(ks_ctx *ctx, ks_template *t, int len) {
  ks_binding b = {.kind = KS_VALUE_INT, .name = "FILTER_LEN", .v.i = len};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
  ks_kernel *k = NULL;
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_kernel_load(k), KS_OK);
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  return info.from_cubin;
}

/* Where no cubin can be made the PTX is loaded and nothing stored: no
 * ptxas; a ptxas that fails; a ptxas whose cubins the driver refuses (a
 * newer one), which is not run again in that context. */
static void cubin_fallbacks(void **state) {
  (void)state;
  static const struct {
    const char *env, *value;
    unsigned long made; /* cubins ptxas_mock writes for the two kernels */
  } cases[] = {
      {"KSPEC_PTXAS", "/nonexistent/ptxas", 0},
      {"KSPEC_MOCK_PTXAS_FAIL", "1", 0},
      {"KSPEC_MOCK_PTXAS_SM", "100", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char dir[] = "/tmp/kspec_stress_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *old = getenv(cases[i].env) ? strdup(getenv(cases[i].env)) : NULL;
    setenv(cases[i].env, cases[i].value, 1);
    unsigned long made = cubins_made();
    kspec_mock_counters before = mock_now();
    ks_ctx *ctx = make_ctx(dir, NULL);
    ks_template *t = NULL;
    assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
    assert_false(load_conv(ctx, t, 3));
    assert_false(load_conv(ctx, t, 5));
    ks_cache_counters c = counters(ctx);
    assert_int_equal(c.cubin_misses, 2);
    assert_int_equal(c.cubin_hits, 0);
    assert_int_equal(cubins_made() - made, cases[i].made);
    kspec_mock_counters m = mock_now();
    /* each kernel once, as PTX */
    assert_int_equal(m.module_loads - before.module_loads, 2);
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
    if (old)
      setenv(cases[i].env, old, 1);
    else
      unsetenv(cases[i].env);
    free(old);
    /* nothing stored: a fresh context makes the cubin now, and the next
     * one loads it */
    for (int again = 0; again < 2; again++) {
      made = cubins_made();
      ctx = make_ctx(dir, NULL);
      assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
      assert_int_equal(load_conv(ctx, t, 3), again);
      c = counters(ctx);
      assert_int_equal(c.disk_hits, 1);
      assert_int_equal(c.cubin_misses, !again);
      assert_int_equal(c.cubin_hits, again);
      assert_int_equal(cubins_made() - made, !again);
      ks_template_destroy(t);
      ks_ctx_destroy(ctx);
    }
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  }
}

/* A context made for an older architecture than the device's (sm_80 on
 * the mocked sm_90): its PTX is compiled for the device, as the driver
 * would, and the cubin loads, then comes from the disk cache. */
static void cubin_for_device(void **state) {
  (void)state;
  char dir[] = "/tmp/kspec_stress_XXXXXX";
  assert_non_null(mkdtemp(dir));
  for (int again = 0; again < 2; again++) {
    unsigned long made = cubins_made();
    ks_ctx_opts o = {.cache_dir = dir, .arch = "sm_80"};
    ks_ctx *ctx = NULL;
    ks_template *t = NULL;
    assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
    assert_string_equal(ks_ctx_arch(ctx), "sm_80");
    assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
    assert_int_equal(load_conv(ctx, t, 5), again);
    ks_cache_counters c = counters(ctx);
    assert_int_equal(c.cubin_dropped, 0);
    assert_int_equal(cubins_made() - made, !again);
    if (!again) { /* ptxas_mock's log: the last cubin's -arch */
      FILE *f = fopen(ptxas_log, "r");
      char line[64] = "", last[64] = "";
      assert_non_null(f);
      while (fgets(line, sizeof line, f))
        memcpy(last, line, sizeof last);
      fclose(f);
      assert_string_equal(last, "sm_90\n");
    }
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
  /* the mock, whatever the environment says: kspec opens it on first use,
   * and this handle keeps the same instance (and its counters) alive */
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  /* and the ptxas whose cubins it loads, each one logged */
  setenv("KSPEC_PTXAS", KS_MOCK_PTXAS, 1);
  const char *tmp = getenv("TMPDIR");
  snprintf(ptxas_log, sizeof ptxas_log, "%s/kspec_stress_ptxas_%ld.log",
           tmp && *tmp ? tmp : "/tmp", (long)getpid());
  setenv("KSPEC_MOCK_PTXAS_LOG", ptxas_log, 1);
  void *lib = dlopen(KS_MOCK_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib || !(mock_counters = (kspec_mock_counters_fn)dlsym(
                    lib, KSPEC_MOCK_COUNTERS_FN))) {
    fprintf(stderr, "test_stress: cannot open the mock %s: %s\n", KS_MOCK_LIB,
            dlerror());
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stress_sync),
      cmocka_unit_test(stress_async),
      cmocka_unit_test(cubin_fallbacks),
      cmocka_unit_test(cubin_for_device),
      cmocka_unit_test(grid_coarsened_launch),
      cmocka_unit_test(const_copy_launch),
      cmocka_unit_test(contexts_come_and_go),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  unlink(ptxas_log);
  dlclose(lib);
  return failed;
}
