/*
 * cache.c - the in-memory cache: specialization key -> kernel.
 *
 * A fixed array of buckets with chains, under one mutex: a hit costs a hash
 * lookup and a lock. Compiles happen outside the lock; when two threads
 * compile the same key, the first insert wins and the other copy is freed.
 */
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

enum { NBUCKETS = 1024 };

typedef struct entry {
  ks_kernel *kernel;
  struct entry *next;
} entry;

struct ks_cache {
  pthread_mutex_t lock;
  entry *buckets[NBUCKETS];
};

ks_cache *ks_cache_create(void) {
  ks_cache *c = calloc(1, sizeof *c);
  if (c)
    pthread_mutex_init(&c->lock, NULL);
  return c;
}

void ks_kernel_free(ks_kernel *k, ks_drv *drv) {
  if (!k)
    return;
  if (k->loaded && drv)
    ks_drv_module_unload(drv, &k->mod);
  pthread_mutex_destroy(&k->load_lock);
  free(k->name);
  free(k->ptx);
  free(k->ir);
  free(k->explain);
  free(k);
}

void ks_cache_destroy(ks_cache *c, ks_drv *drv) {
  if (!c)
    return;
  for (size_t i = 0; i < NBUCKETS; i++) {
    entry *e = c->buckets[i];
    while (e) {
      entry *next = e->next;
      ks_kernel_free(e->kernel, drv);
      free(e);
      e = next;
    }
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static entry *lookup(ks_cache *c, const uint64_t key[2]) {
  for (entry *e = c->buckets[key[0] % NBUCKETS]; e; e = e->next)
    if (e->kernel->key[0] == key[0] && e->kernel->key[1] == key[1])
      return e;
  return NULL;
}

ks_kernel *ks_cache_get(ks_cache *c, const uint64_t key[2]) {
  pthread_mutex_lock(&c->lock);
  entry *e = lookup(c, key);
  ks_kernel *k = e ? e->kernel : NULL;
  pthread_mutex_unlock(&c->lock);
  return k;
}

ks_kernel *ks_cache_put(ks_cache *c, ks_kernel *k, ks_drv *drv) {
  entry *fresh = malloc(sizeof *fresh);
  pthread_mutex_lock(&c->lock);
  entry *e = lookup(c, k->key);
  ks_kernel *winner = e ? e->kernel : fresh ? k : NULL;
  if (!e && fresh) {
    fresh->kernel = k;
    fresh->next = c->buckets[k->key[0] % NBUCKETS];
    c->buckets[k->key[0] % NBUCKETS] = fresh;
    fresh = NULL;
  }
  pthread_mutex_unlock(&c->lock);
  free(fresh);
  if (winner != k)
    ks_kernel_free(k, drv); /* a twin was cached first, or no memory */
  return winner;
}
