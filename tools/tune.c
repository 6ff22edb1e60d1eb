/*
 * tune.c - `kspec tune`: ks_tune over a built-in template's workload.
 *
 *   kspec tune TEMPLATE [-D NAME=V]... --sweep NAME=a,b,c [--sweep ...]
 *              [--kernel K] [--size N] [--timeout MS] [--fresh]
 *              [--gpus all|0,2,3] [--mpi] [--json|--csv] [--plot FILE.png]
 *   kspec tune --show
 *   (--inject fault=I --inject hang=I: variant I launches a kernel that
 *   writes to an invalid address, or one that spins forever, instead of
 *   the template's: to see a sweep survive both.)
 *
 * The parent never opens the CUDA driver: ks_tune forks a worker per GPU
 * (GPU 0 without --gpus) first, which opens its GPU while the parent
 * compiles and prunes every variant, then measures the variants it is
 * handed, each with its kernel. The parent compiles for sm_90 (or --arch)
 * before any GPU has said what it is: a worker's hello says it, and GPUs
 * that cannot run that code make the sweep compile again for them. A
 * sweep of launch bounds runs every variant on one workload, prepared
 * here; each worker makes its inputs and CPU reference on a thread while
 * it opens its GPU (worker_init), and each variant's output is compared
 * on its GPU (ks_wl_use_checker). A variant that faults the context or
 * hangs costs only the worker. With --gpus, one worker per GPU
 * (ks_tune_opts.gpus); --gpus all counts them in a child process first.
 * With --mpi (under mpirun, where kspec_mpi was built) the ranks share
 * their compiles and split the sweep (ks_tune_mpi), each on GPU
 * local_rank % the list's length; rank 0 prints and writes the store. A
 * rank whose GPU cannot measure makes the plan fail on every rank, and
 * rank 0 says why.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "kspec.h"
#ifdef KSPEC_HAVE_MPI
#include "kspec_mpi.h"
#endif
#include "tune.h"
#include "workloads.h"

enum { MAX_DEFS = 64, MAX_VALUES = 1024, EXIT_USAGE = 2 };

typedef struct tool {
  const char *tmpl, *kernel, *plot, *arch;
  ks_binding defs[MAX_DEFS];
  char def_names[MAX_DEFS][64];
  size_t ndefs;
  ks_tune_dim dims[KS_TUNE_MAX_DIMS];
  char dim_names[KS_TUNE_MAX_DIMS][64];
  int64_t values[KS_TUNE_MAX_DIMS][MAX_VALUES];
  size_t ndims;
  size_t size;
  double timeout_ms;
  int json, csv, show, fresh;
  int gpus[KS_TUNE_MAX_GPUS]; /* --gpus; ngpus 0: none given */
  size_t ngpus;
  int all_gpus;                     /* --gpus all */
  size_t per_gpu[KS_TUNE_MAX_GPUS]; /* variants measured by each */
  double setup_ms;                  /* the context, template and checker, before
                                       ks_tune (the workers fork at its start) */
  double start_ms;                  /* when the sweep started */
  double total_ms; /* from the start until the sweep returned */
  /* Each GPU's measurements as progress saw them (--gpus; slot 0 for the
   * one worker otherwise): the first's and the last's time, how many. */
  double first_at[KS_TUNE_MAX_GPUS], last_at[KS_TUNE_MAX_GPUS];
  size_t seen[KS_TUNE_MAX_GPUS];
  int mpi, rank, ranks;   /* --mpi: this rank, of ranks */
  int local, local_ranks; /* --mpi: this rank among its node's, of them */
  long inject_fault, inject_hang; /* variant indices, -1: none */
  unsigned fp; /* --ftz, --prec-div=0, --prec-sqrt=0, --fast-math */
  ks_kernel *fault_k, *hang_k;
  ks_kernel *checker; /* the compare on the device (ks_wl_use_checker) */
  ks_ctx *ctx;
  const ks_template *t;
  /* In the worker (prepared before it forks). */
  ks_wl *wl;
  int filling; /* worker_init's thread makes wl's data */
  pthread_t filler;
  ks_status fill_status;
  char fill_why[256];
  char wl_key[256];
  unsigned wl_threads;
} tool;

static volatile sig_atomic_t interrupted;

static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "kspec: tune: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_USAGE;
}

static const char tune_usage[] =
    "usage: kspec tune TEMPLATE [-D NAME=V]... --sweep NAME=a,b,c ...\n"
    "       kspec tune --show\n"
    "\n"
    "Sweeps launch bounds and parameter values of a built-in template on\n"
    "the GPU: compiles every variant, prunes by compile-time figures,\n"
    "checks and times the rest in a worker process, keeps the fastest that\n"
    "beats the others by more than the noise, and stores the results.\n"
    "\n"
    "  --sweep NAME=V,V,.. maxntid, minctasm, maxnreg, block or a parameter\n"
    "  --sweep tex:ARG=0,1  hardware textures for array ARG (--tex ARG):\n"
    "                     1 only where bit-identical to software (nearest,\n"
    "                     clamp or border), 2 whatever the filter (checked\n"
    "                     within the hardware's bound)\n"
    "  -D NAME=V          fix a parameter\n"
    "  --kernel K         the kernel\n"
    "  --size N           problem size (default: the workload's)\n"
    "  --timeout MS       per variant, in the worker (default 10000)\n"
    "  --fresh            measure again what is stored\n"
    "  --gpus all|0,2,3   measure on these GPUs, a worker each; the finalists\n"
    "                     are measured again on the first\n"
    "  --mpi              under mpirun: the ranks share compiles and split\n"
    "                     the sweep, each on GPU local_rank % GPUs; rank 0\n"
    "                     measures the finalists and writes the store\n"
    "  --ftz[=true|false], --prec-div=0|1, --prec-sqrt=0|1, --fast-math\n"
    "                     floating-point modes of every variant (as nvcc's)\n"
    "  --json, --csv      results for scripts\n"
    "  --plot FILE.png    time against variant (a gnuplot script FILE.png.gp)\n"
    "  --show             the stored results\n"
    "  --inject fault=I|hang=I  variant I faults (illegal address) or hangs\n";

