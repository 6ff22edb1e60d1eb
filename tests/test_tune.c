/*
 * test_tune.c - ks_tune's sweep logic with a fake timer, fake launches and
 * fake compile-time figures (no GPU): pruning and its reasons, the noise
 * rule, the store (resume, lookup), and every failure class, in process
 * and in the worker process (hangs, abort()); a sweep over several GPUs
 * (workers per GPU of the mocked driver, the finalists measured again on
 * one GPU, a GPU that faults or hangs, GPUs named twice or missing); a
 * texture dim (tex:ARG) on resize: on where bit-identical, excluded for
 * linear filtering unless 2 allows it, stored and looked up.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kspec.h"
#include "mock/cuda_mock.h"
#include "test_util.h"

/* What a fake variant does when launched, by its threads (= maxntid). */
typedef enum {
  DO_OK,
  DO_ELAUNCH,
  DO_FAULT_MSG,
  DO_EFAULT,
  DO_EBOUNDS,
  DO_WRONG,
  DO_HANG,
  DO_ABORT
} behaviour;

typedef struct fake {
  unsigned maxntid[8];
  double base_ms[8]; /* the variant's time */
  behaviour what[8];
  unsigned n;
  unsigned calls[8]; /* measure calls per variant (in this process) */
  unsigned samples;
  /* Fake figures by minctasm (index 0..4) and maxntid. */
  int regs_by_minctasm[5];
  unsigned spill_maxntid, spill_minctasm;
  unsigned smem_maxntid, smem_minctasm;
  double gpu_factor[4]; /* a GPU's times are this much of the variant's */
  unsigned sleep_us;    /* each measurement takes this long */
  int stop_after;       /* progress stops the sweep after this many measured */
  int measured_seen;
  ks_kernel *first; /* the kernel of the first measure call */
} fake;

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
  char dir[256];
} fixture;

static int find_variant(const fake *f, unsigned maxntid) {
  for (unsigned i = 0; i < f->n; i++)
    if (f->maxntid[i] == maxntid)
      return (int)i;
  return -1;
}

/* The fake timer: the variant's time with a +-0.2% wobble. */
static ks_status fake_measure(void *arg, ks_kernel *k, const ks_tune_point *p,
                              double *ms, char *why, size_t cap) {
  fake *f = arg;
  if (!f->first)
    f->first = k;
  int i = find_variant(f, p->threads);
  if (i < 0)
    return KS_EINVAL;
  f->calls[i]++;
  switch (f->what[i]) {
  case DO_ELAUNCH:
    snprintf(why, cap, "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE");
    return KS_ELAUNCH;
  case DO_FAULT_MSG:
    snprintf(why, cap, "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS");
    return KS_EDRIVER;
  case DO_EFAULT:
    return KS_EFAULT;
  case DO_EBOUNDS:
    return KS_EBOUNDS;
  case DO_HANG:
    for (;;)
      pause();
  case DO_ABORT:
    signal(SIGABRT, SIG_DFL); /* not cmocka's handler, in the child */
    abort();
  default:
    break;
  }
  f->samples++;
  *ms = f->base_ms[i] * (1.0 + 0.002 * (double)((int)(f->samples % 3) - 1));
  int gpu = ks_tune_worker_gpu();
  if (gpu >= 0 && gpu < 4 && f->gpu_factor[gpu] > 0)
    *ms *= f->gpu_factor[gpu];
  if (f->sleep_us)
    usleep(f->sleep_us);
  return KS_OK;
}

static ks_status fake_check(void *arg, ks_kernel *k, const ks_tune_point *p,
                            char *why, size_t cap) {
  fake *f = arg;
  if (!f->first)
    f->first = k;
  int i = find_variant(f, p->threads);
  if (i >= 0 && f->what[i] == DO_WRONG) {
    snprintf(why, cap, "y[17] = 3 (want 4)");
    return KS_ERANGE;
  }
  return KS_OK;
}

static ks_status fake_resources(void *arg, ks_kernel *k,
                                ks_kernel_resources *out) {
  fake *f = arg;
  ks_kernel_info info = {.size = sizeof info};
  ks_kernel_info_get(k, &info);
  memset(out, 0, sizeof *out);
  out->source = KS_RES_PTXAS;
  out->regs = f->regs_by_minctasm[info.minctasm < 5 ? info.minctasm : 0];
  if (info.maxntid == f->spill_maxntid && info.minctasm == f->spill_minctasm)
    out->spill_stores = out->spill_loads = 8;
  if (info.maxntid == f->smem_maxntid && info.minctasm == f->smem_minctasm)
    out->static_smem = 300000;
  out->stack_frame = out->const_bytes = -1;
  return KS_OK;
}

static int stop_progress(void *arg, size_t done, size_t total,
                         const ks_tune_entry *e) {
  fake *f = arg;
  (void)done;
  (void)total;
  if (e->cls == KS_TUNE_MEASURED && !e->stored)
    f->measured_seen++;
  return f->stop_after && f->measured_seen >= f->stop_after;
}

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  if (!fx || ks_ctx_create(&o, &fx->ctx) != KS_OK ||
      ks_template_load(fx->ctx, "conv1d", &fx->t) != KS_OK)
    return -1;
  snprintf(fx->dir, sizeof fx->dir, "%s/kspec_tune_XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(fx->dir))
    return -1;
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
  if (system(cmd) != 0)
    return -1;
  ks_template_destroy(fx->t);
  ks_ctx_destroy(fx->ctx);
  free(fx);
  return 0;
}

