/*
 * isolate.c - PTX emission in a child process, for modules the codegen
 * screen (ir/screen.c) cannot vouch for: LLVM's NVPTX backend ends the
 * process (report_fatal_error "Cannot select", or a crash) on llvm.nvvm.*
 * intrinsics that the target sm or PTX ISA lacks, and only codegen knows
 * which those are.
 *
 * The child is forked holding the module and the target machine, emits,
 * and answers over a pipe: 'P', the length (uint64_t) and the PTX; or 'E'
 * and a message, LLVM's from a fatal-error handler installed in the child
 * only (it writes and _exits, never returns). A child that ends otherwise
 * (a signal; a sanitizer's exit status) is a codegen error that says so.
 * The child's stderr is /dev/null: nothing LLVM or a sanitizer prints
 * there reaches the caller's.
 *
 * fork() in a threaded program: the child only runs codegen on objects
 * this thread owns (its LLVM context, module and target machine), and
 * glibc keeps malloc usable in a forked child. A lock inside LLVM that
 * another thread held at the moment of the fork would stop the child; the
 * parent kills a child that has not answered in KS_ISOLATE_TIMEOUT_S
 * seconds and reports that.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>

#include "jit/ks_jit.h"

enum { KS_ISOLATE_TIMEOUT_S = 120 };

/* The child's end of the pipe, for the fatal-error handler (which gets no
 * user pointer). Written in the child only, after the fork. */
static int child_fd = -1;

static void write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return;
    c += k;
    n -= (size_t)k;
  }
}

static void answer_error(const char *msg) {
  write_all(child_fd, "E", 1);
  write_all(child_fd, msg, strlen(msg));
}

static void on_fatal(const char *reason) {
  answer_error(reason);
  _exit(70);
}

/* The child: emit and answer, never return. */
static void child(int fd, LLVMTargetMachineRef tm, LLVMModuleRef m,
                  const char *diag) {
  int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    dup2(devnull, STDERR_FILENO);
    close(devnull);
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the caller */
  child_fd = fd;
  LLVMInstallFatalErrorHandler(on_fatal);
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg,
                                          &buf)) {
    answer_error(msg ? msg : "failed");
    _exit(1);
  }
  if (diag[0]) { /* the context's handler caught an error */
    answer_error(diag);
    _exit(1);
  }
  uint64_t n = LLVMGetBufferSize(buf);
  write_all(fd, "P", 1);
  write_all(fd, &n, sizeof n);
  write_all(fd, LLVMGetBufferStart(buf), (size_t)n);
  _exit(0);
}

/* Reads until the child closes the pipe or the deadline passes; 0, or -1
 * on a timeout or an error. *out is malloc'd, *len bytes. */
static int read_answer(int fd, char **out, size_t *len) {
  size_t n = 0, cap = 4096;
  char *buf = malloc(cap);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (buf) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long left_ms = (KS_ISOLATE_TIMEOUT_S - (t.tv_sec - t0.tv_sec)) * 1000L;
    if (left_ms <= 0)
      break;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, (int)left_ms);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    if (n == cap) {
      char *grown = realloc(buf, cap * 2);
      if (!grown)
        break;
      buf = grown;
      cap *= 2;
    }
    ssize_t k = read(fd, buf + n, cap - n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      break;
    if (k == 0) {
      *out = buf;
      *len = n;
      return 0;
    }
    n += (size_t)k;
  }
  free(buf);
  return -1;
}

/* How the child ended, for a message. */
static void reap(pid_t pid, int kill_it, char *how, size_t cap) {
  int st = 0;
  if (kill_it)
    kill(pid, SIGKILL);
  pid_t r;
  do
    r = waitpid(pid, &st, 0);
  while (r < 0 && errno == EINTR);
  if (r != pid)
    snprintf(how, cap, "it could not be waited for");
  else if (WIFSIGNALED(st))
    snprintf(how, cap, "signal %d, %s", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else
    snprintf(how, cap, "exit status %d", WEXITSTATUS(st));
}

/* The child's answer into *ptx, or the error it describes. */
static ks_status take_answer(const char *ans, size_t n, const char *tname,
                             const char *kname, const char *how, char **ptx,
                             size_t *len) {
  uint64_t size = 0;
  if (n >= 1 + sizeof size && ans[0] == 'P') {
    memcpy(&size, ans + 1, sizeof size);
    if (size == n - 1 - sizeof size) {
      if (!(*ptx = malloc(size + 1)))
        return ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
      memcpy(*ptx, ans + 1 + sizeof size, size);
      (*ptx)[size] = '\0';
      *len = size;
      return KS_OK;
    }
  }
  if (n >= 1 && ans[0] == 'E') { /* its first line, not NUL-terminated */
    const char *nl = memchr(ans + 1, '\n', n - 1);
    size_t m = nl ? (size_t)(nl - ans - 1) : n - 1;
    return ks_jit_fail(KS_ECODEGEN,
                       "codegen: %s: kernel '%s': the NVPTX backend cannot "
                       "compile it: %.*s",
                       tname, kname, (int)(m > 300 ? 300 : m), ans + 1);
  }
  return ks_jit_fail(KS_ECODEGEN,
                     "codegen: %s: kernel '%s': the NVPTX backend crashed on "
                     "it (in a child process: %s)",
                     tname, kname, how);
}

ks_status ks_jit_emit_isolated(LLVMTargetMachineRef tm, LLVMModuleRef m,
                               const char *diag, const char *tname,
                               const char *kname, char **ptx, size_t *len) {
  int fds[2];
  *ptx = NULL;
  *len = 0;
  if (pipe2(fds, O_CLOEXEC) != 0)
    return ks_jit_fail(KS_ECODEGEN, "codegen: %s: pipe: %s", tname,
                       strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return ks_jit_fail(KS_ECODEGEN, "codegen: %s: fork: %s", tname,
                       strerror(e));
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1], tm, m, diag);
  }
  close(fds[1]);
  char *ans = NULL;
  size_t n = 0;
  int bad = read_answer(fds[0], &ans, &n);
  close(fds[0]);
  char how[96];
  reap(pid, bad, how, sizeof how);
  if (bad)
    return ks_jit_fail(KS_ECODEGEN,
                       "codegen: %s: kernel '%s': no answer from codegen in "
                       "%d s (in a child process: %s)",
                       tname, kname, KS_ISOLATE_TIMEOUT_S, how);
  ks_status s = take_answer(ans, n, tname, kname, how, ptx, len);
  free(ans);
  return s;
}
