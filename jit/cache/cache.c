/*
 * cache.c - the in-memory cache: specialization key -> kernel, with single
 * flight.
 *
 * A fixed array of buckets with chains, under one mutex that is held only
 * for lookups and insertions, never while compiling. The first request for
 * a key inserts a pending entry and compiles outside the lock; requests for
 * the same key that arrive meanwhile wait on that entry's condition variable
 * and then share the kernel, or the failure (status and message). A failed
 * entry leaves the table at once, so a later request tries again; its last
 * waiter frees it. Distinct keys compile in parallel.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

enum { NBUCKETS = 1024 };

enum { PENDING, READY, FAILED };

typedef struct entry {
  uint64_t key[2];
  int state;
  ks_kernel *kernel;   /* READY */
  ks_status status;    /* FAILED: the leader's status and message */
  char *msg;           /* NULL when out of memory */
  unsigned waiters;    /* threads blocked on done */
  pthread_cond_t done; /* broadcast when state leaves PENDING */
  struct entry *next;
} entry;

struct ks_cache {
  pthread_mutex_t lock;
  entry *buckets[NBUCKETS];
  _Atomic uint64_t ctr[KS_CTR_COUNT];
};

ks_cache *ks_jit_cache_create(void) {
  ks_cache *c = calloc(1, sizeof *c);
  if (c)
    pthread_mutex_init(&c->lock, NULL);
  return c;
}

void ks_jit_kernel_free(ks_kernel *k, ks_drv *drv) {
  if (!k)
    return;
  if (k->loaded && drv)
    ks_drv_module_unload(drv, &k->mod);
  if (k->cmem_event && drv)
    ks_drv_event_destroy(drv, k->cmem_event);
  ks_jit_tex_free(k, drv);
  pthread_mutex_destroy(&k->load_lock);
  pthread_mutex_destroy(&k->launch_lock);
  free(k->name);
  free(k->ptx);
  free(k->ir);
  free(k->explain);
  free(k);
}

static void entry_free(entry *e) {
  pthread_cond_destroy(&e->done);
  free(e->msg);
  free(e);
}

/* Only ready entries remain when the context goes: a pending one would mean
 * a ks_specialize still running, which destroying the context forbids. */
