/*
 * tune_worker.c - measurements in a child process, under a watchdog.
 *
 * The child is forked from the sweep and talks over a socket pair: the
 * parent sends a variant's index (a uint64_t), its entry and its kernel
 * (a length and the bytes: none to a child forked after the compiles,
 * which holds the kernels; a worker per GPU is forked before them, so
 * that it opens its GPU while the parent compiles); the child measures
 * it with the sweep's callbacks and answers with the whole ks_tune_entry.
 * The parent waits at most timeout_ms for the answer:
 *  - no answer in time: the child is killed (SIGKILL): "timeout";
 *  - the socket closes first (the child aborted, was killed by a signal or
 *    exited): "device fault", with the signal or exit status;
 *  - an answer classified "device fault" (the context is lost): the child
 *    exits after answering and is reaped.
 * In every case the next variant gets a fresh child. send() uses
 * MSG_NOSIGNAL so that a dead child cannot kill the sweep with SIGPIPE.
 *
 * Several workers (one per GPU, ks_tune_opts.gpus) run at once: the
 * parent hands a variant to each idle one and polls them all, so a slow
 * GPU takes fewer. A worker for a GPU first answers a hello (its init
 * callback's status and message, and its device: model, architecture,
 * driver), so that a missing GPU is found before anything is measured,
 * not as a failure of every variant sent there, and no other process
 * opens the GPUs to ask what they are.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jit/tune/tune.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Reads or writes exactly n bytes; 0 on success. */
