/*
 * tune_measure.c - measuring a sweep's survivors (tune.c prepares them).
 *
 *   in this process, one after the other; or in workers (tune_worker.c),
 *   one per GPU, each taking the next variant of one queue when idle: a
 *   GPU that faults or hangs loses its worker, not the sweep; or, with a
 *   team (several processes), this process's share, the lead gathering
 *   the others' entries into the one store. With several GPUs or
 *   processes the finalists (the fastest and its ties) are
 *   measured again on one GPU, which picks the winner.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/tune/sweep.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The q quantile of sorted[0..n), linearly interpolated. */
static double quantile(const double *sorted, size_t n, double q) {
  double at = q * (double)(n - 1);
  size_t lo = (size_t)at;
  double frac = at - (double)lo;
  return lo + 1 < n ? sorted[lo] * (1 - frac) + sorted[lo + 1] * frac
                    : sorted[lo];
}

/* Sticky CUDA errors: the context is lost after them. */
static int names_fault(const char *why) {
  static const char *const sticky[] = {"ILLEGAL_ADDRESS",
                                       "LAUNCH_FAILED",
                                       "ILLEGAL_INSTRUCTION",
                                       "MISALIGNED_ADDRESS",
                                       "HARDWARE_STACK_ERROR",
                                       "INVALID_ADDRESS_SPACE",
                                       "INVALID_PC",
                                       "ASSERT",
                                       "EXCEPTION_DURING_TEARDOWN"};
  for (size_t i = 0; i < sizeof sticky / sizeof *sticky; i++)
    if (strstr(why, sticky[i]))
      return 1;
  return 0;
}

static void classify(ks_tune_entry *e, ks_status s, const char *what,
                     const char *why) {
  ks_tune_class c = s == KS_EBOUNDS    ? KS_TUNE_OVER_RESOURCES
                    : s == KS_ERANGE   ? KS_TUNE_WRONG_RESULT
                    : s == KS_ETIMEOUT ? KS_TUNE_TIMEOUT
                    : s == KS_EFAULT || names_fault(why)
                        ? KS_TUNE_DEVICE_FAULT
                        : KS_TUNE_LAUNCH_FAILURE;
  ks_jit_tune_reason(e, c, "%s: %s%s%s", what, ks_status_name(s),
                     *why ? ": " : "", why);
}

