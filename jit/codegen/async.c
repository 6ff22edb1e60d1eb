/*
 * async.c - background specialization: ks_specialize_async and futures.
 *
 * Each context owns a pool: a FIFO of queued futures and up to `max`
 * worker threads, started one by one when work arrives and no worker is
 * idle, joined when the context goes. A worker runs plain ks_specialize on
 * a deep copy of the request, so background and foreground requests share
 * the caches and their single flight.
 *
 * One mutex guards the queue, the list of live futures and every future's
 * result; a future's state is also atomic so that ks_future_ready and
 * ks_future_kernel_or never take it (the result is written before the
 * state becomes DONE, with release order).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/ks_jit.h"

enum { QUEUED, RUNNING, DONE };
enum { MAX_JOBS = 64, DEFAULT_MAX_JOBS = 8, MAX_BAKE_COPY = 65536 };

struct ks_future {
  ks_async *pool; /* NULL once the context is destroyed */
  ks_ctx *ctx;
  const ks_template *t;
  ks_spec_req req; /* a deep copy, freed with the future */
  _Atomic int state;
  ks_kernel *kernel; /* DONE: the kernel, NULL on failure */
  ks_status status;
  char *msg;                     /* on failure; NULL when out of memory */
  struct ks_future *qnext;       /* in the queue */
  struct ks_future *prev, *next; /* in the list of live futures */
};

struct ks_async {
  pthread_mutex_t lock;
  pthread_cond_t work; /* a future was queued, or the pool stops */
  pthread_cond_t done; /* a future became DONE */
  ks_future *head, *tail;
  unsigned queued, idle;
  ks_future *live;
  pthread_t threads[MAX_JOBS];
  unsigned nthreads, max;
  int stop;
};

static unsigned default_jobs(void) {
  const char *e = getenv("KSPEC_JOBS");
  long n = e && *e ? strtol(e, NULL, 10) : 0;
  if (n <= 0) {
    n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > DEFAULT_MAX_JOBS)
      n = DEFAULT_MAX_JOBS;
  }
  return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
}

ks_async *ks_async_create(unsigned jobs) {
  ks_async *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  pthread_mutex_init(&a->lock, NULL);
  pthread_cond_init(&a->work, NULL);
  pthread_cond_init(&a->done, NULL);
  a->max = jobs ? (jobs > MAX_JOBS ? MAX_JOBS : jobs) : default_jobs();
  return a;
}

/* ---- deep copies of requests ---------------------------------------------
 */

static void req_free(ks_spec_req *r) {
  for (size_t i = 0; r->bindings && i < r->nbindings; i++) {
    free((char *)r->bindings[i].name);
    if (r->bindings[i].kind == KS_VALUE_TEXT)
      free((char *)r->bindings[i].v.s);
  }
  for (size_t i = 0; r->no_pass && i < r->nno_pass; i++)
    free((char *)r->no_pass[i]);
  for (size_t i = 0; r->tex && i < r->ntex; i++)
    free((char *)r->tex[i]);
  for (size_t i = 0; r->bakes && i < r->nbakes; i++) {
    free((char *)r->bakes[i].arg);
    free((double *)r->bakes[i].values);
  }
  free((char *)r->kernel);
  free((ks_binding *)r->bindings);
  free((char **)r->no_pass);
  free((char **)r->tex);
  free((ks_bake *)r->bakes);
  free((char *)r->dump_stage);
  memset(r, 0, sizeof *r);
}

/* strdup that keeps NULL; *ok becomes 0 when out of memory. */
static char *copy_str(const char *s, int *ok) {
  char *d = s ? strdup(s) : NULL;
  if (s && !d)
    *ok = 0;
  return d;
}

static int copy_bindings(const ks_spec_req *in, ks_spec_req *out) {
  int ok = 1;
  ks_binding *b = in->nbindings ? calloc(in->nbindings, sizeof *b) : NULL;
  if (in->nbindings && !b)
    return 0;
  out->bindings = b;
  out->nbindings = in->nbindings;
  for (size_t i = 0; i < in->nbindings; i++) {
    b[i] = in->bindings[i];
    b[i].name = copy_str(in->bindings[i].name, &ok);
    if (b[i].kind == KS_VALUE_TEXT)
      b[i].v.s = copy_str(in->bindings[i].v.s, &ok);
  }
  return ok;
}