/* "NAME=1,2,3" into a dim. */
static int parse_sweep(tool *o, const char *arg) {
  char name[sizeof o->dim_names[0]] = "", why[512];
  int64_t values[MAX_VALUES];
  size_t n = 0;
  int bad = ks_arg_sweep(arg, name, sizeof name, values, MAX_VALUES, &n, why,
                         sizeof why);
  if (name[0] && o->ndims == KS_TUNE_MAX_DIMS)
    return usage_error("--sweep: at most %d", KS_TUNE_MAX_DIMS);
  if (bad)
    return usage_error("%s", why);
  size_t d = o->ndims;
  memcpy(o->dim_names[d], name, sizeof name);
  memcpy(o->values[d], values, n * sizeof values[0]);
  o->dims[d] = (ks_tune_dim){o->dim_names[d], o->values[d], n};
  o->ndims++;
  return 0;
}

/* "all" or "0,2,3": each GPU once. */
static int parse_gpus(tool *o, const char *arg) {
  if (strcmp(arg, "all") == 0) {
    o->all_gpus = 1;
    return 0;
  }
  const char *s = arg;
  for (;;) {
    char *end;
    long g = strtol(s, &end, 10);
    if (end == s || g < 0 || g >= KS_TUNE_MAX_GPUS || (*end && *end != ','))
      return usage_error("--gpus %s: want all or device ordinals 0..%d, "
                         "comma-separated",
                         arg, KS_TUNE_MAX_GPUS - 1);
    for (size_t k = 0; k < o->ngpus; k++)
      if (o->gpus[k] == g)
        return usage_error("--gpus %s: GPU %ld is named twice", arg, g);
    o->gpus[o->ngpus++] = (int)g;
    if (!*end)
      return 0;
    s = end + 1;
  }
}

static int parse(tool *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = strcmp(a, "-D") == 0 || strcmp(a, "--sweep") == 0 ||
                strcmp(a, "--kernel") == 0 || strcmp(a, "--size") == 0 ||
                strcmp(a, "--timeout") == 0 || strcmp(a, "--plot") == 0 ||
                strcmp(a, "--arch") == 0 || strcmp(a, "--inject") == 0 ||
                strcmp(a, "--gpus") == 0;
    if (takes && !next)
      return usage_error("%s needs a value", a);
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(tune_usage, stdout);
      return -1;
    } else if (strcmp(a, "-D") == 0) {
      if (o->ndefs == MAX_DEFS ||
          ks_binding_parse(next, &o->defs[o->ndefs], o->def_names[o->ndefs],
                           sizeof o->def_names[0]) != KS_OK)
        return usage_error("-D %s: want NAME=VALUE", next);
      o->ndefs++;
    } else if (strcmp(a, "--sweep") == 0) {
      if (parse_sweep(o, next))
        return EXIT_USAGE;
    } else if (strcmp(a, "--gpus") == 0) {
      if (o->ngpus || o->all_gpus)
        return usage_error("--gpus given twice");
      if (parse_gpus(o, next))
        return EXIT_USAGE;
    } else if (strcmp(a, "--kernel") == 0) {
      o->kernel = next;
    } else if (strcmp(a, "--arch") == 0) {
      o->arch = next;
    } else if (strcmp(a, "--inject") == 0) {
      char *end;
      int hang = strncmp(next, "hang=", 5) == 0;
      if (!hang && strncmp(next, "fault=", 6) != 0)
        return usage_error("--inject %s: want fault=I or hang=I", next);
      long v = strtol(next + (hang ? 5 : 6), &end, 10);
      if (*end || end == next + (hang ? 5 : 6) || v < 0)
        return usage_error("--inject %s: want fault=I or hang=I", next);
      *(hang ? &o->inject_hang : &o->inject_fault) = v;
    } else if (strcmp(a, "--plot") == 0) {
      o->plot = next;
    } else if (strcmp(a, "--size") == 0 || strcmp(a, "--timeout") == 0) {
      char *end;
      double v = strtod(next, &end);
      if (end == next || *end || !(v > 0))
        return usage_error("%s %s: not a positive number", a, next);
      if (a[2] == 's')
        o->size = (size_t)v;
      else
        o->timeout_ms = v;
    } else if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--csv") == 0) {
      o->csv = 1;
    } else if (strcmp(a, "--show") == 0) {
      o->show = 1;
    } else if (strcmp(a, "--fresh") == 0) {
      o->fresh = 1;
    } else if (strcmp(a, "--mpi") == 0) {
#ifndef KSPEC_HAVE_MPI
      return usage_error("--mpi: this kspec was built without MPI (kspec_mpi)");
#endif
      o->mpi = 1;
    } else if (strncmp(a, "--ftz", 5) == 0 || strncmp(a, "--prec-", 7) == 0 ||
               strcmp(a, "--fast-math") == 0 ||
               strcmp(a, "--use_fast_math") == 0) {
      char name[32];
      const char *eq = strchr(a, '=');
      snprintf(name, sizeof name, "%.*s",
               (int)(eq ? (size_t)(eq - a - 2) : strlen(a + 2)), a + 2);
      if (!ks_arg_fp(name, eq ? eq + 1 : NULL, &o->fp))
        return usage_error("%s: want --ftz[=true|false], --prec-div=0|1, "
                           "--prec-sqrt=0|1 or --fast-math",
                           a);
    } else if (a[0] == '-' || o->tmpl) {
      return usage_error("unexpected argument '%s'", a);
    } else {
      o->tmpl = a;
    }
    i += takes;
  }
  if (!o->show && !o->tmpl)
    return usage_error("missing TEMPLATE (try `kspec tune --help`)");
  if (!o->show && !o->ndims)
    return usage_error("nothing to sweep: give --sweep NAME=V,V,...");
  return 0;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the worker's side (runs in ks_tune's child process) ----------------- */

