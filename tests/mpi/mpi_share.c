/*
 * mpi_share.c - ks_ctx_share_mpi under mpirun (tests/mpi/run.sh):
 *
 *   mpi_share keys [CACHE_DIR]   every rank asks for the same 12 kernels,
 *                                each in its own order: each is compiled
 *                                once in the job, every rank gets the same
 *                                PTX; with CACHE_DIR (one directory for
 *                                all) each entry is written once
 *   mpi_share stuck DONE_DIR     rank 1 stops (SIGSTOP) after its first
 *                                kernel; the others time out on it,
 *                                compile what it owns themselves and each
 *                                writes DONE_DIR/rank.N when finished
 *   mpi_share single             MPI_Init without threads: refused
 *
 * Rank 0 prints "ok" (exit 0) or what was wrong (exit 1).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kspec_mpi.h"

/* KEYS kernels in the keys tests; STUCK_KEYS in the stuck test, so many
 * that the stopped rank owns some whatever the keys' hashes (which depend
 * on the library's build): 12 over 4 ranks missed it 3% of builds. */
enum { KEYS = 12, STUCK_KEYS = 48 };

static uint64_t fnv(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* Kernel i: conv1d with FILTER_LEN i + 1. */
static int specialize(ks_ctx *ctx, ks_template *t, int i, uint64_t *hash) {
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = i + 1};
  ks_spec_req req = {.bindings = &b, .nbindings = 1};
  ks_kernel *k = NULL;
  const char *ptx;
  size_t len;
  if (ks_specialize(ctx, t, &req, &k) != KS_OK ||
      ks_kernel_ptx(k, &ptx, &len) != KS_OK) {
    fprintf(stderr, "mpi_share: %s\n", ks_errmsg(ctx));
    return -1;
  }
  *hash = fnv(ptx, len);
  return 0;
}

static ks_ctx *context(const char *dir) {
  ks_ctx_opts o = {.arch = "sm_90",
                   .ptx_isa = 85,
                   .no_driver = 1,
                   .no_disk_cache = !dir,
                   .cache_dir = dir};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&o, &ctx) != KS_OK) {
    fprintf(stderr, "mpi_share: %s\n", ks_errmsg(NULL));
    return NULL;
  }
  if (ks_ctx_share_mpi(ctx, MPI_COMM_WORLD) != KS_OK) {
    fprintf(stderr, "mpi_share: %s\n", ks_errmsg_mpi(ctx));
    ks_ctx_destroy(ctx);
    return NULL;
  }
  return ctx;
}

/* The n kernels in this rank's order (a rotation and a stride). */
static int ask_all(ks_ctx *ctx, ks_template *t, int rank, int n,
                   uint64_t *hash) {
  int stride = rank % 2 ? 5 : 7; /* both prime to 12 and 48 */
  for (int j = 0; j < n; j++) {
    int i = (rank + j * stride) % n;
    if (specialize(ctx, t, i, &hash[i]) != 0)
      return -1;
  }
  return 0;
}