static const ks_binding fixed_fl32 = {
    .name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 32};

/* One fake variant per maxntid. */
static void add_variant(fake *f, unsigned maxntid, double ms, behaviour b) {
  f->maxntid[f->n] = maxntid;
  f->base_ms[f->n] = ms;
  f->what[f->n++] = b;
}

static ks_tune_opts fake_opts(fake *f, const char *store) {
  ks_tune_opts o = {.measure = fake_measure,
                    .check = fake_check,
                    .arg = f,
                    .resources = fake_resources,
                    .device = "FakeGPU",
                    .driver_version = 13000,
                    .problem = "n=1000",
                    .store_dir = store,
                    .progress = stop_progress};
  for (int i = 0; i < 5; i++)
    f->regs_by_minctasm[i] = 32;
  f->spill_maxntid = f->smem_maxntid = 99999; /* none */
  return o;
}

static const ks_tune_entry *entry_for(const ks_tune_result *r, unsigned maxntid,
                                      unsigned minctasm) {
  for (size_t i = 0; i < r->n; i++)
    if (r->entries[i].point.bounds.maxntid == maxntid &&
        r->entries[i].point.bounds.minctasm == minctasm)
      return &r->entries[i];
  fail_msg("no entry maxntid=%u minctasm=%u", maxntid, minctasm);
  return NULL;
}

static int not_512(const ks_tune_point *p, void *arg) {
  (void)arg;
  return p->bounds.maxntid != 512;
}

/* Pruning before any measurement, each with its reason. */
static void prune_reasons(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  f.regs_by_minctasm[1] = 64; /* 128 threads: 32 warps */
  f.regs_by_minctasm[2] = 32; /* 64 warps */
  f.regs_by_minctasm[4] = 32; /* the same: a duplicate */
  f.spill_maxntid = 256, f.spill_minctasm = 4;
  f.smem_maxntid = 256, f.smem_minctasm = 1;
  add_variant(&f, 128, 1.0, DO_OK);
  add_variant(&f, 256, 1.0, DO_OK);
  add_variant(&f, 512, 1.0, DO_OK);
  int64_t maxntid[] = {128, 256, 512}, minctasm[] = {1, 2, 4};
  ks_tune_dim dims[] = {{"maxntid", maxntid, 3}, {"minctasm", minctasm, 3}};
  ks_tune_space sp = {.fixed = &fixed_fl32,
                      .nfixed = 1,
                      .dims = dims,
                      .ndims = 2,
                      .valid = not_512};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.n, 9);
  const ks_tune_entry *e = entry_for(&r, 128, 1);
  assert_int_equal(e->cls, KS_TUNE_PRUNED);
  TU_ASSERT_CONTAINS(e->reason, "occupancy dominated by #1");
  TU_ASSERT_CONTAINS(e->reason, "32 vs 64 resident warps");
  assert_int_equal(entry_for(&r, 128, 2)->cls, KS_TUNE_MEASURED);
  e = entry_for(&r, 128, 4);
  assert_int_equal(e->cls, KS_TUNE_PRUNED);
  TU_ASSERT_CONTAINS(e->reason, "duplicate of #1");
  e = entry_for(&r, 256, 1);
  assert_int_equal(e->cls, KS_TUNE_OVER_RESOURCES);
  TU_ASSERT_CONTAINS(e->reason, "no block fits on an SM");
  assert_int_equal(entry_for(&r, 256, 2)->cls, KS_TUNE_MEASURED);
  e = entry_for(&r, 256, 4);
  assert_int_equal(e->cls, KS_TUNE_PRUNED);
  TU_ASSERT_CONTAINS(e->reason, "spills 16 bytes");
  for (int m = 1; m <= 4; m *= 2) {
    e = entry_for(&r, 512, (unsigned)m);
    assert_int_equal(e->cls, KS_TUNE_EXCLUDED);
  }
  assert_int_equal(r.measured, 2);
  /* Nothing pruned was ever launched. */
  assert_int_equal(f.calls[2], 0);
  ks_tune_result_free(&r);
}

/* Through a sweep: a challenger within the noise does not displace the
 * best, one beyond it does. */
static void noise_rule(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  add_variant(&f, 128, 1.000, DO_OK);
  add_variant(&f, 256, 0.995, DO_OK); /* 0.5% better: within the noise */
  add_variant(&f, 512, 1.100, DO_OK);
  int64_t maxntid[] = {128, 256, 512};
  ks_tune_dim dims[] = {{"maxntid", maxntid, 3}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.measured, 3);
  assert_int_equal(r.best, 0);
  const ks_tune_entry *e = &r.entries[0];
  assert_true(e->runs >= 5 && e->runs < 100); /* stable, stopped early */
  assert_true(e->min <= e->median && e->median <= e->max);
  assert_true(e->q1 <= e->median && e->median <= e->q3);
  assert_true(e->max > e->min); /* the spread is reported */
  ks_tune_result_free(&r);

  f = (fake){0};
  o = fake_opts(&f, "");
  add_variant(&f, 128, 1.000, DO_OK);
  add_variant(&f, 256, 0.950, DO_OK); /* 5% better: beyond the noise */
  add_variant(&f, 512, 1.100, DO_OK);
  o.baseline = 1; /* no bounds, 256 threads: maxntid 256's time */
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.best, 1);
  assert_non_null(r.baseline);
  assert_int_equal(r.baseline->point.bounds.maxntid, 0);
  assert_int_equal(r.baseline->point.threads, 256);
  assert_int_equal(r.baseline->cls, KS_TUNE_MEASURED);
  ks_tune_result_free(&r);

  /* Ties go to the first in the space's order: #2 is the fastest, 1.5%
   * ahead of #1 (a tie: within twice the 1% margin) and 2.5% ahead of #0
   * (not one), so #1 wins. A chain of "beats the best so far" crowned #2
   * (2.5% ahead of #0), and with the noise falling otherwise, #1 or #2
   * from run to run. */
  f = (fake){0};
  o = fake_opts(&f, "");
  add_variant(&f, 128, 1.000, DO_OK);
  add_variant(&f, 256, 0.990, DO_OK);
  add_variant(&f, 512, 0.975, DO_OK);
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.best, 1);
  ks_tune_result_free(&r);
}