/* The workload for the point's values, made or resized as needed. */
static ks_status workload(tool *o, const ks_tune_point *p, char *why,
                          size_t cap) {
  ks_binding vals[MAX_DEFS + KS_TUNE_MAX_DIMS];
  size_t n = 0;
  char key[256] = "";
  size_t used = 0;
  for (size_t i = 0; i < o->ndefs; i++)
    vals[n++] = o->defs[i];
  for (size_t d = 0; d < o->ndims; d++) {
    const char *nm = o->dims[d].name;
    if (strcmp(nm, "maxntid") == 0 || strcmp(nm, "minctasm") == 0 ||
        strcmp(nm, "maxnreg") == 0 || strcmp(nm, "block") == 0 ||
        strncmp(nm, "tex:", 4) == 0) /* the kernel's, not the data's */
      continue;
    vals[n++] = (ks_binding){.name = nm, .kind = KS_VALUE_INT, .v.i = p->v[d]};
    used += (size_t)snprintf(key + used, sizeof key - used, "%s=%lld;", nm,
                             (long long)p->v[d]);
    if (used >= sizeof key)
      used = sizeof key - 1;
  }
  if (o->filling) { /* worker_init's thread */
    pthread_join(o->filler, NULL);
    o->filling = 0;
    if (o->fill_status != KS_OK) {
      ks_wl_destroy(o->wl); /* made below, as the values come */
      o->wl = NULL;
    }
  }
  if (o->wl && strcmp(key, o->wl_key) == 0) {
    /* prepare_workload's: allocated and uploaded at its first variant */
    ks_status s = ks_wl_alloc(o->wl, why, cap);
    if (s != KS_OK)
      return s;
    ks_wl_use_checker(o->wl, o->checker);
    if (o->wl_threads != p->threads)
      ks_wl_set_block(o->wl, p->threads);
    o->wl_threads = p->threads;
    return KS_OK;
  }
  ks_wl_destroy(o->wl);
  o->wl = NULL;
  ks_status s = ks_wl_create(o->ctx, o->t, o->kernel, o->size, vals, n,
                             p->threads, 1, &o->wl, why, cap);
  if (s == KS_OK) {
    ks_wl_use_checker(o->wl, o->checker);
    snprintf(o->wl_key, sizeof o->wl_key, "%s", key);
    o->wl_threads = p->threads;
  }
  return s;
}

/* The index of p in the sweep (the last dim fastest). */
static long point_index(const tool *o, const ks_tune_point *p) {
  long idx = 0;
  for (size_t d = 0; d < o->ndims; d++) {
    size_t at = 0;
    while (at < o->dims[d].n && o->dims[d].values[at] != p->v[d])
      at++;
    idx = idx * (long)o->dims[d].n + (long)at;
  }
  return idx;
}

/* Variant p's injected failure, when it has one: a write to address 16,
 * or a spin on a zero word that never ends. */
static ks_status injected(tool *o, const ks_tune_point *p, char *why,
                          size_t cap, int *done) {
  long i = point_index(o, p);
  int hang = i == o->inject_hang;
  *done = hang || i == o->inject_fault;
  if (!*done)
    return KS_OK;
  ks_devptr word = 16;
  if (hang && (ks_mem_alloc(o->ctx, 4, &word) != KS_OK ||
               ks_memset8(o->ctx, word, 0, 4) != KS_OK))
    return snprintf(why, cap, "%s", ks_errmsg(o->ctx)), KS_EDRIVER;
  void *args[] = {&word};
  ks_status s = ks_launch(hang ? o->hang_k : o->fault_k, (ks_dim3){1, 1, 1},
                          (ks_dim3){1, 1, 1}, 0, NULL, args);
  if (s == KS_OK)
    s = ks_synchronize(o->ctx);
  snprintf(why, cap, "injected %s: %s", hang ? "hang" : "fault",
           s == KS_OK ? "no error" : ks_errmsg(o->ctx));
  return s == KS_OK ? KS_ELAUNCH : s;
}

static ks_status measure(void *arg, ks_kernel *k, const ks_tune_point *p,
                         double *ms, char *why, size_t cap) {
  tool *o = arg;
  int done;
  ks_status s = injected(o, p, why, cap, &done);
  if (done)
    return s;
  s = workload(o, p, why, cap);
  if (s != KS_OK)
    return s;
  float t = 0;
  if ((s = ks_timer_start(o->ctx)) != KS_OK ||
      (s = ks_wl_launch(o->wl, k, why, cap)) != KS_OK ||
      (s = ks_timer_stop(o->ctx, &t)) != KS_OK) {
    if (!*why)
      snprintf(why, cap, "%s", ks_errmsg(o->ctx));
    return s;
  }
  *ms = t;
  return KS_OK;
}

static ks_status check(void *arg, ks_kernel *k, const ks_tune_point *p,
                       char *why, size_t cap) {
  tool *o = arg;
  int done;
  ks_status s = injected(o, p, why, cap, &done);
  if (done)
    return s;
  s = workload(o, p, why, cap);
  return s != KS_OK ? s : ks_wl_check(o->wl, k, why, cap);
}

/* ---- the GPUs and the workload, before the workers fork -------------------
 */

