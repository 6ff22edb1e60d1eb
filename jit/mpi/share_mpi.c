/*
 * share_mpi.c - ks_ctx_share_mpi: one cache for the ranks of an MPI
 * communicator, plugged into a context through ks_ctx_share.
 *
 * Every key (a specialization's, or a cubin's) has an owner rank, by its
 * hash. The owner keeps the key's record: absent, building (by a rank),
 * or ready (the blob). A rank that misses its own caches asks the owner:
 *
 *   asker                         owner (its service thread)
 *   GET kind key        ------->  absent: record "building by asker"
 *                       <-------  ANS BUILD        (the asker builds it)
 *   PUT kind key blob   ------->  ready: answer every waiter
 *   (another asker) GET ------->  building: wait in the record's list
 *                       <-------  ANS HIT blob     (when the PUT comes)
 *
 * so each key is built once per communicator, by the first rank to need
 * it. A failed build is PUT without a blob: the waiters build it
 * themselves (and get its error). A build not PUT within half the timeout
 * (its builder died or is stuck) is given to the next asker or the first
 * waiter, so that the waiters do not time out on the owner, which is
 * alive, and stop asking it. When the owner is the asker itself, the
 * same record is consulted in memory, without messages.
 *
 * Only the service thread receives on the (duplicated) communicator, by
 * polling MPI_Improbe with short sleeps, so that 64 ranks on 2 cores do
 * not spin; any thread sends, with MPI_Isend into a list the service
 * thread completes. A blocked or dead peer therefore blocks nothing: an
 * asker waits for its answer at most the timeout, then builds the kernel
 * itself, says so once (the context's warning) and never asks that owner
 * again. An attribute on MPI_COMM_SELF stops the service thread at the
 * beginning of MPI_Finalize; ks_ctx_destroy stops it otherwise. A rank
 * that stops says BYE to the others (one small message each, not waited
 * for): they stop asking it at once, build what it would have answered or
 * built, and say nothing, as a rank that is done with its kernels (or
 * exits) before the others is no fault. Without it they waited the
 * timeout on it, and named it.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit/mpi/kspec_mpi_int.h"

enum { TAG_GET = 7101, TAG_ANS, TAG_PUT, TAG_BYE, BUCKETS = 256 };

/* What every message starts with. code: ANS KS_SHARE_HIT or _BUILD; PUT
 * 1 with a blob, 0 without (the build failed). */
typedef struct head {
  int32_t kind, code;
  uint64_t key[2];
} head;

/* The owner's record of one key. waiters: ranks to answer when it is put
 * (the owner's own threads wait on the condition variable instead); since:
 * when builder was told to build it (now_ms). */
typedef struct item {
  head h; /* kind and key */
  int ready, builder;
  double since;
  unsigned char *blob;
  size_t len;
  int *waiters;
  size_t nwait, capwait;
  struct item *next;
} item;

/* An answer this rank waits for. */
typedef struct pending {
  head h;
  int done, code;
  unsigned char *blob;
  size_t len;
  struct pending *next;
} pending;

/* A send not yet complete. */
typedef struct outgoing {
  MPI_Request req;
  void *buf;
  struct outgoing *next;
} outgoing;