/* A sweep stopped half-way resumes from the store: only the missing
 * variants are measured, and ks_tune_lookup finds the winner. */
static void resume_and_lookup(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, fx->dir);
  add_variant(&f, 128, 1.0, DO_OK);
  add_variant(&f, 256, 0.8, DO_OK);
  add_variant(&f, 512, 0.9, DO_OK);
  add_variant(&f, 1024, 0.5, DO_WRONG);
  int64_t maxntid[] = {128, 256, 512, 1024};
  ks_tune_dim dims[] = {{"maxntid", maxntid, 4}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_best best = {.size = sizeof best};
  assert_int_equal(ks_tune_lookup(fx->ctx, fx->t, &sp, &o, &best), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), "nothing stored");

  f.stop_after = 2; /* interrupted after two measurements */
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.measured, 2);
  assert_int_equal(r.entries[2].cls, KS_TUNE_NOT_RUN);
  assert_int_equal(r.entries[3].cls, KS_TUNE_NOT_RUN);
  TU_ASSERT_CONTAINS(r.store, fx->dir);
  assert_int_equal(access(r.store, R_OK), 0);
  ks_tune_result_free(&r);

  memset(f.calls, 0, sizeof f.calls);
  f.stop_after = 0;
  f.measured_seen = 0;
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.reused, 2);
  assert_int_equal(r.measured, 2);
  assert_int_equal(f.calls[0], 0); /* stored: not measured again */
  assert_int_equal(f.calls[1], 0);
  assert_true(f.calls[2] > 0);
  assert_true(r.entries[0].stored && r.entries[1].stored);
  assert_int_equal(r.entries[3].cls, KS_TUNE_WRONG_RESULT);
  assert_int_equal(r.best, 1);
  ks_tune_result_free(&r);

  /* Everything stored now: a third sweep measures nothing. */
  memset(f.calls, 0, sizeof f.calls);
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.measured, 0);
  assert_int_equal(r.reused, 4);
  assert_int_equal(r.best, 1);
  ks_tune_result_free(&r);

  assert_int_equal(ks_tune_lookup(fx->ctx, fx->t, &sp, &o, &best), KS_OK);
  assert_int_equal(best.bounds.maxntid, 256);
  assert_int_equal(best.threads, 256);
  assert_true(best.median_ms > 0.79 && best.median_ms < 0.81);
  /* The tuned kernel: the winner's bounds, without measuring. */
  ks_kernel *k = NULL;
  unsigned threads = 0;
  memset(f.calls, 0, sizeof f.calls);
  assert_int_equal(ks_specialize_tuned(fx->ctx, fx->t, &sp, &o, &k, &threads),
                   KS_OK);
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_int_equal(info.maxntid, 256);
  assert_int_equal(threads, 256);
  for (size_t i = 0; i < sizeof f.calls / sizeof f.calls[0]; i++)
    assert_int_equal(f.calls[i], 0);
  /* Another problem size has nothing stored. */
  o.problem = "n=2000";
  assert_int_equal(ks_tune_lookup(fx->ctx, fx->t, &sp, &o, &best), KS_EINVAL);
  assert_int_equal(ks_specialize_tuned(fx->ctx, fx->t, &sp, &o, &k, NULL),
                   KS_EINVAL);
  assert_null(k);
}

/* A parameter swept by name is stored by its position: a lookup by "@4"
 * finds the winner of a sweep by "FILTER_LEN" (the winner's value named
 * by the parameter's name), a sweep by "@4" reuses every measurement, and
 * the other way round; fixed values spelled by name or position, as an
 * integer or as text, are one problem. */
/* The baseline of a sweep over an unmarked argument (conv1d's n, which
 * has no default) is the generic kernel, n left to the launch: not n
 * bound to 0. It is measured first. */
