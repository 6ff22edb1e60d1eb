/*
 * kspec_latency.c - cold specialization latency without a GPU.
 *
 *   kspec-latency [--reps N] [--arch sm_XX] [--ptx-isa N] [--ptx DIR]
 *                 [--stages] [--no-block]
 *                 [TEMPLATE[:NAME=VALUE[,NAME=VALUE...]] ...]
 *
 * Each repetition specializes every requested template once, each in a
 * fresh context (so no cache), template loading left out of the timing;
 * the templates take turns so that load on the machine spreads over all of
 * them. One untimed round first warms LLVM up. Prints the median and the
 * minimum wall time per template, and the median CPU time of the calling
 * thread (steadier than wall time on a shared machine). Parameters not given
 * take their defaults; the block is the one the workloads use (256 threads; 32
 * x 8 for the separable filters; what BLOCK or TILE fix), or none with
 * --no-block (values bound, the passes that need a block decline). With --ptx,
 * the PTX of each from the last round is written to DIR/LABEL.ptx; with
 * --stages, the median time of every pipeline stage follows each template's
 * line. The disk cache is off and no driver is ever opened. A context held
 * for the whole run keeps LLVM's pools (target machines, prepared
 * templates) from one repetition to the next, as a program that keeps a
 * context has them (the last context's end empties them). LLVM's options
 * are set (ks_llvm_own_process) unless KSPEC_LLVM_OPTIONS=off.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kspec.h"
#include "workload_block.h"

enum { MAX_RUNS = 32, MAX_REPS = 1000, MAX_BIND = 8, MAX_STAGES = 24 };

typedef struct run {
  char label[128];
  char name[64];
  char text[MAX_BIND][64]; /* NAME=VALUE */
  size_t ntext;
  double *t;   /* wall ms */
  double *cpu; /* this thread's CPU ms: steadier on a busy machine */
  /* --stages: ms per pipeline stage, from the explain text's time line */
  char stage[MAX_STAGES][24];
  size_t nstage;
  double *st[MAX_STAGES];
} run;