static int keys(int rank, int size, const char *dir) {
  ks_ctx *ctx = context(dir);
  ks_template *t = NULL;
  uint64_t hash[KEYS] = {0}, all_hash[KEYS] = {0};
  int bad = !ctx || ks_template_load(ctx, "conv1d", &t) != KS_OK ||
            ask_all(ctx, t, rank, KEYS, hash) != 0;
  ks_cache_counters c = {.size = sizeof c};
  if (ctx)
    ks_cache_stats(ctx, &c);
  /* disk writes of specializations: the template's description is
   * stored by each rank that parses it */
  uint64_t mine[4] = {c.compiles, c.remote_hits,
                      c.disk_writes - c.template_misses, c.disk_hits};
  uint64_t sum[4];
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Reduce(mine, sum, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  memcpy(all_hash, hash, sizeof hash);
  MPI_Bcast(all_hash, KEYS, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  int differs = memcmp(all_hash, hash, sizeof hash) != 0, any_differs = 0;
  MPI_Reduce(&differs, &any_differs, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  if (rank != 0)
    return 0;
  printf("mpi_share: %d ranks: %llu compiles, %llu remote hits, %llu disk "
         "writes, %llu disk hits\n",
         size, (unsigned long long)sum[0], (unsigned long long)sum[1],
         (unsigned long long)sum[2], (unsigned long long)sum[3]);
  if (any_bad || any_differs || sum[0] != KEYS ||
      sum[0] + sum[1] + sum[3] != (uint64_t)KEYS * (uint64_t)size ||
      (dir && sum[2] != KEYS)) {
    printf("FAIL: %s\n", any_bad       ? "a specialization failed"
                         : any_differs ? "ranks got different PTX"
                         : sum[0] != KEYS
                             ? "not one compile per kernel"
                             : "disk entries written more than once");
    return 1;
  }
  printf("ok\n");
  return 0;
}

/* Waits (at most 60 s) until the process whose pid is in done_dir's
 * stuck.pid is stopped, so that the others ask a rank that cannot answer
 * (else its service thread may answer them all before it stops). */
static void wait_stopped(const char *done_dir) {
  char path[512], stat[64];
  snprintf(path, sizeof path, "%s/stuck.pid", done_dir);
  for (int i = 0; i < 6000; i++, usleep(10000)) {
    FILE *f = fopen(path, "r");
    long pid = 0;
    if (!f)
      continue;
    int got = fscanf(f, "%ld", &pid);
    fclose(f);
    if (got != 1)
      continue;
    snprintf(stat, sizeof stat, "/proc/%ld/stat", pid);
    char line[512] = "";
    f = fopen(stat, "r");
    if (!f)
      return;
    if (!fgets(line, sizeof line, f))
      line[0] = '\0';
    fclose(f);
    const char *st = strrchr(line, ')'); /* "pid (comm) S ..." */
    if (st && st[1] == ' ' && st[2] == 'T')
      return;
  }
}

/* A context sharing over MPI_COMM_WORLD, no disk cache, with conv1d
 * loaded, once every rank's service thread runs: 0, or 1 (nothing made).
 * Collective. */
static int ready(ks_ctx **ctx, ks_template **t) {
  *ctx = context(NULL);
  int bad = !*ctx || ks_template_load(*ctx, "conv1d", t) != KS_OK;
  if (bad && *ctx)
    ks_ctx_destroy(*ctx);
  MPI_Barrier(MPI_COMM_WORLD);
  return bad;
}

static int stuck(int rank, const char *done_dir) {
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  uint64_t hash[STUCK_KEYS];
  if (ready(&ctx, &t))
    return 1;
  if (rank == 1) {
    specialize(ctx, t, 0, &hash[0]);
    char path[512];
    snprintf(path, sizeof path, "%s/stuck.pid", done_dir);
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "%ld\n", (long)getpid());
      fclose(f);
    }
    raise(SIGSTOP); /* the whole process, service thread included */
  }
  wait_stopped(done_dir);
  int bad = ask_all(ctx, t, rank, STUCK_KEYS, hash);
  char said[512];
  snprintf(said, sizeof said, "%s", ks_ctx_warning(ctx));
  ks_template_destroy(t);
  ks_ctx_destroy(ctx); /* with rank 1 stopped: must not wait for it */
  char path[512];
  snprintf(path, sizeof path, "%s/rank.%d", done_dir, rank);
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "%s %s\n", bad ? "FAIL" : "ok", said);
    fclose(f);
  }
  return bad;
}

/* Rank 0 leaves (destroys its context) before anyone asks for anything;
 * the others then specialize every kernel, rank 0 owning some: its BYE
 * tells them not to ask it, so nobody waits the timeout (the test sets
 * 30 s) or warns. */
static int early(int rank) {
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  uint64_t hash[STUCK_KEYS];
  if (ready(&ctx, &t))
    return 1;
  if (rank == 0) {
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* rank 0's BYE is sent */
  int bad = 0;
  if (rank != 0) {
    usleep(200000); /* and received: the service threads poll */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    bad = ask_all(ctx, t, rank, STUCK_KEYS, hash) != 0;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    const char *w = ks_ctx_warning(ctx);
    printf("early: rank %d: %d kernels in %.1f s%s%s\n", rank, STUCK_KEYS, s,
           w && *w ? "; warned: " : "", w && *w ? w : "");
    bad |= s > 20 || (w && *w);
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
  int any = 0;
  MPI_Reduce(&bad, &any, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s\n",
           any ? "FAIL: a rank waited for rank 0, which had left" : "ok");
  return any;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "keys";
  int provided = 0, rank = 0, size = 1, rc = 0;
  if (strcmp(mode, "single") == 0) {
    MPI_Init(&argc, &argv);
    ks_ctx_opts o = {.arch = "sm_90", .ptx_isa = 85, .no_driver = 1};
    ks_ctx *ctx = NULL;
    ks_ctx_create(&o, &ctx);
    ks_status s = ks_ctx_share_mpi(ctx, MPI_COMM_WORLD);
    printf("%s: %s\n", ks_status_name(s), ks_errmsg_mpi(ctx));
    rc = s == KS_EINVAL &&
                 strstr(ks_errmsg_mpi(ctx), "needs MPI_THREAD_MULTIPLE")
             ? 0
             : 1;
    ks_ctx_destroy(ctx);
    MPI_Finalize();
    return rc;
  }
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "keys") == 0)
    rc = keys(rank, size, argc > 2 ? argv[2] : NULL);
  else if (strcmp(mode, "stuck") == 0 && argc > 2)
    rc = stuck(rank, argv[2]);
  else if (strcmp(mode, "early") == 0)
    rc = early(rank);
  else
    rc = 2;
  MPI_Finalize();
  return rc;
}