static void baseline_unmarked(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  o.baseline = 1;
  add_variant(&f, 256, 1.0, DO_OK);
  int64_t n[] = {1000, 2000};
  ks_tune_dim dims[] = {{"n", n, 2}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_non_null(r.baseline);
  assert_int_equal(r.baseline->cls, KS_TUNE_MEASURED);
  ks_spec_req req = {.bindings = &fixed_fl32, .nbindings = 1};
  ks_kernel *generic = NULL;
  assert_int_equal(ks_specialize(fx->ctx, fx->t, &req, &generic), KS_OK);
  assert_ptr_equal(f.first, generic);
  ks_tune_result_free(&r);
}

static void spellings_one_store(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, fx->dir);
  o.problem = "spellings";
  add_variant(&f, 128, 1.0, DO_OK);
  add_variant(&f, 256, 0.8, DO_OK);
  int64_t fl[] = {16, 32}, maxntid[] = {128, 256};
  ks_tune_dim by_name[] = {{"FILTER_LEN", fl, 2}, {"maxntid", maxntid, 2}};
  ks_tune_dim by_pos[] = {{"maxntid", maxntid, 2}, {"@4", fl, 2}};
  ks_tune_space named = {.dims = by_name, .ndims = 2};
  ks_tune_space posed = {.dims = by_pos, .ndims = 2};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &named, &o, &r), KS_OK);
  assert_int_equal(r.measured, 4);
  char store[sizeof r.store];
  snprintf(store, sizeof store, "%s", r.store);
  ks_tune_result_free(&r);
  ks_tune_best best = {.size = sizeof best};
  assert_int_equal(ks_tune_lookup(fx->ctx, fx->t, &posed, &o, &best), KS_OK);
  assert_int_equal(best.bounds.maxntid, 256);
  assert_int_equal(best.nbindings, 1);
  assert_string_equal(best.bindings[0].name, "FILTER_LEN");
  assert_int_equal(best.bindings[0].v.i, 16);
  memset(f.calls, 0, sizeof f.calls);
  assert_int_equal(ks_tune(fx->ctx, fx->t, &posed, &o, &r), KS_OK);
  assert_string_equal(r.store, store);
  assert_int_equal(r.reused, 4);
  assert_int_equal(r.measured, 0);
  assert_int_equal(f.calls[0] + f.calls[1], 0);
  ks_tune_result_free(&r);

  /* the other way round, with a fixed value: swept by position with
   * FILTER_LEN=32 as text at position 4, looked up by name with 32 */
  o.problem = "spellings, fixed";
  int64_t one[] = {256};
  ks_tune_dim mx[] = {{"maxntid", maxntid, 2}};
  ks_binding fx_pos = {.kind = KS_VALUE_TEXT, .v.s = "32", .arg = 4};
  ks_tune_space sweep = {.fixed = &fx_pos, .nfixed = 1, .dims = mx, .ndims = 1};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sweep, &o, &r), KS_OK);
  assert_int_equal(r.measured, 2);
  assert_string_not_equal(r.store, store);
  ks_tune_result_free(&r);
  ks_tune_dim mx1[] = {{"maxntid", one, 1}};
  ks_tune_space look = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = mx1, .ndims = 1};
  best = (ks_tune_best){.size = sizeof best};
  assert_int_equal(ks_tune_lookup(fx->ctx, fx->t, &look, &o, &best), KS_OK);
  assert_int_equal(best.bounds.maxntid, 256);
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize_tuned(fx->ctx, fx->t, &look, &o, &k, NULL),
                   KS_OK);
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_int_equal(info.maxntid, 256);
  /* a parameter is swept once and not both fixed and swept, whatever the
   * spelling */
  ks_tune_dim twice[] = {{"FILTER_LEN", fl, 2}, {"@4", fl, 2}};
  ks_tune_space bad = {.dims = twice, .ndims = 2};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &bad, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), "'@4' is swept twice");
  ks_tune_result_free(&r);
  ks_tune_dim pos4[] = {{"@4", fl, 2}};
  bad = (ks_tune_space){
      .fixed = &fixed_fl32, .nfixed = 1, .dims = pos4, .ndims = 1};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &bad, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), "'@4' is both fixed and swept");
  ks_tune_result_free(&r);
}

/* reduce_sum's BLOCK (@3) fixes the block: swept or fixed, by name or by
 * position, each variant launches with its value's threads. */
static void block_param_by_position(void **state) {
  fixture *fx = *state;
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(fx->ctx, "reduce_sum", &t), KS_OK);
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  add_variant(&f, 128, 1.0, DO_OK);
  add_variant(&f, 256, 0.9, DO_OK);
  add_variant(&f, 512, 0.8, DO_OK);
  int64_t blocks[] = {128, 256, 512};
  const char *const spell[] = {"BLOCK", "@3"};
  for (int i = 0; i < 2; i++) {
    ks_tune_dim d[] = {{spell[i], blocks, 3}};
    ks_tune_space sp = {.dims = d, .ndims = 1};
    ks_tune_result r = {.size = sizeof r};
    assert_int_equal(ks_tune(fx->ctx, t, &sp, &o, &r), KS_OK);
    assert_int_equal(r.n, 3);
    for (size_t j = 0; j < 3; j++) {
      assert_int_equal(r.entries[j].point.threads, blocks[j]);
      assert_int_equal(r.entries[j].cls, KS_TUNE_MEASURED);
    }
    assert_int_equal(r.best, 2);
    ks_tune_result_free(&r);
  }
  /* fixed by position: every maxntid variant launches 512 threads */
  ks_binding b512 = {.name = "@3", .kind = KS_VALUE_INT, .v.i = 512};
  int64_t maxntid[] = {512, 1024};
  ks_tune_dim d[] = {{"maxntid", maxntid, 2}};
  ks_tune_space sp = {.fixed = &b512, .nfixed = 1, .dims = d, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.entries[0].point.threads, 512);
  assert_int_equal(r.entries[1].point.threads, 512);
  ks_tune_result_free(&r);
  ks_template_destroy(t);
}