typedef struct share {
  MPI_Comm comm;
  int rank, size;
  double timeout_ms;
  pthread_t thread;
  atomic_int stop;
  pthread_mutex_t lock; /* guards everything below */
  pthread_cond_t cv;
  int stopped; /* the service thread was joined: no MPI call any more */
  item *items[BUCKETS];
  pending *pend;
  outgoing *out;
  unsigned char *dead; /* ranks that did not answer in time */
  int warned;
  double scanned; /* when stale builds were last looked for (now_ms) */
  int keyval;     /* MPI_COMM_SELF's attribute: MPI_Finalize stops us */
} share;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void nap(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static int owner_of(const share *s, int kind, const uint64_t key[2]) {
  return (int)((kind ? key[1] : key[0]) % (uint64_t)s->size);
}

static int same(const head *a, int kind, const uint64_t key[2]) {
  return a->kind == kind && a->key[0] == key[0] && a->key[1] == key[1];
}

static item **slot(share *s, int kind, const uint64_t key[2]) {
  item **p = &s->items[(key[0] ^ key[1] ^ (uint64_t)kind) % BUCKETS];
  while (*p && !same(&(*p)->h, kind, key))
    p = &(*p)->next;
  return p;
}

/* ---- sending (lock held) -------------------------------------------- */

/* Sends h and n bytes of blob to dst; the service thread completes it. */
static void post(share *s, int dst, int tag, const head *h, const void *blob,
                 size_t n) {
  outgoing *o = malloc(sizeof *o);
  unsigned char *buf = malloc(sizeof *h + n);
  if (!o || !buf || s->stopped || sizeof *h + n > (size_t)INT32_MAX) {
    free(o);
    free(buf);
    return;
  }
  memcpy(buf, h, sizeof *h);
  if (n)
    memcpy(buf + sizeof *h, blob, n);
  o->buf = buf;
  if (MPI_Isend(buf, (int)(sizeof *h + n), MPI_BYTE, dst, tag, s->comm,
                &o->req) != MPI_SUCCESS) {
    free(buf);
    free(o);
    return;
  }
  o->next = s->out;
  s->out = o;
}

/* Frees the sends that completed. */
static void complete_sends(share *s) {
  for (outgoing **p = &s->out; *p;) {
    int done = 0;
    MPI_Test(&(*p)->req, &done, MPI_STATUS_IGNORE);
    if (!done) {
      p = &(*p)->next;
      continue;
    }
    outgoing *o = *p;
    *p = o->next;
    free(o->buf);
    free(o);
  }
}

static void answer(share *s, int dst, const item *it, int code) {
  head h = it->h;
  h.code = code;
  post(s, dst, TAG_ANS, &h, code == KS_SHARE_HIT ? it->blob : NULL,
       code == KS_SHARE_HIT ? it->len : 0);
}

/* ---- the owner's records (lock held) --------------------------------- */

static item *record(share *s, const head *h, int builder) {
  item **p = slot(s, h->kind, h->key);
  if (!*p && (*p = calloc(1, sizeof **p)) != NULL) {
    (*p)->h = *h;
    (*p)->builder = builder;
    (*p)->since = now_ms();
  }
  return *p;
}

/* A build told more than half the timeout ago is stale: its builder died
 * or is stuck (stopped, swapped out). Its waiters would time out on this
 * rank, the owner, which answers, and never ask it again: the next asker
 * (or the first waiter) builds it instead, with half the timeout left. */
static int stale(const share *s, const item *it) {
  return !it->ready && now_ms() - it->since > s->timeout_ms / 2;
}

static void rebuild_by(share *s, item *it, int src) {
  it->builder = src;
  it->since = now_ms();
  answer(s, src, it, KS_SHARE_BUILD);
}

/* Gives each stale build that has waiters to its first waiter; looked for
 * every tenth of the timeout. */
static void reassign_stale(share *s) {
  double now = now_ms();
  if (now - s->scanned < s->timeout_ms / 10)
    return;
  s->scanned = now;
  for (size_t b = 0; b < BUCKETS; b++)
    for (item *it = s->items[b]; it; it = it->next)
      if (it->nwait && stale(s, it)) {
        int src = it->waiters[0];
        memmove(it->waiters, it->waiters + 1,
                --it->nwait * sizeof *it->waiters);
        rebuild_by(s, it, src);
      }
}

static void forget(share *s, item *it) {
  item **p = slot(s, it->h.kind, it->h.key);
  *p = it->next;
  free(it->blob);
  free(it->waiters);
  free(it);
}

/* A GET from rank src for a key this rank owns. */
static void on_get(share *s, int src, const head *h) {
  item *it = *slot(s, h->kind, h->key);
  if (!it) {
    if (record(s, h, src))
      answer(s, src, *slot(s, h->kind, h->key), KS_SHARE_BUILD);
  } else if (it->ready) {
    answer(s, src, it, KS_SHARE_HIT);
  } else if (stale(s, it)) {
    rebuild_by(s, it, src);
  } else if (it->nwait < it->capwait ||
             (it->waiters =
                  realloc(it->waiters, (it->capwait = it->capwait * 2 + 4) *
                                           sizeof *it->waiters)) != NULL) {
    it->waiters[it->nwait++] = src;
  }
}

/* What was built for a key this rank owns (blob NULL: the build failed):
 * every waiter gets it, or is told to build it. */
static void on_put(share *s, const head *h, const unsigned char *blob,
                   size_t n) {
  item *it = record(s, h, -1);
  if (!it)
    return;
  if (blob && !it->ready && (it->blob = malloc(n ? n : 1)) != NULL) {
    memcpy(it->blob, blob, n);
    it->len = n;
    it->ready = 1;
  }
  for (size_t i = 0; i < it->nwait; i++)
    answer(s, it->waiters[i], it, it->ready ? KS_SHARE_HIT : KS_SHARE_BUILD);
  it->nwait = 0;
  if (!it->ready)
    forget(s, it);
  pthread_cond_broadcast(&s->cv);
}

static void on_answer(share *s, const head *h, const unsigned char *blob,
                      size_t n) {
  for (pending *p = s->pend; p; p = p->next) {
    if (p->done || !same(&p->h, h->kind, h->key))
      continue;
    p->code = h->code;
    if (h->code == KS_SHARE_HIT && (p->blob = malloc(n ? n : 1)) != NULL) {
      memcpy(p->blob, blob, n);
      p->len = n;
    } else {
      p->code = KS_SHARE_BUILD;
    }
    p->done = 1;
    pthread_cond_broadcast(&s->cv);
    return;
  }
}

/* ---- the service thread ------------------------------------------------ */

/* Rank src's context is gone (it said BYE as it stopped): it answers no
 * more, builds nothing more. Its answers waited for are builds here, its
 * builds go to their first waiter, and it is not asked again: without a
 * warning, as leaving is no fault. */
static void on_bye(share *s, int src) {
  s->dead[src] = 1;
  for (pending *p = s->pend; p; p = p->next)
    if (!p->done && owner_of(s, p->h.kind, p->h.key) == src) {
      p->code = KS_SHARE_BUILD;
      p->done = 1;
    }
  for (size_t b = 0; b < BUCKETS; b++)
    for (item *it = s->items[b]; it; it = it->next)
      if (!it->ready && it->builder == src && it->nwait) {
        int to = it->waiters[0];
        memmove(it->waiters, it->waiters + 1,
                --it->nwait * sizeof *it->waiters);
        rebuild_by(s, it, to);
      } else if (!it->ready && it->builder == src) {
        it->since = now_ms() - s->timeout_ms; /* the next asker builds it */
      }
  pthread_cond_broadcast(&s->cv);
}

static void dispatch(share *s, int src, int tag, const unsigned char *buf,
                     size_t n) {
  if (tag == TAG_BYE && src >= 0 && src < s->size) {
    pthread_mutex_lock(&s->lock);
    on_bye(s, src);
    pthread_mutex_unlock(&s->lock);
    return;
  }
  head h;
  if (n < sizeof h)
    return;
  memcpy(&h, buf, sizeof h);
  pthread_mutex_lock(&s->lock);
  if (tag == TAG_GET)
    on_get(s, src, &h);
  else if (tag == TAG_PUT)
    on_put(s, &h, h.code ? buf + sizeof h : NULL, n - sizeof h);
  else if (tag == TAG_ANS)
    on_answer(s, &h, buf + sizeof h, n - sizeof h);
  pthread_mutex_unlock(&s->lock);
}

/* Receives one message when there is one: 1, else 0. */
static int receive(share *s) {
  int flag = 0, n = 0;
  MPI_Message m;
  MPI_Status st;
  if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag, &m, &st) !=
          MPI_SUCCESS ||
      !flag)
    return 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (MPI_Mrecv(buf ? buf : (unsigned char[1]){0}, buf ? n : 0, MPI_BYTE, &m,
                MPI_STATUS_IGNORE) == MPI_SUCCESS &&
      buf)
    dispatch(s, st.MPI_SOURCE, st.MPI_TAG, buf, (size_t)n);
  free(buf);
  return 1;
}