/* Whether GPU g opens: a context made and asked for the device. */
static int gpu_opens(int g) {
  ks_ctx_opts co = {.device = g, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_device_info info = {.size = sizeof info};
  int ok =
      ks_ctx_create(&co, &ctx) == KS_OK && ks_device_query(ctx, &info) == KS_OK;
  ks_ctx_destroy(ctx);
  return ok;
}

typedef struct open_job {
  int gpu, ok;
} open_job;

static void *open_thread(void *arg) {
  open_job *j = arg;
  j->ok = gpu_opens(j->gpu);
  return NULL;
}

/* The GPUs the driver sees (--gpus all; up to KS_TUNE_MAX_GPUS: those
 * before the first that does not open), asked in a child process, since
 * this one must not open CUDA before the workers fork: it opens every
 * GPU, all at once (about a second); a list (--gpus 0,1,2,3) spares it.
 * 0 when none opens. */
static int count_gpus(void) {
  int fds[2], n = 0;
  if (pipe(fds) != 0)
    return 0;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the tool */
    open_job jobs[KS_TUNE_MAX_GPUS];
    pthread_t th[KS_TUNE_MAX_GPUS];
    int started[KS_TUNE_MAX_GPUS] = {0}, c = 0;
    for (int g = 0; g < KS_TUNE_MAX_GPUS; g++) {
      jobs[g] = (open_job){.gpu = g};
      started[g] = pthread_create(&th[g], NULL, open_thread, &jobs[g]) == 0;
    }
    for (int g = 0; g < KS_TUNE_MAX_GPUS; g++)
      if (started[g])
        pthread_join(th[g], NULL);
      else
        open_thread(&jobs[g]);
    while (c < KS_TUNE_MAX_GPUS && jobs[c].ok)
      c++;
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

/* A sweep of launch bounds (and textures) alone runs every variant on one
 * workload: it is prepared here (arguments and geometry: no data, no
 * driver), and each worker makes its inputs and CPU reference on a thread
 * while it opens its GPU (worker_init), then uploads them at its first
 * variant. A sweep of parameter values makes each workload in the worker,
 * as its values come. Nothing is prepared where anything fails: the
 * workers then make it. */
static void prepare_workload(tool *o) {
  for (size_t d = 0; d < o->ndims; d++) {
    const char *nm = o->dims[d].name;
    if (strcmp(nm, "maxntid") != 0 && strcmp(nm, "minctasm") != 0 &&
        strcmp(nm, "maxnreg") != 0 && strcmp(nm, "block") != 0 &&
        strncmp(nm, "tex:", 4) != 0) /* textures: the same data */
      return;
  }
  char why[256];
  ks_wl *w = NULL;
  if (ks_wl_prepare(o->ctx, o->t, o->kernel, o->size, o->defs, o->ndefs, 0, 1,
                    &w, why, sizeof why) != KS_OK)
    return;
  o->wl = w;
  o->wl_key[0] = '\0'; /* the key of no swept value (workload()) */
  o->wl_threads = 0;   /* its block is set at its first variant */
}

/* In a worker: the prepared workload's inputs and reference. */
static void *fill_thread(void *arg) {
  tool *o = arg;
  o->fill_status = ks_wl_reference(o->wl, o->fill_why, sizeof o->fill_why);
  return NULL;
}

/* ks_tune_opts.worker_init: in each worker, before it opens its GPU, the
 * prepared workload's data made on a thread meanwhile (workload() waits
 * for it). Never fails: without the thread, workload() makes it. */
static ks_status worker_init(void *arg, char *why, size_t cap) {
  tool *o = arg;
  (void)why;
  (void)cap;
  o->filling = o->wl && pthread_create(&o->filler, NULL, fill_thread, o) == 0;
  return KS_OK;
}

/* ---- output ------------------------------------------------------------ */

static void point_text(const tool *o, const ks_tune_point *p, char *buf,
                       size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (size_t d = 0; d < o->ndims && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s=%lld", d ? " " : "",
                          o->dims[d].name, (long long)p->v[d]);
}

/* Counts e's GPU's measurements (--gpus), and when they came. */
static void count_gpu(tool *o, const ks_tune_entry *e) {
  if (e->stored || e->cls == KS_TUNE_NOT_RUN || e->gpu < 0)
    return;
  size_t k = 0;
  while (k < o->ngpus && o->gpus[k] != e->gpu)
    k++;
  if (o->ngpus && k == o->ngpus)
    return;
  if (o->ngpus)
    o->per_gpu[k]++;
  double now = now_ms();
  if (!o->seen[k]++)
    o->first_at[k] = now;
  o->last_at[k] = now;
}

/* How often a GPU's worker answered after its first (its workload made and
 * uploaded, its first kernel loaded), in ms, averaged over the GPUs: what
 * one variant costs a GPU; 0 when none answered twice. */
static double cadence_ms(const tool *o) {
  double sum = 0;
  size_t n = 0;
  for (size_t k = 0; k < KS_TUNE_MAX_GPUS; k++)
    if (o->seen[k] > 1) {
      sum += (o->last_at[k] - o->first_at[k]) / (double)(o->seen[k] - 1);
      n++;
    }
  return n ? sum / (double)n : 0;
}

static int progress(void *arg, size_t done, size_t total,
                    const ks_tune_entry *e) {
  tool *o = arg;
  enum { W = 30 };
  char bar[W + 1], gpus[256] = "";
  size_t fill = total ? done * W / total : W, n = 0;
  for (size_t i = 0; i < W; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[W] = '\0';
  count_gpu(o, e);
  for (size_t k = 0; k < o->ngpus && n < sizeof gpus; k++)
    n += (size_t)snprintf(gpus + n, sizeof gpus - n, " gpu%d:%zu", o->gpus[k],
                          o->per_gpu[k]);
  fprintf(stderr, "\r[%s] %zu/%zu%s%s", bar, done, total, gpus,
          done == total ? "\n" : "");
  return interrupted;
}

static int no_progress(void *arg, size_t done, size_t total,
                       const ks_tune_entry *e) {
  (void)done;
  (void)total;
  count_gpu(arg, e);
  return interrupted;
}

/* Where the sweep's time went (the set-up is the tool's; the rest the
 * library's phases); the total, less the phases, is the rest: the store
 * (the workers' exits are not waited for). */
static void print_times(FILE *f, const tool *o, const ks_tune_result *r) {
  fprintf(f,
          "time: set-up %.2f s, compiles %.2f s, figures %.2f s (while the "
          "workers open their GPUs), workers ready +%.2f s, measuring %.2f s "
          "(a variant every %.1f ms a GPU after its first), finalists %.2f "
          "s; total %.2f s\n",
          o->setup_ms / 1e3, r->compile_ms / 1e3, r->figures_ms / 1e3,
          r->start_ms / 1e3, r->measure_ms / 1e3, cadence_ms(o),
          r->finalists_ms / 1e3, o->total_ms / 1e3);
}

static void print_table(const tool *o, const ks_tune_result *r,
                        const ks_tune_entry *def) {
  printf("%-4s %-32s %-14s %9s %9s %9s %5s %4s %5s  %s\n", "#", "variant",
         "class", "median", "min", "max", "runs", "regs", "warps", "reason");
  for (size_t i = 0; i < r->n; i++) {
    const ks_tune_entry *e = &r->entries[i];
    char pt[128];
    point_text(o, &e->point, pt, sizeof pt);
    printf("%-4zu %-32s %-14s", i, pt, ks_tune_class_name(e->cls));
    if (e->cls == KS_TUNE_MEASURED)
      printf(" %9.4f %9.4f %9.4f %5u", e->median, e->min, e->max, e->runs);
    else
      printf(" %9s %9s %9s %5s", "-", "-", "-", "-");
    char gpu[32] = "";
    if (e->gpu >= 0 && o->ngpus)
      snprintf(gpu, sizeof gpu, "[gpu %d%s] ", e->gpu,
               e->finalist ? ", finalist" : "");
    printf(" %4d %5d  %s%s%s%s\n", e->regs, e->warps, gpu,
           e->stored ? "(stored) " : "", e->reason,
           (long)i == r->best ? " <- best" : "");
  }
  if (r->best >= 0) {
    const ks_tune_entry *b = &r->entries[r->best];
    char pt[128];
    point_text(o, &b->point, pt, sizeof pt);
    printf("best: #%ld %s threads=%u: %.4f ms (IQR %.4f)", r->best, pt,
           b->point.threads, b->median, b->q3 - b->q1);
    if (def && def->cls == KS_TUNE_MEASURED) {
      printf("; default (no bounds, %u threads): %.4f ms, gain %.1f%%",
             def->point.threads, def->median,
             100.0 * (def->median - b->median) / def->median);
      if (def->median < b->median)
        printf("; no variant beat the default: keep it");
    }
    printf("\n");
  } else {
    printf("best: none (no variant measured)\n");
  }
  printf("measured %zu, reused %zu; store %s\n", r->measured, r->reused,
         r->store[0] ? r->store : "(none)");
  if (o->ngpus) {
    printf("gpus:");
    for (size_t k = 0; k < o->ngpus; k++)
      printf(" %d (%zu measured)", o->gpus[k], o->per_gpu[k]);
    printf("; %zu finalists measured again on GPU %d\n", r->finalists,
           o->gpus[0]);
  }
  print_times(stdout, o, r);
}

static void print_csv(const tool *o, const ks_tune_result *r) {
  printf("index");
  for (size_t d = 0; d < o->ndims; d++)
    printf(",%s", o->dims[d].name);
  printf(",threads,class,median_ms,min_ms,max_ms,q1_ms,q3_ms,runs,regs,"
         "spills,warps,stored,best,reason\n");
  for (size_t i = 0; i < r->n; i++) {
    const ks_tune_entry *e = &r->entries[i];
    printf("%zu", i);
    for (size_t d = 0; d < o->ndims; d++)
      printf(",%lld", (long long)e->point.v[d]);
    printf(",%u,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%u,%d,%d,%d,%d,%d,\"",
           e->point.threads, ks_tune_class_name(e->cls), e->median, e->min,
           e->max, e->q1, e->q3, e->runs, e->regs, e->spills, e->warps,
           e->stored, (long)i == r->best);
    for (const char *s = e->reason; *s; s++)
      fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, stdout);
    printf("\"\n");
  }
}

static void json_string(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  }
  putchar('"');
}

static void print_json(const tool *o, const ks_tune_result *r) {
  printf("{\"template\": ");
  json_string(o->tmpl);
  printf(", \"best\": %ld, \"measured\": %zu, \"reused\": %zu, \"store\": ",
         r->best, r->measured, r->reused);
  json_string(r->store);
  if (r->baseline && r->baseline->cls == KS_TUNE_MEASURED)
    printf(", \"baseline_ms\": %.6g, \"baseline_threads\": %u",
           r->baseline->median, r->baseline->point.threads);
  printf(", \"setup_ms\": %.6g, \"compile_ms\": %.6g, "
         "\"figures_ms\": %.6g, "
         "\"start_ms\": %.6g, \"measure_ms\": %.6g, \"cadence_ms\": %.6g, "
         "\"finalists_ms\": %.6g, \"total_ms\": %.6g",
         o->setup_ms, r->compile_ms, r->figures_ms, r->start_ms, r->measure_ms,
         cadence_ms(o), r->finalists_ms, o->total_ms);
  printf(", \"variants\": [\n");
  for (size_t i = 0; i < r->n; i++) {
    const ks_tune_entry *e = &r->entries[i];
    printf("  {\"index\": %zu", i);
    for (size_t d = 0; d < o->ndims; d++) {
      printf(", ");
      json_string(o->dims[d].name);
      printf(": %lld", (long long)e->point.v[d]);
    }
    printf(", \"threads\": %u, \"class\": ", e->point.threads);
    json_string(ks_tune_class_name(e->cls));
    printf(", \"median_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, "
           "\"q1_ms\": %.6g, \"q3_ms\": %.6g, \"runs\": %u, \"regs\": %d, "
           "\"spills\": %d, \"warps\": %d, \"stored\": %s, \"gpu\": %d, "
           "\"finalist\": %s, \"reason\": ",
           e->median, e->min, e->max, e->q1, e->q3, e->runs, e->regs, e->spills,
           e->warps, e->stored ? "true" : "false", e->gpu,
           e->finalist ? "true" : "false");
    json_string(e->reason);
    printf("}%s\n", i + 1 < r->n ? "," : "");
  }
  printf("]}\n");
}

/* A gnuplot script (and its data) drawing the measured medians with their
 * min-max range; gnuplot runs it when installed. */
static int plot(const tool *o, const ks_tune_result *r) {
  char dat[1024], gp[1024];
  snprintf(dat, sizeof dat, "%s.dat", o->plot);
  snprintf(gp, sizeof gp, "%s.gp", o->plot);
  FILE *f = fopen(dat, "w");
  if (!f)
    return fprintf(stderr, "kspec: tune: cannot write %s: %s\n", dat,
                   strerror(errno)),
           1;
  for (size_t i = 0; i < r->n; i++) {
    const ks_tune_entry *e = &r->entries[i];
    if (e->cls != KS_TUNE_MEASURED)
      continue;
    char pt[128];
    point_text(o, &e->point, pt, sizeof pt);
    fprintf(f, "%zu \"%s\" %.6g %.6g %.6g\n", i, pt, e->median, e->min, e->max);
  }
  fclose(f);
  if (!(f = fopen(gp, "w")))
    return fprintf(stderr, "kspec: tune: cannot write %s: %s\n", gp,
                   strerror(errno)),
           1;
  fprintf(f,
          "set terminal pngcairo size 1200,600\nset output '%s'\n"
          "set title 'kspec tune %s'\nset ylabel 'ms'\n"
          "set xtics rotate by -45 font ',8'\nset grid ytics\n"
          "plot '%s' using 0:3:4:5:xtic(2) with yerrorbars title 'median "
          "(min-max)'\n",
          o->plot, o->tmpl, dat);
  fclose(f);
  if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
    fprintf(stderr, "kspec: tune: gnuplot not found; the script is %s\n", gp);
    return 0;
  }
  char cmd[2200];
  snprintf(cmd, sizeof cmd, "gnuplot '%s'", gp);
  if (system(cmd) != 0)
    return fprintf(stderr, "kspec: tune: gnuplot failed on %s\n", gp), 1;
  return 0;
}

