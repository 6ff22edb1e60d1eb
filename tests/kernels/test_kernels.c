/*
 * test_kernels.c - the kernel corpus on the CPU (no driver):
 *
 *   test_kernels MANIFEST DIR names|nonames
 *
 * For every MANIFEST case, in DIR's bitcode of the variant (NAME.bc, or
 * NAME.nonames.bc: plain -O3 without value names, what users get by
 * default): the kernel loads, specializes generic, with its block, and
 * with its block and scalar arguments bound as bind= says (by position;
 * in the named variant by name too, which must give the very same kernel:
 * one cache key), and ptxas takes each PTX; its gset/gget globals are
 * the template's, of at least MANIFEST's size. Then every other kernel of
 * every bitcode file loads and specializes generic. Each failure is one
 * line naming the case (or file and kernel) and kspec's message; the exit
 * status is 1 when any failed, 77 (skipped) when DIR holds no corpus
 * bitcode at all (no CUDA 12.4 tree: tools/cuda-tree.sh). With
 * KS_CORPUS_EXPLAIN set, what the passes said of each case's three
 * specializations comes too (tools/corpus_passes.sh counts it); with
 * KS_CORPUS_OCCUPANCY, ptxas's registers, spills and warps per SM of the
 * generic and the bound kernel and what the never-slower guard did; with
 * KS_CORPUS_OWN_LLVM, LLVM's options are set as in the static build that
 * the GPU runs use (ks_llvm_own_process); with KS_CORPUS_PTX=DIR, each
 * case's generic and bound PTX are written there.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kspec.h"
#include "manifest.h"

enum { SKIP = 77, MAX_FILES = 128 };

typedef struct run {
  ks_ctx *ctx;
  const char *dir, *suffix; /* ".bc" or ".nonames.bc" */
  int named;
  int ptxas; /* 1 found, 0 not (yet) known, -1 missing */
  int failed;
  char *files[MAX_FILES]; /* stems of DIR's bitcode, "transpose" */
  ks_template *tpl[MAX_FILES];
  size_t nfiles;
} run;

static void fail(run *r, const char *who, const char *what, const char *msg) {
  printf("FAIL %s: %s: %s\n", who, what, msg);
  r->failed = 1;
}

/* With KS_CORPUS_DUMP=DIR, a PTX that ptxas refused goes to DIR/WHO.ptx
 * (the case's name, or the file and kernel), for a bug report. */
static void dump_ptx(const ks_kernel *k, const char *who) {
  const char *dir = getenv("KS_CORPUS_DUMP"), *ptx = NULL;
  size_t len = 0;
  char path[4096];
  if (!dir || ks_kernel_ptx(k, &ptx, &len) != KS_OK)
    return;
  snprintf(path, sizeof path, "%s/%.*s.ptx", dir, (int)strcspn(who, " "), who);
  FILE *f = fopen(path, "w");
  if (f) {
    fwrite(ptx, 1, len, f);
    fclose(f);
    printf("     PTX in %s\n", path);
  }
}

/* With KS_CORPUS_PTX=DIR, every case's generic and bound PTX go to
 * DIR/CASE.generic.ptx and DIR/CASE.bound.ptx (for comparing their SASS
 * with nvcc's: tools/link_sass.sh). */
static void save_ptx(const ks_kernel *k, const char *who, const char *mode) {
  const char *dir = getenv("KS_CORPUS_PTX"), *ptx = NULL;
  size_t len = 0;
  char path[4096];
  if (!dir || ks_kernel_ptx(k, &ptx, &len) != KS_OK)
    return;
  snprintf(path, sizeof path, "%s/%s.%s.ptx", dir, who, mode);
  FILE *f = fopen(path, "w");
  if (f) {
    fwrite(ptx, 1, len, f);
    fclose(f);
  }
}

/* With KS_CORPUS_EXPLAIN set, what the passes said of k, one line each:
 * "explain CASE MODE pass: text" (tools/corpus_passes.sh counts them). */
