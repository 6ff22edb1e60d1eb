/*
 * workloads.c - problem instances of the built-in templates (workloads.h).
 *
 * Each template is one row of wl_table: which buffers and scalar arguments
 * it takes, its launch geometry, its CPU reference (computed in double), how
 * its output is compared and how many bytes it must move. Everything else -
 * parameter values, device buffers, random inputs, poisoning, launching,
 * checking and timing - is written once, generically. Only the public API.
 */
#include "workloads.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { WL_MAX_BUFS = 5, WL_MAX_INTS = 2, WL_MAX_ARGS = 8, WL_MAX_PARAMS = 4 };

/* Problems are capped so that every index fits an int in the kernels. */
#define WL_MAX_ELEMS ((size_t)1 << 30)
/* Histogram grid: enough threads in all to fill a large GPU (132 SMs x
 * 2048 threads), fixed so that the grid depends on n and the block only. */
#define WL_HIST_THREADS 262144u

typedef enum buf_role { ROLE_IN, ROLE_OUT, ROLE_ACC } buf_role;
typedef enum buf_elem { ELEM_U8, ELEM_U32, ELEM_F32 } buf_elem;

static const size_t elem_size[] = {1, 4, 4};

/* One device buffer with its host sides. IN buffers are random inputs, OUT
 * buffers are poisoned before a check, ACC buffers (accumulated into by the
 * kernel) get random initial values instead. */
typedef struct wl_buf {
  const char *name;
  buf_role role;
  buf_elem elem;
  size_t count;
  void *host; /* the inputs (IN) or the initial values (ACC) */
  void *got;  /* read back (OUT, ACC) */
  ks_devptr dev;
  float lo, hi; /* F32 inputs uniform in [lo, hi) where hi > lo */
} wl_buf;

typedef union wl_value {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
} wl_value;

typedef struct wl_desc wl_desc;

struct ks_wl {
  ks_ctx *ctx;
  const wl_desc *desc;
  size_t size;                         /* n, or the side of the square */
  long pv;                             /* the value of desc->param */
  ks_param_info params[WL_MAX_PARAMS]; /* the kernel's parameters */
  wl_value pvals[WL_MAX_PARAMS];       /* and their values, as passed */
  double pnum[WL_MAX_PARAMS];          /* the same, for messages */
  size_t nparams;
  wl_buf bufs[WL_MAX_BUFS];
  size_t nbufs;
  int32_t ints[WL_MAX_INTS]; /* scalar arguments after the buffers */
  size_t nints;
  void *args[WL_MAX_ARGS];
  size_t nargs;
  ks_dim3 grid, block;
  /* A cooperative workload (desc->coresident): the grid that covers the
   * problem, block for thread; grid is what the last kernel launched with,
   * fitted to its co-resident blocks (fit_k, fit_block). */
  ks_dim3 tiles;
  const ks_kernel *fit_k;
  ks_dim3 fit_block;
  double *ref; /* the CPU reference, computed at the first check */
  size_t nref; /* its values */
  int filled;  /* the host copies are made, the inputs filled */
  /* The compare on the device (ks_wl_use_checker): the kernel, the
   * reference uploaded at the first check, the kernel's three counters;
   * dev_off when any of it failed (the host compares). */
  ks_kernel *checker;
  ks_devptr ref_dev, counters;
  int dev_off;
  size_t dev_accepts; /* checks the device vouched for */
  uint64_t rng;
  char text[192]; /* "n=1000003 FILTER_LEN=32" */
  char note[192]; /* "FILTER_LEN=32, n=1000003", for mismatch messages */
};

struct wl_desc {
  const char *name;    /* template and kernel */
  const char *param;   /* the parameter sizing the problem */
  const char *ints[2]; /* names of the scalar arguments */
  int two_d;           /* size is the side of a square */
  size_t def_size;
  int axis;       /* sepfilter: 0 along rows, 1 along columns; resize: 2
                     (2-D), 3 (3-D) */
  int coresident; /* grid barrier: at most the co-resident grid */
  int two_pass;   /* ks_wl_two_pass runs it as rows + cols */
  void (*setup)(ks_wl *w); /* declares buffers and scalars */
  void (*geometry)(ks_wl *w, unsigned block);
  int (*reference)(ks_wl *w); /* fills w->ref; -1: no memory */
  int (*compare)(ks_wl *w, char *err, size_t cap); /* 0: it matches */
  double (*bytes)(const ks_wl *w);
};

/* ---- small helpers --------------------------------------------------- */

