/*
 * sweep.h - one ks_tune sweep's state, shared by tune.c (the space, the
 * compiles, the figures and pruning) and tune_measure.c (measuring the
 * survivors: in this process, in a worker per GPU, or shared with a team).
 */
#ifndef KS_JIT_TUNE_SWEEP_H
#define KS_JIT_TUNE_SWEEP_H

#include <time.h>

#include "jit/tune/tune.h"

enum {
  KS_TUNE_DEF_RUNS = 100,
  KS_TUNE_FINALISTS = 8, /* measured again on one GPU, at most */
  KS_TUNE_GPU_LOST = -1000
};

/* One variant while the sweep runs. */
typedef struct variant {
  ks_binding binds[KS_TUNE_MAX_DIMS + 64];
  size_t nbinds;
  ks_future *future;
  ks_kernel *kernel;
  char vkey[KS_TUNE_VKEY_CAP];
  /* Its whole-program cubin, from the figures' ptxas run (malloc'd; NULL
   * without one), which the workers load instead of compiling the PTX. */
  void *cubin;
  size_t cubin_len;
  uint64_t tex; /* pointer arguments sampled in hardware, by position */
  char tex_names[KS_TUNE_MAX_DIMS][8]; /* "@N", for ks_spec_req.tex */
} variant;

/* The sweep's state; the worker's child reads its forked copy. */
typedef struct sweep {
  ks_ctx *ctx;
  const ks_template *t;
  const ks_tune_space *space;
  ks_tune_opts o;
  long kernel;
  ks_jit_tune_args args; /* the positions the dims and fixed values bind */
  variant *vars;
  unsigned char *mine; /* the variants this process measures */
  unsigned char *left; /* with a team: those left to measure by any */
  ks_tune_result *res;
  struct ks_jit_tune_pool *pool; /* workers spawned, not yet ready */
} sweep;

/* A monotonic clock in milliseconds, for the phases' times. */
static inline double ks_jit_tune_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Not settled yet: neither measured nor ruled out. */
static inline int ks_jit_tune_alive(const ks_tune_entry *e) {
  return e->cls == KS_TUNE_NOT_RUN;
}

/* Settles e as c, the reason formatted on one line. */
void ks_jit_tune_reason(ks_tune_entry *e, ks_tune_class c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Variant i's request into *req, its textures' names in tex
 * (KS_TUNE_MAX_DIMS): as compiled here, and as a worker forked before
 * the compiles asks for the kernel it is handed. */
void ks_jit_tune_variant_req(sweep *w, size_t i, ks_spec_req *req,
                             const char **tex);

/* Forks the measuring workers (one per GPU of w->o.gpus; none to fork
 * otherwise) into w->pool without waiting for them, before the compiles,
 * so that they open their GPUs while the variants are compiled and their
 * figures made. KS_OK, or the failure (then none runs). */
ks_status ks_jit_tune_pool_spawn(sweep *w);

/* Waits for the workers' hellos (their GPUs: one model, able to run the
 * context's code), opens the store, measures the baseline (when asked
 * for), then the survivors; with a team, this process's share of them,
 * and the lead gathers the rest. The winner goes into w->res->best and
 * the store. Ends w->pool's workers. */
ks_status ks_jit_tune_measure_all(sweep *w);

#endif /* KS_JIT_TUNE_SWEEP_H */