static void explain(const ks_kernel *k, const char *who, const char *mode) {
  if (!getenv("KS_CORPUS_EXPLAIN"))
    return;
  for (const char *l = ks_kernel_explain(k); l && *l;) {
    size_t n = strcspn(l, "\n");
    printf("explain %.*s %s %.*s\n", (int)strcspn(who, " "), who, mode, (int)n,
           l);
    l += n + (l[n] == '\n');
  }
}

/* ptxas on k's PTX (KS_RES_PTXAS). 0: taken or no ptxas; -1: refused. */
static int assemble(run *r, ks_kernel *k, const char *who, const char *what,
                    int *regs) {
  ks_kernel_resources res = {.size = sizeof res};
  *regs = -1;
  if (r->ptxas < 0)
    return 0;
  ks_status s = ks_kernel_resources_get(k, KS_RES_PTXAS, &res);
  if (s == KS_ENODRIVER && r->ptxas == 0) {
    printf("note: no ptxas (%s): PTX not assembled\n", ks_errmsg(r->ctx));
    r->ptxas = -1;
    return 0;
  }
  if (s != KS_OK) {
    fail(r, who, what, ks_errmsg(r->ctx));
    dump_ptx(k, who);
    return -1;
  }
  r->ptxas = 1;
  *regs = res.regs;
  return 0;
}

/* The template of a .cu's stem, loaded once; NULL after a failure. */
static ks_template *template_of(run *r, const char *stem, const char *who) {
  for (size_t i = 0; i < r->nfiles; i++)
    if (!strcmp(r->files[i], stem))
      return r->tpl[i];
  fail(r, who, "load", "no such bitcode in the corpus build");
  return NULL;
}

static void load_all(run *r) {
  for (size_t i = 0; i < r->nfiles; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", r->dir, r->files[i], r->suffix);
    if (ks_template_load(r->ctx, path, &r->tpl[i]) != KS_OK) {
      fail(r, path, "load", ks_errmsg(r->ctx));
      r->tpl[i] = NULL;
    }
  }
}

/* The stems of DIR's files of the variant, sorted. */
static int list_files(run *r) {
  DIR *d = opendir(r->dir);
  if (!d)
    return -1;
  for (struct dirent *e; (e = readdir(d)) && r->nfiles < MAX_FILES;) {
    size_t n = strlen(e->d_name), sl = strlen(r->suffix);
    if (n <= sl || strcmp(e->d_name + n - sl, r->suffix))
      continue;
    if (r->named && n > 11 && !strcmp(e->d_name + n - 11, ".nonames.bc"))
      continue;
    r->files[r->nfiles] = strndup(e->d_name, n - sl);
    if (r->files[r->nfiles])
      r->nfiles++;
  }
  closedir(d);
  for (size_t i = 1; i < r->nfiles; i++)
    for (size_t j = i; j > 0 && strcmp(r->files[j - 1], r->files[j]) > 0; j--) {
      char *x = r->files[j];
      r->files[j] = r->files[j - 1];
      r->files[j - 1] = x;
    }
  return 0;
}

#ifdef KS_HAVE_BIND_ARG
/* The bindings of c's bound scalars into b (by position, or by their IR
 * names when names is set: NULL where the template has no name, which
 * fails); wrap: unsigned values above the signed maximum as the signed
 * value of their bits (km_wrap_signed). Returns their number, or -1. */
static int bindings(const km_case *c, const char *const *names, int wrap,
                    ks_binding *b) {
  int n = 0;
  for (size_t i = 0; i < c->nargs; i++) {
    if (!km_binds(c, i, names))
      continue;
    const km_arg *a = &c->args[i];
    ks_binding x = {.arg = (int)i};
    if (names) {
      if (!names[i])
        return -1;
      x.name = names[i];
    }
    x.kind = km_type_float(a->type) ? KS_VALUE_REAL : KS_VALUE_INT;
    if (x.kind == KS_VALUE_REAL)
      x.v.f = a->f;
    else if (!wrap || !km_wrap_signed(a, &x.v.i))
      x.v.i = a->i;
    b[n++] = x;
  }
  return n;
}