/* Every failure class in process; none ends the sweep. */
static void failures_in_process(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  add_variant(&f, 64, 1.0, DO_ELAUNCH);
  add_variant(&f, 128, 1.0, DO_WRONG);
  add_variant(&f, 256, 1.0, DO_EBOUNDS);
  add_variant(&f, 512, 1.0, DO_FAULT_MSG);
  add_variant(&f, 1024, 2.0, DO_OK);
  int64_t maxntid[] = {64, 128, 256, 512, 1024}, fl[] = {32, 500};
  ks_tune_dim dims[] = {{"FILTER_LEN", fl, 2}, {"maxntid", maxntid, 5}};
  ks_tune_space sp = {.dims = dims, .ndims = 2};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.n, 10);
  assert_int_equal(r.entries[0].cls, KS_TUNE_LAUNCH_FAILURE);
  TU_ASSERT_CONTAINS(r.entries[0].reason, "CUDA_ERROR_INVALID_VALUE");
  assert_int_equal(r.entries[1].cls, KS_TUNE_WRONG_RESULT);
  TU_ASSERT_CONTAINS(r.entries[1].reason, "y[17]");
  assert_int_equal(r.entries[2].cls, KS_TUNE_OVER_RESOURCES);
  assert_int_equal(r.entries[3].cls, KS_TUNE_DEVICE_FAULT);
  assert_int_equal(r.entries[4].cls, KS_TUNE_MEASURED);
  for (int i = 5; i < 10; i++) { /* FILTER_LEN 500 is out of range */
    assert_int_equal(r.entries[i].cls, KS_TUNE_COMPILE_ERROR);
    TU_ASSERT_CONTAINS(r.entries[i].reason, "FILTER_LEN");
  }
  assert_int_equal(r.best, 4);
  ks_tune_result_free(&r);
}

/* In the worker: a hang is a timeout, abort() and a lost context are
 * device faults; the worker is replaced and the sweep goes on. */
static void failures_in_worker(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  o.isolate = 1;
  o.timeout_ms = 300;
  add_variant(&f, 64, 1.0, DO_HANG);
  add_variant(&f, 128, 1.0, DO_ABORT);
  add_variant(&f, 256, 1.5, DO_OK);
  add_variant(&f, 512, 1.0, DO_EFAULT);
  add_variant(&f, 1024, 1.2, DO_OK);
  add_variant(&f, 32, 1.0, DO_WRONG);
  add_variant(&f, 96, 1.0, DO_ELAUNCH);
  int64_t maxntid[] = {64, 128, 256, 512, 1024, 32, 96};
  ks_tune_dim dims[] = {{"maxntid", maxntid, 7}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.entries[0].cls, KS_TUNE_TIMEOUT);
  TU_ASSERT_CONTAINS(r.entries[0].reason, "no answer in 300 ms");
  assert_int_equal(r.entries[1].cls, KS_TUNE_DEVICE_FAULT);
  TU_ASSERT_CONTAINS(r.entries[1].reason, "signal 6");
  assert_int_equal(r.entries[2].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.entries[3].cls, KS_TUNE_DEVICE_FAULT);
  TU_ASSERT_CONTAINS(r.entries[3].reason, "KS_EFAULT");
  assert_int_equal(r.entries[4].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.entries[5].cls, KS_TUNE_WRONG_RESULT);
  assert_int_equal(r.entries[6].cls, KS_TUNE_LAUNCH_FAILURE);
  assert_int_equal(r.best, 4);
  /* The parent launched nothing itself. */
  for (unsigned i = 0; i < f.n; i++)
    assert_int_equal(f.calls[i], 0);
  ks_tune_result_free(&r);
}

/* Bad spaces are errors with a message. */
static void bad_spaces(void **state) {
  fixture *fx = *state;
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  int64_t v[] = {1};
  ks_tune_dim unknown[] = {{"NOPE", v, 1}};
  ks_tune_space sp = {.dims = unknown, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), "'NOPE' is neither");
  ks_tune_result_free(&r);
  ks_tune_dim empty[] = {{"maxntid", v, 0}};
  sp.dims = empty;
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), "no values");
  ks_tune_result_free(&r);
  ks_tune_dim both[] = {{"FILTER_LEN", v, 1}};
  sp.dims = both;
  sp.fixed = &fixed_fl32;
  sp.nfixed = 1;
  assert_int_equal(ks_tune(fx->ctx, fx->t, &sp, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), "both fixed and swept");
  ks_tune_result_free(&r);
  assert_string_equal(ks_tune_class_name(KS_TUNE_DEVICE_FAULT), "device fault");
  assert_string_equal(ks_tune_class_name(KS_TUNE_CLASS_COUNT), "?");
}

/* The device the mocked driver's primary context was retained for in
 * this process (a worker's), or -1. */
static int mock_device(void) {
  void *h = dlopen(KS_MOCK_LIB, RTLD_NOW | RTLD_NOLOAD);
  kspec_mock_counters_fn get =
      h ? (kspec_mock_counters_fn)dlsym(h, KSPEC_MOCK_COUNTERS_FN) : NULL;
  kspec_mock_counters c = {.device = -1};
  if (get)
    get(&c);
  return c.device;
}