/* Sleeps 50 us after a message, doubling to 2 ms while none comes: an
 * idle rank costs little, a busy one answers at once. */
static void *serve(void *arg) {
  share *s = arg;
  long idle = 50;
  while (!atomic_load(&s->stop)) {
    int got = receive(s);
    pthread_mutex_lock(&s->lock);
    complete_sends(s);
    reassign_stale(s);
    pthread_mutex_unlock(&s->lock);
    if (got) {
      idle = 50;
    } else {
      nap(idle);
      idle = idle < 2000 ? idle * 2 : 2000;
    }
  }
  return NULL;
}

/* Ends the service thread, once; the sends still open are let go. */
static void stop(share *s) {
  pthread_mutex_lock(&s->lock);
  int was = s->stopped;
  if (!was) { /* before post() refuses: every other rank stops asking */
    head bye = {0};
    for (int r = 0; r < s->size; r++)
      if (r != s->rank)
        post(s, r, TAG_BYE, &bye, NULL, 0);
  }
  s->stopped = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->lock);
  if (was)
    return;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  for (outgoing *o = s->out, *next; o; o = next) {
    next = o->next;
    int done = 0;
    MPI_Test(&o->req, &done, MPI_STATUS_IGNORE);
    if (!done)
      MPI_Request_free(&o->req); /* its buffer stays: MPI may still read it */
    else
      free(o->buf);
    free(o);
  }
  s->out = NULL;
}