void ks_jit_tune_measure_one(const ks_tune_opts *o, ks_kernel *k,
                             ks_tune_entry *e) {
  char why[160] = "";
  const ks_tune_point *p = &e->point;
  ks_status s = KS_OK;
  /* A finalist measured again passed the check on a GPU of the same
   * model: only its time is wanted. */
  if (o->check && !e->finalist &&
      (s = o->check(o->arg, k, p, why, sizeof why)) != KS_OK) {
    classify(e, s, "check", why);
    return;
  }
  double ms = 0, samples[KS_TUNE_DEF_RUNS * 10], meds[KS_TUNE_DEF_RUNS * 10],
         tmp[KS_TUNE_DEF_RUNS * 10];
  for (unsigned i = 0; i < o->warmup; i++)
    if ((s = o->measure(o->arg, k, p, &ms, why, sizeof why)) != KS_OK) {
      classify(e, s, "warm-up", why);
      return;
    }
  size_t n = 0;
  int stable = 0;
  while (n < o->max_runs && !stable) {
    if ((s = o->measure(o->arg, k, p, &ms, why, sizeof why)) != KS_OK) {
      classify(e, s, "measure", why);
      return;
    }
    if (!(ms >= 0) || isinf(ms)) {
      ks_jit_tune_reason(e, KS_TUNE_LAUNCH_FAILURE, "measure: time %g ms", ms);
      return;
    }
    samples[n++] = ms;
    memcpy(tmp, samples, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    meds[n - 1] = quantile(tmp, n, 0.5);
    if (n >= o->window) {
      double lo = meds[n - 1], hi = lo;
      for (size_t j = n - o->window; j < n; j++) {
        lo = fmin(lo, meds[j]);
        hi = fmax(hi, meds[j]);
      }
      stable = hi - lo <= o->stable * meds[n - 1];
    }
  }
  e->cls = KS_TUNE_MEASURED;
  e->runs = (unsigned)n;
  e->median = quantile(tmp, n, 0.5);
  e->min = tmp[0];
  e->max = tmp[n - 1];
  e->q1 = quantile(tmp, n, 0.25);
  e->q3 = quantile(tmp, n, 0.75);
  if (!stable)
    snprintf(e->reason, sizeof e->reason,
             "median not stable within %.1f%% after %zu runs", 100 * o->stable,
             n);
}

int ks_jit_tune_beats(const ks_tune_entry *c, const ks_tune_entry *best,
                      double min_gain) {
  double noise =
      fmax(fmax(c->q3 - c->q1, best->q3 - best->q1), min_gain * best->median);
  return c->median < best->median - noise;
}

/* Can the winner be e? Measured (a finalist, when finalists is set). */
static int eligible(const ks_tune_entry *e, int finalists) {
  return e->cls == KS_TUNE_MEASURED && (!finalists || e->finalist);
}

/* Is e a tie of the fastest, fast: within twice the noise rule's margin?
 * Twice, because which of two near-equal variants is within one margin
 * of the fastest changes from run to run with the fastest itself (on four
 * H100s at bcaf351, maxntid 640 and 672 took turns). */
static int tied(const ks_tune_entry *fast, const ks_tune_entry *e,
                double min_gain) {
  enum { TIE = 2 };
  double noise =
      fmax(fmax(fast->q3 - fast->q1, e->q3 - e->q1), min_gain * e->median);
  return !(fast->median < e->median - TIE * noise);
}

/* The winner among the measured variants (only the finalists when
 * finalists is set): of the fastest median and its ties (tied), the first
 * in the space's order. Variants the measurements cannot order (maxntid
 * 500, 504 and 508 of one kernel) then give the same winner from run to
 * run, whichever of them measured a hair faster this time; a chain of
 * "beats the best so far" did not, its winner depending on which tie came
 * first and how the noise fell. */
static long pick_best(const ks_tune_result *r, double min_gain, int finalists) {
  long fast = -1;
  for (size_t i = 0; i < r->n; i++)
    if (eligible(&r->entries[i], finalists) &&
        (fast < 0 || r->entries[i].median < r->entries[fast].median))
      fast = (long)i;
  for (size_t i = 0; fast >= 0 && i < (size_t)fast; i++)
    if (eligible(&r->entries[i], finalists) &&
        tied(&r->entries[fast], &r->entries[i], min_gain))
      return (long)i;
  return fast;
}

/* What a worker forked before the compiles gets with a variant: the
 * kernel's length (a uint64_t), the kernel (ks_jit_kernel_pack), then its
 * cubin, when the figures made one. */
static void *image_of(void *arg, size_t idx, size_t *len) {
  sweep *w = arg;
  variant *v = &w->vars[idx];
  size_t klen = 0;
  void *k = ks_jit_kernel_pack(v->kernel, &klen);
  unsigned char *img = k ? malloc(8 + klen + v->cubin_len) : NULL;
  if (img) {
    uint64_t n = klen;
    memcpy(img, &n, 8);
    memcpy(img + 8, k, klen);
    if (v->cubin_len)
      memcpy(img + 8 + klen, v->cubin, v->cubin_len);
    *len = 8 + klen + v->cubin_len;
  }
  free(k);
  return img;
}

/* Variant idx's kernel in the worker's child: the one it holds (forked
 * after the compiles) or the one image holds (forked before them), loaded
 * from the variant's cubin where there is one (the parent's, inherited or
 * in image); NULL with e settled when there is none. */
static ks_kernel *child_kernel(sweep *w, size_t idx, const unsigned char *image,
                               size_t len, ks_tune_entry *e) {
  variant *v = &w->vars[idx];
  const void *cubin = v->cubin;
  size_t cubin_len = v->cubin_len;
  uint64_t klen = 0;
  if (image && len >= 8)
    memcpy(&klen, image, 8);
  if (image && klen <= len - 8) {
    cubin = len > 8 + klen ? image + 8 + klen : cubin;
    cubin_len = len > 8 + klen ? len - 8 - klen : cubin_len;
  }
  if (!v->kernel) {
    ks_spec_req req;
    const char *tex[KS_TUNE_MAX_DIMS];
    ks_jit_tune_variant_req(w, idx, &req, tex);
    int whole = image && len >= 8 && klen <= len - 8;
    if (ks_jit_kernel_adopt(w->ctx, w->t, &req, whole ? image + 8 : NULL,
                            whole ? klen : 0, &v->kernel) != KS_OK) {
      ks_jit_tune_reason(e, KS_TUNE_LAUNCH_FAILURE, "%s", ks_errmsg(w->ctx));
      return NULL;
    }
  }
  /* A load that fails here fails again in the measurement, which says so */
  if (cubin && cubin_len)
    ks_jit_kernel_load_cubin(v->kernel, cubin, cubin_len);
  return v->kernel;
}

/* The worker's child measures variant idx of its copy of the sweep. */
static void measure_in_child(void *arg, size_t idx, const void *image,
                             size_t len, ks_tune_entry *e) {
  sweep *w = arg;
  ks_kernel *k = child_kernel(w, idx, image, len, e);
  if (k)
    ks_jit_tune_measure_one(&w->o, k, e);
}

/* A worker first runs the caller's worker_init; a GPU's then points the
 * context at its GPU (the parent never opened the driver) and, with a
 * driver, asks the device: a GPU the
 * driver does not have is found before any variant is sent there, and
 * the hello tells the parent what the GPU is. */
static ks_status init_in_child(void *arg, int gpu, ks_device_info *dev,
                               char *why, size_t cap) {
  sweep *w = arg;
  ks_status s = w->o.worker_init ? w->o.worker_init(w->o.arg, why, cap) : KS_OK;
  if (s != KS_OK || gpu < 0)
    return s;
  s = ks_jit_ctx_use_device(w->ctx, gpu);
  if (s == KS_OK && !ks_jit_ctx_no_driver(w->ctx))
    s = ks_device_query(w->ctx, dev);
  if (s != KS_OK)
    snprintf(why, cap, "%s", ks_errmsg(w->ctx));
  return s;
}

/* Variant i from the store, when it ran before: 1. */
static int reuse(sweep *w, ks_jit_tune_store *st, size_t i) {
  ks_tune_result *r = w->res;
  ks_tune_entry *e = &r->entries[i];
  const ks_tune_entry *old =
      st && !w->o.fresh ? ks_jit_tune_store_find(st, w->vars[i].vkey) : NULL;
  if (!old)
    return 0;
  ks_tune_entry keep = *e;
  *e = *old;
  e->size = sizeof *e;
  e->point = keep.point;
  e->regs = keep.regs;
  e->spills = keep.spills;
  e->warps = keep.warps;
  e->instrs = keep.instrs;
  e->stored = 1;
  r->reused++;
  return 1;
}

/* Takes variant i's new measurement e and stores it. */
static void record(sweep *w, ks_jit_tune_store *st, size_t i,
                   const ks_tune_entry *e) {
  ks_tune_result *r = w->res;
  r->entries[i] = *e;
  r->measured++;
  r->best = pick_best(r, w->o.min_gain, 0);
  if (st)
    ks_jit_tune_store_put(st, w->vars[i].vkey, e,
                          r->best >= 0 ? w->vars[r->best].vkey : NULL);
}

/* The measuring workers: one per GPU, or one for the context's device. */
typedef struct ks_jit_tune_pool {
  ks_jit_tune_worker ws[KS_TUNE_MAX_GPUS];
  size_t n;
  ks_jit_tune_job job;
  int fds[KS_TUNE_MAX_GPUS];                     /* job.others */
  char lost[sizeof((ks_tune_entry *)0)->reason]; /* why the last GPU went */
  long first; /* the first worker whose hello came: its GPU the reference */
  char failed[512]; /* why a late hello ended the sweep */
} pool;

/* The sockets of the workers other than k, which k's child closes. */
static void others_of(pool *p, size_t k) {
  p->job.nothers = 0;
  for (size_t j = 0; j < p->n; j++)
    if (j != k && p->ws[j].fd >= 0)
      p->fds[p->job.nothers++] = p->ws[j].fd;
  p->job.others = p->fds;
}

/* Starts worker k, forked after the compiles, and waits for its hello. */
static int start_worker(pool *p, size_t k, char *why, size_t cap) {
  others_of(p, k);
  p->ws[k].bare = 0;
  return ks_jit_tune_worker_start(&p->ws[k], &p->job, why, cap);
}

/* Forks worker k before the compiles; its hello is awaited later. */
static int spawn_worker(pool *p, size_t k, char *why, size_t cap) {
  others_of(p, k);
  p->ws[k].bare = 1;
  return ks_jit_tune_worker_spawn(&p->ws[k], &p->job, why, cap);
}

/* Variant number q of the queue: the baseline first, then the space. */
static size_t queued(const ks_tune_result *r, size_t q) {
  return !r->baseline ? q : q == 0 ? r->n : q - 1;
}

/* A worker ready for a variant: running, or started now. NULL when every
 * GPU is lost (a worker that cannot start loses its GPU). */
static ks_jit_tune_worker *idle_worker(pool *p) {
  for (size_t k = 0; k < p->n; k++) {
    ks_jit_tune_worker *wk = &p->ws[k];
    if (wk->busy || wk->greeting || wk->gpu == KS_TUNE_GPU_LOST)
      continue;
    if (wk->pid > 0)
      return wk;
    char why[160];
    if (start_worker(p, k, why, sizeof why) == 0)
      return wk;
    if (wk->gpu >= 0)
      snprintf(p->lost, sizeof p->lost, "GPU %d lost: %s", wk->gpu, why);
    else
      snprintf(p->lost, sizeof p->lost, "%s", why);
    wk->gpu = KS_TUNE_GPU_LOST;
  }
  return NULL;
}

static int any_live(const pool *p) {
  for (size_t k = 0; k < p->n; k++)
    if (p->ws[k].gpu != KS_TUNE_GPU_LOST)
      return 1;
  return 0;
}

/* Settles variant i without a worker: dead already, reused, or no GPU
 * left. 1 when it needs measuring. */
static int needs_worker(sweep *w, ks_jit_tune_store *st, pool *p, size_t i) {
  ks_tune_entry *e = &w->res->entries[i];
  if (!ks_jit_tune_alive(e) || !w->mine[i] || reuse(w, st, i))
    return 0;
  if (any_live(p))
    return 1;
  ks_jit_tune_reason(e, KS_TUNE_LAUNCH_FAILURE, "no GPU left to measure on: %s",
                     p->lost);
  return 0;
}

/* After variant i is settled: progress (space variants only); 1 stops. */
static int report(sweep *w, size_t i, size_t *done) {
  ks_tune_result *r = w->res;
  if (i >= r->n)
    return 0;
  ++*done;
  return w->o.progress &&
         w->o.progress(w->o.arg, *done, r->n, &r->entries[i]) != 0;
}

/* GPU k's device against the first ready one's and against the context's
 * code: KS_OK, or the failure. r gets the GPUs' model, driver and
 * target. */
static ks_status check_device(sweep *w, pool *p, size_t k) {
  const ks_device_info *d = &p->ws[k].dev, *first = &p->ws[p->first].dev;
  ks_tune_result *r = w->res;
  char why[256];
  if (!d->name[0])
    return KS_OK; /* a context without a driver: nothing was asked */
  if (strcmp(d->name, first->name) != 0)
    return ks_jit_fail(KS_EINVAL,
                       "tune: GPU %d is %s, GPU %d is %s: tune one model "
                       "at a time",
                       p->ws[p->first].gpu, first->name, p->ws[k].gpu, d->name);
  if ((long)k == p->first) {
    snprintf(r->device, sizeof r->device, "%s", d->name);
    r->driver_version = d->driver_version;
  }
  if (!ks_jit_ctx_fits(w->ctx, d, r->arch, sizeof r->arch, &r->ptx_isa, why,
                       sizeof why))
    return ks_jit_fail(KS_EARCH,
                       "tune: GPU %d: %s; a context for it compiles for %s, "
                       "PTX ISA %u.%u",
                       p->ws[k].gpu, why, r->arch, r->ptx_isa / 10,
                       r->ptx_isa % 10);
  return KS_OK;
}

/* Worker k's hello (come, or late): KS_OK with its GPU checked, or the
 * failure: the driver has no such device, another model, a GPU that
 * cannot run the context's code. */
static ks_status greet(sweep *w, pool *p, size_t k) {
  char why[160];
  if (ks_jit_tune_worker_hello(&p->ws[k], &p->job, why, sizeof why) != 0)
    return ks_jit_fail(KS_EINVAL, "tune: GPU %d: %s", p->ws[k].gpu, why);
  if (p->first < 0)
    p->first = (long)k;
  /* the first hello says how many GPUs the driver sees: one it does not
   * have is refused now, not when (or whether) its own hello comes */
  int count = p->ws[k].dev.device_count;
  for (size_t j = 0; count > 0 && j < p->n; j++)
    if (p->ws[j].gpu >= count)
      return ks_jit_fail(KS_EINVAL,
                         "tune: GPU %d: no such device (the driver sees %d)",
                         p->ws[j].gpu, count);
  return check_device(w, p, k);
}

/* Any worker still to say hello? */
static int greeting(const pool *p) {
  for (size_t k = 0; k < p->n; k++)
    if (p->ws[k].greeting)
      return 1;
  return 0;
}

static int any_busy(const pool *p) {
  for (size_t k = 0; k < p->n; k++)
    if (p->ws[k].busy)
      return 1;
  return 0;
}

/* Ends the workers still opening their GPUs when the queue is done: they
 * measured nothing (their GPUs are out of the finalists' choice too). */
static void let_go(pool *p) {
  for (size_t k = 0; k < p->n; k++) {
    ks_jit_tune_worker *wk = &p->ws[k];
    if (!wk->greeting)
      continue;
    kill(wk->pid, SIGKILL); /* opening a GPU: nothing to finish */
    ks_jit_tune_workers_close(wk, 1, NULL);
    snprintf(p->lost, sizeof p->lost, "GPU %d opened after the sweep", wk->gpu);
    wk->gpu = KS_TUNE_GPU_LOST;
  }
}

/* The store is keyed by the GPUs' model and driver unless the options
 * name them. */
static void device_key(sweep *w) {
  if (w->o.ngpus && !w->o.device && w->res->device[0]) {
    w->o.device = w->res->device;
    w->o.driver_version = w->res->driver_version;
  }
}

/* Waits for every spawned worker's hello, in order: for a team (whose
 * plan says whether this process can measure) and a single GPU. */
static ks_status pool_ready(sweep *w, pool *p) {
  ks_status s = KS_OK;
  for (size_t k = 0; k < p->n && s == KS_OK; k++)
    if (p->ws[k].greeting)
      s = greet(w, p, k);
  device_key(w);
  return s;
}

/* Several GPUs: waits for the first hello only, so that measuring starts
 * on the GPU that opened first while the others still open theirs (a
 * host's GPUs open one after the other, in part). The others' hellos come
 * during run_queue, whose store stays held until all have come. */
static ks_status pool_first(sweep *w, pool *p) {
  double by = ks_jit_tune_now_ms() + w->o.timeout_ms;
  for (size_t k = 0; k < p->n; k++)
    if (p->ws[k].greeting)
      p->ws[k].deadline = by;
  ks_status s = KS_OK;
  while (s == KS_OK && p->first < 0) {
    ks_tune_entry none;
    int hello = 0;
    long k = ks_jit_tune_worker_wait(p->ws, p->n, &none, &hello);
    if (k < 0 || !hello)
      return ks_jit_fail(KS_EINVAL, "tune: no worker said hello");
    s = greet(w, p, (size_t)k);
  }
  device_key(w);
  return s;
}

/* A late hello in run_queue: 0 when it is good (the store committed once
 * every worker has said hello); else -1, with every worker ended and the
 * failure kept in p->failed. */
static int late_hello(sweep *w, ks_jit_tune_store *st, pool *p, size_t k) {
  ks_status s = greet(w, p, k);
  if (s == KS_OK && !greeting(p))
    s = ks_jit_tune_store_commit(st);
  if (s == KS_OK)
    return 0;
  snprintf(p->failed, sizeof p->failed, "%s", ks_errmsg(NULL));
  ks_jit_tune_workers_close(p->ws, p->n, NULL);
  return -1;
}

/* Hands the queue out to the idle workers, one variant each, until it is
 * empty, then waits for the last answers. A worker that answers gets its
 * next variant before the answer is recorded (the store written, the
 * progress called): the GPU measures while this process writes. */
static ks_status run_queue(sweep *w, ks_jit_tune_store *st, pool *p) {
  ks_tune_result *r = w->res;
  size_t all = r->n + (r->baseline != NULL), q = 0, done = 0, at = 0;
  int stop = 0, have = 0, hello = 0;
  ks_tune_entry got;
  for (;;) {
    ks_jit_tune_worker *wk;
    while (!stop && q < all && (wk = idle_worker(p)) != NULL) {
      size_t i = queued(r, q++);
      if (!needs_worker(w, st, p, i)) {
        stop = report(w, i, &done);
        continue;
      }
      ks_tune_entry *e = &r->entries[i];
      e->gpu = wk->gpu;
      ks_jit_tune_worker_send(wk, &p->job, i, e, w->o.timeout_ms);
    }
    if (have) { /* the last answer, once its worker has its next variant */
      record(w, st, at, &got);
      stop |= report(w, at, &done);
      have = 0;
      continue;
    }
    if (greeting(p) && !any_busy(p) && (stop || q >= all)) {
      /* done before some GPUs opened: they measured nothing, let go */
      let_go(p);
      if (ks_jit_tune_store_commit(st) != KS_OK)
        return ks_jit_fail(KS_EIO, "%s", ks_errmsg(NULL));
    }
    long k = ks_jit_tune_worker_wait(p->ws, p->n, &got, &hello);
    if (k >= 0 && hello && late_hello(w, st, p, (size_t)k) != 0)
      return ks_jit_fail(KS_EINVAL, "%s", p->failed);
    if (k >= 0 && hello)
      continue;
    if (k < 0) {
      /* nothing in flight: the variants left have no GPU (or stop) */
      while (!stop && q < all) {
        size_t i = queued(r, q++);
        needs_worker(w, st, p, i);
        stop = report(w, i, &done);
      }
      return KS_OK;
    }
    at = p->ws[k].idx;
    have = 1;
  }
}

static int by_median(const void *a, const void *b) {
  const ks_tune_entry *x = *(ks_tune_entry *const *)a;
  const ks_tune_entry *y = *(ks_tune_entry *const *)b;
  return x->median < y->median ? -1 : x->median > y->median;
}

/* The finalists: the fastest and its ties (tied: the best among them),
 * at least the runner-up, at most KS_TUNE_FINALISTS, marked. */
static size_t mark_finalists(sweep *w) {
  ks_tune_result *r = w->res;
  long best = pick_best(r, w->o.min_gain, 0);
  if (best < 0)
    return 0;
  ks_tune_entry **m = calloc(r->n, sizeof *m);
  size_t n = 0, keep = 0;
  for (size_t i = 0; m && i < r->n; i++)
    if (r->entries[i].cls == KS_TUNE_MEASURED)
      m[n++] = &r->entries[i];
  if (m)
    qsort(m, n, sizeof *m, by_median);
  for (size_t j = 0; j < n && keep < KS_TUNE_FINALISTS; j++)
    if (j < 2 || m[j] == &r->entries[best] || tied(m[0], m[j], w->o.min_gain))
      m[j]->finalist = 1, keep++;
  free(m);
  return keep;
}

/* Did one GPU measure every measured variant (the others opening late,
 * or lost)? Its timings then compare as they are. */
static int one_gpu(const ks_tune_result *r) {
  int gpu = KS_TUNE_GPU_LOST;
  for (size_t i = 0; i < r->n; i++) {
    const ks_tune_entry *e = &r->entries[i];
    if (e->cls != KS_TUNE_MEASURED)
      continue;
    if (gpu != KS_TUNE_GPU_LOST && e->gpu != gpu)
      return 0;
    gpu = e->gpu;
  }
  return 1;
}

/* Timings from different GPUs are not compared: the finalists are
 * measured again, one after the other, on the first GPU still running,
 * and the winner is picked among them. */
static void remeasure(sweep *w, ks_jit_tune_store *st, pool *p) {
  ks_tune_result *r = w->res;
  ks_jit_tune_worker *wk = NULL;
  for (size_t k = 0; p && k < p->n && !wk; k++)
    if (p->ws[k].gpu != KS_TUNE_GPU_LOST)
      wk = &p->ws[k];
  if ((p && !wk) || !mark_finalists(w))
    return;
  /* The others end now, closing their contexts while wk measures; they
   * are reaped with the pool (stop_pool), not waited for here. */
  if (p)
    ks_jit_tune_workers_close(p->ws, p->n, wk);
  for (size_t i = 0; i < r->n; i++) {
    ks_tune_entry *e = &r->entries[i];
    if (!e->finalist)
      continue;
    ks_tune_entry again = *e;
    again.cls = KS_TUNE_NOT_RUN;
    again.reason[0] = '\0';
    again.stored = 0;
    again.finalist = 1; /* measured, not checked again */
    if (wk)
      ks_jit_tune_worker_run(wk, &p->job, i, &again);
    else
      ks_jit_tune_measure_one(&w->o, w->vars[i].kernel, &again);
    *e = again;
    r->finalists++;
    if (st)
      ks_jit_tune_store_put(st, w->vars[i].vkey, e, NULL);
  }
  r->best = pick_best(r, w->o.min_gain, 1);
}

/* Measures in this process, without a watchdog. */
static void measure_here(sweep *w, ks_jit_tune_store *st) {
  ks_tune_result *r = w->res;
  size_t all = r->n + (r->baseline != NULL), done = 0;
  for (size_t q = 0; q < all; q++) {
    size_t i = queued(r, q);
    ks_tune_entry *e = &r->entries[i];
    if (ks_jit_tune_alive(e) && w->mine[i] && !reuse(w, st, i)) {
      ks_tune_entry got = *e;
      if (w->vars[i].cubin) /* else the load runs ptxas again */
        ks_jit_kernel_load_cubin(w->vars[i].kernel, w->vars[i].cubin,
                                 w->vars[i].cubin_len);
      ks_jit_tune_measure_one(&w->o, w->vars[i].kernel, &got);
      record(w, st, i, &got);
    }
    if (report(w, i, &done))
      break;
  }
}

/* Ends every worker of p, not waiting for their exits (their contexts'
 * teardown), and frees it. */
static void stop_pool(pool *p) {
  if (p)
    ks_jit_tune_workers_release(p->ws, p->n);
  free(p);
}

/* Forks a worker per GPU (or the one isolated worker) without waiting:
 * the children open their GPUs while this process makes the figures. */
ks_status ks_jit_tune_pool_spawn(sweep *w) {
  if (!w->o.isolate && !w->o.ngpus)
    return KS_OK;
  pool *p = calloc(1, sizeof *p);
  if (!p)
    return ks_jit_fail(KS_ENOMEM, "tune: pool");
  p->job = (ks_jit_tune_job){.fn = measure_in_child,
                             .init = init_in_child,
                             .image = image_of,
                             .sweep = w,
                             .timeout_ms = w->o.timeout_ms};
  p->n = w->o.ngpus ? w->o.ngpus : 1;
  p->first = -1;
  for (size_t k = 0; k < p->n; k++)
    p->ws[k] = (ks_jit_tune_worker){
        .pid = -1, .fd = -1, .gpu = w->o.ngpus ? w->o.gpus[k] : -1};
  for (size_t k = 0; k < w->o.ngpus; k++) {
    char why[160];
    if (spawn_worker(p, k, why, sizeof why) != 0) {
      stop_pool(p);
      return ks_jit_fail(KS_EINVAL, "tune: GPU %d: %s", w->o.gpus[k], why);
    }
  }
  w->pool = p;
  return KS_OK;
}

/* A sweep spread over processes: this one's share of what is left after
 * the store (read on the lead alone). ready: whether this process can
 * measure; when not (its message is the thread's), the plan is told, so
 * that it fails on every process, and its status is this one's. */
static ks_status plan_share(sweep *w, ks_jit_tune_store *st, ks_status ready,
                            int *lead, int *spread) {
  ks_tune_result *r = w->res;
  size_t all = r->n + (r->baseline != NULL);
  const char **keys = malloc(all * sizeof *keys);
  char *problem = malloc(KS_TUNE_KEY_CAP);
  char failed[512];
  ks_status s = KS_OK;
  snprintf(failed, sizeof failed, "%s", ks_errmsg(NULL));
  w->left = malloc(all);
  if (!keys || !problem || !w->left)
    s = ks_jit_fail(KS_ENOMEM, "tune: plan");
  for (size_t i = 0; s == KS_OK && i < all; i++) {
    if (ready == KS_OK && ks_jit_tune_alive(&r->entries[i]))
      reuse(w, st, i);
    keys[i] = w->vars[i].vkey;
    w->mine[i] = w->left[i] = ks_jit_tune_alive(&r->entries[i]);
  }
  if (s == KS_OK) {
    if (ready == KS_OK) {
      ks_jit_tune_store_key(w->ctx, w->t, w->space, &w->o, problem,
                            KS_TUNE_KEY_CAP);
      ks_jit_clear();
    } else {
      ks_jit_fail(ready, "%s", failed); /* the plan reads it */
    }
    s = w->o.team->plan(w->o.team->arg, ready == KS_OK ? problem : NULL, keys,
                        all, w->mine, lead, spread);
  }
  free(keys);
  free(problem);
  if (ready != KS_OK)
    return ks_jit_fail(ready, "%s", failed);
  return s;
}

/* The others' entries, on the lead into the store. */
static ks_status gather(sweep *w, ks_jit_tune_store *st, int lead) {
  ks_tune_result *r = w->res;
  size_t all = r->n + (r->baseline != NULL);
  ks_status s = w->o.team->gather(w->o.team->arg, r->entries, all, w->mine);
  for (size_t i = 0; s == KS_OK && lead && i < all; i++) {
    ks_tune_entry *e = &r->entries[i];
    e->size = sizeof *e;
    if (w->mine[i] || !w->left[i] || ks_jit_tune_alive(e))
      continue;
    r->measured++;
    if (st)
      ks_jit_tune_store_put(st, w->vars[i].vkey, e, NULL);
  }
  return s;
}

/* Measures this process's variants: in process, or in workers. */
static ks_status measure_mine(sweep *w, ks_jit_tune_store *st, pool *p) {
  if (p)
    return run_queue(w, st, p);
  measure_here(w, st);
  return KS_OK;
}

ks_status ks_jit_tune_measure_all(sweep *w) {
  ks_tune_result *r = w->res;
  ks_jit_tune_store *st = NULL;
  int lead = 1, spread = 1;
  pool *p = w->pool;
  w->pool = NULL;
  double t0 = ks_jit_tune_now_ms();
  /* several GPUs, one process: measuring starts at the first hello */
  int stream = p && !w->o.team && p->n > 1;
  ks_status s = !p ? KS_OK : stream ? pool_first(w, p) : pool_ready(w, p);
  r->start_ms = ks_jit_tune_now_ms() - t0;
  /* the store after a hello: its key is the GPUs' model and driver; held
   * (nothing written) until every GPU has said hello */
  if (s == KS_OK)
    s = (stream && greeting(p)
             ? ks_jit_tune_store_open_held
             : ks_jit_tune_store_open)(w->ctx, w->t, w->space, &w->o, &st);
  if (st)
    snprintf(r->store, sizeof r->store, "%s", ks_jit_tune_store_path(st));
  /* every process of a team takes part in its plan, one that cannot
   * measure too: the plan then fails on all of them */
  if (w->o.team)
    s = plan_share(w, st, s, &lead, &spread);
  if (s != KS_OK) {
    stop_pool(p);
    ks_jit_tune_store_close(st);
    return s;
  }
  ks_jit_tune_store *own = st;
  if (!lead)
    st = NULL; /* the lead writes the one store */
  t0 = ks_jit_tune_now_ms();
  s = measure_mine(w, st, p);
  if (s == KS_OK && w->o.team)
    s = gather(w, st, lead);
  r->measure_ms = ks_jit_tune_now_ms() - t0;
  t0 = ks_jit_tune_now_ms();
  /* (a team's GPU ordinals name GPUs of several nodes: always again) */
  if (s == KS_OK && lead && (spread > 1 || (w->o.ngpus > 1 && !one_gpu(r))))
    remeasure(w, st, p);
  r->finalists_ms = ks_jit_tune_now_ms() - t0;
  stop_pool(p);
  if (!r->finalists)
    r->best = pick_best(r, w->o.min_gain, 0);
  if (st && r->best >= 0)
    ks_jit_tune_store_put(st, NULL, NULL, w->vars[r->best].vkey);
  ks_jit_tune_store_close(own);
  return s;
}