/* Whether some bound scalar of c has a value km_wrap_signed changes. */
static int wraps(const km_case *c) {
  int64_t v;
  for (size_t i = 0; i < c->nargs; i++)
    if (km_binds(c, i, NULL) && km_wrap_signed(&c->args[i], &v))
      return 1;
  return 0;
}

/* names[i]: the IR name of scalar argument i of kernel sym, or NULL. */
static void arg_names(const ks_template *t, const char *sym,
                      const char **names) {
  for (size_t k = 0; k < ks_template_kernel_count(t); k++) {
    if (strcmp(ks_template_kernel_name(t, k), sym))
      continue;
    for (size_t p = 0; p < ks_template_param_count(t, k); p++) {
      ks_param_info pi = {.size = sizeof pi};
      if (ks_template_param(t, k, p, &pi) == KS_OK &&
          pi.arg_index < KM_MAX_ARGS && pi.name && pi.name[0])
        names[pi.arg_index] = pi.name;
    }
  }
}

/* The bound request, by position and (named variant) by name. An
 * unsigned value the IR's signed type cannot hold (KS_ERANGE) is bound
 * again as its bits, with a note: what a user must do too. */
static ks_kernel *bound(run *r, const km_case *c, const ks_template *t,
                        ks_spec_req req, int *nb) {
  ks_binding b[KM_MAX_ARGS];
  ks_kernel *k = NULL, *kn = NULL;
  int wrap = 0;
  *nb = bindings(c, NULL, 0, b);
  req.bindings = b;
  req.nbindings = (size_t)*nb;
  ks_status s = ks_specialize(r->ctx, t, &req, &k);
  if (s == KS_ERANGE && wraps(c)) {
    printf("note: %s: %s; bound as the signed value of its bits\n", c->name,
           ks_errmsg(r->ctx));
    wrap = 1;
    bindings(c, NULL, 1, b);
    s = ks_specialize(r->ctx, t, &req, &k);
  }
  if (s != KS_OK) {
    fail(r, c->name, "specialize, scalars bound by position",
         ks_errmsg(r->ctx));
    return NULL;
  }
  if (!r->named || *nb == 0)
    return k;
  const char *names[KM_MAX_ARGS] = {0};
  arg_names(t, ks_kernel_name(k), names);
  if (bindings(c, names, wrap, b) != *nb) {
    fail(r, c->name, "bind by name", "a bound argument has no name in the IR");
    return k;
  }
  if (ks_specialize(r->ctx, t, &req, &kn) != KS_OK)
    fail(r, c->name, "specialize, scalars bound by name", ks_errmsg(r->ctx));
  else if (kn != k)
    fail(r, c->name, "bind by name",
         "not the kernel the same binding by position gave (two cache keys)");
  return k;
}
#endif

#ifdef KS_HAVE_GLOBALS
/* The case's gset/gget globals are the template's, at least as large as
 * MANIFEST says; a gget one (read back after the run) is written by the
 * template's code. */
static int check_globals(run *r, const km_case *c, const ks_template *t) {
  for (size_t g = 0; g < c->nglobals; g++) {
    const km_global *m = &c->globals[g];
    ks_global_info gi = {.size = sizeof gi};
    size_t i = 0, n = ks_template_global_count(t);
    for (; i < n; i++)
      if (ks_template_global(t, i, &gi) == KS_OK && !strcmp(gi.name, m->name))
        break;
    char why[256];
    if (i == n)
      snprintf(why, sizeof why, "the template has no global '%s'", m->name);
    else if (gi.bytes < m->n * km_type_size(m->type))
      snprintf(why, sizeof why, "'%s' is %s, %zu bytes; MANIFEST says %s[%zu]",
               m->name, gi.type, gi.bytes, km_type_name(m->type), m->n);
    else if (!m->set && !gi.written)
      snprintf(why, sizeof why, "'%s' is read back but nothing writes it",
               m->name);
    else
      continue;
    fail(r, c->name, "globals", why);
    return -1;
  }
  return 0;
}
#endif