/* A check that fails when the worker's context is not on its GPU. */
static ks_status gpu_check(void *arg, ks_kernel *k, const ks_tune_point *p,
                           char *why, size_t cap) {
  ks_status s = fake_check(arg, k, p, why, cap);
  if (s == KS_OK && mock_device() != ks_tune_worker_gpu()) {
    snprintf(why, cap, "worker of GPU %d on device %d", ks_tune_worker_gpu(),
             mock_device());
    return KS_ERANGE;
  }
  return s;
}

/* A context over the mocked driver with four GPUs, not yet opened. */
static ks_ctx *mock_ctx(void) {
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  setenv("KSPEC_MOCK_DEVICES", "4", 1);
  ks_ctx_opts o = {.arch = "sm_90", .ptx_isa = 85, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  return ctx;
}

/* Four GPUs: every variant measured once, by some GPU's worker on that
 * GPU; the GPUs share the work; the finalists are measured again on the
 * first GPU, so GPU 1..3 being 3% faster cannot make the second-best
 * variant win; the store keeps who measured what. */
static void gpus_share_a_sweep(void **state) {
  fixture *fx = *state;
  ks_ctx *ctx = mock_ctx();
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, fx->dir);
  o.check = gpu_check;
  o.problem = "four GPUs";
  int gpus[] = {0, 1, 2, 3};
  o.gpus = gpus;
  o.ngpus = 4;
  f.gpu_factor[0] = 1.0;
  f.gpu_factor[1] = f.gpu_factor[2] = f.gpu_factor[3] = 0.97;
  f.sleep_us = 2000;
  int64_t maxntid[] = {32, 64, 96, 128, 160, 192, 224, 256};
  for (int i = 0; i < 8; i++) /* #0 best, #1 2% slower, the rest far */
    add_variant(&f, (unsigned)maxntid[i],
                i == 0   ? 1.0
                : i == 1 ? 1.02
                         : 2.0,
                DO_OK);
  ks_tune_dim dims[] = {{"maxntid", maxntid, 8}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_OK);
  for (size_t i = 0; i < r.n; i++)
    if (r.entries[i].cls != KS_TUNE_MEASURED)
      print_message("#%zu: %s: %s\n", i, ks_tune_class_name(r.entries[i].cls),
                    r.entries[i].reason);
  assert_int_equal(r.measured, 8);
  unsigned used = 0;
  for (size_t i = 0; i < r.n; i++) {
    const ks_tune_entry *e = &r.entries[i];
    assert_int_equal(e->cls, KS_TUNE_MEASURED);
    assert_true(e->gpu >= 0 && e->gpu < 4);
    used |= 1u << e->gpu;
    assert_int_equal(e->finalist, i < 2); /* the two closest, no more */
    if (e->finalist)
      assert_int_equal(e->gpu, 0);
  }
  assert_true(used != 1u && used != 2u && used != 4u && used != 8u);
  assert_int_equal(r.finalists, 2);
  assert_int_equal(r.best, 0);
  /* what the workers' hellos said of their GPUs; this process never
   * opened the driver (the workers forked before the compiles and were
   * handed each kernel) */
  TU_ASSERT_CONTAINS(r.device, "H100");
  assert_int_equal(r.driver_version, 13000);
  assert_string_equal(r.arch, "sm_90");
  assert_int_equal(r.ptx_isa, 85);
  assert_int_equal(mock_device(), -1);
  /* the phases' times: each variant sleeps 2 ms a run, so measuring and
   * the finalists (measured again, timed) take some */
  assert_true(r.compile_ms > 0 && r.figures_ms >= 0 && r.start_ms >= 0);
  assert_true(r.measure_ms >= 2.0 && r.finalists_ms >= 2.0);
  for (unsigned i = 0; i < f.n; i++) /* the parent measured nothing */
    assert_int_equal(f.calls[i], 0);
  ks_tune_result_free(&r);

  /* Resumed: the store gives each variant its GPU back. */
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.reused, 8);
  assert_int_equal(r.measured, 0);
  assert_int_equal(r.entries[0].gpu, 0);
  assert_int_equal(r.entries[0].finalist, 1);
  for (size_t i = 2; i < r.n; i++)
    assert_true(r.entries[i].gpu >= 0 && !r.entries[i].finalist);
  ks_tune_result_free(&r);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* A GPU whose worker hangs or dies loses that worker, not the sweep; the
 * variants the others measure are all there. */