void ks_jit_cache_destroy(ks_cache *c, ks_drv *drv) {
  if (!c)
    return;
  for (size_t i = 0; i < NBUCKETS; i++) {
    entry *e = c->buckets[i];
    while (e) {
      entry *next = e->next;
      ks_jit_kernel_free(e->kernel, drv);
      entry_free(e);
      e = next;
    }
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

void ks_jit_cache_each(ks_cache *c, void (*fn)(ks_kernel *k, void *arg),
                       void *arg) {
  pthread_mutex_lock(&c->lock);
  for (size_t i = 0; i < NBUCKETS; i++)
    for (entry *e = c->buckets[i]; e; e = e->next)
      if (e->state == READY)
        fn(e->kernel, arg);
  pthread_mutex_unlock(&c->lock);
}

void ks_jit_cache_count(ks_cache *c, ks_counter which, uint64_t n) {
  atomic_fetch_add_explicit(&c->ctr[which], n, memory_order_relaxed);
}

uint64_t ks_jit_cache_counter(const ks_cache *c, ks_counter which) {
  return atomic_load_explicit(&((ks_cache *)c)->ctr[which],
                              memory_order_relaxed);
}

static entry **slot(ks_cache *c, const uint64_t key[2]) {
  entry **p = &c->buckets[key[0] % NBUCKETS];
  while (*p && ((*p)->key[0] != key[0] || (*p)->key[1] != key[1]))
    p = &(*p)->next;
  return p;
}

static uint64_t ms_to_ns(double ms) {
  return ms > 0 ? (uint64_t)(ms * 1e6) : 0;
}

/* A ready kernel is a memory hit; a pending one is waited for. Called and
 * returns with the lock held. */
static ks_status await(ks_cache *c, entry *e, ks_kernel **out) {
  if (e->state == PENDING) {
    ks_jit_cache_count(c, KS_CTR_WAITS, 1);
    e->waiters++;
    while (e->state == PENDING)
      pthread_cond_wait(&e->done, &c->lock);
    e->waiters--;
  }
  if (e->state == READY) {
    *out = e->kernel;
    ks_jit_cache_count(c, KS_CTR_MEMORY_HITS, 1);
    ks_jit_cache_count(c, KS_CTR_SAVED_NS,
                       ms_to_ns(e->kernel->info.compile_ms));
    return KS_OK;
  }
  ks_status s = e->msg ? ks_jit_fail(e->status, "%s", e->msg)
                       : ks_jit_fail(e->status, "specialize: out of memory");
  if (e->waiters == 0)
    entry_free(e); /* unlinked by the leader; the last waiter frees it */
  return s;
}

ks_status ks_jit_cache_acquire(ks_cache *c, const uint64_t key[2],
                               ks_kernel **out, int *claimed) {
  *out = NULL;
  *claimed = 0;
  pthread_mutex_lock(&c->lock);
  entry **p = slot(c, key);
  if (*p) {
    ks_status s = await(c, *p, out);
    pthread_mutex_unlock(&c->lock);
    return s;
  }
  entry *e = calloc(1, sizeof *e);
  if (!e) {
    pthread_mutex_unlock(&c->lock);
    return ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  }
  memcpy(e->key, key, sizeof e->key);
  e->state = PENDING;
  pthread_cond_init(&e->done, NULL);
  *p = e;
  *claimed = 1;
  pthread_mutex_unlock(&c->lock);
  return KS_OK;
}

void ks_jit_cache_finish(ks_cache *c, const uint64_t key[2], ks_kernel *k,
                         ks_status s) {
  /* copied before taking the lock: the message is this thread's */
  char *msg = k ? NULL : strdup(ks_errmsg(NULL));
  pthread_mutex_lock(&c->lock);
  entry **p = slot(c, key);
  entry *e = *p;
  if (k) {
    e->kernel = k;
    e->state = READY;
  } else {
    e->status = s;
    e->msg = msg;
    e->state = FAILED;
    *p = e->next; /* out of the table: the next request tries again */
  }
  pthread_cond_broadcast(&e->done);
  if (!k && e->waiters == 0)
    entry_free(e);
  pthread_mutex_unlock(&c->lock);
}

ks_status ks_cache_stats(const ks_ctx *ctx, ks_cache_counters *out) {
  ks_status s = KS_OUT_CHECK(out, "cache", ks_cache_counters);
  if (s != KS_OK)
    return s;
  if (!ctx)
    return ks_jit_fail(KS_EINVAL, "cache: NULL argument");
  const ks_cache *c = ctx->cache;
  ks_cache_counters full = {
      .memory_hits = ks_jit_cache_counter(c, KS_CTR_MEMORY_HITS),
      .waits = ks_jit_cache_counter(c, KS_CTR_WAITS),
      .disk_hits = ks_jit_cache_counter(c, KS_CTR_DISK_HITS),
      .misses = ks_jit_cache_counter(c, KS_CTR_MISSES),
      .compiles = ks_jit_cache_counter(c, KS_CTR_COMPILES),
      .corrupt = ks_jit_cache_counter(c, KS_CTR_CORRUPT),
      .disk_writes = ks_jit_cache_counter(c, KS_CTR_DISK_WRITES),
      .evictions = ks_jit_cache_counter(c, KS_CTR_EVICTIONS),
      .cubin_hits = ks_jit_cache_counter(c, KS_CTR_CUBIN_HITS),
      .cubin_misses = ks_jit_cache_counter(c, KS_CTR_CUBIN_MISSES),
      .cubin_dropped = ks_jit_cache_counter(c, KS_CTR_CUBIN_DROPPED),
      .template_hits = ks_jit_cache_counter(c, KS_CTR_TEMPLATE_HITS),
      .template_misses = ks_jit_cache_counter(c, KS_CTR_TEMPLATE_MISSES),
      .remote_hits = ks_jit_cache_counter(c, KS_CTR_REMOTE_HITS),
      .cubin_remote = ks_jit_cache_counter(c, KS_CTR_CUBIN_REMOTE),
      .disk = ks_disk_usable(ctx->disk),
      .compile_ms = ks_jit_cache_counter(c, KS_CTR_COMPILE_NS) / 1e6,
      .saved_ms = ks_jit_cache_counter(c, KS_CTR_SAVED_NS) / 1e6,
  };
  ks_jit_out_put(out, &full, sizeof full);
  return KS_OK;
}

const char *ks_cache_dir(const ks_ctx *ctx) {
  return ctx ? ks_disk_path(ctx->disk) : NULL;
}

/* The disk cache, or NULL with KS_EINVAL and why it is missing. */
static ks_disk *need_disk(ks_ctx *ctx) {
  if (!ctx) {
    ks_jit_fail(KS_EINVAL, "cache: NULL context");
    return NULL;
  }
  if (!ctx->disk) {
    const char *w = ks_ctx_warning(ctx);
    ks_jit_fail(KS_EINVAL, "%s",
                w[0] ? w
                     : "cache: no disk cache (switched off by KSPEC_CACHE or "
                       "no_disk_cache)");
  }
  return ctx->disk;
}

ks_status ks_cache_usage_get(ks_ctx *ctx, ks_cache_usage *out) {
  ks_jit_clear();
  ks_status s = KS_OUT_CHECK(out, "cache", ks_cache_usage);
  if (s != KS_OK)
    return s;
  ks_disk *d = need_disk(ctx);
  if (!d)
    return KS_EINVAL;
  ks_cache_usage full = {.limit = ks_disk_limit(d)};
  s = ks_disk_usage(d, &full.entries, &full.bytes);
  if (s == KS_OK)
    ks_jit_out_put(out, &full, sizeof full);
  return s;
}

ks_status ks_cache_verify(ks_ctx *ctx, uint64_t *good, uint64_t *removed) {
  ks_jit_clear();
  ks_disk *d = need_disk(ctx);
  uint64_t g = 0, r = 0;
  ks_status s = d ? ks_disk_verify(d, 0, &g, &r) : KS_EINVAL;
  if (good)
    *good = g;
  if (removed)
    *removed = r;
  return s;
}

ks_status ks_cache_clear(ks_ctx *ctx, uint64_t *removed) {
  ks_jit_clear();
  ks_disk *d = need_disk(ctx);
  uint64_t g = 0, r = 0;
  ks_status s = d ? ks_disk_verify(d, 1, &g, &r) : KS_EINVAL;
  if (removed)
    *removed = r;
  return s;
}

ks_disk *ks_jit_cache_disk_for(ks_ctx *ctx) { return need_disk(ctx); }