#ifdef KS_HAVE_BIND_ARG
/* The line of k's explanation that starts with what ("guard: "), in buf,
 * or "-". */
static const char *line_of(const ks_kernel *k, const char *what, char *buf,
                           size_t cap) {
  const char *e = ks_kernel_explain(k), *l = e ? strstr(e, what) : NULL;
  while (l && l != e && l[-1] != '\n')
    l = strstr(l + 1, what);
  snprintf(buf, cap, "%.*s", l ? (int)strcspn(l, "\n") : 1, l ? l : "-");
  return buf;
}

/* With KS_CORPUS_OCCUPANCY set (and ptxas): resident warps per SM at the
 * case's block of the generic kernel kg and the bound one kb, from ptxas's
 * registers and spills, with kspec's estimate and what the never-slower
 * guard did to kb (its explanation's line, which has ptxas's figures
 * before and after; "-" where it did not look). One line: "occupancy CASE
 * regs G/B spills G/B est E warps G/B guard: ...". */
static void occupancy(run *r, const km_case *c, ks_kernel *kg, ks_kernel *kb) {
  unsigned th = c->block[0] * (c->block[1] ? c->block[1] : 1) *
                (c->block[2] ? c->block[2] : 1);
  ks_occupancy og = {.size = sizeof og}, ob = {.size = sizeof ob};
  ks_kernel_resources rg = {.size = sizeof rg}, rb = {.size = sizeof rb};
  ks_kernel_info ib = {.size = sizeof ib};
  char guard[1024];
  if (!getenv("KS_CORPUS_OCCUPANCY") || r->ptxas < 0 ||
      ks_kernel_occupancy(kg, th, c->smem, KS_RES_PTXAS, &og) != KS_OK ||
      ks_kernel_occupancy(kb, th, c->smem, KS_RES_PTXAS, &ob) != KS_OK ||
      ks_kernel_resources_get(kg, KS_RES_PTXAS, &rg) != KS_OK ||
      ks_kernel_resources_get(kb, KS_RES_PTXAS, &rb) != KS_OK ||
      ks_kernel_info_get(kb, &ib) != KS_OK)
    return;
  printf("occupancy %s regs %d/%d spills %d/%d est %d warps %d/%d %s\n",
         c->name, rg.regs, rb.regs, rg.spill_stores + rg.spill_loads,
         rb.spill_stores + rb.spill_loads, ib.est_regs, og.warps_per_sm,
         ob.warps_per_sm, line_of(kb, "guard: ", guard, sizeof guard));
}
#endif

