/*
 * tune_worker.c - measurements in a child process, under a watchdog.
 *
 * The child is forked from the sweep (after every variant is compiled, so
 * it holds the same kernels) and talks over a socket pair: the parent
 * sends a variant's index (a uint64_t), the child measures it with the
 * sweep's callbacks and answers with the whole ks_tune_entry. The parent
 * waits at most timeout_ms for the answer:
 *  - no answer in time: the child is killed (SIGKILL): "timeout";
 *  - the socket closes first (the child aborted, was killed by a signal or
 *    exited): "device fault", with the signal or exit status;
 *  - an answer classified "device fault" (the context is lost): the child
 *    exits after answering and is reaped.
 * In every case the next variant gets a fresh child. send() uses
 * MSG_NOSIGNAL so that a dead child cannot kill the sweep with SIGPIPE.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
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

static void child_loop(int fd, ks_jit_tune_run_fn fn, void *sweep) {
  uint64_t idx;
  while (full_io(fd, &idx, sizeof idx, 0) == 0) {
    ks_tune_entry e;
    /* The parent sends the entry as it stands (point and figures). */
    if (full_io(fd, &e, sizeof e, 0) != 0)
      break;
    fn(sweep, (size_t)idx, &e);
    if (full_io(fd, &e, sizeof e, 1) != 0 || e.cls == KS_TUNE_DEVICE_FAULT)
      break;
  }
  _exit(0);
}

static int start(ks_jit_tune_worker *w, ks_jit_tune_run_fn fn, void *sweep) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return -1;
  pid_t pid = fork();
  if (pid < 0) {
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
    child_loop(sv[1], fn, sweep);
  }
  close(sv[1]);
  w->pid = pid;
  w->fd = sv[0];
  return 0;
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
}

/* Reads the answer before the deadline: 0, -1 (closed), -2 (timeout). */
static int answer(int fd, ks_tune_entry *e, double deadline) {
  char *p = (char *)e;
  size_t n = sizeof *e;
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

void ks_jit_tune_worker_run(ks_jit_tune_worker *w, ks_jit_tune_run_fn fn,
                            void *sweep, size_t idx, double timeout_ms,
                            ks_tune_entry *e) {
  uint64_t i = idx;
  if (w->pid <= 0 && start(w, fn, sweep) != 0) {
    snprintf(e->reason, sizeof e->reason, "cannot start a worker: %s",
             strerror(errno));
    e->cls = KS_TUNE_LAUNCH_FAILURE;
    return;
  }
  ks_tune_entry got;
  int r = full_io(w->fd, &i, sizeof i, 1) || full_io(w->fd, e, sizeof *e, 1)
              ? -1
              : answer(w->fd, &got, now_ms() + timeout_ms);
  char how[96] = "";
  if (r == -2) {
    kill(w->pid, SIGKILL);
    reap(w, NULL, 0);
    e->cls = KS_TUNE_TIMEOUT;
    snprintf(e->reason, sizeof e->reason,
             "no answer in %.0f ms: the worker was killed", timeout_ms);
  } else if (r == -1) {
    reap(w, how, sizeof how);
    e->cls = KS_TUNE_DEVICE_FAULT;
    snprintf(e->reason, sizeof e->reason,
             "the worker died: %s; a fresh one goes on", how);
  } else {
    got.size = sizeof got;
    got.point = e->point;
    *e = got;
    if (e->cls == KS_TUNE_DEVICE_FAULT)
      reap(w, NULL, 0);
  }
}

void ks_jit_tune_worker_stop(ks_jit_tune_worker *w) {
  if (w->pid > 0)
    reap(w, NULL, 0); /* closing the socket ends the child's loop */
}