static void gpu_fault_and_hang(void **state) {
  fixture *fx = *state;
  ks_ctx *ctx = mock_ctx();
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  int gpus[] = {2, 0};
  o.gpus = gpus;
  o.ngpus = 2;
  o.timeout_ms = 300;
  add_variant(&f, 64, 1.0, DO_HANG);
  add_variant(&f, 128, 1.0, DO_ABORT);
  add_variant(&f, 256, 1.5, DO_OK);
  add_variant(&f, 512, 1.2, DO_OK);
  add_variant(&f, 1024, 1.0, DO_EFAULT);
  add_variant(&f, 32, 0.9, DO_OK);
  int64_t maxntid[] = {64, 128, 256, 512, 1024, 32};
  ks_tune_dim dims[] = {{"maxntid", maxntid, 6}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_OK);
  assert_int_equal(r.entries[0].cls, KS_TUNE_TIMEOUT);
  assert_int_equal(r.entries[1].cls, KS_TUNE_DEVICE_FAULT);
  TU_ASSERT_CONTAINS(r.entries[1].reason, "signal 6");
  assert_int_equal(r.entries[4].cls, KS_TUNE_DEVICE_FAULT);
  for (int i = 2; i < 6; i += i == 3 ? 2 : 1)
    assert_int_equal(r.entries[i].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.best, 5);
  /* the finalists' GPU, the first; unless one GPU measured all three,
   * whose timings then compare as they are */
  assert_true(r.entries[5].gpu == 2 || r.finalists == 0);
  (void)fx;
  ks_tune_result_free(&r);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* A GPU that opens late: the others measure meanwhile (here GPU 0 all of
 * it, and GPU 1, still opening when the queue is done, is let go), and
 * the store is written; one that opens during the sweep and turns out
 * another model ends it with nothing stored. */
static void gpu_opens_late(void **state) {
  fixture *fx = *state;
  ks_ctx *ctx = mock_ctx();
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  fake f = {0};
  char store[300];
  snprintf(store, sizeof store, "%s/late", fx->dir);
  ks_tune_opts o = fake_opts(&f, store);
  o.device = NULL;
  o.driver_version = 0;
  int gpus[] = {1, 0};
  o.gpus = gpus;
  o.ngpus = 2;
  int64_t maxntid[] = {32, 64, 96, 128};
  for (int i = 0; i < 4; i++)
    add_variant(&f, (unsigned)maxntid[i], 1.0 + i, DO_OK);
  ks_tune_dim dims[] = {{"maxntid", maxntid, 4}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  setenv("KSPEC_MOCK_SLOW", "1:3000", 1);
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_OK);
  for (size_t i = 0; i < r.n; i++) {
    assert_int_equal(r.entries[i].cls, KS_TUNE_MEASURED);
    assert_int_equal(r.entries[i].gpu, 0);
  }
  assert_true(r.start_ms < 2000);     /* not waiting for GPU 1 to open */
  assert_true(r.finalists_ms < 2000); /* nor at the end */
  assert_int_equal(r.finalists, 0);   /* GPU 0's timings compare as they are */
  assert_int_equal(access(r.store, R_OK), 0);
  ks_tune_result_free(&r);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", store);
  assert_int_equal(system(cmd), 0);
  /* GPU 1 opens while GPU 0 measures (20 ms a run): another model */
  setenv("KSPEC_MOCK_SLOW", "1:300", 1);
  setenv("KSPEC_MOCK_OTHER", "1", 1);
  f.sleep_us = 20000;
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_EINVAL);
  unsetenv("KSPEC_MOCK_OTHER");
  unsetenv("KSPEC_MOCK_SLOW");
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "tune one model at a time");
  assert_int_equal(access(store, F_OK), -1); /* nothing stored, no dir */
  ks_tune_result_free(&r);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* GPUs named twice or missing, of two models, or unable to run the
 * context's code: one message, nothing measured, no store written. */
static void bad_gpus(void **state) {
  fixture *fx = *state;
  ks_ctx *ctx = mock_ctx();
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  fake f = {0};
  char store[300];
  snprintf(store, sizeof store, "%s/bad_gpus", fx->dir);
  ks_tune_opts o = fake_opts(&f, store);
  o.device = NULL; /* the GPUs' own, from their workers */
  o.driver_version = 0;
  add_variant(&f, 64, 1.0, DO_OK);
  int64_t maxntid[] = {64};
  ks_tune_dim dims[] = {{"maxntid", maxntid, 1}};
  ks_tune_space sp = {
      .fixed = &fixed_fl32, .nfixed = 1, .dims = dims, .ndims = 1};
  ks_tune_result r = {.size = sizeof r};
  int twice[] = {1, 3, 1};
  o.gpus = twice;
  o.ngpus = 3;
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "GPU 1 is named twice");
  ks_tune_result_free(&r);
  int missing[] = {0, 7};
  o.gpus = missing;
  o.ngpus = 2;
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "tune: GPU 7: ");
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "the driver sees 4");
  /* GPU 0 may have measured before GPU 7's hello came: nothing stored */
  assert_int_equal(access(store, F_OK), -1);
  ks_tune_result_free(&r);
  int two[] = {0, 1, 2};
  o.gpus = two;
  o.ngpus = 3;
  /* (a sweep long enough for GPU 2's hello to come: one still opening
   * when the sweep is done measured nothing, and is let go) */
  f.sleep_us = 20000;
  setenv("KSPEC_MOCK_OTHER", "2", 1);
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_EINVAL);
  unsetenv("KSPEC_MOCK_OTHER");
  f.sleep_us = 0;
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "tune one model at a time");
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "GPU 2 is NVIDIA H100");
  ks_tune_result_free(&r);
  /* an sm_80 GPU cannot run the sweep's sm_90 code: the result says what
   * a context for it would compile for */
  setenv("KSPEC_MOCK_SM", "80", 1);
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), KS_EARCH);
  unsetenv("KSPEC_MOCK_SM");
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "cannot run code for sm_90");
  assert_string_equal(r.arch, "sm_80");
  assert_int_equal(r.ptx_isa, 85);
  assert_int_equal(r.measured, 0);
  ks_tune_result_free(&r);
  assert_int_equal(access(store, F_OK), -1); /* nothing stored, no dir */
  assert_int_equal(ks_tune_worker_gpu(), -1);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* Textures: a variant sampling in hardware (its plan has a texture) takes
 * half the time of one in software. */
