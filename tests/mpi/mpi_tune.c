/*
 * mpi_tune.c - ks_tune_mpi under mpirun (tests/mpi/run.sh), with fake
 * timings over the mocked driver (KSPEC_LIBCUDA, KSPEC_MOCK_DEVICES):
 *
 *   mpi_tune split DIR      the ranks split a sweep of 16 variants; rank 0's
 *                           store (DIR/mpi) holds the same variants and the
 *                           same winner as one process's sweep (DIR/one);
 *                           run again, rank 0 reuses all and measures none
 *   mpi_tune disagree DIR   rank 2 sweeps other values: every rank is
 *                           refused, rank 0 names the first difference, no
 *                           store is written
 *
 * Rank 0 prints "ok" (exit 0) or what was wrong (exit 1).
 */
#define _GNU_SOURCE /* strndup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kspec_mpi.h"

enum { N = 16 };

/* Variant maxntid m takes 1 + |m - 160| / 1000 ms: 160 wins. The
 * kernel is loaded as a real measurement would (in the worker, a child of
 * a rank whose compiles are shared: it must not wait on the rank's
 * sharing, whose thread the child does not have). */
static ks_status fake_measure(void *arg, ks_kernel *k, const ks_tune_point *p,
                              double *ms, char *why, size_t cap) {
  (void)arg;
  ks_status s = ks_kernel_load(k);
  if (s != KS_OK) {
    snprintf(why, cap, "load: %s", ks_errmsg(NULL));
    return s;
  }
  double d = (double)p->bounds.maxntid - 160;
  *ms = 1.0 + (d < 0 ? -d : d) / 1000;
  usleep(1000);
  return KS_OK;
}

static ks_status fake_resources(void *arg, ks_kernel *k,
                                ks_kernel_resources *out) {
  (void)arg;
  (void)k;
  memset(out, 0, sizeof *out);
  out->regs = 32;
  out->stack_frame = out->const_bytes = -1;
  return KS_OK;
}

typedef struct sweep {
  ks_ctx *ctx;
  ks_template *t;
  int64_t values[N];
  ks_tune_dim dim;
  ks_binding fl;
  ks_tune_space sp;
  ks_tune_opts o;
} sweep;

static int open_sweep(sweep *w, const char *store, int shift) {
  ks_ctx_opts co = {.arch = "sm_90", .ptx_isa = 85, .no_disk_cache = 1};
  if (ks_ctx_create(&co, &w->ctx) != KS_OK ||
      ks_template_load(w->ctx, "conv1d", &w->t) != KS_OK)
    return -1;
  for (int i = 0; i < N; i++)
    w->values[i] = 32 * (i + 1) + (i == 5 ? shift : 0);
  w->dim = (ks_tune_dim){"maxntid", w->values, N};
  w->fl = (ks_binding){.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 8};
  w->sp = (ks_tune_space){
      .fixed = &w->fl, .nfixed = 1, .dims = &w->dim, .ndims = 1};
  w->o = (ks_tune_opts){.measure = fake_measure,
                        .resources = fake_resources,
                        .isolate = 1,
                        .device = "FakeGPU",
                        .driver_version = 13000,
                        .problem = "mpi",
                        .store_dir = store,
                        .max_runs = 8};
  return 0;
}

static void close_sweep(sweep *w) {
  ks_template_destroy(w->t);
  ks_ctx_destroy(w->ctx);
}