/* One MANIFEST case: generic, with its block, with its scalars bound. */
static void check_case(run *r, const km_case *c) {
  char stem[KM_NAME], why[512];
  snprintf(stem, sizeof stem, "%.*s", (int)strcspn(c->file, "."), c->file);
  ks_template *t = template_of(r, stem, c->name);
  if (!t)
    return;
  const char *sym = km_kernel_symbol(t, c->kernel, why, sizeof why);
  if (!sym)
    return fail(r, c->name, "kernel", why);
#ifdef KS_HAVE_GLOBALS
  if (check_globals(r, c, t))
    return;
#endif
  ks_spec_req req = {.kernel = sym};
  ks_kernel *k = NULL, *kg = NULL;
  int regs[3] = {-1, -1, -1}, nb = 0;
  if (ks_specialize(r->ctx, t, &req, &k) != KS_OK)
    return fail(r, c->name, "specialize generic", ks_errmsg(r->ctx));
  kg = k;
  explain(k, c->name, "generic");
  save_ptx(k, c->name, "generic");
  if (assemble(r, k, c->name, "ptxas, generic", &regs[0]))
    return;
  memcpy(req.bounds.block, c->block, sizeof c->block);
  if (ks_specialize(r->ctx, t, &req, &k) != KS_OK)
    return fail(r, c->name, "specialize with its block", ks_errmsg(r->ctx));
  explain(k, c->name, "block");
  if (assemble(r, k, c->name, "ptxas, with its block", &regs[1]))
    return;
#ifdef KS_HAVE_BIND_ARG
  k = bound(r, c, t, req, &nb);
  if (k) {
    explain(k, c->name, "bound");
    save_ptx(k, c->name, "bound");
  }
  if (!k || assemble(r, k, c->name, "ptxas, bound", &regs[2]))
    return;
  if (nb)
    occupancy(r, c, kg, k);
#endif
  printf("ok   %-20s %s: generic, block %ux%ux%u, %d scalars bound; regs "
         "%d/%d/%d\n",
         c->name, c->kernel, c->block[0], c->block[1], c->block[2], nb, regs[0],
         regs[1], regs[2]);
}

/* Every kernel of every file, generic. */
static void check_all(run *r) {
  for (size_t f = 0; f < r->nfiles; f++) {
    ks_template *t = r->tpl[f];
    for (size_t i = 0; t && i < ks_template_kernel_count(t); i++) {
      char who[512];
      ks_spec_req req = {.kernel = ks_template_kernel_name(t, i)};
      ks_kernel *k = NULL;
      int regs;
      snprintf(who, sizeof who, "%s%s kernel %s", r->files[f], r->suffix,
               req.kernel);
      if (ks_specialize(r->ctx, t, &req, &k) != KS_OK)
        fail(r, who, "specialize generic", ks_errmsg(r->ctx));
      else
        assemble(r, k, who, "ptxas, generic", &regs);
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[3], "names") && strcmp(argv[3], "nonames"))) {
    fprintf(stderr, "usage: test_kernels MANIFEST DIR names|nonames\n");
    return 2;
  }
  run r = {.dir = argv[2], .named = !strcmp(argv[3], "names")};
  r.suffix = r.named ? ".bc" : ".nonames.bc";
  km_case *cases = NULL;
  size_t ncases = 0;
  char err[512];
  if (km_load(argv[1], &cases, &ncases, err, sizeof err)) {
    printf("FAIL %s\n", err);
    return 1;
  }
  if (list_files(&r) || r.nfiles == 0) {
    printf("skipped: no corpus bitcode in %s (no CUDA 12.4 tree: run "
           "tools/cuda-tree.sh .dev/cuda-12.4, then build)\n",
           r.dir);
    free(cases);
    return SKIP;
  }
  /* LLVM's options as the static build (the GPU pack) sets them */
  if (getenv("KS_CORPUS_OWN_LLVM") && ks_llvm_own_process() != KS_OK)
    printf("note: %s\n", ks_errmsg(NULL));
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  if (ks_ctx_create(&o, &r.ctx) != KS_OK) {
    printf("FAIL context: %s\n", ks_errmsg(NULL));
    return 1;
  }
#ifndef KS_HAVE_BIND_ARG
  printf("note: this kspec cannot bind by position (ks_binding.arg): "
         "scalars not bound\n");
#endif
  load_all(&r);
  for (size_t i = 0; i < ncases; i++)
    check_case(&r, &cases[i]);
  check_all(&r);
  printf("%zu cases, %zu files (%s): %s\n", ncases, r.nfiles, argv[3],
         r.failed ? "FAILED" : "all ok");
  for (size_t i = 0; i < r.nfiles; i++) {
    ks_template_destroy(r.tpl[i]);
    free(r.files[i]);
  }
  ks_ctx_destroy(r.ctx);
  free(cases);
  return r.failed;
}