static ks_status say(char *err, size_t cap, ks_status s, const char *fmt, ...) {
  va_list ap;
  if (err && cap) {
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return s;
}

/* A failure of the library: kspec's message, which names the stage; the
 * template's name is added where the message lacks it. */
static ks_status lib_fail(const ks_wl *w, ks_status s, const char *stage,
                          char *err, size_t cap) {
  const char *msg = ks_errmsg(w->ctx);
  if (strstr(msg, w->desc->name))
    return say(err, cap, s, "%s", msg);
  return say(err, cap, s, "%s: %s: %s", w->desc->name, stage, msg);
}

/* Work over elements [lo, hi), each element on its own. */
typedef void (*range_fn)(void *arg, size_t lo, size_t hi);

typedef struct range_slice {
  void *arg;
  range_fn fn;
  size_t lo, hi;
} range_slice;

static void *range_slice_run(void *arg) {
  range_slice *s = arg;
  s->fn(s->arg, s->lo, s->hi);
  return NULL;
}

/* fn over [0, n) in slices of at least min elements, one per core (at
 * most 64): filling the inputs of a large problem and its CPU reference
 * take seconds on one core, and every worker of a sweep over several GPUs
 * makes its own before its first check. Each element is computed as on
 * one thread, so the result is the same. */
static void par_range(void *arg, size_t n, size_t min, range_fn fn) {
  enum { MAX_SLICES = 64 };
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t k = cpus > 1 ? (size_t)cpus : 1;
  if (k > MAX_SLICES)
    k = MAX_SLICES;
  if (k > n / min)
    k = n / min ? n / min : 1;
  range_slice sl[MAX_SLICES];
  pthread_t th[MAX_SLICES];
  int started[MAX_SLICES] = {0};
  for (size_t i = 0; i < k; i++) {
    sl[i] = (range_slice){arg, fn, n * i / k, n * (i + 1) / k};
    started[i] =
        i > 0 && pthread_create(&th[i], NULL, range_slice_run, &sl[i]) == 0;
  }
  for (size_t i = 0; i < k; i++)
    if (!started[i])
      range_slice_run(&sl[i]); /* the first slice, and any not started */
  for (size_t i = 0; i < k; i++)
    if (started[i])
      pthread_join(th[i], NULL);
}

/* splitmix64: test data, not cryptography. */
#define RND_STEP 0x9E3779B97F4A7C15ull

static uint64_t rnd(uint64_t *state) {
  uint64_t z = (*state += RND_STEP);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1), a multiple of 2^-23: never all zeros. */
static float rnd_float(uint64_t *state) {
  return (float)(rnd(state) >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

/* One buffer's random fill: rnd's state advances by a constant per value,
 * so value i is the one a serial fill from state0 gives it. */
typedef struct fill_job {
  wl_buf *b;
  uint64_t state0;
  unsigned u32_limit;
} fill_job;

static void fill_range(void *arg, size_t lo, size_t hi) {
  const fill_job *j = arg;
  wl_buf *b = j->b;
  unsigned u32_limit = j->u32_limit;
  uint64_t st = j->state0 + (uint64_t)lo * RND_STEP, *state = &st;
  for (size_t i = lo; i < hi; i++) {
    if (b->elem == ELEM_U8)
      ((unsigned char *)b->host)[i] = (unsigned char)(rnd(state) >> 56);
    else if (b->elem == ELEM_U32)
      ((uint32_t *)b->host)[i] =
          (uint32_t)(u32_limit ? rnd(state) % u32_limit : rnd(state));
    else if (b->hi > b->lo)
      ((float *)b->host)[i] =
          b->lo + (rnd_float(state) + 1.0f) * 0.5f * (b->hi - b->lo);
    else
      ((float *)b->host)[i] = rnd_float(state);
  }
}

/* u32_limit: U32 values are below it (0: any). */
static void fill_random(wl_buf *b, uint64_t *state, unsigned u32_limit) {
  fill_job j = {b, *state, u32_limit};
  par_range(&j, b->count, 1 << 16, fill_range);
  *state += (uint64_t)b->count * RND_STEP;
}

static void add_buf(ks_wl *w, const char *name, buf_role role, buf_elem elem,
                    size_t count) {
  wl_buf *b = &w->bufs[w->nbufs++];
  b->name = name;
  b->role = role;
  b->elem = elem;
  b->count = count;
}

static void add_int(ks_wl *w, size_t v) { w->ints[w->nints++] = (int32_t)v; }

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static int clampi(long v, long lo, long hi) {
  return (int)(v < lo ? lo : (v > hi ? hi : v));
}

static double *alloc_ref(ks_wl *w, size_t count) {
  w->ref = calloc(count ? count : 1, sizeof *w->ref);
  w->nref = w->ref ? count : 0;
  return w->ref;
}

/* The buffer the kernel writes (the first that is not an input). */
static wl_buf *out_buf(ks_wl *w) {
  for (size_t i = 0; i < w->nbufs; i++)
    if (w->bufs[i].role != ROLE_IN)
      return &w->bufs[i];
  return NULL;
}

static int mismatch(const ks_wl *w, char *err, size_t cap, const char *where,
                    const char *got, const char *expected) {
  say(err, cap, KS_ERANGE, "%s: %s = %s, expected %s (%s)", w->desc->name,
      where, got, expected, w->note);
  return -1;
}

/* ---- conv1d ---------------------------------------------------------- */

static void conv1d_setup(ks_wl *w) {
  size_t n = w->size, taps = (size_t)w->pv;
  add_buf(w, "x", ROLE_IN, ELEM_F32, n + taps - 1);
  add_buf(w, "f", ROLE_IN, ELEM_F32, taps);
  add_buf(w, "y", ROLE_OUT, ELEM_F32, n);
  add_int(w, n);
}

/* Each output sums its taps in order, k = 0 first, each product rounded
 * to double and added (the sum a serial loop gives), CONV_ROW outputs at
 * a time: one output's sum is a chain of dependent additions, and a row
 * of them side by side keeps the adder busy (the reference of a large
 * problem is on the critical path of every sweep over it). */
enum { CONV_ROW = 8 };

static void conv1d_range(void *arg, size_t lo, size_t hi) {
  ks_wl *w = arg;
  const float *x = w->bufs[0].host, *f = w->bufs[1].host;
  size_t taps = (size_t)w->pv, i = lo;
  for (; i + CONV_ROW <= hi; i += CONV_ROW) {
    double s[CONV_ROW] = {0};
    for (size_t k = 0; k < taps; k++) {
      double fk = f[k];
      for (size_t j = 0; j < CONV_ROW; j++)
        s[j] += (double)x[i + j + k] * fk;
    }
    memcpy(&w->ref[i], s, sizeof s);
  }
  for (; i < hi; i++) {
    double s = 0.0;
    for (size_t k = 0; k < taps; k++)
      s += (double)x[i + k] * f[k];
    w->ref[i] = s;
  }
}

static int conv1d_reference(ks_wl *w) {
  if (!alloc_ref(w, w->size))
    return -1;
  par_range(w, w->size, 1 << 14, conv1d_range);
  return 0;
}

static double conv1d_bytes(const ks_wl *w) {
  return 4.0 * ((double)w->size + (double)w->pv - 1) + 4.0 * (double)w->size +
         4.0 * (double)w->pv;
}

/* 1-D launch, one thread per element; block 0 means 256. */
static void geometry_1d(ks_wl *w, unsigned block) {
  unsigned b = block ? block : 256;
  w->block = (ks_dim3){b, 1, 1};
  w->grid = (ks_dim3){(unsigned)ceil_div(w->size, b), 1, 1};
}

/* Float outputs element by element: |got - ref| <= 1e-4 (1 + |ref|); the
 * NaN poison fails the test, so every element must have been written.
 * The tolerances are the device compare's too (close_parts). */
#define CLOSE_TOL 1e-4
#define BS_TOL 5e-4
/* The first i in [0, n) where |got - ref| > tol (1 + |ref|) (NaN too), or
 * n: searched on every core, each slice giving up past a lower mismatch
 * found by another, since a sweep compares every variant's output. */
typedef struct close_scan {
  const float *got;
  const double *ref;
  double tol;
  atomic_size_t bad;
} close_scan;

static void close_range(void *arg, size_t lo, size_t hi) {
  close_scan *c = arg;
  enum { STRIDE = 1 << 12 };
  for (size_t at = lo; at < hi; at += STRIDE) {
    size_t end = hi - at > STRIDE ? at + STRIDE : hi;
    if (atomic_load_explicit(&c->bad, memory_order_relaxed) < at)
      return;
    for (size_t i = at; i < end; i++)
      if (!(fabs(c->got[i] - c->ref[i]) <= c->tol * (1.0 + fabs(c->ref[i])))) {
        size_t seen = atomic_load(&c->bad);
        while (i < seen && !atomic_compare_exchange_weak(&c->bad, &seen, i))
          ;
        return;
      }
  }
}

static size_t first_far(const float *got, const double *ref, size_t n,
                        double tol) {
  close_scan c = {.got = got, .ref = ref, .tol = tol};
  atomic_init(&c.bad, n);
  par_range(&c, n, 1 << 16, close_range);
  return atomic_load(&c.bad);
}

static int compare_close(ks_wl *w, char *err, size_t cap) {
  wl_buf *o = out_buf(w);
  const float *got = o->got;
  size_t i = first_far(got, w->ref, o->count, CLOSE_TOL);
  if (i == o->count)
    return 0;
  char where[64], g[32], e[32];
  if (w->desc->two_d)
    snprintf(where, sizeof where, "%s[%zu][%zu]", o->name, i / w->size,
             i % w->size);
  else
    snprintf(where, sizeof where, "%s[%zu]", o->name, i);
  snprintf(g, sizeof g, "%.9g", got[i]);
  snprintf(e, sizeof e, "%.9g", w->ref[i]);
  return mismatch(w, err, cap, where, g, e);
}

/* ---- stencil1d --------------------------------------------------------- */

static void stencil1d_setup(ks_wl *w) {
  size_t n = w->size, r = (size_t)w->pv;
  add_buf(w, "x", ROLE_IN, ELEM_F32, n + 2 * r);
  add_buf(w, "c", ROLE_IN, ELEM_F32, 2 * r + 1);
  add_buf(w, "y", ROLE_OUT, ELEM_F32, n);
  add_int(w, n);
}

static void stencil1d_range(void *arg, size_t lo, size_t hi) {
  ks_wl *w = arg;
  const float *x = w->bufs[0].host, *c = w->bufs[1].host;
  size_t taps = 2 * (size_t)w->pv + 1;
  for (size_t i = lo; i < hi; i++) {
    double m = 0.0, s = 0.0;
    for (size_t k = 0; k < taps; k++)
      m += x[i + k];
    m /= (double)taps;
    for (size_t k = 0; k < taps; k++)
      s += (double)c[k] * (x[i + k] - m);
    w->ref[i] = s;
  }
}

static int stencil1d_reference(ks_wl *w) {
  if (!alloc_ref(w, w->size))
    return -1;
  par_range(w, w->size, 1 << 14, stencil1d_range);
  return 0;
}

/* Four outputs per thread; block 0 means 256. */
static void stencil1d_geometry(ks_wl *w, unsigned block) {
  unsigned b = block ? block : 256;
  w->block = (ks_dim3){b, 1, 1};
  w->grid = (ks_dim3){(unsigned)ceil_div(ceil_div(w->size, 4), b), 1, 1};
}

static double stencil1d_bytes(const ks_wl *w) {
  return 4.0 * ((double)w->size + 2.0 * (double)w->pv) + 4.0 * (double)w->size +
         4.0 * (2.0 * (double)w->pv + 1);
}

/* ---- blackscholes ------------------------------------------------------ */

/* Prices, strikes and years as CUDA's BlackScholes sample draws them. */
static void blackscholes_setup(ks_wl *w) {
  size_t n = w->size;
  add_buf(w, "call", ROLE_OUT, ELEM_F32, n);
  add_buf(w, "put", ROLE_OUT, ELEM_F32, n);
  add_buf(w, "S", ROLE_IN, ELEM_F32, n);
  add_buf(w, "X", ROLE_IN, ELEM_F32, n);
  add_buf(w, "T", ROLE_IN, ELEM_F32, n);
  w->bufs[2].lo = 5.0f, w->bufs[2].hi = 30.0f;
  w->bufs[3].lo = 1.0f, w->bufs[3].hi = 100.0f;
  w->bufs[4].lo = 0.25f, w->bufs[4].hi = 10.0f;
  add_int(w, n);
}

/* The value of a float parameter by name. */
static double param_of(const ks_wl *w, const char *name) {
  for (size_t i = 0; i < w->nparams; i++)
    if (strcmp(w->params[i].name, name) == 0)
      return (double)w->pvals[i].f32; /* as the kernel gets it */
  return 0.0;
}

static double bs_cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937,
               a4 = -1.821255978, a5 = 1.330274429;
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double c = 0.39894228040143267794 * exp(-0.5 * d * d) *
             (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0 - c : c;
}

/* ref holds the calls, then the puts. */
static void blackscholes_range(void *arg, size_t lo, size_t hi) {
  ks_wl *w = arg;
  const float *S = w->bufs[2].host, *X = w->bufs[3].host, *T = w->bufs[4].host;
  double r = param_of(w, "RISKFREE"), v = param_of(w, "VOLATILITY");
  size_t n = w->size;
  for (size_t i = lo; i < hi; i++) {
    double s = S[i], x = X[i], t = T[i], st = sqrt(t);
    double d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * st);
    double d2 = d1 - v * st, n1 = bs_cnd(d1), n2 = bs_cnd(d2);
    double e = exp(-r * t);
    w->ref[i] = s * n1 - x * e * n2;
    w->ref[n + i] = x * e * (1.0 - n2) - s * (1.0 - n1);
  }
}

static int blackscholes_reference(ks_wl *w) {
  if (!alloc_ref(w, 2 * w->size))
    return -1;
  par_range(w, w->size, 1 << 14, blackscholes_range);
  return 0;
}

/* Both outputs: |got - ref| <= 5e-4 (1 + |ref|) (float math against the
 * same formula in double; prices up to 100). */
static int blackscholes_compare(ks_wl *w, char *err, size_t cap) {
  for (int o = 0; o < 2; o++) {
    const float *got = w->bufs[o].got;
    const double *ref = w->ref + (size_t)o * w->size;
    size_t i = first_far(got, ref, w->size, BS_TOL);
    if (i < w->size) {
      char where[64], g[32], e[32];
      snprintf(where, sizeof where, "%s[%zu]", w->bufs[o].name, i);
      snprintf(g, sizeof g, "%.9g", got[i]);
      snprintf(e, sizeof e, "%.9g", ref[i]);
      return mismatch(w, err, cap, where, g, e);
    }
  }
  return 0;
}

static double blackscholes_bytes(const ks_wl *w) {
  return 5.0 * 4.0 * (double)w->size;
}

/* ---- sepfilter_rows, sepfilter_cols ------------------------------------ */

static void sepfilter_setup(ks_wl *w) {
  size_t side = w->size, taps = 2 * (size_t)w->pv + 1;
  add_buf(w, "in", ROLE_IN, ELEM_F32, side * side);
  add_buf(w, "c", ROLE_IN, ELEM_F32, taps);
  add_buf(w, "out", ROLE_OUT, ELEM_F32, side * side);
  add_int(w, side);
  add_int(w, side);
}

/* Rows: each output reads its own row. Columns: whole rows are accumulated
 * at a time so the reference walks memory in order. */
static void sepfilter_range(void *arg, size_t lo, size_t hi) {
  ks_wl *w = arg;
  const float *in = w->bufs[0].host, *c = w->bufs[1].host;
  long side = (long)w->size, r = w->pv;
  for (long y = (long)lo; y < (long)hi; y++) {
    double *row = w->ref + y * side;
    for (long k = -r; k <= r; k++) {
      double ck = c[k + r];
      if (w->desc->axis == 0) {
        const float *src = in + y * side;
        for (long x = 0; x < side; x++)
          row[x] += (double)src[clampi(x + k, 0, side - 1)] * ck;
      } else {
        const float *src = in + clampi(y + k, 0, side - 1) * side;
        for (long x = 0; x < side; x++)
          row[x] += (double)src[x] * ck;
      }
    }
  }
}

/* By rows: a slice is whole rows. */
static int sepfilter_reference(ks_wl *w) {
  if (!alloc_ref(w, w->size * w->size))
    return -1;
  par_range(w, w->size, 16, sepfilter_range);
  return 0;
}

/* The block is free: `block` threads as 32 x block/32 when it is a multiple
 * of the warp (256: 32 x 8), else block x 1. */
static void sepfilter_geometry(ks_wl *w, unsigned block) {
  unsigned b = block ? block : 256;
  unsigned bx = b % 32 == 0 ? 32 : b, by = b / bx;
  w->block = (ks_dim3){bx, by, 1};
  w->grid = (ks_dim3){(unsigned)ceil_div(w->size, bx),
                      (unsigned)ceil_div(w->size, by), 1};
}

static double sepfilter_bytes(const ks_wl *w) {
  return 2.0 * 4.0 * (double)w->size * (double)w->size;
}

/* ---- sepfilter_fused --------------------------------------------------- */

/* sepfilter_fused(in, c, out, tmp, w, h, RADIUS): tmp is the row pass,
 * poisoned and read back like out. */
static void fused_setup(ks_wl *w) {
  size_t side = w->size, taps = 2 * (size_t)w->pv + 1;
  add_buf(w, "in", ROLE_IN, ELEM_F32, side * side);
  add_buf(w, "c", ROLE_IN, ELEM_F32, taps);
  add_buf(w, "out", ROLE_OUT, ELEM_F32, side * side);
  add_buf(w, "tmp", ROLE_OUT, ELEM_F32, side * side);
  add_int(w, side);
  add_int(w, side);
}

/* ref holds the result, then the row pass (in double: the kernel rounds
 * it to float, far within the comparison's bound). */
static void fused_rows(void *arg, size_t lo, size_t hi) {
  ks_wl *w = arg;
  const float *in = w->bufs[0].host, *c = w->bufs[1].host;
  long side = (long)w->size, r = w->pv;
  for (long y = (long)lo; y < (long)hi; y++) {
    double *row = w->ref + (size_t)(side + y) * side;
    const float *src = in + y * side;
    for (long k = -r; k <= r; k++)
      for (long x = 0; x < side; x++)
        row[x] += (double)src[clampi(x + k, 0, side - 1)] * c[k + r];
  }
}

static void fused_cols(void *arg, size_t lo, size_t hi) {
  ks_wl *w = arg;
  const float *c = w->bufs[1].host;
  long side = (long)w->size, r = w->pv;
  const double *mid = w->ref + (size_t)side * side;
  for (long y = (long)lo; y < (long)hi; y++) {
    double *row = w->ref + y * side;
    for (long k = -r; k <= r; k++) {
      const double *src = mid + clampi(y + k, 0, side - 1) * side;
      for (long x = 0; x < side; x++)
        row[x] += src[x] * c[k + r];
    }
  }
}

static int fused_reference(ks_wl *w) {
  if (!alloc_ref(w, 2 * w->size * w->size))
    return -1;
  par_range(w, w->size, 16, fused_rows);
  par_range(w, w->size, 16, fused_cols);
  return 0;
}

/* in read, tmp written and read back, out written: what the two passes
 * move too, so that both read as fractions of the same bytes. */
static double fused_bytes(const ks_wl *w) {
  return 4.0 * 4.0 * (double)w->size * (double)w->size;
}

/* The grid for k: the blocks that cover the image (tiles) where they can
 * all be resident at once, else as many as can (all of x first, as many
 * rows of blocks as fit); each thread strides over the rest. Asked once
 * per kernel and block (ks_kernel_max_coresident_grid). */
static ks_status fit_coresident(ks_wl *w, ks_kernel *k, char *err, size_t cap) {
  ks_dim3 b = w->block, t = w->tiles;
  if (w->fit_k == k && w->fit_block.x == b.x && w->fit_block.y == b.y &&
      w->fit_block.z == b.z)
    return KS_OK;
  unsigned most = 0;
  ks_status s = ks_kernel_max_coresident_grid(k, b.x * b.y * b.z, 0, &most);
  if (s != KS_OK)
    return lib_fail(w, s, "co-resident grid", err, cap);
  if (most == 0)
    return say(err, cap, KS_EBOUNDS,
               "%s: a block of %ux%ux%u cannot be resident (%s)", w->desc->name,
               b.x, b.y, b.z, w->note);
  unsigned gx = t.x < most ? t.x : most, fy = most / gx;
  w->grid = (ks_dim3){gx, t.y < fy ? t.y : fy, 1};
  w->fit_k = k;
  w->fit_block = b;
  return KS_OK;
}

/* ---- histogram -------------------------------------------------------- */

static void histogram_setup(ks_wl *w) {
  add_buf(w, "data", ROLE_IN, ELEM_U8, w->size);
  add_buf(w, "hist", ROLE_ACC, ELEM_U32, (size_t)w->pv);
  add_int(w, w->size);
}

static int histogram_reference(ks_wl *w) {
  const unsigned char *data = w->bufs[0].host;
  size_t bins = (size_t)w->pv;
  if (!alloc_ref(w, bins))
    return -1;
  for (size_t i = 0; i < w->size; i++)
    w->ref[(data[i] * bins) / 256] += 1.0;
  return 0;
}

/* A grid-stride loop: at most WL_HIST_THREADS threads in all. */
static void histogram_geometry(ks_wl *w, unsigned block) {
  unsigned b = block ? block : 256;
  size_t most = b < WL_HIST_THREADS ? WL_HIST_THREADS / b : 1;
  size_t blocks = ceil_div(w->size, b);
  w->block = (ks_dim3){b, 1, 1};
  w->grid = (ks_dim3){(unsigned)(blocks < most ? blocks : most), 1, 1};
}

/* Exact: each bin holds its initial value plus its count (mod 2^32). */
static int histogram_compare(ks_wl *w, char *err, size_t cap) {
  const wl_buf *h = &w->bufs[1];
  const uint32_t *got = h->got, *init = h->host;
  for (size_t b = 0; b < h->count; b++) {
    uint32_t want = init[b] + (uint32_t)w->ref[b];
    if (got[b] != want) {
      char where[48], g[16], e[16];
      snprintf(where, sizeof where, "hist[%zu]", b);
      snprintf(g, sizeof g, "%u", got[b]);
      snprintf(e, sizeof e, "%u", want);
      return mismatch(w, err, cap, where, g, e);
    }
  }
  return 0;
}

static double histogram_bytes(const ks_wl *w) {
  return (double)w->size + 4.0 * (double)w->pv;
}

/* ---- reduce_sum -------------------------------------------------------- */

static void reduce_setup(ks_wl *w) {
  add_buf(w, "x", ROLE_IN, ELEM_F32, w->size);
  add_buf(w, "out", ROLE_ACC, ELEM_F32, 1);
  add_int(w, w->size);
}

/* ref[0]: the sum; ref[1]: the sum of magnitudes, for the tolerance. */
static int reduce_reference(ks_wl *w) {
  const float *x = w->bufs[0].host;
  if (!alloc_ref(w, 2))
    return -1;
  for (size_t i = 0; i < w->size; i++) {
    w->ref[0] += x[i];
    w->ref[1] += fabs(x[i]);
  }
  return 0;
}

/* The block is BLOCK: the parameter fixes it. */
static void reduce_geometry(ks_wl *w, unsigned block) {
  geometry_1d(w, (unsigned)w->pv);
}

/* Float atomics add the blocks' sums in any order: relative to the sum of
 * magnitudes (the initial value included), 1e-4. */
static int reduce_compare(ks_wl *w, char *err, size_t cap) {
  const wl_buf *o = &w->bufs[1];
  double init = *(const float *)o->host, got = *(const float *)o->got;
  double want = init + w->ref[0];
  double tol = 1e-4 * (w->ref[1] + fabs(init));
  if (!(fabs(got - want) <= tol)) {
    char g[32], e[64];
    snprintf(g, sizeof g, "%.9g", got);
    snprintf(e, sizeof e, "%.9g +- %.3g", want, tol);
    return mismatch(w, err, cap, "out", g, e);
  }
  return 0;
}

static double reduce_bytes(const ks_wl *w) { return 4.0 * (double)w->size; }

/* ---- transpose --------------------------------------------------------- */

/* The matrix is rows x cols with rows = size and cols = size + size % 64:
 * square for the benchmarks' sizes (multiples of 64), not square for the
 * tests' odd sizes, so that a kernel swapping rows and cols fails. */
static size_t transpose_cols(const ks_wl *w) { return w->size + w->size % 64; }

static void transpose_setup(ks_wl *w) {
  add_buf(w, "in", ROLE_IN, ELEM_F32, w->size * transpose_cols(w));
  add_buf(w, "out", ROLE_OUT, ELEM_F32, w->size * transpose_cols(w));
  add_int(w, w->size);           /* rows */
  add_int(w, transpose_cols(w)); /* cols */
}

static void transpose_geometry(ks_wl *w, unsigned block) {
  unsigned t = (unsigned)w->pv;
  w->block = (ks_dim3){t, t, 1};
  w->grid = (ks_dim3){(unsigned)ceil_div(transpose_cols(w), t),
                      (unsigned)ceil_div(w->size, t), 1};
}

/* Exact, bit for bit: out[x][y] is in[y][x]. */
static int transpose_compare(ks_wl *w, char *err, size_t cap) {
  const uint32_t *in = w->bufs[0].host, *got = w->bufs[1].got;
  size_t rows = w->size, cols = transpose_cols(w);
  for (size_t x = 0; x < cols; x++) {
    for (size_t y = 0; y < rows; y++) {
      uint32_t want = in[y * cols + x], have = got[x * rows + y];
      if (have != want) {
        char where[64], g[32], e[32];
        float fg, fe;
        memcpy(&fg, &have, sizeof fg);
        memcpy(&fe, &want, sizeof fe);
        snprintf(where, sizeof where, "out[%zu][%zu]", x, y);
        snprintf(g, sizeof g, "%.9g", fg);
        snprintf(e, sizeof e, "%.9g", fe);
        return mismatch(w, err, cap, where, g, e);
      }
    }
  }
  return 0;
}

static double transpose_bytes(const ks_wl *w) {
  return 2.0 * 4.0 * (double)w->size * (double)transpose_cols(w);
}

/* ---- resize, resize3d ----------------------------------------------------
 * src is n x n (x n), rows `pitch` floats apart, pitch a multiple of 64 (a
 * texture's pitch alignment); dst is (n*F)^2 (^3) dense. */

static size_t resize_pitch(const ks_wl *w) {
  return ceil_div(w->size, 64) * 64;
}
static size_t resize_side(const ks_wl *w) { return w->size * (size_t)w->pv; }
static int resize_3d(const ks_wl *w) { return w->desc->axis == 3; }

static void resize_setup(ks_wl *w) {
  size_t n = w->size, on = resize_side(w), d = resize_3d(w);
  add_buf(w, "src", ROLE_IN, ELEM_F32, resize_pitch(w) * n * (d ? n : 1));
  add_buf(w, "dst", ROLE_OUT, ELEM_F32, on * on * (d ? on : 1));
  add_int(w, n);
  add_int(w, resize_pitch(w));
}

/* 32 x (block / 32) blocks over the output; block 0 means 256. */
static void resize_geometry(ks_wl *w, unsigned block) {
  unsigned t = block ? block : 256, bx = t >= 32 ? 32 : t;
  unsigned by = t / bx;
  size_t on = resize_side(w);
  w->block = (ks_dim3){bx, by, 1};
  w->grid = (ks_dim3){(unsigned)ceil_div(on, bx), (unsigned)ceil_div(on, by),
                      resize_3d(w) ? (unsigned)on : 1};
}

/* The FILTER parameter's value (0 nearest, 1 linear). */
static int resize_linear(const ks_wl *w) {
  for (size_t i = 0; i < w->nparams; i++)
    if (strcmp(w->params[i].name, "FILTER") == 0)
      return w->pnum[i] != 0;
  return 1;
}

/* One axis of CUDA's sampling at x (clamped): the texels and the weight of
 * the second. */
static void resize_axis(float x, long n, int linear, long i[2], double *a) {
  double xb = linear ? (double)x - 0.5 : (double)x;
  long f = (long)floor(xb);
  *a = linear ? xb - (double)f : 0.0;
  i[0] = clampi(f, 0, n - 1);
  i[1] = clampi(f + 1, 0, n - 1);
}

/* w->ref holds the value of each output, then its tolerance: the hardware
 * weighs with 8-bit fractions, within D/256 of the range of the 2^D texels
 * it blends (README, "Textures"), and both within float rounding. */
static void resize_range(void *arg, size_t lo_o, size_t hi_o) {
  ks_wl *w = arg;
  const float *src = w->bufs[0].host;
  long n = (long)w->size, on = (long)resize_side(w), p = (long)resize_pitch(w);
  int d3 = resize_3d(w), lin = resize_linear(w), dims = d3 ? 3 : 2;
  size_t count = w->bufs[1].count;
  float inv = 1.0f / (float)w->pv;
  for (size_t o = lo_o; o < hi_o; o++) {
    long c[3] = {(long)(o % (size_t)on), (long)(o / (size_t)on % (size_t)on),
                 d3 ? (long)(o / ((size_t)on * (size_t)on)) : 0};
    long idx[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    double a[3] = {0, 0, 0}, sum = 0, lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < dims; k++)
      resize_axis(((float)c[k] + 0.5f) * inv, n, lin, idx[k], &a[k]);
    for (int corner = 0; corner < (lin ? 1 << dims : 1); corner++) {
      double wt = 1;
      long at = 0;
      for (int k = dims - 1; k >= 0; k--) {
        int up = corner >> k & 1;
        wt *= up ? a[k] : 1 - a[k];
        at = at * (k == 0 ? p : n) + idx[k][up];
      }
      double v = src[at];
      sum += wt * v;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    w->ref[o] = sum;
    w->ref[count + o] = (lin ? dims * (hi - lo) / 256.0 : 0.0) + 1e-5;
  }
}

static int resize_reference(ks_wl *w) {
  size_t count = w->bufs[1].count;
  if (!alloc_ref(w, 2 * count))
    return -1;
  par_range(w, count, 1 << 14, resize_range);
  return 0;
}

static int resize_compare(ks_wl *w, char *err, size_t cap) {
  wl_buf *o = out_buf(w);
  const float *got = o->got;
  for (size_t i = 0; i < o->count; i++) {
    double r = w->ref[i], tol = w->ref[o->count + i];
    if (!(fabs(got[i] - r) <= tol)) {
      char where[64], g[32], e[48];
      snprintf(where, sizeof where, "%s[%zu]", o->name, i);
      snprintf(g, sizeof g, "%.9g", got[i]);
      snprintf(e, sizeof e, "%.9g +- %.3g", r, tol);
      return mismatch(w, err, cap, where, g, e);
    }
  }
  return 0;
}

/* Each input element read once, each output written once. */
static double resize_bytes(const ks_wl *w) {
  double n = (double)w->size, on = (double)resize_side(w);
  return resize_3d(w) ? 4.0 * (n * n * n + on * on * on)
                      : 4.0 * (n * n + on * on);
}

/* ---- the table --------------------------------------------------------- */

static const wl_desc wl_table[] = {
    {.name = "conv1d",
     .param = "FILTER_LEN",
     .ints = {"n"},
     .def_size = (size_t)1 << 24,
     .setup = conv1d_setup,
     .geometry = geometry_1d,
     .reference = conv1d_reference,
     .compare = compare_close,
     .bytes = conv1d_bytes},
    {.name = "sepfilter_rows",
     .param = "RADIUS",
     .ints = {"w", "h"},
     .two_d = 1,
     .def_size = 4096,
     .axis = 0,
     .setup = sepfilter_setup,
     .geometry = sepfilter_geometry,
     .reference = sepfilter_reference,
     .compare = compare_close,
     .bytes = sepfilter_bytes},
    {.name = "sepfilter_cols",
     .param = "RADIUS",
     .ints = {"w", "h"},
     .two_d = 1,
     .def_size = 4096,
     .axis = 1,
     .setup = sepfilter_setup,
     .geometry = sepfilter_geometry,
     .reference = sepfilter_reference,
     .compare = compare_close,
     .bytes = sepfilter_bytes},
    {.name = "sepfilter_fused",
     .param = "RADIUS",
     .ints = {"w", "h"},
     .two_d = 1,
     .def_size = 4096,
     .coresident = 1,
     .two_pass = 1,
     .setup = fused_setup,
     .geometry = sepfilter_geometry,
     .reference = fused_reference,
     .compare = compare_close,
     .bytes = fused_bytes},
    {.name = "histogram",
     .param = "BINS",
     .ints = {"n"},
     .def_size = (size_t)1 << 26,
     .setup = histogram_setup,
     .geometry = histogram_geometry,
     .reference = histogram_reference,
     .compare = histogram_compare,
     .bytes = histogram_bytes},
    {.name = "reduce_sum",
     .param = "BLOCK",
     .ints = {"n"},
     .def_size = (size_t)1 << 24,
     .setup = reduce_setup,
     .geometry = reduce_geometry,
     .reference = reduce_reference,
     .compare = reduce_compare,
     .bytes = reduce_bytes},
    {.name = "transpose",
     .param = "TILE",
     .ints = {"rows", "cols"},
     .two_d = 1,
     .def_size = 4096,
     .setup = transpose_setup,
     .geometry = transpose_geometry,
     .reference = NULL,
     .compare = transpose_compare,
     .bytes = transpose_bytes},
    {.name = "stencil1d",
     .param = "RADIUS",
     .ints = {"n"},
     .def_size = (size_t)1 << 24,
     .setup = stencil1d_setup,
     .geometry = stencil1d_geometry,
     .reference = stencil1d_reference,
     .compare = compare_close,
     .bytes = stencil1d_bytes},
    {.name = "resize",
     .param = "FACTOR",
     .ints = {"n", "pitch"},
     .two_d = 1,
     .def_size = 4096,
     .axis = 2,
     .setup = resize_setup,
     .geometry = resize_geometry,
     .reference = resize_reference,
     .compare = resize_compare,
     .bytes = resize_bytes},
    {.name = "resize3d",
     .param = "FACTOR",
     .ints = {"n", "pitch"},
     .def_size = 256,
     .axis = 3,
     .setup = resize_setup,
     .geometry = resize_geometry,
     .reference = resize_reference,
     .compare = resize_compare,
     .bytes = resize_bytes},
    {.name = "blackscholes",
     .param = "RISKFREE",
     .ints = {"n"},
     .def_size = (size_t)1 << 24,
     .setup = blackscholes_setup,
     .geometry = geometry_1d,
     .reference = blackscholes_reference,
     .compare = blackscholes_compare,
     .bytes = blackscholes_bytes},
};

/* The launch geometry for block (0: the default); a cooperative
 * workload's grid is fitted again at its next launch. */
static void set_geometry(ks_wl *w, unsigned block) {
  w->desc->geometry(w, block);
  w->tiles = w->grid;
  w->fit_k = NULL;
}

static const wl_desc *find_desc(const char *name) {
  for (size_t i = 0; name && i < sizeof wl_table / sizeof wl_table[0]; i++)
    if (strcmp(wl_table[i].name, name) == 0)
      return &wl_table[i];
  return NULL;
}

int ks_wl_supported(const char *template_name) {
  return find_desc(template_name) != NULL;
}

/* ---- parameters -------------------------------------------------------- */

/* The numeric value of a binding; text is parsed by the parameter's type. */
static int binding_number(const ks_binding *b, const ks_param_info *p,
                          double *out) {
  char *end = NULL;
  if (b->kind == KS_VALUE_INT) {
    *out = (double)b->v.i;
    return 0;
  }
  if (b->kind == KS_VALUE_REAL) {
    *out = b->v.f;
    return 0;
  }
  if (b->kind != KS_VALUE_TEXT || !b->v.s || !*b->v.s)
    return -1;
  if (p->type == KS_TYPE_I32 || p->type == KS_TYPE_I64)
    *out = (double)strtoll(b->v.s, &end, 0);
  else
    *out = strtod(b->v.s, &end);
  return *end ? -1 : 0;
}

static void store_value(ks_wl *w, size_t i, double v) {
  w->pnum[i] = v;
  switch (w->params[i].type) {
  case KS_TYPE_I32:
    w->pvals[i].i32 = (int32_t)v;
    break;
  case KS_TYPE_I64:
    w->pvals[i].i64 = (int64_t)v;
    break;
  case KS_TYPE_F32:
    w->pvals[i].f32 = (float)v;
    break;
  case KS_TYPE_F64:
    w->pvals[i].f64 = v;
    break;
  default: /* the built-in templates mark none of the others */
    break;
  }
}

/* Applies one binding: the name must be a parameter, the value of its type
 * and in its range. */
static ks_status apply_binding(ks_wl *w, const ks_binding *b, char *err,
                               size_t cap) {
  const char *name = b->name ? b->name : "(null)";
  for (size_t i = 0; i < w->nparams; i++) {
    const ks_param_info *p = &w->params[i];
    double v;
    if (strcmp(p->name, name) != 0)
      continue;
    if (binding_number(b, p, &v) != 0 ||
        ((p->type == KS_TYPE_I32 || p->type == KS_TYPE_I64) && v != floor(v)))
      return say(err, cap, KS_EPARAM, "%s: bad value for %s (%s expected)",
                 w->desc->name, name, ks_type_name(p->type));
    if (!(v >= p->min && v <= p->max))
      return say(err, cap, KS_ERANGE, "%s: %s=%g outside [%g, %g]",
                 w->desc->name, name, v, p->min, p->max);
    store_value(w, i, v);
    return KS_OK;
  }
  return say(err, cap, KS_EPARAM, "%s: no parameter '%s'", w->desc->name, name);
}

/* Reads kernel ki's parameters, defaults first, then the bindings. */
static ks_status read_params(ks_wl *w, const ks_template *t, size_t ki,
                             const ks_binding *values, size_t nvalues,
                             char *err, size_t cap) {
  size_t n = ks_template_param_count(t, ki);
  ks_status s;
  for (size_t i = 0; i < n; i++) {
    ks_param_info p = {.size = sizeof p};
    if ((s = ks_template_param(t, ki, i, &p)) != KS_OK)
      return lib_fail(w, s, "parameters", err, cap);
    if (!p.marked)
      break; /* the marked ones come first; the rest are plain ints */
    if (w->nparams == WL_MAX_PARAMS)
      return say(err, cap, KS_EINVAL, "%s: too many parameters (%zu)",
                 w->desc->name, n);
    w->params[w->nparams] = p;
    store_value(w, w->nparams, p.def);
    w->nparams++;
  }
  for (size_t i = 0; i < nvalues; i++)
    if ((s = apply_binding(w, &values[i], err, cap)) != KS_OK)
      return s;
  for (size_t i = 0; i < w->nparams; i++)
    if (strcmp(w->params[i].name, w->desc->param) == 0) {
      w->pv = (long)w->pnum[i];
      return KS_OK;
    }
  return say(err, cap, KS_EINVAL, "%s: the template has no parameter %s",
             w->desc->name, w->desc->param);
}

/* ---- creation ---------------------------------------------------------- */

/* Kernel arguments: the buffers, then the scalars, then the parameters at
 * their own positions, which must be the last ones. */
static ks_status build_args(ks_wl *w, char *err, size_t cap) {
  size_t fixed = w->nbufs + w->nints;
  w->nargs = fixed + w->nparams;
  for (size_t i = 0; i < w->nbufs; i++)
    w->args[i] = &w->bufs[i].dev;
  for (size_t i = 0; i < w->nints; i++)
    w->args[w->nbufs + i] = &w->ints[i];
  for (size_t i = 0; i < w->nparams; i++) {
    unsigned at = w->params[i].arg_index;
    if (at < fixed || at >= w->nargs || w->args[at])
      return say(err, cap, KS_EINVAL,
                 "%s: parameter %s is argument %u, not one of the last %zu",
                 w->desc->name, w->params[i].name, at, w->nparams);
    w->args[at] = &w->pvals[i];
  }
  return KS_OK;
}

/* The host copies, inputs filled (in the buffers' order, so that each
 * input has the values it had when filled with its upload). */
static ks_status fill_host(ks_wl *w, char *err, size_t cap) {
  for (size_t i = 0; i < w->nbufs && !w->filled; i++) {
    wl_buf *b = &w->bufs[i];
    size_t bytes = b->count * elem_size[b->elem];
    if (b->host)
      continue;
    b->host = malloc(bytes);
    if (b->role != ROLE_IN)
      b->got = malloc(bytes);
    if (!b->host || (b->role != ROLE_IN && !b->got))
      return say(err, cap, KS_ENOMEM, "%s: no memory for %s (%zu bytes)",
                 w->desc->name, b->name, bytes);
    if (b->role == ROLE_IN)
      fill_random(b, &w->rng, 0);
  }
  w->filled = 1;
  return KS_OK;
}

/* Device buffers, inputs uploaded (the host side first, where
 * ks_wl_fill has not made it). */
static ks_status alloc_buffers(ks_wl *w, char *err, size_t cap) {
  ks_status s = fill_host(w, err, cap);
  for (size_t i = 0; i < w->nbufs && s == KS_OK; i++) {
    wl_buf *b = &w->bufs[i];
    size_t bytes = b->count * elem_size[b->elem];
    if (b->dev)
      continue;
    if ((s = ks_mem_alloc(w->ctx, bytes, &b->dev)) != KS_OK)
      return lib_fail(w, s, "allocate", err, cap);
    if (b->role == ROLE_IN &&
        (s = ks_memcpy_htod(w->ctx, b->dev, b->host, bytes)) != KS_OK)
      return lib_fail(w, s, "upload", err, cap);
  }
  return s;
}

/* "n=1000003 FILTER_LEN=32" and "FILTER_LEN=32, n=1000003". */
static void describe(ks_wl *w) {
  size_t a = 0, b = 0;
  for (size_t i = 0; i < w->nints && a < sizeof w->text; i++)
    a += (size_t)snprintf(w->text + a, sizeof w->text - a, "%s%s=%d",
                          i ? " " : "", w->desc->ints[i], w->ints[i]);
  for (size_t i = 0; i < w->nparams && a < sizeof w->text; i++)
    a += (size_t)snprintf(w->text + a, sizeof w->text - a, " %s=%g",
                          w->params[i].name, w->pnum[i]);
  for (size_t i = 0; i < w->nparams && b < sizeof w->note; i++)
    b += (size_t)snprintf(w->note + b, sizeof w->note - b, "%s=%g, ",
                          w->params[i].name, w->pnum[i]);
  for (size_t i = 0; i < w->nints && b < sizeof w->note; i++)
    b += (size_t)snprintf(w->note + b, sizeof w->note - b, "%s%s=%d",
                          i ? ", " : "", w->desc->ints[i], w->ints[i]);
}

static ks_status find_kernel(const ks_template *t, const char *kernel,
                             size_t *ki, char *err, size_t cap) {
  size_t n = ks_template_kernel_count(t);
  if (!kernel) {
    *ki = 0;
    return n == 1 ? KS_OK
                  : say(err, cap, KS_EINVAL, "%s: %zu kernels, name one",
                        ks_template_name(t), n);
  }
  for (*ki = 0; *ki < n; ++*ki)
    if (strcmp(ks_template_kernel_name(t, *ki), kernel) == 0)
      return KS_OK;
  return say(err, cap, KS_ENOKERNEL, "%s: no kernel '%s'", ks_template_name(t),
             kernel);
}

ks_status ks_wl_prepare(ks_ctx *ctx, const ks_template *t, const char *kernel,
                        size_t size, const ks_binding *values, size_t nvalues,
                        unsigned block, uint64_t seed, ks_wl **out, char *err,
                        size_t cap) {
  const wl_desc *d;
  ks_wl *w = NULL;
  size_t ki;
  ks_status s;
  if (!ctx || !t || !out || (nvalues && !values))
    return say(err, cap, KS_EINVAL, "workload: missing argument");
  *out = NULL;
  if ((s = find_kernel(t, kernel, &ki, err, cap)) != KS_OK)
    return s;
  d = find_desc(ks_template_name(t));
  if (!d)
    d = find_desc(ks_template_kernel_name(t, ki));
  if (!d)
    return say(err, cap, KS_EINVAL, "%s: no workload for this template",
               ks_template_name(t));
  size = size ? size : d->def_size;
  if (size > (d->two_d ? (size_t)1 << 15 : WL_MAX_ELEMS))
    return say(err, cap, KS_EINVAL, "%s: size %zu is too large", d->name, size);
  if (!(w = calloc(1, sizeof *w)))
    return say(err, cap, KS_ENOMEM, "%s: no memory", d->name);
  w->ctx = ctx;
  w->desc = d;
  w->size = size;
  w->rng = seed;
  if ((s = read_params(w, t, ki, values, nvalues, err, cap)) != KS_OK)
    goto fail;
  if (d->setup == resize_setup &&
      size * (size_t)w->pv > (d->axis == 3 ? 1024u : 32768u)) {
    s = say(err, cap, KS_EINVAL, "%s: output side %zu x %ld is too large",
            d->name, size, w->pv);
    goto fail;
  }
  d->setup(w);
  set_geometry(w, block);
  describe(w);
  if ((s = build_args(w, err, cap)) != KS_OK)
    goto fail;
  *out = w;
  return KS_OK;
fail:
  ks_wl_destroy(w);
  return s;
}

ks_status ks_wl_alloc(ks_wl *w, char *err, size_t cap) {
  return alloc_buffers(w, err, cap);
}

ks_status ks_wl_fill(ks_wl *w, char *err, size_t cap) {
  return w ? fill_host(w, err, cap)
           : say(err, cap, KS_EINVAL, "workload: missing argument");
}

ks_status ks_wl_reference(ks_wl *w, char *err, size_t cap) {
  ks_status s = ks_wl_fill(w, err, cap);
  if (s == KS_OK && !w->ref && w->desc->reference && w->desc->reference(w))
    s = say(err, cap, KS_ENOMEM, "%s: no memory for the reference",
            w->desc->name);
  return s;
}

ks_status ks_wl_rebind(ks_wl *w, ks_ctx *ctx) {
  for (size_t i = 0; w && i < w->nbufs; i++)
    if (w->bufs[i].dev)
      return KS_EINVAL;
  if (!w || !ctx)
    return KS_EINVAL;
  w->ctx = ctx;
  return KS_OK;
}

ks_status ks_wl_create(ks_ctx *ctx, const ks_template *t, const char *kernel,
                       size_t size, const ks_binding *values, size_t nvalues,
                       unsigned block, uint64_t seed, ks_wl **out, char *err,
                       size_t cap) {
  ks_status s = ks_wl_prepare(ctx, t, kernel, size, values, nvalues, block,
                              seed, out, err, cap);
  if (s == KS_OK && (s = ks_wl_alloc(*out, err, cap)) != KS_OK) {
    ks_wl_destroy(*out);
    *out = NULL;
  }
  return s;
}

void ks_wl_destroy(ks_wl *w) {
  if (!w)
    return;
  for (size_t i = 0; i < w->nbufs; i++) {
    if (w->bufs[i].dev)
      ks_mem_free(w->ctx, w->bufs[i].dev);
    free(w->bufs[i].host);
    free(w->bufs[i].got);
  }
  if (w->ref_dev)
    ks_mem_free(w->ctx, w->ref_dev);
  if (w->counters)
    ks_mem_free(w->ctx, w->counters);
  free(w->ref);
  free(w);
}

ks_dim3 ks_wl_block(const ks_wl *w) { return w->block; }

void ks_wl_set_block(ks_wl *w, unsigned block) { set_geometry(w, block); }

int ks_wl_set_block3(ks_wl *w, ks_dim3 b, char *err, size_t cap) {
  if (w->desc->geometry == reduce_geometry ||
      w->desc->geometry == transpose_geometry)
    return 0; /* a parameter fixes the block */
  if (w->desc->geometry == resize_geometry && b.z <= 1) {
    size_t on = resize_side(w);
    unsigned by = b.y ? b.y : 1;
    w->block = (ks_dim3){b.x, by, 1};
    w->grid = (ks_dim3){(unsigned)ceil_div(on, b.x), (unsigned)ceil_div(on, by),
                        resize_3d(w) ? (unsigned)on : 1};
    return 0;
  }
  if (w->desc->geometry == sepfilter_geometry && b.z <= 1) {
    /* exactly the block asked for: 256 is 256 x 1, not 32 x 8 */
    unsigned by = b.y ? b.y : 1;
    w->block = (ks_dim3){b.x, by, 1};
    w->grid = (ks_dim3){(unsigned)ceil_div(w->size, b.x),
                        (unsigned)ceil_div(w->size, by), 1};
    w->tiles = w->grid;
    w->fit_k = NULL;
    return 0;
  }
  if (b.y > 1 || b.z > 1) {
    snprintf(err, cap, "%s: the workload launches %s blocks, not %ux%ux%u",
             w->desc->name,
             w->desc->geometry == sepfilter_geometry ? "X x Y" : "1-D", b.x,
             b.y, b.z);
    return 1;
  }
  set_geometry(w, b.x);
  return 0;
}

double ks_wl_bytes(const ks_wl *w) { return w->desc->bytes(w); }

const char *ks_wl_describe(const ks_wl *w) { return w->text; }

ks_devptr ks_wl_buffer(const ks_wl *w, const char *name) {
  for (size_t i = 0; w && name && i < w->nbufs; i++)
    if (strcmp(w->bufs[i].name, name) == 0)
      return w->bufs[i].dev;
  return 0;
}

size_t ks_wl_size(const ks_wl *w) { return w->size; }

long ks_wl_param(const ks_wl *w) { return w->pv; }

ks_dim3 ks_wl_grid(const ks_wl *w) { return w->grid; }

/* ---- the compare on the device -------------------------------------------
 * A sweep checks every variant: read back and compared on the host, a
 * large output takes longer than timing the variant, and the workers of
 * several GPUs contend for the host's memory. Where the template's compare
 * is element by element against the reference (close_parts),
 * wl_check.ll's kernel applies the same rule on the device and three
 * counters come back. It can only accept: whatever it cannot vouch for
 * (a part it could not run, an element it did not examine, one outside
 * the tolerance) goes to the host's compare, which decides and words the
 * message, so that the outcome and the message are the host's. */

/* wl_check.ll's text (wl_check_ir.c, generated by workloads.cmake). */
extern const char ks_wl_check_ir[];

/* One output the device compares: against w->ref + ref_at, with a
 * relative tolerance tol (1 + |ref|), or where tol_at is set the
 * tolerances at w->ref + tol_at. */
typedef struct close_part {
  size_t buf, ref_at, tol_at, count;
  double tol;
} close_part;

/* The parts of w's compare, as its host compare reads them; 0 where that
 * compare is not element by element against w->ref. */
static size_t close_parts(ks_wl *w, close_part *p) {
  const wl_desc *d = w->desc;
  wl_buf *o = out_buf(w);
  size_t at = o ? (size_t)(o - w->bufs) : 0, n = 0;
  if (!o || o->elem != ELEM_F32)
    return 0;
  if (d->compare == compare_close)
    p[n++] = (close_part){at, 0, 0, o->count, CLOSE_TOL};
  else if (d->compare == resize_compare)
    p[n++] = (close_part){at, 0, o->count, o->count, 0};
  else if (d->compare == blackscholes_compare)
    for (size_t k = 0; k < 2; k++)
      p[n++] = (close_part){k, k * w->size, 0, w->size, BS_TOL};
  for (size_t k = 0; k < n; k++) /* the reference must cover each */
    if (p[k].ref_at + p[k].count > w->nref ||
        p[k].tol_at + p[k].count > w->nref)
      return 0;
  return n;
}

ks_status ks_wl_compile_checker(ks_ctx *ctx, ks_kernel **out, char *err,
                                size_t cap) {
  ks_template *t = NULL;
  ks_spec_req req = {.kernel = "ks_wl_close"};
  ks_status s = ks_template_load_mem(ctx, "wl_check", ks_wl_check_ir,
                                     strlen(ks_wl_check_ir), &t);
  if (s == KS_OK)
    s = ks_specialize(ctx, t, &req, out);
  if (s != KS_OK)
    say(err, cap, s, "workload checker: %s", ks_errmsg(ctx));
  ks_template_destroy(t); /* the kernel stays with the context */
  return s;
}

void ks_wl_use_checker(ks_wl *w, ks_kernel *checker) {
  if (w)
    w->checker = checker;
}

size_t ks_wl_device_accepts(const ks_wl *w) { return w ? w->dev_accepts : 0; }

/* The reference and the counters on the device, once: 0, or -1 (then
 * the host compares from now on). */
static int upload_ref(ks_wl *w) {
  size_t bytes = w->nref * sizeof *w->ref;
  if (w->ref_dev)
    return 0;
  if (ks_mem_alloc(w->ctx, 3 * sizeof(uint64_t), &w->counters) == KS_OK &&
      ks_mem_alloc(w->ctx, bytes, &w->ref_dev) == KS_OK &&
      ks_memcpy_htod(w->ctx, w->ref_dev, w->ref, bytes) == KS_OK)
    return 0;
  if (w->counters)
    ks_mem_free(w->ctx, w->counters);
  if (w->ref_dev)
    ks_mem_free(w->ctx, w->ref_dev);
  w->counters = w->ref_dev = 0;
  w->dev_off = 1;
  return -1;
}

/* Did the device examine every element of part p and find none outside
 * the tolerance? */
static int part_matches(ks_wl *w, const close_part *p) {
  uint64_t c[3] = {0, UINT64_MAX, 0}, n = p->count;
  ks_devptr got = w->bufs[p->buf].dev, ref = w->ref_dev + p->ref_at * 8,
            tolv = p->tol_at ? w->ref_dev + p->tol_at * 8 : 0;
  double tol = p->tol;
  void *args[] = {&got, &ref, &tolv, &n, &tol, &w->counters};
  size_t blocks = ceil_div(p->count, 256);
  ks_dim3 grid = {blocks < 1024 ? (unsigned)(blocks ? blocks : 1) : 1024, 1, 1};
  if (ks_memcpy_htod(w->ctx, w->counters, c, sizeof c) != KS_OK)
    return 0;
  if (ks_launch(w->checker, grid, (ks_dim3){256, 1, 1}, 0, NULL, args) !=
      KS_OK) {
    w->dev_off = 1; /* the checker does not run here */
    return 0;
  }
  if (ks_synchronize(w->ctx) != KS_OK ||
      ks_memcpy_dtoh(w->ctx, c, w->counters, sizeof c) != KS_OK)
    return 0;
  return c[0] == 0 && c[2] == n;
}

/* 1 when the device vouches for every output of w (see above). */
static int device_matches(ks_wl *w) {
  close_part parts[2];
  size_t n = w->checker && !w->dev_off && w->ref ? close_parts(w, parts) : 0;
  if (!n || upload_ref(w) != 0)
    return 0;
  for (size_t k = 0; k < n; k++)
    if (!part_matches(w, &parts[k]))
      return 0;
  return 1;
}

/* ---- launching, checking, timing --------------------------------------- */

ks_status ks_wl_launch(ks_wl *w, ks_kernel *k, char *err, size_t cap) {
  ks_status s;
  if (!w || !k)
    return say(err, cap, KS_EINVAL, "workload: missing argument");
  if (w->desc->coresident && (s = fit_coresident(w, k, err, cap)) != KS_OK)
    return s;
  s = ks_launch(k, w->grid, w->block, 0, NULL, w->args);
  return s == KS_OK ? KS_OK : lib_fail(w, s, "launch", err, cap);
}

/* The user's pair of kernels, on the workload's block, each over the
 * whole image. */
ks_status ks_wl_two_pass(ks_wl *w, void *kernels, char *err, size_t cap) {
  ks_kernel **k = kernels;
  if (!w || !k || !k[0] || !k[1] || !w->desc->two_pass)
    return say(err, cap, KS_EINVAL,
               "workload: no kernels, or not sepfilter_fused's workload");
  /* rows(in, c, tmp, w, h, RADIUS), cols(tmp, c, out, w, h, RADIUS) */
  void *radius = w->args[w->nbufs + w->nints];
  void *rows[] = {&w->bufs[0].dev, &w->bufs[1].dev, &w->bufs[3].dev,
                  &w->ints[0],     &w->ints[1],     radius};
  void *cols[] = {&w->bufs[3].dev, &w->bufs[1].dev, &w->bufs[2].dev,
                  &w->ints[0],     &w->ints[1],     radius};
  ks_status s = ks_launch(k[0], w->tiles, w->block, 0, NULL, rows);
  if (s == KS_OK)
    s = ks_launch(k[1], w->tiles, w->block, 0, NULL, cols);
  return s == KS_OK ? KS_OK : lib_fail(w, s, "two-pass launch", err, cap);
}

/* Before a check: outputs poisoned with 0xFF (NaN as floats), accumulators
 * set to fresh random values. */
static ks_status prepare_outputs(ks_wl *w, char *err, size_t cap) {
  for (size_t i = 0; i < w->nbufs; i++) {
    wl_buf *b = &w->bufs[i];
    size_t bytes = b->count * elem_size[b->elem];
    ks_status s = KS_OK;
    if (b->role == ROLE_OUT)
      s = ks_memset8(w->ctx, b->dev, 0xFF, bytes);
    if (b->role == ROLE_ACC) {
      fill_random(b, &w->rng, 1024);
      s = ks_memcpy_htod(w->ctx, b->dev, b->host, bytes);
    }
    if (s != KS_OK)
      return lib_fail(w, s, "prepare outputs", err, cap);
  }
  return KS_OK;
}

static ks_status read_outputs(ks_wl *w, char *err, size_t cap) {
  for (size_t i = 0; i < w->nbufs; i++) {
    wl_buf *b = &w->bufs[i];
    ks_status s;
    if (b->role == ROLE_IN)
      continue;
    s = ks_memcpy_dtoh(w->ctx, b->got, b->dev, b->count * elem_size[b->elem]);
    if (s != KS_OK)
      return lib_fail(w, s, "read back", err, cap);
  }
  return KS_OK;
}

/* The runner for kspec kernels. */
static ks_status run_kernel(ks_wl *w, void *k, char *err, size_t cap) {
  return ks_wl_launch(w, k, err, cap);
}

ks_status ks_wl_check_run(ks_wl *w, ks_wl_runner run, void *user, char *err,
                          size_t cap) {
  ks_status s;
  if (!w || !run)
    return say(err, cap, KS_EINVAL, "workload: missing argument");
  if ((s = prepare_outputs(w, err, cap)) != KS_OK)
    return s;
  if ((s = run(w, user, err, cap)) != KS_OK)
    return s;
  if ((s = ks_synchronize(w->ctx)) != KS_OK)
    return lib_fail(w, s, "run", err, cap);
  if (!w->ref && w->desc->reference && w->desc->reference(w) != 0)
    return say(err, cap, KS_ENOMEM, "%s: no memory for the reference",
               w->desc->name);
  if (device_matches(w)) {
    w->dev_accepts++;
    return KS_OK;
  }
  if ((s = read_outputs(w, err, cap)) != KS_OK)
    return s;
  return w->desc->compare(w, err, cap) == 0 ? KS_OK : KS_ERANGE;
}

ks_status ks_wl_check(ks_wl *w, ks_kernel *k, char *err, size_t cap) {
  if (!k)
    return say(err, cap, KS_EINVAL, "workload: missing argument");
  return ks_wl_check_run(w, run_kernel, k, err, cap);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

ks_status ks_wl_time_run(ks_wl *w, ks_wl_runner run, void *user, int reps,
                         double *median_ms, char *err, size_t cap) {
  float *ms = NULL;
  ks_status s = KS_OK;
  if (!w || !run || !median_ms || reps < 1)
    return say(err, cap, KS_EINVAL, "workload: bad timing arguments");
  if (!(ms = malloc((size_t)reps * sizeof *ms)))
    return say(err, cap, KS_ENOMEM, "%s: no memory", w->desc->name);
  for (int i = 0; i < 3 && s == KS_OK; i++)
    s = run(w, user, err, cap);
  if (s != KS_OK)
    goto done;
  for (int i = 0; i < reps; i++) {
    if ((s = ks_timer_start(w->ctx)) != KS_OK) {
      s = lib_fail(w, s, "timer", err, cap);
      goto done;
    }
    if ((s = run(w, user, err, cap)) != KS_OK)
      goto done;
    if ((s = ks_timer_stop(w->ctx, &ms[i])) != KS_OK) {
      s = lib_fail(w, s, "timer", err, cap);
      goto done;
    }
  }
  if ((s = ks_synchronize(w->ctx)) != KS_OK) {
    s = lib_fail(w, s, "run", err, cap);
    goto done;
  }
  qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
  *median_ms =
      reps % 2 ? ms[reps / 2] : 0.5 * ((double)ms[reps / 2 - 1] + ms[reps / 2]);
done:
  free(ms);
  return s;
}

ks_status ks_wl_time(ks_wl *w, ks_kernel *k, int reps, double *median_ms,
                     char *err, size_t cap) {
  if (!k)
    return say(err, cap, KS_EINVAL, "workload: missing argument");
  return ks_wl_time_run(w, run_kernel, k, reps, median_ms, err, cap);
}
