/*
 * tune_mpi.c - ks_tune_mpi: one sweep over the ranks of an MPI job, as a
 * ks_tune_team (kspec.h) over point-to-point messages; and kspec_mpi's
 * per-thread message.
 *
 *   every rank: compile, prune (ks_tune)          rank 0
 *   plan:   problem key + variant keys  ------->  compare with its own:
 *           (refused: the first difference) <---  the share of each rank
 *   measure the share on GPU local_rank % gpus
 *   gather: (index, entry) of the share ------->  fills in, measures the
 *                                                 finalists, writes the store
 *
 * Rank 0 hands out only the variants its store lacks, round robin, so an
 * interrupted job resumes where rank 0's store stopped.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit/mpi/kspec_mpi_int.h"

enum { TAG_PLAN = 7201, TAG_SHARE, TAG_GATHER, MSG_CAP = 512 };

static _Thread_local char mpi_msg[MSG_CAP];

ks_status ks_mpi_fail(ks_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(mpi_msg, sizeof mpi_msg, fmt, ap);
  va_end(ap);
  return s;
}

void ks_mpi_clear(void) { mpi_msg[0] = '\0'; }

const char *ks_errmsg_mpi(const ks_ctx *ctx) {
  return mpi_msg[0] ? mpi_msg : ks_errmsg(ctx);
}

typedef struct team {
  MPI_Comm comm;
  int rank, size;
  char msg[MSG_CAP]; /* why the plan was refused */
} team;

/* ---- plan --------------------------------------------------------------- */

/* "problem\nkey0\nkey1\n...": what a rank says its sweep is. */
static char *describe(const char *problem, const char *const *vkeys, size_t n,
                      size_t *len) {
  size_t total = strlen(problem) + 2;
  for (size_t i = 0; i < n; i++)
    total += strlen(vkeys[i]) + 1;
  char *d = malloc(total), *at = d;
  if (!d)
    return NULL;
  at += sprintf(at, "%s\n", problem);
  for (size_t i = 0; i < n; i++)
    at += sprintf(at, "%s\n", vkeys[i]);
  *len = (size_t)(at - d);
  return d;
}

/* What a rank that cannot measure says instead of its sweep: this byte,
 * then why (its GPU's worker did not start, or cannot run the code). */
enum { CANNOT = 1 };

/* "\1why" of a rank that cannot measure. */
static char *describe_failure(const char *why, size_t *len) {
  size_t n = strlen(why) + 2;
  char *d = malloc(n);
  if (d)
    snprintf(d, n, "%c%s", CANNOT, why);
  *len = d ? n - 1 : 0;
  return d;
}

/* Rank r's description d says it cannot measure: its reason into msg. */
static int cannot(const char *d, int r, char *msg, size_t cap) {
  if (!d || d[0] != CANNOT)
    return 0;
  snprintf(msg, cap, "tune: mpi: rank %d cannot measure: %s", r, d + 1);
  return 1;
}

/* The first line where a and b differ, said in msg; 0 when they agree. */
static int first_difference(const char *a, const char *b, int rank, char *msg,
                            size_t cap) {
  for (size_t line = 0;; line++) {
    size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
    if (la != lb || memcmp(a, b, la) != 0) {
      char what[32] = "the problem";
      if (line)
        snprintf(what, sizeof what, "variant #%zu", line - 1);
      snprintf(msg, cap,
               "tune: mpi: rank %d disagrees on the sweep: %s is '%.*s' on "
               "rank 0, '%.*s' on rank %d",
               rank, what, (int)(la > 200 ? 200 : la), a,
               (int)(lb > 200 ? 200 : lb), b, rank);
      return 1;
    }
    if (!a[la])
      return 0;
    a += la + 1;
    b += lb + 1;
  }
}