/* ---- --show ------------------------------------------------------------ */

static int show(void) {
  ks_ctx_opts co = {.no_driver = 1, .arch = "sm_90", .ptx_isa = 85};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&co, &ctx) != KS_OK || !ks_cache_dir(ctx)) {
    fprintf(stderr, "kspec: tune: no cache directory: %s\n",
            ks_ctx_warning(ctx ? ctx : NULL));
    ks_ctx_destroy(ctx);
    return 1;
  }
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tune", ks_cache_dir(ctx));
  ks_ctx_destroy(ctx);
  DIR *d = opendir(dir);
  size_t files = 0;
  struct dirent *de;
  while (d && (de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l < 6 || strcmp(de->d_name + l - 5, ".tune") != 0)
      continue;
    char path[2048], line[4096];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    files++;
    printf("%s\n", path);
    while (fgets(line, sizeof line, f)) {
      int cls;
      char vkey[512];
      double med;
      if (strncmp(line, "key ", 4) == 0 || strncmp(line, "best ", 5) == 0)
        printf("  %s", line);
      else if (sscanf(line, "v %511s %d %*u %lf", vkey, &cls, &med) == 3)
        printf("    %-70s %-14s %.4f ms\n", vkey,
               ks_tune_class_name((ks_tune_class)cls), med);
    }
    fclose(f);
  }
  if (d)
    closedir(d);
  if (!files)
    printf("no stored results in %s\n", dir);
  return 0;
}

