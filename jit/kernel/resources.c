/*
 * resources.c - a kernel's real figures: registers, spills, stack frame,
 * static shared and constant memory; from ptxas (`ptxas -v`, no GPU
 * needed) or from the driver once the kernel is loaded.
 *
 * ptxas runs as a child process without a shell (posix_spawn), in a process
 * group of its own so that a timeout kills it and whatever it started; its
 * standard output (the -v report) and standard error (the errors) come back
 * through one pipe.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jit/ks_jit.h"

extern char **environ;

enum {
  PTXAS_TIMEOUT_MS = 30000,
  LOG_CAP = 1 << 20, /* more output than this is read and dropped */
  LINE_CAP = 1024,
  PATH_CAP = 4096,
};

/* ---- finding ptxas --------------------------------------------------- */

static int executable(const char *p) {
  struct stat st;
  return access(p, X_OK) == 0 && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/ptxas into path when it is an executable file. */
static int try_dir(const char *dir, size_t n, char *path, size_t cap) {
  if (n == 0) {
    dir = ".";
    n = 1;
  }
  int w = snprintf(path, cap, "%.*s/ptxas", (int)n, dir);
  return w > 0 && (size_t)w < cap && executable(path);
}

int ks_jit_ptxas_find(char *path, size_t cap, char *why, size_t whycap) {
  const char *env = getenv("KSPEC_PTXAS");
  if (env && *env) {
    if (strlen(env) < cap && executable(env)) {
      snprintf(path, cap, "%s", env);
      return 0;
    }
    snprintf(why, whycap, "KSPEC_PTXAS=%s is not an executable file", env);
    return -1;
  }
  const char *p = getenv("PATH");
  while (p && *p) {
    size_t n = strcspn(p, ":");
    if (try_dir(p, n, path, cap))
      return 0;
    p += n + (p[n] == ':');
  }
  static const char fallback[] = "/usr/local/cuda/bin";
  if (try_dir(fallback, sizeof fallback - 1, path, cap))
    return 0;
  snprintf(why, whycap,
           "no ptxas on PATH or in %s (set KSPEC_PTXAS to its path)", fallback);
  return -1;
}

/* ---- running it ------------------------------------------------------ */

/* The bytes into a fresh temporary file named ...suffix; 0 on success. */
static int write_temp(const char *ptx, size_t len, const char *suffix,
                      char *path, size_t cap) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, cap, "%s/kspec_ptxas_XXXXXX%s", dir && *dir ? dir : "/tmp",
           suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  if (fd < 0)
    return -1;
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, ptx + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    done += (size_t)w;
  }
  if (close(fd) != 0 || done < len) {
    unlink(path);
    return -1;
  }
  return 0;
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Starts argv[0] with stdin from /dev/null and stdout and stderr into the
 * write end of a pipe whose read end goes to *fd. Returns 0 or an errno. */
static int spawn(char *const argv[], pid_t *pid, int *fd) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0)
    return errno;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  sigset_t none, dfl;
  sigemptyset(&none);
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGPIPE);
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                    POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&at, 0); /* a group of its own, to kill */
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &dfl);
  int e = posix_spawn(pid, argv[0], &fa, &at, argv, environ);
  posix_spawnattr_destroy(&at);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (e) {
    close(pipefd[0]);
    return e;
  }
  *fd = pipefd[0];
  return 0;
}

/* Reads fd to end of file into a malloc'd string *out, until deadline
 * (CLOCK_MONOTONIC ms). 0 at end of file, 1 on timeout, -1 on error. */