/* Receives one message from src with tag (malloc'd, *n bytes). */
static char *recv_any(team *tm, int src, int tag, size_t *n) {
  MPI_Status st;
  int count = 0;
  MPI_Probe(src, tag, tm->comm, &st);
  MPI_Get_count(&st, MPI_BYTE, &count);
  char *buf = malloc(count > 0 ? (size_t)count + 1 : 1);
  MPI_Recv(buf ? buf : (char[1]){0}, buf ? count : 0, MPI_BYTE, src, tag,
           tm->comm, MPI_STATUS_IGNORE);
  if (buf)
    buf[count > 0 ? count : 0] = '\0';
  *n = count > 0 ? (size_t)count : 0;
  return buf;
}

/* Rank 0: every rank's description against its own; each rank's share
 * (the variants left, round robin) or the refusal ("!" + why). */
static ks_status plan_root(team *tm, const char *mine_d, unsigned char *mine,
                           size_t n) {
  ks_status s = cannot(mine_d, 0, tm->msg, sizeof tm->msg) ? KS_EINVAL : KS_OK;
  for (int r = 1; r < tm->size; r++) {
    size_t len;
    char *d = recv_any(tm, r, TAG_PLAN, &len);
    if (s == KS_OK && (!d || cannot(d, r, tm->msg, sizeof tm->msg) ||
                       first_difference(mine_d, d, r, tm->msg, sizeof tm->msg)))
      s = KS_EINVAL;
    free(d);
  }
  unsigned char *share = malloc(n + 1);
  if (!share && s == KS_OK) {
    snprintf(tm->msg, sizeof tm->msg, "tune: mpi: out of memory");
    s = KS_ENOMEM;
  }
  for (int r = 1; r < tm->size; r++) {
    size_t k = 0;
    for (size_t i = 0; share && i < n; i++)
      share[i + 1] = mine[i] && (int)(k++ % (size_t)tm->size) == r;
    if (share && s == KS_OK) { /* 'S' and the share, or 'R' and why */
      share[0] = 'S';
      MPI_Send(share, (int)n + 1, MPI_BYTE, r, TAG_SHARE, tm->comm);
    } else {
      char refusal[MSG_CAP + 1];
      int len = snprintf(refusal, sizeof refusal, "R%s", tm->msg);
      MPI_Send(refusal, len + 1, MPI_BYTE, r, TAG_SHARE, tm->comm);
    }
  }
  for (size_t i = 0, k = 0; s == KS_OK && i < n; i++)
    mine[i] = mine[i] && k++ % (size_t)tm->size == 0;
  free(share);
  return s;
}

/* The others: say the sweep, get the share (n bytes) or the refusal. */
static ks_status plan_other(team *tm, const char *d, size_t len,
                            unsigned char *mine, size_t n) {
  MPI_Send(d, (int)len, MPI_BYTE, 0, TAG_PLAN, tm->comm);
  size_t got;
  char *ans = recv_any(tm, 0, TAG_SHARE, &got);
  ks_status s = KS_OK;
  if (ans && got == n + 1 && ans[0] == 'S') {
    memcpy(mine, ans + 1, n);
  } else {
    snprintf(tm->msg, sizeof tm->msg, "tune: mpi: rank 0 refused the sweep: %s",
             ans && ans[0] == 'R' ? ans + 1 : "(no answer)");
    s = KS_EINVAL;
  }
  free(ans);
  return s;
}