/* ---- the sweep ------------------------------------------------------------
 */

/* Loads the template and checks the sweep's names against it. */
static int check_names(tool *o) {
  ks_ctx_opts co = {
      .no_driver = 1, .arch = "sm_90", .ptx_isa = 85, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  int rc = 0;
  if (ks_ctx_create(&co, &ctx) != KS_OK ||
      ks_template_load(ctx, o->tmpl, &t) != KS_OK) {
    fprintf(stderr, "kspec: %s\n", ks_errmsg(ctx));
    rc = 1;
  } else if (!ks_wl_supported(ks_template_name(t))) {
    fprintf(stderr, "kspec: tune: %s: no built-in workload\n", o->tmpl);
    rc = 1;
  }
  for (size_t d = 0; d < o->ndims && !rc; d++) {
    const char *nm = o->dims[d].name;
    int known = strcmp(nm, "maxntid") == 0 || strcmp(nm, "minctasm") == 0 ||
                strcmp(nm, "maxnreg") == 0 || strcmp(nm, "block") == 0 ||
                nm[0] == '@' || /* a position: the library checks it */
                strncmp(nm, "tex:", 4) == 0; /* and the argument */
    for (size_t k = 0; k < ks_template_kernel_count(t) && !known; k++)
      for (size_t i = 0; i < ks_template_param_count(t, k) && !known; i++) {
        ks_param_info info = {.size = sizeof info};
        known = ks_template_param(t, k, i, &info) == KS_OK &&
                strcmp(info.name, nm) == 0;
      }
    if (!known)
      rc = usage_error("--sweep %s: not maxntid, minctasm, maxnreg, block, "
                       "tex:ARG or a parameter of %s",
                       nm, o->tmpl);
  }
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}

static const char inject_ir[] =
    "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define void @ks_fault(ptr %p) {\n"
    "  store volatile i32 1, ptr %p, align 4\n"
    "  ret void\n"
    "}\n"
    "define void @ks_hang(ptr %p) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %v = load volatile i32, ptr %p, align 4\n"
    "  %c = icmp eq i32 %v, 0\n"
    "  br i1 %c, label %loop, label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n"
    "!nvvm.annotations = !{!0, !1}\n"
    "!0 = !{ptr @ks_fault, !\"kernel\", i32 1}\n"
    "!1 = !{ptr @ks_hang, !\"kernel\", i32 1}\n";

/* Compiles the injected kernels (PTX only: the worker loads them). */
static ks_status compile_injected(tool *o) {
  ks_template *t = NULL;
  ks_status s = ks_template_load_mem(o->ctx, "inject", inject_ir,
                                     sizeof inject_ir - 1, &t);
  ks_spec_req fr = {.kernel = "ks_fault"}, hr = {.kernel = "ks_hang"};
  if (s == KS_OK && (s = ks_specialize(o->ctx, t, &fr, &o->fault_k)) == KS_OK)
    s = ks_specialize(o->ctx, t, &hr, &o->hang_k);
  ks_template_destroy(t); /* the kernels stay with the context */
  return s;
}

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* ---- --mpi ----------------------------------------------------------------
 */

#ifdef KSPEC_HAVE_MPI
/* MPI with threads (kspec_mpi's service thread); 0, or the exit status. */
static int mpi_begin(tool *o, int *argc, char ***argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &o->ranks);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (o->rank == 0)
      fprintf(stderr,
              "kspec: tune: --mpi: the MPI library gives no "
              "MPI_THREAD_MULTIPLE (level %d), which kspec_mpi needs\n",
              provided);
    MPI_Finalize();
    return 1;
  }
  if (o->ranks == 1)
    fprintf(stderr, "kspec: tune: --mpi with one rank: measuring on this "
                    "rank alone (start it with mpirun -np N)\n");
  MPI_Comm node;
  o->local = 0;
  o->local_ranks = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                          MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_rank(node, &o->local);
    MPI_Comm_size(node, &o->local_ranks);
    MPI_Comm_free(&node);
  }
  return 0;
}
#endif