static int full_io(int fd, void *buf, size_t n, int writing) {
  char *p = buf;
  while (n) {
    ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

/* The GPU of this process when it is a worker started for one. */
static int worker_gpu = -1;

int ks_tune_worker_gpu(void) { return worker_gpu; }

/* The child's first answer: its init's status, why it failed, and its
 * GPU as the driver describes it (what a separate probe used to ask). */
typedef struct hello {
  int status;
  char why[160];
  ks_device_info dev;
} hello;

/* Reads a variant's kernel (a length, then the bytes) into *image, grown
 * as needed; 0, or -1 when the socket closed. */
static int read_image(int fd, void **image, size_t *cap, size_t *len) {
  uint64_t n;
  if (full_io(fd, &n, sizeof n, 0) != 0)
    return -1;
  if (n > *cap) {
    void *grown = realloc(*image, n);
    if (!grown)
      return -1;
    *image = grown;
    *cap = n;
  }
  *len = n;
  return n ? full_io(fd, *image, n, 0) : 0;
}

static void child_loop(int fd, const ks_jit_tune_job *job, int gpu) {
  hello h = {.status = KS_OK, .dev = {.size = sizeof h.dev}};
  worker_gpu = gpu;
  for (size_t i = 0; i < job->nothers; i++)
    close(job->others[i]);
  if (job->init)
    h.status = job->init(job->sweep, gpu, &h.dev, h.why, sizeof h.why);
  if (full_io(fd, &h, sizeof h, 1) != 0 || h.status != KS_OK)
    _exit(0);
  uint64_t idx;
  void *image = NULL;
  size_t cap = 0, len = 0;
  while (full_io(fd, &idx, sizeof idx, 0) == 0) {
    ks_tune_entry e;
    /* The parent sends the entry as it stands (point and figures), then
     * the kernel (none to a child that holds the kernels). */
    if (full_io(fd, &e, sizeof e, 0) != 0 ||
        read_image(fd, &image, &cap, &len) != 0)
      break;
    job->fn(job->sweep, (size_t)idx, len ? image : NULL, len, &e);
    if (full_io(fd, &e, sizeof e, 1) != 0 || e.cls == KS_TUNE_DEVICE_FAULT)
      break;
  }
  _exit(0);
}

/* Waits for the child and describes how it ended. */
static void reap(ks_jit_tune_worker *w, char *how, size_t cap) {
  int st = 0;
  if (w->fd >= 0)
    close(w->fd);
  w->fd = -1;
  if (w->pid > 0 && waitpid(w->pid, &st, 0) == w->pid && how) {
    if (WIFSIGNALED(st))
      snprintf(how, cap, "signal %d (%s)", WTERMSIG(st),
               strsignal(WTERMSIG(st)));
    else
      snprintf(how, cap, "exit status %d", WEXITSTATUS(st));
  }
  w->pid = -1;
  w->busy = 0;
}

/* Reads n bytes before the deadline: 0, -1 (closed), -2 (timeout). */
static int read_by(int fd, void *buf, size_t n, double deadline) {
  char *p = buf;
  while (n) {
    double left = deadline - now_ms();
    if (left <= 0)
      return -2;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int r = poll(&pfd, 1, (int)(left + 1));
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0)
      return -2;
    ssize_t k = r > 0 ? read(fd, p, n) : -1;
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int ks_jit_tune_worker_spawn(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                             char *why, size_t cap) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return snprintf(why, cap, "cannot start a worker: %s", strerror(errno)), -1;
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, cap, "cannot start a worker: %s", strerror(errno));
    close(sv[0]);
    close(sv[1]);
    return -1;
  }
  if (pid == 0) {
    close(sv[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the sweep */
    /* Out of the terminal's process group: a Ctrl-C meant to stop the
     * sweep must not kill the worker and pass for a device fault. */
    setpgid(0, 0);
    child_loop(sv[1], job, w->gpu);
  }
  close(sv[1]);
  w->pid = pid;
  w->fd = sv[0];
  w->busy = 0;
  w->greeting = 1;
  w->deadline = 0; /* the hello's: set when it is waited for */
  return 0;
}

int ks_jit_tune_worker_hello(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                             char *why, size_t cap) {
  hello h;
  double by =
      w->greeting && w->deadline > 0 ? w->deadline : now_ms() + job->timeout_ms;
  int r = read_by(w->fd, &h, sizeof h, by);
  w->greeting = 0;
  if (r == 0 && h.status == KS_OK) {
    w->dev = h.dev;
    return 0;
  }
  if (r == 0)
    snprintf(why, cap, "%.*s", (int)sizeof h.why, h.why);
  else
    snprintf(why, cap, "its worker %s",
             r == -2 ? "did not start in time" : "died while starting");
  kill(w->pid, SIGKILL);
  reap(w, NULL, 0);
  return -1;
}

int ks_jit_tune_worker_start(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                             char *why, size_t cap) {
  return ks_jit_tune_worker_spawn(w, job, why, cap) != 0
             ? -1
             : ks_jit_tune_worker_hello(w, job, why, cap);
}

int ks_jit_tune_worker_send(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                            size_t idx, const ks_tune_entry *e,
                            double timeout_ms) {
  uint64_t i = idx, n = 0;
  size_t len = 0;
  void *image =
      w->bare && job->image ? job->image(job->sweep, idx, &len) : NULL;
  n = image ? len : 0;
  w->idx = idx;
  w->sent = *e;
  w->busy = 1;
  w->deadline = now_ms() + timeout_ms;
  w->timeout_ms = timeout_ms;
  w->have = 0;
  int bad = full_io(w->fd, &i, sizeof i, 1) ||
            full_io(w->fd, &w->sent, sizeof w->sent, 1) ||
            full_io(w->fd, &n, sizeof n, 1) ||
            (n && full_io(w->fd, image, n, 1));
  free(image);
  return bad ? -1 : 0;
}

/* Ends w's variant: r 0 answered, -1 died, -2 timed out; fills e. */
static void settle_one(ks_jit_tune_worker *w, int r, ks_tune_entry *e) {
  char how[96] = "";
  *e = w->sent;
  if (r == -2) {
    kill(w->pid, SIGKILL);
    reap(w, NULL, 0);
    e->cls = KS_TUNE_TIMEOUT;
    snprintf(e->reason, sizeof e->reason,
             "no answer in %.0f ms: the worker was killed", w->timeout_ms);
  } else if (r == -1) {
    reap(w, how, sizeof how);
    e->cls = KS_TUNE_DEVICE_FAULT;
    snprintf(e->reason, sizeof e->reason,
             "the worker died: %s; a fresh one goes on", how);
  } else {
    *e = w->got;
    e->size = sizeof *e;
    e->point = w->sent.point;
    if (e->cls == KS_TUNE_DEVICE_FAULT)
      reap(w, NULL, 0);
  }
  w->busy = 0;
  e->gpu = w->gpu;
}

/* Reads what w's socket has of its answer: 0 complete, 1 not yet, -1
 * closed. */
static int take(ks_jit_tune_worker *w) {
  ssize_t k = read(w->fd, (char *)&w->got + w->have, sizeof w->got - w->have);
  if (k < 0 && (errno == EINTR || errno == EAGAIN))
    return 1;
  if (k <= 0)
    return -1;
  w->have += (size_t)k;
  return w->have == sizeof w->got ? 0 : 1;
}

long ks_jit_tune_worker_wait(ks_jit_tune_worker *ws, size_t n, ks_tune_entry *e,
                             int *greets) {
  enum { MAX_POLL = 64 };
  *greets = 0;
  for (;;) {
    struct pollfd pfd[MAX_POLL];
    size_t at[MAX_POLL], np = 0;
    double soon = -1, now = now_ms();
    for (size_t i = 0; i < n && np < MAX_POLL; i++) {
      if (!ws[i].busy && !(ws[i].greeting && ws[i].deadline > 0))
        continue;
      if (ws[i].deadline <= now) {
        if (ws[i].greeting)
          return *greets = 1, (long)i; /* its hello times out */
        settle_one(&ws[i], -2, e);
        return (long)i;
      }
      if (soon < 0 || ws[i].deadline < soon)
        soon = ws[i].deadline;
      pfd[np] = (struct pollfd){.fd = ws[i].fd, .events = POLLIN};
      at[np++] = i;
    }
    if (!np)
      return -1;
    int r = poll(pfd, np, (int)(soon - now + 1));
    if (r < 0 && errno != EINTR)
      return -1;
    for (size_t j = 0; r > 0 && j < np; j++) {
      if (!pfd[j].revents)
        continue;
      if (ws[at[j]].greeting)
        return *greets = 1, (long)at[j]; /* for ks_jit_tune_worker_hello */
      int got = take(&ws[at[j]]);
      if (got <= 0) {
        settle_one(&ws[at[j]], got, e);
        return (long)at[j];
      }
    }
  }
}

void ks_jit_tune_worker_run(ks_jit_tune_worker *w, const ks_jit_tune_job *job,
                            size_t idx, ks_tune_entry *e) {
  char why[sizeof e->reason];
  if (w->pid <= 0 && ks_jit_tune_worker_start(w, job, why, sizeof why) != 0) {
    snprintf(e->reason, sizeof e->reason, "%s", why);
    e->cls = KS_TUNE_LAUNCH_FAILURE;
    e->gpu = w->gpu;
    return;
  }
  if (ks_jit_tune_worker_send(w, job, idx, e, job->timeout_ms) != 0) {
    settle_one(w, -1, e);
    return;
  }
  int greets;
  while (ks_jit_tune_worker_wait(w, 1, e, &greets) < 0 && w->busy)
    ;
}

void ks_jit_tune_worker_stop(ks_jit_tune_worker *w) {
  ks_jit_tune_workers_stop(w, 1, NULL);
}

void ks_jit_tune_workers_close(ks_jit_tune_worker *ws, size_t n,
                               const ks_jit_tune_worker *keep) {
  for (size_t k = 0; k < n; k++) {
    ks_jit_tune_worker *w = &ws[k];
    if (w == keep || w->pid <= 0)
      continue;
    if (w->busy)
      kill(w->pid, SIGKILL); /* a variant it measures is left unsettled */
    w->busy = 0;
    w->greeting = 0;
    if (w->fd >= 0)
      close(w->fd); /* ends the child's loop: all of them end at once */
    w->fd = -1;
  }
}

void ks_jit_tune_workers_stop(ks_jit_tune_worker *ws, size_t n,
                              const ks_jit_tune_worker *keep) {
  ks_jit_tune_workers_close(ws, n, keep);
  for (size_t k = 0; k < n; k++)
    if (&ws[k] != keep && ws[k].pid > 0)
      reap(&ws[k], NULL, 0);
}

/* The children a sweep let go, waited for on a thread of their own. */
typedef struct reaping {
  size_t n;
  pid_t pids[];
} reaping;

static void *reap_all(void *arg) {
  reaping *r = arg;
  for (size_t k = 0; k < r->n; k++)
    while (waitpid(r->pids[k], NULL, 0) < 0 && errno == EINTR)
      ;
  free(r);
  return NULL;
}

void ks_jit_tune_workers_release(ks_jit_tune_worker *ws, size_t n) {
  ks_jit_tune_workers_close(ws, n, NULL);
  reaping *r = malloc(sizeof *r + (n ? n : 1) * sizeof r->pids[0]);
  size_t k = 0;
  for (size_t i = 0; r && i < n; i++)
    if (ws[i].pid > 0)
      r->pids[k++] = ws[i].pid;
  pthread_attr_t at;
  pthread_t th;
  int started = 0;
  if (r && k && pthread_attr_init(&at) == 0) {
    r->n = k;
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&th, &at, reap_all, r) == 0;
    pthread_attr_destroy(&at);
  }
  if (!started) {
    free(r);
    ks_jit_tune_workers_stop(ws, n, NULL); /* waited for here */
    return;
  }
  for (size_t i = 0; i < n; i++)
    ws[i].pid = -1; /* the thread's now */
}
