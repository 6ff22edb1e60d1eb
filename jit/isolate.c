/*
 * isolate.c - LLVM work in a child process, where LLVM ending the process
 * ends only the child. Two kinds of input need it, since no cheap check
 * can tell beforehand whether LLVM survives them:
 *  - bitcode from outside the library: LLVM's bitcode reader crashes, or
 *    aborts on a huge allocation, on damaged bitcode (a flipped bit is
 *    enough), so such a template is first loaded in a child;
 *  - modules the codegen screen (ir/screen.c) cannot vouch for: inline asm
 *    and llvm.nvvm.* intrinsics that only some targets select, where the
 *    NVPTX backend ends the process ("Cannot select"); their PTX is
 *    emitted in a child.
 *
 * The child is forked, runs a function that writes its answer to a pipe,
 * and _exits. LLVM's fatal errors reach a handler installed in the child
 * only, which writes 'E' and the reason and _exits; a child that ends
 * otherwise (a signal, a sanitizer's exit status) is described by how it
 * ended. The child's stderr is /dev/null: nothing LLVM or a sanitizer
 * prints there reaches the caller's.
 *
 * fork() in a threaded program: the child only uses objects this thread
 * owns (its LLVM context, module, target machine, template), and glibc
 * keeps malloc usable in a forked child. A lock inside LLVM that another
 * thread held at the moment of the fork would stop the child; the parent
 * kills a child that has not answered in time.
 *
 * Damaged bitcode can make the reader allocate tens of GB before it gives
 * up, so a child may be given a limit on its growth: the child's address
 * space (RLIMIT_AS, set in the child only) may grow that much over what it
 * had at the fork, where an allocation then fails and the child ends. The
 * limit is relative because the child starts with everything the caller
 * holds (a CUDA context alone maps hundreds of MiB): that is not the
 * child's doing, and a resident-size limit would count it.
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>

#include "jit/ks_jit.h"

/* The child's end of the pipe, for the fatal-error handler (which gets no
 * user pointer). Written in the child only, after the fork. */
static int child_fd = -1;

void ks_jit_child_write(const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = write(child_fd, c, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return;
    c += k;
    n -= (size_t)k;
  }
}

static void on_fatal(const char *reason) {
  ks_jit_child_write("E", 1);
  ks_jit_child_write(reason, strlen(reason));
  _exit(70);
}

/* Reads the child's answer until it closes the pipe: 0, or -1 on an
 * error or when the deadline passes, with why. *out is malloc'd, *len
 * bytes. */
static int read_answer(int fd, const ks_jit_limits *lim, char **out,
                       size_t *len, char *why, size_t cap) {
  size_t n = 0, size = 4096;
  char *buf = malloc(size);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  snprintf(why, cap, "cannot read its answer");
  while (buf) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double left = lim->seconds - (double)(t.tv_sec - t0.tv_sec) -
                  (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
    if (left <= 0) {
      snprintf(why, cap, "no answer in %u s", lim->seconds);
      break;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
    if ((r < 0 && errno == EINTR) || r == 0)
      continue;
    if (r < 0)
      break;
    if (n == size) {
      char *grown = realloc(buf, size * 2);
      if (!grown)
        break;
      buf = grown;
      size *= 2;
    }
    ssize_t k = read(fd, buf + n, size - n);
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

/* In the child: lets its address space grow by at most bytes over its
 * size now, never above a limit already set. Reads /proc with plain
 * system calls: stdio's locks may be held by a thread of the caller's
 * that the fork left behind. */
static void limit_growth(unsigned long long bytes) {
  char buf[64];
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return;
  buf[n] = '\0';
  unsigned long long pages = strtoull(buf, NULL, 10);
  struct rlimit r;
  if (pages == 0 || getrlimit(RLIMIT_AS, &r) != 0)
    return;
  rlim_t want =
      (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) + bytes);
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur <= want)
    return;
  r.rlim_cur = want;
  if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max)
    r.rlim_cur = r.rlim_max;
  setrlimit(RLIMIT_AS, &r);
}

/* Waits for the child (killed first when kill_it) and, unless it was
 * killed, says how it ended. */