static int copy_lists(const ks_spec_req *in, ks_spec_req *out) {
  int ok = 1;
  char **np = in->nno_pass ? calloc(in->nno_pass, sizeof *np) : NULL;
  char **tx = in->ntex ? calloc(in->ntex, sizeof *tx) : NULL;
  ks_bake *bk = in->nbakes ? calloc(in->nbakes, sizeof *bk) : NULL;
  out->no_pass = (const char *const *)np;
  out->nno_pass = np ? in->nno_pass : 0;
  out->tex = (const char *const *)tx;
  out->ntex = tx ? in->ntex : 0;
  out->bakes = bk;
  out->nbakes = bk ? in->nbakes : 0;
  if ((in->nno_pass && !np) || (in->ntex && !tx) || (in->nbakes && !bk))
    return 0;
  for (size_t i = 0; i < in->nno_pass; i++)
    np[i] = copy_str(in->no_pass[i], &ok);
  for (size_t i = 0; i < in->ntex; i++)
    tx[i] = copy_str(in->tex[i], &ok);
  for (size_t i = 0; i < in->nbakes; i++) {
    const ks_bake *b = &in->bakes[i];
    bk[i] = (ks_bake){.arg = copy_str(b->arg, &ok), .n = b->n};
    /* over the limit: ks_specialize refuses it by its count alone. Values
     * with a count of 0 keep a (one-element) array: NULL would turn what
     * ks_specialize refuses into a bake from a global's initializer. */
    if (b->values && b->n <= MAX_BAKE_COPY) {
      double *v = malloc((b->n ? b->n : 1) * sizeof *v);
      if (!v)
        ok = 0;
      else if (b->n)
        memcpy(v, b->values, b->n * sizeof *v);
      bk[i].values = v;
    }
  }
  return ok;
}

/* 0 when out of memory (out is freed then). */
static int req_copy(const ks_spec_req *in, ks_spec_req *out) {
  int ok = 1;
  memset(out, 0, sizeof *out);
  out->bounds = in->bounds;
  out->smem_spill = in->smem_spill;
  out->fp = in->fp;
  out->kernel = copy_str(in->kernel, &ok);
  out->dump_stage = copy_str(in->dump_stage, &ok);
  ok = copy_bindings(in, out) && ok;
  ok = copy_lists(in, out) && ok;
  if (!ok)
    req_free(out);
  return ok;
}

/* ---- the pool ------------------------------------------------------------
 */

static void *worker(void *arg) {
  ks_async *a = arg;
  pthread_mutex_lock(&a->lock);
  for (;;) {
    while (!a->head && !a->stop) {
      a->idle++;
      pthread_cond_wait(&a->work, &a->lock);
      a->idle--;
    }
    if (!a->head)
      break;
    ks_future *f = a->head;
    a->head = f->qnext;
    if (!a->head)
      a->tail = NULL;
    a->queued--;
    f->qnext = NULL;
    atomic_store_explicit(&f->state, RUNNING, memory_order_relaxed);
    pthread_mutex_unlock(&a->lock);
    ks_kernel *k = NULL;
    ks_status s = ks_specialize(f->ctx, f->t, &f->req, &k);
    char *msg = s == KS_OK ? NULL : strdup(ks_errmsg(NULL));
    pthread_mutex_lock(&a->lock);
    f->kernel = k;
    f->status = s;
    f->msg = msg;
    atomic_store_explicit(&f->state, DONE, memory_order_release);
    pthread_cond_broadcast(&a->done);
  }
  pthread_mutex_unlock(&a->lock);
  return NULL;
}

/* Queues f, starting a worker when none is idle for it. Lock held. */
static ks_status enqueue(ks_async *a, ks_future *f) {
  if (a->queued + 1 > a->idle && a->nthreads < a->max) {
    if (pthread_create(&a->threads[a->nthreads], NULL, worker, a) == 0)
      a->nthreads++;
    else if (a->nthreads == 0)
      return ks_jit_fail(KS_EDRIVER,
                         "specialize: cannot start a worker thread");
  }
  if (a->tail)
    a->tail->qnext = f;
  else
    a->head = f;
  a->tail = f;
  a->queued++;
  f->next = a->live;
  if (a->live)
    a->live->prev = f;
  a->live = f;
  pthread_cond_signal(&a->work);
  return KS_OK;
}