static ks_status tex_measure(void *arg, ks_kernel *k, const ks_tune_point *p,
                             double *ms, char *why, size_t cap) {
  (void)p, (void)why, (void)cap;
  ks_kernel_info in = {.size = sizeof in};
  assert_int_equal(ks_kernel_info_get(k, &in), KS_OK);
  ++*(int *)arg;
  *ms = in.plan.texs ? 0.5 : 1.0;
  return KS_OK;
}

static ks_tune_result tex_sweep(ks_ctx *ctx, ks_template *t, int filter,
                                const int64_t *v, size_t nv, const char *dir,
                                ks_status want) {
  static ks_binding fixed[2];
  fixed[0] = (ks_binding){.name = "FACTOR", .kind = KS_VALUE_INT, .v.i = 2};
  fixed[1] =
      (ks_binding){.name = "FILTER", .kind = KS_VALUE_INT, .v.i = filter};
  ks_tune_dim dims[] = {{"tex:src", v, nv}};
  ks_tune_space sp = {.fixed = fixed, .nfixed = 2, .dims = dims, .ndims = 1};
  int runs = 0;
  ks_tune_opts o = {.measure = tex_measure,
                    .arg = &runs,
                    .device = "FakeGPU",
                    .driver_version = 13000,
                    .problem = "tex",
                    .store_dir = dir,
                    .baseline = 1};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(ctx, t, &sp, &o, &r), want);
  if (want == KS_OK && filter == 0) { /* the winner, looked up and built */
    ks_tune_best best = {.size = sizeof best};
    assert_int_equal(ks_tune_lookup(ctx, t, &sp, &o, &best), KS_OK);
    assert_int_equal(best.tex, 1); /* argument 0, src */
    assert_int_equal(best.nbindings, 0);
    ks_kernel *k = NULL;
    assert_int_equal(ks_specialize_tuned(ctx, t, &sp, &o, &k, NULL), KS_OK);
    ks_kernel_info in = {.size = sizeof in};
    assert_int_equal(ks_kernel_info_get(k, &in), KS_OK);
    assert_int_equal(in.plan.texs, 1);
  }
  return r;
}

static void tex_dim(void **state) {
  fixture *fx = *state;
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(fx->ctx, "resize", &t), KS_OK);
  /* nearest, clamped: bit-identical, so 1 may win */
  int64_t on_off[] = {0, 1};
  ks_tune_result r = tex_sweep(fx->ctx, t, 0, on_off, 2, fx->dir, KS_OK);
  assert_int_equal(r.entries[0].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.entries[1].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.best, 1);
  assert_true(r.baseline && r.baseline->median > 0.9); /* software */
  ks_tune_result_free(&r);
  /* bilinear: 1 is excluded, saying why; 2 allows it */
  int64_t all[] = {0, 1, 2};
  r = tex_sweep(fx->ctx, t, 1, all, 3, fx->dir, KS_OK);
  assert_int_equal(r.entries[0].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.entries[1].cls, KS_TUNE_EXCLUDED);
  TU_ASSERT_CONTAINS(r.entries[1].reason,
                     "texture of argument 0 (f32): linear filtering in "
                     "hardware is only within a bound of the software's "
                     "result (tex:ARG=2 allows it)");
  assert_int_equal(r.entries[2].cls, KS_TUNE_MEASURED);
  assert_int_equal(r.best, 2);
  ks_tune_result_free(&r);
  /* bilinear, 0 and 1 only: software wins */
  r = tex_sweep(fx->ctx, t, 1, on_off, 2, "", KS_OK);
  assert_int_equal(r.best, 0);
  ks_tune_result_free(&r);
  /* bad dims: no such buffer, a scalar, a value out of range, twice */
  int64_t three[] = {3};
  ks_tune_dim bad[][2] = {{{"tex:nope", on_off, 2}},
                          {{"tex:n", on_off, 2}},
                          {{"tex:src", three, 1}},
                          {{"tex:src", on_off, 2}, {"tex:@0", on_off, 2}}};
  const char *why[] = {"'tex:nope': resize has no buffer argument 'nope'",
                       "'tex:n': resize has no buffer argument 'n'",
                       "'tex:src': value 3; 0 (software), 1",
                       "'tex:@0' is swept twice"};
  fake f = {0};
  ks_tune_opts o = fake_opts(&f, "");
  for (size_t i = 0; i < 4; i++) {
    ks_tune_space sp = {.dims = bad[i], .ndims = i == 3 ? 2 : 1};
    assert_int_equal(ks_tune(fx->ctx, t, &sp, &o, &r), KS_EINVAL);
    TU_ASSERT_CONTAINS(ks_errmsg(fx->ctx), why[i]);
    ks_tune_result_free(&r);
  }
  ks_template_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(prune_reasons),
      cmocka_unit_test(noise_rule),
      cmocka_unit_test(resume_and_lookup),
      cmocka_unit_test(baseline_unmarked),
      cmocka_unit_test(spellings_one_store),
      cmocka_unit_test(block_param_by_position),
      cmocka_unit_test(failures_in_process),
      cmocka_unit_test(failures_in_worker),
      cmocka_unit_test(bad_spaces),
      cmocka_unit_test(gpus_share_a_sweep),
      cmocka_unit_test(gpu_fault_and_hang),
      cmocka_unit_test(gpu_opens_late),
      cmocka_unit_test(bad_gpus),
      cmocka_unit_test(tex_dim),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