/* ---- the asking side (ks_share_ops) ---------------------------------- */

static void note_once(share *s, int rank, const head *h, char *note,
                      size_t cap) {
  s->dead[rank] = 1;
  if (s->warned++)
    return;
  snprintf(note, cap,
           "mpi: rank %d did not answer for %s %016llx%016llx within %.0f "
           "s; compiling here (rank %d is not asked again)",
           rank, h->kind ? "cubin" : "kernel", (unsigned long long)h->key[1],
           (unsigned long long)h->key[0], s->timeout_ms / 1e3, rank);
}

/* Waits on cv until ready() or the deadline; 0 on timeout or stop. */
static int wait_until(share *s, double deadline, int (*ready)(void *),
                      void *arg) {
  while (!ready(arg) && !s->stopped) {
    double left = deadline - now_ms();
    if (left <= 0)
      return 0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double at = (double)ts.tv_nsec + fmin(left, 1e6) * 1e6;
    ts.tv_sec += (time_t)(at / 1e9);
    ts.tv_nsec = (long)fmod(at, 1e9);
    pthread_cond_timedwait(&s->cv, &s->lock, &ts);
  }
  return ready(arg);
}

typedef struct local_wait {
  share *s;
  head h;
} local_wait;

static int item_settled(void *arg) {
  local_wait *lw = arg;
  item *it = *slot(lw->s, lw->h.kind, lw->h.key);
  return !it || it->ready || (it->builder >= 0 && lw->s->dead[it->builder]);
}

static int answered(void *arg) { return ((pending *)arg)->done; }

/* The key is this rank's (lock held). */
static int get_local(share *s, const head *h, void **blob, size_t *len,
                     char *note, size_t cap) {
  item *it = *slot(s, h->kind, h->key);
  if (!it)
    return record(s, h, s->rank), KS_SHARE_BUILD;
  local_wait lw = {s, *h};
  if (!it->ready && it->builder != s->rank && !s->dead[it->builder] &&
      !wait_until(s, now_ms() + s->timeout_ms, item_settled, &lw)) {
    if (!s->stopped)
      note_once(s, it->builder, h, note, cap);
    return KS_SHARE_BUILD;
  }
  it = *slot(s, h->kind, h->key);
  if (!it || !it->ready || !(*blob = malloc(it->len ? it->len : 1)))
    return KS_SHARE_BUILD;
  memcpy(*blob, it->blob, it->len);
  *len = it->len;
  return KS_SHARE_HIT;
}

/* The key is rank o's (lock held): ask, then wait for the answer. */
static int get_remote(share *s, int o, const head *h, void **blob, size_t *len,
                      char *note, size_t cap) {
  pending p = {.h = *h, .next = s->pend};
  s->pend = &p;
  post(s, o, TAG_GET, h, NULL, 0);
  int ok = wait_until(s, now_ms() + s->timeout_ms, answered, &p);
  pending **q = &s->pend;
  while (*q != &p)
    q = &(*q)->next;
  *q = p.next;
  if (!ok) {
    if (!s->stopped)
      note_once(s, o, h, note, cap);
    return KS_SHARE_BUILD;
  }
  *blob = p.blob;
  *len = p.len;
  return p.code == KS_SHARE_HIT && p.blob ? KS_SHARE_HIT : KS_SHARE_BUILD;
}

static int share_get(void *arg, int kind, const uint64_t key[2], void **blob,
                     size_t *len, int *owner, char *note, size_t cap) {
  share *s = arg;
  head h = {.kind = kind, .key = {key[0], key[1]}};
  int o = owner_of(s, kind, key), got = KS_SHARE_BUILD;
  *owner = o == s->rank;
  pthread_mutex_lock(&s->lock);
  if (s->stopped || s->dead[o])
    got = KS_SHARE_BUILD;
  else if (o == s->rank)
    got = get_local(s, &h, blob, len, note, cap);
  else
    got = get_remote(s, o, &h, blob, len, note, cap);
  pthread_mutex_unlock(&s->lock);
  return got;
}