/* Marks f finished with "context destroyed". Lock held or pool gone. */
static void orphan(ks_future *f) {
  f->kernel = NULL; /* the context frees it */
  f->status = KS_EINVAL;
  free(f->msg);
  f->msg = strdup("specialize: the context was destroyed before the "
                  "result was taken");
  f->pool = NULL;
  f->qnext = f->prev = f->next = NULL;
  atomic_store_explicit(&f->state, DONE, memory_order_release);
}

void ks_async_destroy(ks_async *a) {
  if (!a)
    return;
  pthread_mutex_lock(&a->lock);
  a->stop = 1;
  a->head = a->tail = NULL; /* queued ones are dropped: see orphan() below */
  a->queued = 0;
  pthread_cond_broadcast(&a->work);
  pthread_mutex_unlock(&a->lock);
  for (unsigned i = 0; i < a->nthreads; i++)
    pthread_join(a->threads[i], NULL);
  for (ks_future *f = a->live, *next; f; f = next) {
    next = f->next;
    orphan(f);
  }
  pthread_cond_destroy(&a->work);
  pthread_cond_destroy(&a->done);
  pthread_mutex_destroy(&a->lock);
  free(a);
}

/* ---- the public API --------------------------------------------------- */

ks_status ks_specialize_async(ks_ctx *ctx, const ks_template *t,
                              const ks_spec_req *req, ks_future **out) {
  ks_jit_clear();
  if (out)
    *out = NULL;
  if (!ctx || !t || !req || !out)
    return ks_jit_fail(KS_EINVAL, "specialize: NULL argument");
  if ((req->nbindings && !req->bindings) || (req->nno_pass && !req->no_pass) ||
      (req->nbakes && !req->bakes) || (req->ntex && !req->tex))
    return ks_jit_fail(KS_EINVAL,
                       "specialize: bindings, no_pass or bakes is NULL "
                       "with a non-zero count");
  ks_future *f = calloc(1, sizeof *f);
  if (!f || !req_copy(req, &f->req)) {
    free(f);
    return ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  }
  f->pool = ctx->async;
  f->ctx = ctx;
  f->t = t;
  atomic_init(&f->state, QUEUED);
  pthread_mutex_lock(&f->pool->lock);
  ks_status s = enqueue(f->pool, f);
  pthread_mutex_unlock(&f->pool->lock);
  if (s != KS_OK) {
    req_free(&f->req);
    free(f);
    return s;
  }
  *out = f;
  return KS_OK;
}

int ks_future_ready(const ks_future *f) {
  return !f || atomic_load_explicit(&((ks_future *)f)->state,
                                    memory_order_acquire) == DONE;
}

ks_kernel *ks_future_kernel_or(const ks_future *f, ks_kernel *fallback) {
  if (f && ks_future_ready(f) && f->kernel)
    return f->kernel;
  return fallback;
}

ks_status ks_future_wait(ks_future *f, ks_kernel **k) {
  ks_jit_clear();
  if (k)
    *k = NULL;
  if (!f)
    return ks_jit_fail(KS_EINVAL, "specialize: NULL future");
  if (!ks_future_ready(f)) {
    ks_async *a = f->pool; /* not NULL: destroying the pool makes it DONE */
    pthread_mutex_lock(&a->lock);
    while (atomic_load_explicit(&f->state, memory_order_acquire) != DONE)
      pthread_cond_wait(&a->done, &a->lock);
    pthread_mutex_unlock(&a->lock);
  }
  if (f->status != KS_OK)
    return f->msg ? ks_jit_fail(f->status, "%s", f->msg)
                  : ks_jit_fail(f->status, "specialize: out of memory");
  if (k)
    *k = f->kernel;
  return KS_OK;
}

void ks_future_free(ks_future *f) {
  if (!f)
    return;
  ks_async *a = f->pool;
  if (a) {
    pthread_mutex_lock(&a->lock);
    if (atomic_load_explicit(&f->state, memory_order_relaxed) == QUEUED) {
      ks_future **p = &a->head, *last = NULL;
      while (*p != f) {
        last = *p;
        p = &(*p)->qnext;
      }
      *p = f->qnext;
      if (a->tail == f)
        a->tail = last;
      a->queued--;
    }
    while (atomic_load_explicit(&f->state, memory_order_relaxed) == RUNNING)
      pthread_cond_wait(&a->done, &a->lock);
    if (f->prev)
      f->prev->next = f->next;
    else
      a->live = f->next;
    if (f->next)
      f->next->prev = f->prev;
    pthread_mutex_unlock(&a->lock);
  }
  req_free(&f->req);
  free(f->msg);
  free(f);
}