static ks_status team_plan(void *arg, const char *problem,
                           const char *const *vkeys, size_t n,
                           unsigned char *mine, int *lead, int *spread) {
  team *tm = arg;
  size_t len = 0, left = 0;
  char *d = problem ? describe(problem, vkeys, n, &len)
                    : describe_failure(ks_errmsg(NULL), &len);
  if (!d) {
    snprintf(tm->msg, sizeof tm->msg, "tune: mpi: out of memory");
    return KS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    left += mine[i] != 0;
  ks_status s = tm->rank == 0 ? plan_root(tm, d, mine, n)
                              : plan_other(tm, d, len, mine, n);
  free(d);
  *lead = tm->rank == 0;
  *spread = left < (size_t)tm->size ? (int)left : tm->size;
  return s;
}

/* ---- gather -------------------------------------------------------------- */

/* One measured variant on the wire. */
typedef struct sent {
  uint64_t index;
  ks_tune_entry e;
} sent;

static ks_status team_gather(void *arg, ks_tune_entry *entries, size_t n,
                             const unsigned char *mine) {
  team *tm = arg;
  if (tm->rank != 0) {
    size_t k = 0;
    sent *out = malloc((n ? n : 1) * sizeof *out);
    for (size_t i = 0; out && i < n; i++)
      if (mine[i])
        out[k++] = (sent){.index = i, .e = entries[i]};
    MPI_Send(out ? out : (sent[1]){{0}}, out ? (int)(k * sizeof *out) : 0,
             MPI_BYTE, 0, TAG_GATHER, tm->comm);
    free(out);
    return KS_OK;
  }
  for (int r = 1; r < tm->size; r++) {
    size_t len;
    sent *in = (sent *)recv_any(tm, r, TAG_GATHER, &len);
    for (size_t j = 0; in && j < len / sizeof *in; j++)
      if (in[j].index < n && in[j].e.size == sizeof in[j].e)
        entries[in[j].index] = in[j].e;
    free(in);
  }
  return KS_OK;
}

/* ---- ks_tune_mpi -----------------------------------------------------------
 */

/* The GPUs the driver sees, asked in a child process (CUDA must not be
 * opened before the tuner's workers fork); 0 without a driver. */
static int gpu_count(void) {
  int fds[2], n = 0;
  if (pipe(fds) != 0)
    return 0;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int c = 0;
    for (; c < KS_TUNE_MAX_GPUS; c++) {
      ks_ctx_opts o = {.device = c, .no_disk_cache = 1};
      ks_ctx *ctx = NULL;
      ks_device_info info = {.size = sizeof info};
      int ok = ks_ctx_create(&o, &ctx) == KS_OK &&
               ks_device_query(ctx, &info) == KS_OK;
      ks_ctx_destroy(ctx);
      if (!ok)
        break;
    }
    _exit(write(fds[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 1);
  }
  close(fds[1]);
  if (pid > 0 && read(fds[0], &n, sizeof n) != (ssize_t)sizeof n)
    n = 0;
  close(fds[0]);
  if (pid > 0)
    waitpid(pid, NULL, 0);
  return n;
}

/* This rank's GPU: local_rank % the node's GPUs (opts' list, else all the
 * driver sees); -1 when there is none to name. */
static int rank_gpu(MPI_Comm comm, const ks_tune_opts *opts) {
  MPI_Comm node;
  int local = 0;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                          &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
  }
  if (opts->ngpus && opts->gpus)
    return opts->gpus[(size_t)local % opts->ngpus];
  int n = gpu_count();
  return n > 0 ? local % n : -1;
}

ks_status ks_tune_mpi(ks_ctx *ctx, const ks_template *t,
                      const ks_tune_space *space, const ks_tune_opts *opts,
                      MPI_Comm comm, ks_tune_result *out) {
  ks_mpi_clear();
  if (!opts)
    return ks_mpi_fail(KS_EINVAL, "tune: mpi: NULL options");
  ks_status s = ks_mpi_check("ks_tune_mpi");
  if (s != KS_OK)
    return s;
  team tm = {0};
  if (MPI_Comm_dup(comm, &tm.comm) != MPI_SUCCESS)
    return ks_mpi_fail(KS_EINVAL, "tune: mpi: MPI_Comm_dup failed");
  MPI_Comm_rank(tm.comm, &tm.rank);
  MPI_Comm_size(tm.comm, &tm.size);
  ks_tune_opts o = *opts;
  int gpu = rank_gpu(tm.comm, opts);
  o.gpus = gpu >= 0 ? &gpu : NULL;
  o.ngpus = gpu >= 0;
  ks_tune_team tt = {.arg = &tm, .plan = team_plan, .gather = team_gather};
  o.team = tm.size > 1 ? &tt : NULL;
  if (tm.rank != 0)
    o.store_dir = ""; /* rank 0 writes the one store */
  s = ks_tune(ctx, t, space, &o, out);
  MPI_Comm_free(&tm.comm);
  if (s != KS_OK && tm.msg[0])
    return ks_mpi_fail(s, "%s", tm.msg);
  return s;
}