static void share_put(void *arg, int kind, const uint64_t key[2],
                      const void *blob, size_t len) {
  share *s = arg;
  head h = {.kind = kind, .key = {key[0], key[1]}, .code = blob != NULL};
  int o = owner_of(s, kind, key);
  pthread_mutex_lock(&s->lock);
  if (o == s->rank)
    on_put(s, &h, blob, len);
  else if (!s->stopped && !s->dead[o])
    post(s, o, TAG_PUT, &h, blob, blob ? len : 0);
  pthread_mutex_unlock(&s->lock);
}

static void share_free(share *s) {
  for (size_t b = 0; b < BUCKETS; b++)
    while (s->items[b])
      forget(s, s->items[b]);
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->cv);
  free(s->dead);
  free(s);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: stop there. */
static int at_finalize(MPI_Comm comm, int keyval, void *val, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  stop(val);
  return MPI_SUCCESS;
}

static void share_detach(void *arg) {
  share *s = arg;
  int fin = 0;
  stop(s);
  MPI_Finalized(&fin);
  if (!fin) {
    MPI_Comm_delete_attr(MPI_COMM_SELF, s->keyval); /* stop() again: no-op */
    MPI_Comm_free_keyval(&s->keyval);
    MPI_Comm_free(&s->comm);
  }
  share_free(s);
}

/* ---- ks_ctx_share_mpi ------------------------------------------------ */

static const char *level_name(int level) {
  return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
         : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
         : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                          : "MPI_THREAD_MULTIPLE";
}

ks_status ks_mpi_check(const char *what) {
  int init = 0, fin = 0, level = MPI_THREAD_SINGLE;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin)
    return ks_mpi_fail(KS_EINVAL,
                       "mpi: %s: MPI is %s (call MPI_Init_thread with "
                       "MPI_THREAD_MULTIPLE first)",
                       what, fin ? "finalized" : "not initialized");
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE)
    return ks_mpi_fail(KS_EINVAL,
                       "mpi: %s needs MPI_THREAD_MULTIPLE (a service thread "
                       "answers the other ranks); this MPI library was "
                       "initialized with %s",
                       what, level_name(level));
  return KS_OK;
}

static double timeout_ms(void) {
  const char *e = getenv("KSPEC_MPI_TIMEOUT");
  char *end = NULL;
  double v = e && *e ? strtod(e, &end) : 0;
  return e && *e && !*end && v > 0 ? v * 1e3 : 30e3;
}

static ks_status start(share *s, MPI_Comm comm) {
  if (MPI_Comm_dup(comm, &s->comm) != MPI_SUCCESS)
    return ks_mpi_fail(KS_EINVAL, "mpi: share: MPI_Comm_dup failed");
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->size);
  s->timeout_ms = timeout_ms();
  s->dead = calloc((size_t)s->size, 1);
  if (!s->dead || pthread_create(&s->thread, NULL, serve, s) != 0) {
    MPI_Comm_free(&s->comm);
    return ks_mpi_fail(KS_ENOMEM, "mpi: share: no service thread");
  }
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &s->keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, s->keyval, s);
  return KS_OK;
}

ks_status ks_ctx_share_mpi(ks_ctx *ctx, MPI_Comm comm) {
  ks_mpi_clear();
  if (!ctx)
    return ks_mpi_fail(KS_EINVAL, "mpi: share: NULL context");
  ks_status st = ks_mpi_check("sharing compiles");
  share *s = st == KS_OK ? calloc(1, sizeof *s) : NULL;
  if (st != KS_OK)
    return st;
  if (!s)
    return ks_mpi_fail(KS_ENOMEM, "mpi: share: out of memory");
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->cv, NULL);
  st = start(s, comm);
  if (st != KS_OK) {
    share_free(s);
    return st;
  }
  static const ks_share_ops ops = {
      .get = share_get, .put = share_put, .detach = share_detach};
  st = ks_ctx_share(ctx, &ops, s);
  if (st != KS_OK) {
    share_detach(s);
    return ks_mpi_fail(st, "%s", ks_errmsg(ctx));
  }
  return KS_OK;
}