static int read_all(int fd, long long deadline, char **out) {
  size_t n = 0, cap = 4096;
  char *buf = malloc(cap);
  char sink[4096];
  int rc = -1;
  while (buf) {
    long long left = deadline - now_ms();
    if (left <= 0) {
      rc = 1;
      break;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      break;
    if (r == 0)
      continue;
    if (n + 1 == cap && cap < LOG_CAP) {
      char *grown = realloc(buf, cap * 2);
      if (!grown)
        break;
      buf = grown;
      cap *= 2;
    }
    int full = n + 1 == cap;
    ssize_t got =
        full ? read(fd, sink, sizeof sink) : read(fd, buf + n, cap - n - 1);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      break;
    if (got == 0) {
      rc = 0;
      break;
    }
    if (!full)
      n += (size_t)got;
  }
  if (buf)
    buf[n] = '\0';
  *out = buf;
  return buf ? rc : -1;
}

/* The first line of log holding needle, trimmed, into dst. */
static int find_line(const char *log, const char *needle, char *dst,
                     size_t cap) {
  const char *hit = log ? strstr(log, needle) : NULL;
  if (!hit)
    return 0;
  const char *start = hit;
  while (start > log && start[-1] != '\n')
    start--;
  size_t n = strcspn(start, "\r\n");
  snprintf(dst, cap, "%.*s", (int)n, start);
  return 1;
}

/* The status and message for a ptxas that did not succeed. */
static ks_status judge(const char *ptxas, const char *arch, int wstatus,
                       const char *log) {
  char line[LINE_CAP];
  if (find_line(log, "not defined for option 'gpu-name'", line, sizeof line) ||
      find_line(log, "nsupported gpu architecture", line, sizeof line))
    return ks_jit_fail(KS_EARCH, "ptxas: %s does not support %s: %s", ptxas,
                       arch, line);
  if (find_line(log, "error", line, sizeof line) ||
      find_line(log, "fatal", line, sizeof line))
    return ks_jit_fail(KS_ELOAD, "ptxas: %s", line);
  if (WIFSIGNALED(wstatus))
    return ks_jit_fail(KS_ELOAD, "ptxas: %s killed by signal %d", ptxas,
                       WTERMSIG(wstatus));
  return ks_jit_fail(KS_ELOAD, "ptxas: %s exited with status %d", ptxas,
                     WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
}

/* ptxas -arch=ARCH -v -o OUT on the PTX (OUT: out, or /dev/null). */
static ks_status run(const char *ptxas, const char *arch, const char *ptx,
                     size_t len, int timeout_ms, const char *out, char **log) {
  char file[PATH_CAP], archopt[64];
  pid_t pid = -1;
  int fd = -1, wstatus = 0;
  *log = NULL;
  if (write_temp(ptx, len, ".ptx", file, sizeof file) != 0)
    return ks_jit_fail(KS_EIO, "ptxas: cannot write a temporary PTX file: %s",
                       strerror(errno));
  snprintf(archopt, sizeof archopt, "-arch=%s", arch);
  char *argv[] = {
      (char *)ptxas, archopt, "-v", "-o", (char *)(out ? out : "/dev/null"),
      (char *)file,  NULL};
  int e = spawn(argv, &pid, &fd);
  if (e) {
    unlink(file);
    return ks_jit_fail(KS_ELOAD, "ptxas: cannot run %s: %s", ptxas,
                       strerror(e));
  }
  int rc = read_all(fd, now_ms() + timeout_ms, log);
  close(fd);
  if (rc != 0)
    kill(-pid, SIGKILL); /* the group spawn() made for this child */
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
    ;
  unlink(file);
  if (rc == 1)
    return ks_jit_fail(KS_ELOAD, "ptxas: %s timed out after %d ms", ptxas,
                       timeout_ms);
  if (rc < 0)
    return *log ? ks_jit_fail(KS_ELOAD, "ptxas: reading its output: %s",
                              strerror(errno))
                : ks_jit_fail(KS_ENOMEM, "ptxas: out of memory");
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
    return KS_OK;
  return judge(ptxas, arch, wstatus, *log);
}

ks_status ks_jit_ptxas_run(const char *ptxas, const char *arch, const char *ptx,
                           size_t len, int timeout_ms, char **log) {
  return run(ptxas, arch, ptx, len, timeout_ms, NULL, log);
}

/* The whole of file path into a malloc'd buffer; 0 on success. */
static int read_file(const char *path, void **buf, size_t *n) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  *buf = NULL;
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size, done = 0;
  unsigned char *p = malloc(size);
  while (p && done < size) {
    ssize_t r = read(fd, p + done, size - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    done += (size_t)r;
  }
  close(fd);
  if (!p || done < size) {
    free(p);
    return -1;
  }
  *buf = p;
  *n = size;
  return 0;
}

ks_status ks_jit_ptxas_cubin(const char *ptxas, const char *arch,
                             const char *ptx, size_t len, int timeout_ms,
                             void **cubin, size_t *n, char **log) {
  char out[PATH_CAP];
  *cubin = NULL;
  *n = 0;
  *log = NULL;
  /* A file of our own for ptxas to write, so that no other process's
   * file of that name is overwritten. */
  if (write_temp("", 0, ".cubin", out, sizeof out) != 0)
    return ks_jit_fail(KS_EIO, "ptxas: cannot make a temporary file: %s",
                       strerror(errno));
  ks_status s = run(ptxas, arch, ptx, len, timeout_ms, out, log);
  if (s == KS_OK && read_file(out, cubin, n) != 0)
    s = ks_jit_fail(KS_EIO, "ptxas: cannot read the cubin it wrote (%s)", out);
  unlink(out);
  return s;
}

/* ---- reading its report ------------------------------------------------ */

/* The number written just before phrase in line ("64 bytes smem"; the old
 * "8+16 bytes smem" form is summed), or -1. */
static long number_before(const char *line, const char *phrase) {
  const char *hit = strstr(line, phrase);
  if (!hit)
    return -1;
  long sum = 0;
  int digits = 0;
  const char *p = hit;
  while (p > line && p[-1] == ' ')
    p--;
  for (;;) {
    const char *end = p;
    while (p > line && p[-1] >= '0' && p[-1] <= '9')
      p--;
    if (p == end)
      break;
    sum += strtol(p, NULL, 10);
    digits = 1;
    if (p == line || p[-1] != '+')
      break;
    p--;
  }
  return digits ? sum : -1;
}

/* The bytes of every constant bank but 0 (the parameters) on line, or -1
 * when it names no bank; *any is set when it names one, bank 0 included. */
static long user_cmem(const char *line, int *any) {
  long sum = -1;
  for (const char *p = strstr(line, " bytes cmem["); p;
       p = strstr(p + 1, " bytes cmem[")) {
    *any = 1;
    long bank = strtol(p + 12, NULL, 10);
    char phrase[32];
    snprintf(phrase, sizeof phrase, " bytes cmem[%ld]", bank);
    /* number_before finds the first such phrase; banks appear once. */
    long v = number_before(line, phrase);
    if (bank != 0 && v >= 0)
      sum = (sum < 0 ? 0 : sum) + v;
  }
  return sum;
}

/* The name after prefix on line, up to a closing quote (when quoted) or
 * the end of the line, trailing blanks and ':' dropped. */
static void name_after(const char *line, const char *prefix, char *dst,
                       size_t cap) {
  const char *p = strstr(line, prefix) + strlen(prefix);
  size_t n = *p == '\'' ? strcspn(++p, "'") : strlen(p);
  while (n && (p[n - 1] == ' ' || p[n - 1] == ':' || p[n - 1] == '\t'))
    n--;
  snprintf(dst, cap, "%.*s", (int)n, p);
}

/* Parser state: which function the lines are about. */
typedef struct scan {
  const char *fn;
  int in_entry; /* after "Compiling entry function 'fn'" */
  int in_props; /* after "Function properties for fn" */
  int found, any_cmem;
  long module_cmem; /* user banks of the module line, -1: none */
  long fn_cmem;
} scan;

static void scan_line(scan *s, const char *line, ks_kernel_resources *out) {
  char name[LINE_CAP];
  if (strstr(line, "Compiling entry function ")) {
    name_after(line, "Compiling entry function ", name, sizeof name);
    s->in_entry = strcmp(name, s->fn) == 0;
  } else if (strstr(line, "Function properties for ")) {
    name_after(line, "Function properties for ", name, sizeof name);
    s->in_props = strcmp(name, s->fn) == 0;
  } else if (strstr(line, " bytes stack frame")) {
    if (s->in_props) {
      out->stack_frame = (int)number_before(line, " bytes stack frame");
      out->spill_stores = (int)number_before(line, " bytes spill stores");
      out->spill_loads = (int)number_before(line, " bytes spill loads");
    }
    s->in_props = 0;
  } else if (strstr(line, "Used ") && strstr(line, " registers")) {
    if (s->in_entry && !s->found) {
      out->regs = (int)strtol(strstr(line, "Used ") + 5, NULL, 10);
      long smem = number_before(line, " bytes smem");
      out->static_smem = smem < 0 ? 0 : (int)smem;
      s->fn_cmem = user_cmem(line, &s->any_cmem);
      s->found = 1;
    } else {
      int ignored = 0;
      user_cmem(line, &ignored);
      s->any_cmem |= ignored;
    }
    s->in_entry = 0;
  } else if (strstr(line, " bytes gmem")) {
    long v = user_cmem(line, &s->any_cmem);
    if (v >= 0)
      s->module_cmem = (s->module_cmem < 0 ? 0 : s->module_cmem) + v;
  }
}

int ks_jit_ptxas_parse(const char *log, const char *fn,
                       ks_kernel_resources *out) {
  scan s = {.fn = fn, .module_cmem = -1, .fn_cmem = -1};
  char line[LINE_CAP];
  out->regs = out->spill_stores = out->spill_loads = -1;
  out->stack_frame = out->static_smem = out->const_bytes = -1;
  for (const char *p = log; p && *p;) {
    size_t n = strcspn(p, "\r\n");
    snprintf(line, sizeof line, "%.*s", (int)n, p); /* long lines cut */
    scan_line(&s, line, out);
    p += n;
    p += strspn(p, "\r\n");
  }
  /* A report that names constant banks at all tells their sizes; one that
   * names none (ptxas 12.x/13 for sm_90) says nothing about them. */
  if (s.any_cmem)
    out->const_bytes = (int)((s.module_cmem > 0 ? s.module_cmem : 0) +
                             (s.fn_cmem > 0 ? s.fn_cmem : 0));
  return s.found;
}

/* ---- the public call ---------------------------------------------------- */

/* The driver's figures; loads k. */
static ks_status from_driver(ks_kernel *k, ks_kernel_resources *out) {
  ks_status s = ks_kernel_load(k);
  if (s != KS_OK)
    return s;
  pthread_mutex_lock(&k->load_lock);
  *out = (ks_kernel_resources){
      .source = KS_RES_DRIVER,
      .regs = k->info.regs,
      .spill_stores = -1,
      .spill_loads = -1,
      .stack_frame = k->info.local_bytes,
      .static_smem = k->info.static_smem,
      .const_bytes = k->const_bytes,
  };
  pthread_mutex_unlock(&k->load_lock);
  snprintf(out->arch, sizeof out->arch, "sm_%d", k->ctx->dev.sm);
  return KS_OK;
}

/* ptxas's figures, measured once. *missing is set when ptxas was not
 * found (the message says why). */
static ks_status from_ptxas(ks_kernel *k, ks_kernel_resources *out,
                            int *missing) {
  char path[PATH_CAP], why[PATH_CAP + 64];
  char *log = NULL;
  *missing = 0;
  pthread_mutex_lock(&k->load_lock);
  int done = k->ptxas_done;
  if (done)
    *out = k->ptxas_res;
  pthread_mutex_unlock(&k->load_lock);
  if (done)
    return KS_OK;
  if (ks_jit_ptxas_find(path, sizeof path, why, sizeof why) != 0) {
    *missing = 1;
    return ks_jit_fail(KS_ENODRIVER, "resources: %s: %s", k->name, why);
  }
  const char *arch = k->ctx->arch->name;
  ks_status s =
      ks_jit_ptxas_run(path, arch, k->ptx, k->ptx_len, PTXAS_TIMEOUT_MS, &log);
  ks_kernel_resources r = {.source = KS_RES_PTXAS};
  if (s == KS_OK && !ks_jit_ptxas_parse(log, k->name, &r))
    s = ks_jit_fail(KS_ELOAD, "ptxas: no figures for '%s' in its report",
                    k->name);
  free(log);
  if (s != KS_OK)
    return s;
  snprintf(r.arch, sizeof r.arch, "%s", arch);
  pthread_mutex_lock(&k->load_lock);
  k->ptxas_res = r;
  k->ptxas_done = 1;
  pthread_mutex_unlock(&k->load_lock);
  *out = r;
  return KS_OK;
}

ks_status ks_jit_resources_cubin(ks_kernel *k, ks_kernel_resources *out,
                                 void **cubin, size_t *n) {
  char path[PATH_CAP], why[PATH_CAP + 64];
  char *log = NULL;
  int missing = 0;
  *cubin = NULL;
  *n = 0;
  if (ks_jit_ptxas_find(path, sizeof path, why, sizeof why) != 0)
    return from_ptxas(k, out, &missing); /* its message */
  const char *arch = k->ctx->arch->name;
  ks_status s = ks_jit_ptxas_cubin(path, arch, k->ptx, k->ptx_len,
                                   PTXAS_TIMEOUT_MS, cubin, n, &log);
  ks_kernel_resources r = {.source = KS_RES_PTXAS};
  int parsed = s == KS_OK && ks_jit_ptxas_parse(log, k->name, &r);
  free(log);
  if (s != KS_OK) { /* no cubin: the figures as ever */
    *cubin = NULL;
    *n = 0;
  }
  if (!parsed)
    return from_ptxas(k, out, &missing);
  snprintf(r.arch, sizeof r.arch, "%s", arch);
  pthread_mutex_lock(&k->load_lock);
  if (!k->ptxas_done) {
    k->ptxas_res = r;
    k->ptxas_done = 1;
  }
  *out = k->ptxas_res;
  pthread_mutex_unlock(&k->load_lock);
  return KS_OK;
}

static ks_status resources_get(ks_kernel *k, ks_res_source want,
                               ks_kernel_resources *out) {
  if (!k || (unsigned)want > KS_RES_DRIVER)
    return ks_jit_fail(KS_EINVAL, "resources: NULL or bad argument");
  pthread_mutex_lock(&k->load_lock);
  int loaded = k->loaded;
  pthread_mutex_unlock(&k->load_lock);
  if (want == KS_RES_DRIVER || (want == KS_RES_ANY && loaded))
    return from_driver(k, out);
  int missing = 0;
  ks_status s = from_ptxas(k, out, &missing);
  if (s == KS_OK || want == KS_RES_PTXAS || !missing)
    return s;
  char why[512];
  snprintf(why, sizeof why, "%s", ks_errmsg(NULL));
  s = from_driver(k, out);
  if (s == KS_ENODRIVER || s == KS_ENODEVICE)
    return ks_jit_fail(KS_ENODRIVER, "%s; and no driver to ask: %s", why,
                       ks_errmsg(NULL));
  return s;
}

ks_status ks_kernel_resources_get(ks_kernel *k, ks_res_source want,
                                  ks_kernel_resources *out) {
  ks_jit_clear();
  ks_status s = KS_OUT_CHECK(out, "resources", ks_kernel_resources);
  ks_kernel_resources full = {.size = sizeof full};
  if (s == KS_OK)
    s = resources_get(k, want, &full);
  if (s == KS_OK)
    ks_jit_out_put(out, &full, sizeof full);
  return s;
}