static int want_stages;
static int no_block; /* --no-block: bind values only */

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int parse_run(const char *arg, run *r) {
  memset(r, 0, sizeof *r);
  snprintf(r->label, sizeof r->label, "%s", arg);
  for (char *c = r->label; *c; c++)
    if (*c == ':' || *c == ',' || *c == '=')
      *c = *c == '=' ? '=' : '_';
  const char *colon = strchr(arg, ':');
  size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
  if (n == 0 || n >= sizeof r->name)
    return 1;
  memcpy(r->name, arg, n);
  for (const char *p = colon ? colon + 1 : NULL; p && *p;) {
    const char *e = strchr(p, ',');
    size_t m = e ? (size_t)(e - p) : strlen(p);
    if (r->ntext == MAX_BIND || m == 0 || m >= sizeof r->text[0])
      return 1;
    memcpy(r->text[r->ntext++], p, m);
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* One cold specialization; ms < 0 on failure (message printed). */
/* Keeps the stage times of repetition rep from explain's line "time: input
 * 0.2, inline 0.7, ..., codegen 18.7 ms" (stages under 0.05 ms are left out
 * of that line and count 0). */
static int record_stages(run *r, const char *explain, int rep, int reps) {
  const char *p = strstr(explain, "time: ");
  if (!p)
    return 1;
  for (p += 6; *p && *p != '\n';) {
    char name[24];
    double ms;
    int used = 0;
    if (sscanf(p, "%23[a-z_] %lf%n", name, &ms, &used) != 2)
      return 1;
    size_t s = 0;
    while (s < r->nstage && strcmp(r->stage[s], name) != 0)
      s++;
    if (s == r->nstage) {
      if (s == MAX_STAGES || !(r->st[s] = calloc((size_t)reps, sizeof(double))))
        return 1;
      snprintf(r->stage[s], sizeof r->stage[s], "%s", name);
      r->nstage++;
    }
    r->st[s][rep] = ms;
    p += used;
    if (strncmp(p, ", ", 2) != 0)
      break;
    p += 2;
  }
  return 0;
}

static double once(const ks_ctx_opts *o, run *r, const char *ptx_dir,
                   double *cpu, int rep, int reps) {
  ks_ctx *ctx = NULL;
  ks_template *tp = NULL;
  ks_kernel *k = NULL;
  double dt = -1;
  if (ks_ctx_create(o, &ctx) != KS_OK ||
      ks_template_load(ctx, r->name, &tp) != KS_OK) {
    fprintf(stderr, "kspec-latency: %s: %s\n", r->label, ks_errmsg(ctx));
    goto out;
  }
  ks_binding b[MAX_BIND * 2];
  char names[MAX_BIND * 2][64];
  size_t nb = 0;
  for (size_t i = 0; i < r->ntext; i++)
    if (ks_binding_parse(r->text[i], &b[nb], names[nb], sizeof names[nb]) ==
        KS_OK)
      nb++;
  /* defaults for the rest */
  for (size_t i = 0; i < ks_template_param_count(tp, 0) && nb < MAX_BIND * 2;
       i++) {
    ks_param_info p = {.size = sizeof p};
    ks_template_param(tp, 0, i, &p);
    int given = !p.marked; /* the others have no default */
    for (size_t j = 0; j < nb; j++)
      given |= strcmp(b[j].name, p.name) == 0;
    if (!given)
      b[nb++] =
          (ks_binding){.name = p.name, .kind = KS_VALUE_REAL, .v.f = p.def};
  }
  ks_spec_req req = {.bindings = b, .nbindings = nb};
  if (!no_block)
    ks_workload_block(r->name, &req.bounds);
  double c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
  double t0 = clock_ms(CLOCK_MONOTONIC);
  ks_status s = ks_specialize(ctx, tp, &req, &k);
  double t1 = clock_ms(CLOCK_MONOTONIC);
  *cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
  if (s != KS_OK) {
    fprintf(stderr, "kspec-latency: %s: %s\n", r->label, ks_errmsg(ctx));
    goto out;
  }
  dt = t1 - t0;
  if (want_stages && rep >= 0 &&
      record_stages(r, ks_kernel_explain(k), rep, reps) != 0) {
    fprintf(stderr, "kspec-latency: %s: no stage times in explain\n", r->label);
    dt = -1;
  }
  if (ptx_dir) {
    const char *ptx = NULL;
    size_t len = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.ptx", ptx_dir, r->label);
    FILE *f = fopen(path, "w");
    if (!f || ks_kernel_ptx(k, &ptx, &len) != KS_OK ||
        fwrite(ptx, 1, len, f) != len) {
      fprintf(stderr, "kspec-latency: cannot write %s\n", path);
      dt = -1;
    }
    if (f)
      fclose(f);
  }
out:
  ks_template_destroy(tp);
  ks_ctx_destroy(ctx);
  return dt;
}

int main(int argc, char **argv) {
  static const char *const builtin[] = {"conv1d",         "sepfilter_rows",
                                        "sepfilter_cols", "histogram",
                                        "reduce_sum",     "transpose"};
  static run runs[MAX_RUNS];
  size_t nruns = 0;
  int reps = 50;
  const char *ptx_dir = NULL;
  /* This process runs no LLVM code but kspec's: LLVM's options for faster
   * codegen may be set (KSPEC_LLVM_OPTIONS=off: as a host program gets by
   * default; include/kspec.h, ks_llvm_own_process). */
  const char *lo = getenv("KSPEC_LLVM_OPTIONS");
  if (!lo || strcmp(lo, "off") != 0)
    ks_llvm_own_process();
  /* cold: no disk cache, or every run after the first would be a hit */
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
      o.arch = argv[++i];
    else if (strcmp(argv[i], "--ptx-isa") == 0 && i + 1 < argc)
      o.ptx_isa = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--ptx") == 0 && i + 1 < argc)
      ptx_dir = argv[++i];
    else if (strcmp(argv[i], "--stages") == 0)
      want_stages = 1;
    else if (strcmp(argv[i], "--no-block") == 0)
      no_block = 1;
    else if (argv[i][0] != '-' && nruns < MAX_RUNS &&
             parse_run(argv[i], &runs[nruns]) == 0)
      nruns++;
    else {
      fprintf(stderr, "usage: kspec-latency [--reps N] [--arch sm_XX] "
                      "[--ptx-isa N] [--ptx DIR] [--stages] [--no-block]\n"
                      "                     [TEMPLATE[:NAME=V,...] ...]\n");
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS)
    reps = 50;
  for (size_t i = 0; nruns == 0 && i < sizeof builtin / sizeof builtin[0]; i++)
    parse_run(builtin[i], &runs[i]);
  if (nruns == 0)
    nruns = sizeof builtin / sizeof builtin[0];
  for (size_t j = 0; j < nruns; j++)
    if (!(runs[j].t = malloc((size_t)reps * sizeof *runs[j].t)) ||
        !(runs[j].cpu = malloc((size_t)reps * sizeof *runs[j].cpu)))
      return 1;
  ks_ctx *hold = NULL; /* keeps LLVM's pools between the fresh contexts */
  if (ks_ctx_create(&o, &hold) != KS_OK) {
    fprintf(stderr, "kspec-latency: %s\n", ks_errmsg(NULL));
    return 1;
  }
  for (int i = -1; i < reps; i++) /* i == -1 warms LLVM up */
    for (size_t j = 0; j < nruns; j++) {
      double cpu = 0;
      double dt =
          once(&o, &runs[j], i == reps - 1 ? ptx_dir : NULL, &cpu, i, reps);
      if (dt < 0)
        return 1;
      if (i >= 0) {
        runs[j].t[i] = dt;
        runs[j].cpu[i] = cpu;
      }
    }
  printf("%-28s %9s %9s %9s  (ms, %d cold runs each, %s, PTX ISA %u%s)\n",
         "template", "median", "min", "cpu med", reps, o.arch, o.ptx_isa,
         lo && strcmp(lo, "off") == 0 ? ", KSPEC_LLVM_OPTIONS=off" : "");
  for (size_t j = 0; j < nruns; j++) {
    double med = median(runs[j].t, reps);
    printf("%-28s %9.3f %9.3f %9.3f\n", runs[j].label, med, runs[j].t[0],
           median(runs[j].cpu, reps));
    for (size_t s = 0; s < runs[j].nstage; s++) {
      printf("  %-26s %9.3f\n", runs[j].stage[s], median(runs[j].st[s], reps));
      free(runs[j].st[s]);
    }
    free(runs[j].t);
    free(runs[j].cpu);
  }
  ks_ctx_destroy(hold);
  return 0;
}
