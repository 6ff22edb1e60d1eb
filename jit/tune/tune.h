/*
 * tune.h - the auto-tuner's own interface between its files (tune.c: the
 * sweep, tune_store.c: the store of measurements, tune_worker.c: the
 * measuring child). tune/ is built on the public API and shim.h alone.
 */
#ifndef KS_JIT_TUNE_H
#define KS_JIT_TUNE_H

#include <stdio.h>

#include "jit/tune/shim.h"

/* ---- tune.c, tune_store.c, tune_worker.c --------------------------------- */

enum { KS_TUNE_VKEY_CAP = 512, KS_TUNE_MAX_FIXED = 64, KS_TUNE_KEY_CAP = 2048 };

/* The argument position each dim and fixed value of a space binds, so
 * that "n" and "@3" are one: a position, KS_TUNE_ARG_BOUND for a launch
 * bound dim, KS_TUNE_ARG_NONE for what binds nothing (no dim there, an
 * unknown name). */
enum { KS_TUNE_ARG_BOUND = -1, KS_TUNE_ARG_NONE = -2, KS_TUNE_ARG_TEX = -3 };
/* A dim "tex:ARG" (dim KS_TUNE_ARG_TEX) switches hardware textures on for
 * pointer argument tex[d] (KS_TUNE_ARG_NONE for any other dim). */
typedef struct ks_jit_tune_args {
  int dim[KS_TUNE_MAX_DIMS];
  int fixed[KS_TUNE_MAX_FIXED];
  int tex[KS_TUNE_MAX_DIMS];
} ks_jit_tune_args;
/* Resolves sp's dims and fixed values on kernel ki of t (at most
 * KS_TUNE_MAX_DIMS and KS_TUNE_MAX_FIXED of them are read). */
void ks_jit_tune_args_of(const ks_template *t, long ki, const ks_tune_space *sp,
                         ks_jit_tune_args *out);

/* The variant's key in the store: its threads, bounds, the swept
 * parameters' values by argument position, then the textures it switches
 * on ("threads=256;block=0,0,0;maxntid=256;...;@4=32;tex@0=1"; a texture
 * dim at 0 leaves no mark, so that its variants are those of a sweep
 * without the dim). */
void ks_jit_tune_vkey(const ks_tune_space *sp, const ks_jit_tune_args *args,
                      const ks_tune_point *p, char *buf, size_t cap);
/* Checks, warms up and times variant k under o (defaults filled in),
 * filling e's class, runs, statistics and reason. */
void ks_jit_tune_measure_one(const ks_tune_opts *o, ks_kernel *k,
                             ks_tune_entry *e);
/* The noise rule: does challenger c beat best? */
int ks_jit_tune_beats(const ks_tune_entry *c, const ks_tune_entry *best,
                      double min_gain);

typedef struct ks_jit_tune_store ks_jit_tune_store;
/* Opens (and reads) the store of the problem; *out NULL when there is no
 * store (store_dir "", or no disk cache). Errors: KS_EIO, KS_ENOMEM. */
ks_status ks_jit_tune_store_open(ks_ctx *ctx, const ks_template *t,
                                 const ks_tune_space *sp, const ks_tune_opts *o,
                                 ks_jit_tune_store **out);
/* The same, held: no directory made and nothing written (puts are kept
 * in memory) until ks_jit_tune_store_commit, which makes the directory
 * and writes the file (KS_OK, or KS_EIO when the directory cannot be
 * made); a held store closed uncommitted leaves no trace. */
ks_status ks_jit_tune_store_open_held(ks_ctx *ctx, const ks_template *t,
                                      const ks_tune_space *sp,
                                      const ks_tune_opts *o,
                                      ks_jit_tune_store **out);
ks_status ks_jit_tune_store_commit(ks_jit_tune_store *st);
const char *ks_jit_tune_store_path(const ks_jit_tune_store *st);
/* The problem's key, as a store of it is keyed (KS_TUNE_KEY_CAP bytes). */
void ks_jit_tune_store_key(ks_ctx *ctx, const ks_template *t,
                           const ks_tune_space *sp, const ks_tune_opts *o,
                           char *buf, size_t cap);
/* A stored entry of a variant that ran, or NULL. */
const ks_tune_entry *ks_jit_tune_store_find(ks_jit_tune_store *st,
                                            const char *vkey);
/* Records e under vkey (when both are given) and best (when given), then
 * rewrites the file atomically. */
void ks_jit_tune_store_put(ks_jit_tune_store *st, const char *vkey,
                           const ks_tune_entry *e, const char *best);
void ks_jit_tune_store_close(ks_jit_tune_store *st);
/* A store of key with no file behind it, read from f as a store's file is
 * read (the fuzz harness reads its input so). NULL when out of memory. */
ks_jit_tune_store *ks_jit_tune_store_read(const char *key, FILE *f);
/* The stored winner into *out (zeroed by the caller): 0, or -1 when none
 * is stored or its variant key does not parse. */
int ks_jit_tune_store_best(ks_jit_tune_store *st, ks_tune_best *out);