/* Under --mpi: every rank stops when one rank's set-up failed (that rank
 * said why), since the others would wait for it in the collective calls
 * ahead. bad: this rank's exit status or 0; returns the job's. */
static int agree(const tool *o, int bad) {
  int worst = bad;
#ifdef KSPEC_HAVE_MPI
  if (o->mpi)
    MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#else
  (void)o;
#endif
  return worst;
}

/* Under --mpi, whether every rank wants to (want: this rank's wish). */
static int all_want(const tool *o, int want) {
  int all = want;
#ifdef KSPEC_HAVE_MPI
  if (o->mpi)
    MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
#else
  (void)o;
#endif
  return all;
}

/* Says a failed sweep's message: under --mpi, a refusal of rank 0's plan
 * only on rank 0, whose message names the rank and the cause. */
static void say_failure(const tool *o, const char *msg) {
  if (!o->mpi)
    fprintf(stderr, "kspec: %s\n", msg);
  else if (o->rank == 0 || !strstr(msg, "rank 0 refused the sweep"))
    fprintf(stderr, "kspec: rank %d: %s\n", o->rank, msg);
}

/* ks_tune, or with --mpi ks_tune_mpi over the ranks sharing compiles
 * (each rank on GPU local_rank % the list's length); its status, and its
 * message in why (cap bytes). */
static ks_status run_tune(tool *o, ks_template *t, const ks_tune_space *sp,
                          const ks_tune_opts *to, ks_tune_result *r, char *why,
                          size_t cap) {
#ifdef KSPEC_HAVE_MPI
  if (o->mpi) {
    ks_status s = ks_ctx_share_mpi(o->ctx, MPI_COMM_WORLD);
    if (s == KS_OK)
      s = ks_tune_mpi(o->ctx, t, sp, to, MPI_COMM_WORLD, r);
    snprintf(why, cap, "%s", ks_errmsg_mpi(o->ctx));
    return s;
  }
#endif
  ks_status s = ks_tune(o->ctx, t, sp, to, r);
  snprintf(why, cap, "%s", ks_errmsg(o->ctx));
  return s;
}

/* The context, template, checker and workload for a sweep compiled for
 * arch and ptx; 0, or 1 after saying what failed. */
static int set_up(tool *o, const char *arch, unsigned ptx, ks_template **t) {
  ks_ctx_opts co = {.arch = arch, .ptx_isa = ptx};
  if (ks_ctx_create(&co, &o->ctx) != KS_OK ||
      ks_template_load(o->ctx, o->tmpl, t) != KS_OK) {
    fprintf(stderr, "kspec: %s\n", ks_errmsg(o->ctx));
    return 1;
  }
  o->t = *t;
  if ((o->inject_fault >= 0 || o->inject_hang >= 0) &&
      compile_injected(o) != KS_OK) {
    fprintf(stderr, "kspec: %s\n", ks_errmsg(o->ctx));
    return 1;
  }
  /* Compiled here, before the workers fork: each variant's output is then
   * compared on its GPU, not read back to this host (workloads.h). */
  char why[256];
  if (ks_wl_compile_checker(o->ctx, &o->checker, why, sizeof why) != KS_OK &&
      o->rank == 0)
    fprintf(stderr,
            "kspec: tune: note: %s; outputs are compared on the "
            "host\n",
            why);
  prepare_workload(o);
  return 0;
}