static int by_text(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The store's variant keys and its best line, sorted, as text. */
static char *store_text(const char *path) {
  FILE *f = fopen(path, "r");
  char line[4096], *lines[256], *out = calloc(1, 1 << 16);
  size_t n = 0, used = 0;
  while (f && n < 256 && fgets(line, sizeof line, f)) {
    int v = strncmp(line, "v ", 2) == 0;
    if (v || strncmp(line, "best ", 5) == 0)
      lines[n++] =
          strndup(line, v ? strcspn(line + 2, " \n") + 2 : strcspn(line, "\n"));
  }
  if (f)
    fclose(f);
  qsort(lines, n, sizeof *lines, by_text);
  for (size_t i = 0; i < n; i++) {
    if (out)
      used += (size_t)snprintf(out + used, (1 << 16) - used, "%s\n", lines[i]);
    free(lines[i]);
  }
  return out;
}

static int split(int rank, const char *dir) {
  char mpi_dir[512], one_dir[512];
  snprintf(mpi_dir, sizeof mpi_dir, "%s/mpi", dir);
  snprintf(one_dir, sizeof one_dir, "%s/one", dir);
  mkdir(mpi_dir, 0700);
  sweep w = {0};
  ks_tune_result r = {.size = sizeof r};
  if (open_sweep(&w, mpi_dir, 0) != 0 ||
      ks_ctx_share_mpi(w.ctx, MPI_COMM_WORLD) != KS_OK ||
      ks_tune_mpi(w.ctx, w.t, &w.sp, &w.o, MPI_COMM_WORLD, &r) != KS_OK) {
    printf("FAIL: rank %d: %s\n", rank, ks_errmsg_mpi(w.ctx));
    return 1;
  }
  unsigned long all = r.measured;           /* rank 0's: every variant's */
  int none = r.measured == 0, any_none = 0; /* every rank measured some */
  MPI_Reduce(&none, &any_none, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  long best = r.best;
  char store[512];
  snprintf(store, sizeof store, "%s", r.store);
  ks_tune_result_free(&r);
  /* again: rank 0's store has everything */
  ks_tune_result again = {.size = sizeof again};
  ks_status s = ks_tune_mpi(w.ctx, w.t, &w.sp, &w.o, MPI_COMM_WORLD, &again);
  int rc = 0;
  if (rank == 0) {
    /* The one-process sweep on a context of its own: w's would ask the
     * other ranks, gone by now, for the cubins, and wait out the timeout
     * on each. */
    sweep solo = {0};
    ks_tune_result one = {.size = sizeof one};
    mkdir(one_dir, 0700);
    if (open_sweep(&solo, one_dir, 0) == 0) {
      solo.o.isolate = 0;
      ks_tune(solo.ctx, solo.t, &solo.sp, &solo.o, &one);
    }
    char *a = store_text(store), *b = store_text(one.store);
    printf("mpi_tune: measured %lu, best #%ld (one process: "
           "#%ld); again: reused %zu, measured %zu\n",
           all, best, one.best, again.reused, again.measured);
    rc = s != KS_OK || !a || !b || strcmp(a, b) != 0 || best != one.best ||
         best != 4 || all != N || any_none || again.reused != N ||
         again.measured != 0;
    if (rc)
      printf("FAIL: rank 0's store:\n%s\none process's:\n%s\n", a, b);
    else
      printf("ok\n");
    free(a);
    free(b);
    ks_tune_result_free(&one);
    close_sweep(&solo);
  }
  ks_tune_result_free(&again);
  close_sweep(&w);
  return rc;
}

static int disagree(int rank, const char *dir) {
  char mpi_dir[512];
  snprintf(mpi_dir, sizeof mpi_dir, "%s/refused", dir);
  mkdir(mpi_dir, 0700);
  sweep w = {0};
  ks_tune_result r = {.size = sizeof r};
  if (open_sweep(&w, mpi_dir, rank == 2 ? 1 : 0) != 0)
    return 1;
  ks_status s = ks_tune_mpi(w.ctx, w.t, &w.sp, &w.o, MPI_COMM_WORLD, &r);
  int refused = s == KS_EINVAL, all_refused = 0;
  MPI_Reduce(&refused, &all_refused, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) {
    const char *msg = ks_errmsg_mpi(w.ctx);
    printf("mpi_tune: %s: %s\n", ks_status_name(s), msg);
    int stored = r.store[0] && access(r.store, F_OK) == 0;
    rc = !all_refused || !strstr(msg, "rank 2 disagrees on the sweep") ||
         !strstr(msg, "variant #5") || stored;
    printf(rc ? "FAIL\n" : "ok\n");
  }
  ks_tune_result_free(&r);
  close_sweep(&w);
  return rc;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, rc = 2;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 2 && strcmp(argv[1], "split") == 0)
    rc = split(rank, argv[2]);
  else if (argc > 2 && strcmp(argv[1], "disagree") == 0)
    rc = disagree(rank, argv[2]);
  MPI_Finalize();
  return rc;
}