/* A measuring child process for one GPU (gpu -1: the context's device);
 * pid -1 when none runs. While busy it measures variant idx, whose entry
 * as sent is kept for the answer; got/have collect the answer. A bare
 * child was forked before the variants were compiled: each variant's
 * kernel goes with it (ks_jit_tune_job.image). dev: its GPU as its hello
 * said (zeroed for gpu -1). */
typedef struct ks_jit_tune_worker {
  int pid;
  int fd;
  int gpu;
  int busy;
  int greeting; /* spawned, its hello not read yet */
  int bare;
  size_t idx;
  double deadline, timeout_ms;
  ks_tune_entry sent, got;
  size_t have;
  ks_device_info dev;
} ks_jit_tune_worker;
/* What the child runs for variant idx: fills e. image (len bytes): the
 * variant's kernel as ks_jit_kernel_pack made it, for a bare child; NULL
 * for one that holds the kernels. */
typedef void (*ks_jit_tune_run_fn)(void *sweep, size_t idx, const void *image,
                                   size_t len, ks_tune_entry *e);
/* What a child for a GPU runs first (gpu -1: none named): KS_OK with its
 * device in *dev, or a failure with why, which ends the child before any
 * variant. */
typedef ks_status (*ks_jit_tune_init_fn)(void *sweep, int gpu,
                                         ks_device_info *dev, char *why,
                                         size_t cap);
/* Variant idx's kernel for a bare child (malloc'd, *len bytes), or NULL
 * (the child then says why the variant cannot run). */
typedef void *(*ks_jit_tune_image_fn)(void *sweep, size_t idx, size_t *len);
typedef struct ks_jit_tune_job {
  ks_jit_tune_run_fn fn;
  ks_jit_tune_init_fn init;   /* may be NULL */
  ks_jit_tune_image_fn image; /* for bare children */
  void *sweep;
  double timeout_ms; /* per variant, and for the hello */
  /* The parent's sockets to the other workers, which a new child closes:
   * a worker must see its own socket close when the parent closes it. */
  const int *others;
  size_t nothers;
} ks_jit_tune_job;
/* Starts w's child (w->gpu set by the caller) and waits for its hello:
 * 0, or -1 with why (the init's message, or how the start failed). */
int ks_jit_tune_worker_start(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                             char *why, size_t cap);
/* The two halves of ks_jit_tune_worker_start, so that several children
 * initialize (open their GPUs) at once, and while the parent works on:
 * spawn forks (0, or -1 with why) and leaves w greeting, hello waits for
 * the child's hello (until w->deadline when set, else timeout_ms; 0, or
 * -1 with why: the child is then ended). */
int ks_jit_tune_worker_spawn(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                             char *why, size_t cap);
int ks_jit_tune_worker_hello(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                             char *why, size_t cap);
/* Hands variant idx (its entry e as it stands, and to a bare child its
 * kernel, from job->image) to w's running child, which must be idle; its
 * answer is due in timeout_ms. 0, or -1 when the child is gone
 * (ks_jit_tune_worker_wait then reports it). */
int ks_jit_tune_worker_send(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                            size_t idx, const ks_tune_entry *e,
                            double timeout_ms);
/* Waits until one of the n workers' variants is settled: answered, or
 * its child died or ran past the deadline (then classified, and the
 * child ended and reaped). Fills e (its gpu the worker's) and returns the
 * worker's index; -1 when none is busy or greeting. A greeting worker
 * (spawned, deadline set: 0 waits no longer) whose hello came, or is
 * late, is returned with *greets set, its hello for
 * ks_jit_tune_worker_hello to read. */
long ks_jit_tune_worker_wait(ks_jit_tune_worker *ws, size_t n, ks_tune_entry *e,
                             int *greets);
/* Runs variant idx in w (started when none runs) and waits for it. */
void ks_jit_tune_worker_run(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                            size_t idx, ks_tune_entry *e);
/* Ends w's child (killed when busy). */
void ks_jit_tune_worker_stop(ks_jit_tune_worker *w);
/* Ends the children of the n workers but keep (NULL: all), all at once:
 * each closes its context as it exits, which takes a while. */
void ks_jit_tune_workers_stop(ks_jit_tune_worker *ws, size_t n,
                              const ks_jit_tune_worker *keep);
/* The first half of ks_jit_tune_workers_stop: tells the children to end
 * (their sockets closed, a busy one killed) without waiting for them;
 * ks_jit_tune_workers_stop reaps them later. */
void ks_jit_tune_workers_close(ks_jit_tune_worker *ws, size_t n,
                               const ks_jit_tune_worker *keep);

/* Ends the children of the n workers, all at once, and waits for them on
 * a thread of its own: a child's exit tears its CUDA context down, which
 * takes a while, and the sweep has its results by then (ends them here,
 * as ks_jit_tune_workers_stop, when no thread can start). */
void ks_jit_tune_workers_release(ks_jit_tune_worker *ws, size_t n);

#endif /* KS_JIT_TUNE_H */