/* Ends what set_up made. */
static void tear_down(tool *o, ks_template *t) {
  ks_wl_destroy(o->wl); /* prepared here, never on a device */
  o->wl = NULL;
  ks_template_destroy(t);
  ks_ctx_destroy(o->ctx);
  o->ctx = NULL;
  o->t = NULL;
  o->checker = o->fault_k = o->hang_k = NULL;
}

/* Prints r as asked (rank 0); the exit status. */
static int report_sweep(tool *o, ks_tune_result *r) {
  int rc = 0;
  if (o->rank != 0)
    return 0; /* rank 0 prints */
  if (o->json)
    print_json(o, r);
  else if (o->csv) {
    print_csv(o, r);
    print_times(stderr, o, r);
  } else
    print_table(o, r, r->baseline);
  rc = o->plot ? plot(o, r) : 0;
  if (interrupted) {
    fprintf(stderr, "kspec: tune: interrupted; stored results resume\n");
    rc = 1;
  }
  return rc;
}

/* One sweep compiled for arch and ptx: 0 or the exit status; *again set
 * (with arch and ptx, cap bytes, the GPUs' target) when the GPUs cannot
 * run that code and every rank would compile again for them. */
static int sweep_for(tool *o, char *arch, size_t cap, unsigned *ptx,
                     int *again) {
  ks_template *t = NULL;
  double t0 = now_ms();
  int rc = agree(o, set_up(o, arch, *ptx, &t));
  o->setup_ms = now_ms() - t0;
  if (rc) {
    tear_down(o, t);
    return rc;
  }
  char problem[64];
  snprintf(problem, sizeof problem, "size=%zu", o->size);
  int bar = isatty(2) && !o->json && !o->csv && o->rank == 0;
  /* Without --gpus, GPU 0 all the same: its worker forks before the
   * compiles and opens it meanwhile, and a machine without one says so. */
  static const int gpu0 = 0;
  ks_tune_space sp = {.kernel = o->kernel,
                      .fixed = o->defs,
                      .nfixed = o->ndefs,
                      .dims = o->dims,
                      .ndims = o->ndims,
                      .fp = o->fp};
  ks_tune_opts to = {.measure = measure,
                     .check = check,
                     .arg = o,
                     .isolate = 1,
                     .timeout_ms = o->timeout_ms,
                     .problem = problem,
                     .fresh = o->fresh,
                     .baseline = 1, /* the gain over no bounds */
                     .progress = bar ? progress : no_progress,
                     .gpus = o->ngpus ? o->gpus
                             : o->mpi ? NULL
                                      : &gpu0,
                     .ngpus = o->ngpus ? o->ngpus : !o->mpi,
                     .worker_init = worker_init};
  signal(SIGINT, on_sigint);
  ks_tune_result r = {.size = sizeof r};
  char why[1024];
  ks_status s = run_tune(o, t, &sp, &to, &r, why, sizeof why);
  o->total_ms = now_ms() - o->start_ms;
  rc = s == KS_OK ? report_sweep(o, &r) : 1;
  /* code the GPUs cannot run, for a target they can: compiled again for
   * it (the PTX ISA alone where --arch chose the architecture) */
  int differs = r.ptx_isa != *ptx || (!o->arch && strcmp(r.arch, arch) != 0);
  if (all_want(o, s != KS_OK && r.arch[0] && differs)) {
    if (o->arch)
      snprintf(r.arch, sizeof r.arch, "%s", o->arch);
    if (o->rank == 0)
      fprintf(stderr,
              "kspec: tune: %s runs %s code (PTX ISA %u.%u), not %s: "
              "compiling again for it\n",
              r.device, r.arch, r.ptx_isa / 10, r.ptx_isa % 10, arch);
    snprintf(arch, cap, "%s", r.arch);
    *ptx = r.ptx_isa;
    *again = 1;
  } else if (s != KS_OK) {
    say_failure(o, why);
  }
  ks_tune_result_free(&r);
  tear_down(o, t);
  return rc;
}

/* The target compiled for before any worker has said what its GPU is:
 * --arch (PTX ISA 8.5, LLVM 19's newest), else sm_90 and 8.5, what Hopper
 * and later GPUs run (LLVM 19 knows none newer). A GPU that cannot run it
 * (an sm_80, a driver older than CUDA 12.4) says so in its worker's hello,
 * before anything is measured, and the sweep is compiled again for it:
 * no process opens the GPUs only to ask what they are. */
static int sweep(tool *o) {
  char arch[16];
  unsigned ptx = 85;
  snprintf(arch, sizeof arch, "%s", o->arch ? o->arch : "sm_90");
  o->start_ms = now_ms();
  if (o->all_gpus && !o->mpi) {
    int n = count_gpus();
    if (n <= 0) {
      fprintf(stderr, "kspec: tune: --gpus all: the driver has no GPU to "
                      "measure on\n");
      return 1;
    }
    for (int g = 0; g < n; g++)
      o->gpus[o->ngpus++] = g;
  }
  int again = 0;
  int rc = sweep_for(o, arch, sizeof arch, &ptx, &again);
  if (again) {
    memset(o->per_gpu, 0, sizeof o->per_gpu);
    memset(o->seen, 0, sizeof o->seen);
    again = 0;
    rc = sweep_for(o, arch, sizeof arch, &ptx, &again);
  }
  return rc;
}

int kspec_tune_main(int argc, char **argv) {
  tool o = {.timeout_ms = 10000, .inject_fault = -1, .inject_hang = -1};
  int rc = parse(&o, argc, argv);
  if (rc)
    return rc < 0 ? 0 : rc;
  if (o.show)
    return show();
  if ((rc = check_names(&o)) != 0)
    return rc;
#ifdef KSPEC_HAVE_MPI
  if (o.mpi && (rc = mpi_begin(&o, &argc, &argv)) != 0)
    return rc;
  rc = sweep(&o);
  if (o.mpi)
    MPI_Finalize();
  return rc;
#else
  return sweep(&o);
#endif
}