static void reap(pid_t pid, int kill_it, char *how, size_t cap) {
  int st = 0;
  if (kill_it)
    kill(pid, SIGKILL);
  pid_t r;
  do
    r = waitpid(pid, &st, 0);
  while (r < 0 && errno == EINTR);
  if (kill_it)
    return; /* how already says why */
  if (r != pid)
    snprintf(how, cap, "it could not be waited for");
  else if (WIFSIGNALED(st))
    snprintf(how, cap, "signal %d, %s", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else
    snprintf(how, cap, "exit status %d", WEXITSTATUS(st));
}

/* In a sanitizer build (the fuzzer's among them), the callback a sanitizer
 * runs before it ends the process; absent otherwise. */
extern void __sanitizer_set_death_callback(void (*cb)(void))
    __attribute__((weak));

int ks_jit_child_run(ks_jit_child_fn fn, void *arg, const ks_jit_limits *lim,
                     char **ans, size_t *n, char *how, size_t cap) {
  int fds[2];
  *ans = NULL;
  *n = 0;
  if (pipe2(fds, O_CLOEXEC) != 0) {
    snprintf(how, cap, "pipe: %s", strerror(errno));
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(how, cap, "fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, STDERR_FILENO);
      close(devnull);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the caller */
    /* The caller's crash handlers (a test harness's, a crash reporter's)
     * must not run here: a crash ends the child, and that is the answer. */
    static const int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof crashes / sizeof *crashes; i++)
      signal(crashes[i], SIG_DFL);
    /* nor a sanitizer's death callback: libFuzzer's would save the
     * caller's current input as a crash of the caller's own */
    if (__sanitizer_set_death_callback)
      __sanitizer_set_death_callback(NULL);
    if (lim->max_growth)
      limit_growth(lim->max_growth);
    child_fd = fds[1];
    LLVMInstallFatalErrorHandler(on_fatal);
    fn(arg);
    _exit(0);
  }
  close(fds[1]);
  int bad = read_answer(fds[0], lim, ans, n, how, cap);
  close(fds[0]);
  reap(pid, bad, how, cap);
  /* an allocation over the limit fails, and LLVM (or a sanitizer's
   * allocator) ends the child on that */
  size_t used = strlen(how);
  if (!bad && lim->max_growth && strcmp(how, "exit status 0") != 0 &&
      used < cap)
    snprintf(how + used, cap - used, ", under a limit of %llu MiB of growth",
             lim->max_growth >> 20);
  return bad;
}

/* ---- codegen -------------------------------------------------------------
 */

typedef struct emit_job {
  LLVMTargetMachineRef tm;
  LLVMModuleRef m;
  const char *diag;
} emit_job;

/* The child: 'P', the length (uint64_t) and the PTX; or 'E' and why. */
static void emit_child(void *arg) {
  emit_job *j = arg;
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(j->tm, j->m, LLVMAssemblyFile, &msg,
                                          &buf)) {
    ks_jit_child_write("E", 1);
    ks_jit_child_write(msg ? msg : "failed", strlen(msg ? msg : "failed"));
    _exit(1);
  }
  if (j->diag[0]) { /* the context's handler caught an error */
    ks_jit_child_write("E", 1);
    ks_jit_child_write(j->diag, strlen(j->diag));
    _exit(1);
  }
  uint64_t n = LLVMGetBufferSize(buf);
  ks_jit_child_write("P", 1);
  ks_jit_child_write(&n, sizeof n);
  ks_jit_child_write(LLVMGetBufferStart(buf), (size_t)n);
}

/* The first line of an 'E' answer (not NUL-terminated), at most 300. */
static int error_line(const char *ans, size_t n) {
  const char *nl = memchr(ans + 1, '\n', n - 1);
  size_t m = nl ? (size_t)(nl - ans - 1) : n - 1;
  return (int)(m > 300 ? 300 : m);
}

ks_status ks_jit_emit_isolated(LLVMTargetMachineRef tm, LLVMModuleRef m,
                               const char *diag, const char *tname,
                               const char *kname, char **ptx, size_t *len) {
  emit_job j = {tm, m, diag};
  char *ans = NULL, how[96];
  size_t n = 0;
  *ptx = NULL;
  *len = 0;
  ks_status s = KS_ECODEGEN;
  uint64_t size = 0;
  /* codegen of a large kernel may take long and much memory: the limit
   * is there for a child that hangs */
  const ks_jit_limits lim = {.seconds = 300};
  if (ks_jit_child_run(emit_child, &j, &lim, &ans, &n, how, sizeof how) != 0)
    ks_jit_fail(s, "codegen: %s: kernel '%s': codegen in a child process: %s",
                tname, kname, how);
  else if (n >= 1 + sizeof size && ans[0] == 'P' &&
           (memcpy(&size, ans + 1, sizeof size), size == n - 1 - sizeof size)) {
    s = (*ptx = malloc(size + 1)) ? KS_OK : KS_ENOMEM;
    if (s == KS_OK) {
      memcpy(*ptx, ans + 1 + sizeof size, size);
      (*ptx)[size] = '\0';
      *len = size;
    } else {
      ks_jit_fail(s, "codegen: out of memory");
    }
  } else if (n >= 1 && ans[0] == 'E') {
    ks_jit_fail(s,
                "codegen: %s: kernel '%s': the NVPTX backend cannot compile "
                "it: %.*s",
                tname, kname, error_line(ans, n), ans + 1);
  } else {
    ks_jit_fail(s,
                "codegen: %s: kernel '%s': the NVPTX backend crashed on it "
                "(in a child process: %s)",
                tname, kname, how);
  }
  free(ans);
  return s;
}
