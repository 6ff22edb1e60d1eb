/*
 * test_cache.c - kspec's caches: single flight in memory (concurrent
 * requests for one key compile once, distinct keys in parallel), the
 * counters of ks_cache_stats, and the disk cache: what its key depends on,
 * damaged entries (bit flips, truncation, foreign files) rebuilt and never
 * loaded, unsafe, read-only and full directories, least-recently-used
 * eviction, and processes sharing one directory under constant eviction;
 * the hook of a cache shared between processes (ks_ctx_share): what one
 * context built another gets without compiling, a damaged or foreign blob
 * is compiled instead, never loaded.
 *
 * Every directory is made under a temporary one (KSPEC_CACHE_DIR points
 * there too), removed at the end: the user's cache is never touched.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kspec.h"
#include "test_util.h"

enum { NKEYS = 20, NTHREADS = 8, PER_THREAD = 200 };

/* The disk entry's header and launch plan (jit/cache/diskcache.c), before
 * its strings. */
enum { HEADER_BYTES = 112 + sizeof(ks_launch_plan) };

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  if (!f || ks_ctx_create(&o, &f->ctx) != KS_OK ||
      ks_template_load(f->ctx, "conv1d", &f->t) != KS_OK)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  ks_template_destroy(f->t);
  ks_ctx_destroy(f->ctx);
  free(f);
  return 0;
}

/* conv1d with FILTER_LEN = len and 64-thread blocks. */
static ks_status spec_len(ks_ctx *ctx, ks_template *t, int len, ks_kernel **k) {
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = len};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {64}};
  return ks_specialize(ctx, t, &req, k);
}

static ks_cache_counters counters(ks_ctx *ctx) {
  ks_cache_counters c = {.size = sizeof c};
  assert_int_equal(ks_cache_stats(ctx, &c), KS_OK);
  return c;
}

/* ---- single flight ------------------------------------------------------ */

typedef struct worker {
  fixture *f;
  int id;
  ks_kernel *got[NKEYS]; /* the kernel each key gave this thread */
  int bad;               /* requests that failed or disagreed */
} worker;

static void *hammer(void *arg) {
  worker *w = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    int key = (i * 7 + w->id * 3) % NKEYS; /* every thread in its own order */
    ks_kernel *k = NULL;
    if (spec_len(w->f->ctx, w->f->t, key + 1, &k) != KS_OK || !k ||
        (w->got[key] && w->got[key] != k))
      w->bad++;
    w->got[key] = k;
  }
  return NULL;
}

/* 8 threads x 200 requests over 20 keys: each key compiles exactly once,
 * and every thread gets the same kernel for it. */
static void single_flight(void **state) {
  fixture *f = *state;
  pthread_t th[NTHREADS];
  worker *w = calloc(NTHREADS, sizeof *w);
  assert_non_null(w);
  for (int i = 0; i < NTHREADS; i++) {
    w[i] = (worker){.f = f, .id = i};
    assert_int_equal(pthread_create(&th[i], NULL, hammer, &w[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < NTHREADS; i++) {
    assert_int_equal(w[i].bad, 0);
    for (int k = 0; k < NKEYS; k++)
      assert_ptr_equal(w[i].got[k], w[0].got[k]);
  }
  for (int k = 0; k < NKEYS; k++) {
    char want[64];
    const char *ptx = NULL;
    assert_int_equal(ks_kernel_ptx(w[0].got[k], &ptx, NULL), KS_OK);
    snprintf(want, sizeof want, ".reqntid 64, 1, 1");
    TU_ASSERT_CONTAINS(ptx, want);
    for (int j = 0; j < k; j++)
      assert_ptr_not_equal(w[0].got[k], w[0].got[j]);
  }
  ks_cache_counters c = counters(f->ctx);
  assert_int_equal(c.compiles, NKEYS);
  assert_int_equal(c.misses, NKEYS);
  assert_int_equal(c.memory_hits, NTHREADS * PER_THREAD - NKEYS);
  assert_true(c.waits <= c.memory_hits);
  assert_true(c.compile_ms > 0);
  assert_true(c.saved_ms > 0);
  free(w);
}

/* A template whose compile fails after the request checks passed: the
 * codegen screen rejects llvm.sin. */
static const char bad_ir[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                             "define void @ksin(ptr %p) {\n"
                             "entry:\n"
                             "  %v = load float, ptr %p, align 4\n"
                             "  %r = call float @sinf(float %v)\n"
                             "  store float %r, ptr %p, align 4\n"
                             "  ret void\n"
                             "}\n"
                             "declare float @sinf(float)\n"
                             "!nvvm.annotations = !{!0}\n"
                             "!0 = !{ptr @ksin, !\"kernel\", i32 1}\n";

typedef struct failer {
  ks_ctx *ctx;
  ks_template *t;
  ks_status s;
  ks_kernel *k;
  char msg[512];
} failer;

static void *fail_once(void *arg) {
  failer *x = arg;
  ks_spec_req req = {.bounds.block = {32}};
  x->s = ks_specialize(x->ctx, x->t, &req, &x->k);
  snprintf(x->msg, sizeof x->msg, "%s", ks_errmsg(x->ctx));
  return NULL;
}

/* A failed compile gives every waiter the same status and message, and is
 * not cached: the next request compiles again. */
static void single_flight_failure(void **state) {
  fixture *f = *state;
  ks_template *t = NULL;
  assert_int_equal(
      ks_template_load_mem(f->ctx, "ksin", bad_ir, strlen(bad_ir), &t), KS_OK);
  pthread_t th[NTHREADS];
  failer x[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    x[i] = (failer){.ctx = f->ctx, .t = t};
    assert_int_equal(pthread_create(&th[i], NULL, fail_once, &x[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < NTHREADS; i++) {
    assert_int_equal(x[i].s, KS_ECODEGEN);
    assert_null(x[i].k);
    TU_ASSERT_CONTAINS(x[i].msg, "sinf");
    assert_string_equal(x[i].msg, x[0].msg);
  }
  ks_cache_counters c = counters(f->ctx);
  assert_true(c.compiles >= 1 && c.compiles <= NTHREADS);
  assert_int_equal(c.compiles + c.waits, NTHREADS);
  fail_once(&x[0]);
  assert_int_equal(x[0].s, KS_ECODEGEN);
  assert_int_equal(counters(f->ctx).compiles, c.compiles + 1);
  ks_template_destroy(t);
}

/* Counters: a hit adds the kernel's compile time to saved_ms. */
static void counters_hits(void **state) {
  fixture *f = *state;
  ks_kernel *a = NULL, *b = NULL;
  assert_int_equal(ks_cache_stats(NULL, NULL), KS_EINVAL);
  ks_cache_counters c0 = counters(f->ctx);
  assert_int_equal(c0.compiles + c0.memory_hits + c0.disk_hits, 0);
  assert_int_equal(spec_len(f->ctx, f->t, 9, &a), KS_OK);
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_kernel_info_get(a, &info), KS_OK);
  ks_cache_counters c1 = counters(f->ctx);
  assert_int_equal(c1.misses, 1);
  assert_int_equal(c1.compiles, 1);
  assert_int_equal(c1.memory_hits, 0);
  assert_true(c1.compile_ms >= info.compile_ms * 0.999);
  assert_int_equal(spec_len(f->ctx, f->t, 9, &b), KS_OK);
  assert_ptr_equal(a, b);
  ks_cache_counters c2 = counters(f->ctx);
  assert_int_equal(c2.misses, 1);
  assert_int_equal(c2.compiles, 1);
  assert_int_equal(c2.memory_hits, 1);
  assert_true(c2.saved_ms > info.compile_ms * 0.99 &&
              c2.saved_ms < info.compile_ms * 1.01);
  /* a request rejected before the cache counts nowhere */
  ks_binding bad = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 0};
  ks_spec_req req = {.bindings = &bad, .nbindings = 1};
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &b), KS_ERANGE);
  ks_cache_counters c3 = counters(f->ctx);
  assert_int_equal(c3.misses + c3.memory_hits, 2);
}

/* ---- the disk cache -------------------------------------------------------
 */

static char base_dir[256]; /* the temporary root of every cache here */

/* A new, not yet existing directory under base_dir. */
static void new_dir(char *out, size_t cap, const char *what) {
  static int n;
  snprintf(out, cap, "%s/%s%d", base_dir, what, n++);
}

/* A context on sm_90 / PTX 8.5 with its disk cache in dir (limit 0: the
 * default). */
static ks_ctx *ctx_in(const char *dir, uint64_t limit) {
  ks_ctx_opts o = {.arch = "sm_90",
                   .ptx_isa = 85,
                   .no_driver = 1,
                   .cache_dir = dir,
                   .cache_max = limit};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&o, &ctx) != KS_OK)
    return NULL;
  return ctx;
}

/* conv1d, loaded without ctx's disk cache so that the tests of PTX entries
 * see only those (template_entries tests the template's own entry). */
static ks_template *conv1d(ks_ctx *ctx) {
  ks_template *t = NULL;
  (void)ctx;
  return ks_template_load(NULL, "conv1d", &t) == KS_OK ? t : NULL;
}

static char *ptx_dup(const ks_kernel *k) {
  const char *ptx = NULL;
  return ks_kernel_ptx(k, &ptx, NULL) == KS_OK ? strdup(ptx) : NULL;
}

/* The PTX of conv1d FILTER_LEN=len, block 64, compiled without any cache. */
static char *reference_ptx(int len) {
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_kernel *k = NULL;
  char *ptx = NULL;
  if (ks_ctx_create(&o, &ctx) == KS_OK) {
    ks_template *t = conv1d(ctx);
    if (t && spec_len(ctx, t, len, &k) == KS_OK)
      ptx = ptx_dup(k);
    ks_template_destroy(t);
  }
  ks_ctx_destroy(ctx);
  return ptx;
}

/* The names of the entries in dir, sorted, one per line (malloc'd). */
static char *entries(const char *dir) {
  char *list = calloc(1, 1);
  size_t len = 0;
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && list && (de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (n < 6 || strcmp(de->d_name + n - 6, ".kspec") != 0)
      continue;
    char *grown = realloc(list, len + n + 2);
    if (!grown)
      break;
    list = grown;
    memcpy(list + len, de->d_name, n);
    list[len + n] = '\n';
    list[len + n + 1] = '\0';
    len += n + 1;
  }
  if (d)
    closedir(d);
  return list;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

/* The one entry name in after that is not in before, into name. */
static void new_entry(const char *before, const char *after, char *name,
                      size_t cap) {
  name[0] = '\0';
  for (const char *p = after; *p;) {
    const char *nl = strchr(p, '\n');
    char one[128];
    snprintf(one, sizeof one, "%.*s\n", (int)(nl - p), p);
    if (!strstr(before, one)) {
      assert_true(name[0] == '\0'); /* only one new */
      snprintf(name, cap, "%.*s", (int)(nl - p), p);
    }
    p = nl + 1;
  }
}

static uint64_t dir_bytes(const char *dir) {
  uint64_t total = 0;
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d))) {
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (de->d_name[0] != '.' && stat(path, &st) == 0)
      total += (uint64_t)st.st_size;
  }
  if (d)
    closedir(d);
  return total;
}

static int write_file(const char *path, const void *p, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;
  return (fd >= 0 ? close(fd) : -1) == 0 && ok ? 0 : -1;
}

/* A disk hit in a new context gives what the compile gave: the same PTX,
 * explanation and figures, marked from_disk; the directory is made 0700. */
static void disk_roundtrip(void **state) {
  (void)state;
  char dir[512];
  new_dir(dir, sizeof dir, "round/a/b");
  ks_ctx *a = ctx_in(dir, 0);
  assert_non_null(a);
  assert_string_equal(ks_ctx_warning(a), "");
  assert_string_equal(ks_cache_dir(a), dir);
  struct stat st;
  assert_int_equal(stat(dir, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  ks_template *t = conv1d(a);
  ks_kernel *ka = NULL, *kb = NULL;
  assert_int_equal(spec_len(a, t, 5, &ka), KS_OK);
  ks_cache_counters c = counters(a);
  assert_int_equal(c.misses, 1);
  assert_int_equal(c.disk_writes, 1);
  assert_true(c.disk);
  char *list = entries(dir);
  assert_int_equal(count_lines(list), 1);
  char path[1024];
  snprintf(path, sizeof path, "%s/%.*s", dir, 38, list);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);

  ks_ctx *b = ctx_in(dir, 0);
  ks_template *tb = conv1d(b);
  assert_int_equal(spec_len(b, tb, 5, &kb), KS_OK);
  c = counters(b);
  assert_int_equal(c.disk_hits, 1);
  assert_int_equal(c.misses + c.compiles, 0);
  ks_kernel_info ia = {.size = sizeof ia}, ib = {.size = sizeof ib};
  ks_kernel_info_get(ka, &ia);
  ks_kernel_info_get(kb, &ib);
  assert_false(ia.from_disk);
  assert_true(ib.from_disk);
  assert_true(ia.compile_ms - ib.compile_ms < 1e-5 &&
              ib.compile_ms - ia.compile_ms < 1e-5);
  assert_true(c.saved_ms > ia.compile_ms * 0.99);
  assert_int_equal(ia.smem_bytes, ib.smem_bytes);
  assert_memory_equal(ia.reqntid, ib.reqntid, sizeof ia.reqntid);
  char *pa = ptx_dup(ka), *pb = ptx_dup(kb);
  assert_string_equal(pa, pb);
  assert_string_equal(ks_kernel_explain(ka), ks_kernel_explain(kb));
  assert_string_equal(ks_kernel_name(ka), ks_kernel_name(kb));
  /* a request for a stage's IR does not come from the disk */
  ks_binding bind = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 5};
  ks_spec_req req = {.bindings = &bind,
                     .nbindings = 1,
                     .bounds.block = {64},
                     .dump_stage = "bind"};
  const char *ir = NULL;
  assert_int_equal(ks_specialize(b, tb, &req, &kb), KS_OK);
  assert_int_equal(ks_kernel_ir(kb, &ir, NULL), KS_OK);
  assert_int_equal(counters(b).compiles, 1);
  free(pa);
  free(pb);
  free(list);
  ks_template_destroy(t);
  ks_template_destroy(tb);
  ks_ctx_destroy(a);
  ks_ctx_destroy(b);
}

/* ---- the key ---------------------------------------------------------------
 */

static const char tiny_fmt[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                               "define void @tiny(ptr %%p) {\n"
                               "entry:\n"
                               "  %%v = load float, ptr %%p, align 4\n"
                               "  %%r = fadd float %%v, %s\n"
                               "  store float %%r, ptr %%p, align 4\n"
                               "  ret void\n"
                               "}\n"
                               "!nvvm.annotations = !{!0}\n"
                               "!0 = !{ptr @tiny, !\"kernel\", i32 1}\n";

/* Specializes req in ctx; returns the name of the entry it wrote, or "" when
 * it wrote none (into name). */
static void entry_of(const char *dir, ks_ctx *ctx, ks_template *t,
                     const ks_spec_req *req, char *name, size_t cap) {
  char *before = entries(dir);
  ks_kernel *k = NULL;
  if (ks_specialize(ctx, t, req, &k) != KS_OK)
    fail_msg("%s", ks_errmsg(ctx));
  char *after = entries(dir);
  new_entry(before, after, name, cap);
  free(before);
  free(after);
}

/* The key changes when any one input changes, and not otherwise: every
 * variant writes an entry of its own; equivalent requests write none. */
static void key_inputs(void **state) {
  (void)state;
  char dir[512], name[64];
  new_dir(dir, sizeof dir, "key");
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = conv1d(ctx);
  static const double taps[] = {0.25, 0.5, 0.25}, taps2[] = {0.25, 0.5, 0.26};
  static const char *const no_smem[] = {"smem_promote"};
  static const char *const no_const[] = {"const_promote"};
  ks_binding b3 = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 3};
  ks_binding b4 = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 4};
  ks_bake bk = {.arg = "f", .values = taps, .n = 3};
  ks_bake bk2 = {.arg = "f", .values = taps2, .n = 3};
  ks_bake bk_short = {.arg = "f", .values = taps, .n = 2};
  const ks_spec_req base = {
      .bindings = &b3, .nbindings = 1, .bounds.block = {64}};
  ks_spec_req v[12];
  for (int i = 0; i < 12; i++)
    v[i] = base;
  v[1].bindings = &b4;        /* a value */
  v[2].bounds.block[0] = 128; /* the block */
  v[3].bounds.maxntid = 64;   /* launch bounds */
  v[4].bounds.minctasm = 2;
  v[5].bounds.maxnreg = 64;
  v[6].no_pass = no_smem; /* passes switched off */
  v[6].nno_pass = 1;
  v[7].no_pass = no_const;
  v[7].nno_pass = 1;
  v[8].bakes = &bk; /* bakes: values, count */
  v[8].nbakes = 1;
  v[9].bakes = &bk2;
  v[9].nbakes = 1;
  v[10].bakes = &bk_short;
  v[10].nbakes = 1;
  v[11].nbindings = 0; /* nothing bound */
  char seen[16][64];
  for (int i = 0; i < 12; i++) {
    entry_of(dir, ctx, t, &v[i], seen[i], sizeof seen[i]);
    if (!seen[i][0])
      fail_msg("variant %d wrote no entry of its own", i);
  }
  /* the same request, written otherwise: no new entry */
  ks_binding text = {.name = "FILTER_LEN", .kind = KS_VALUE_TEXT, .v.s = "3"};
  ks_binding real = {.name = "FILTER_LEN", .kind = KS_VALUE_REAL, .v.f = 3.0};
  ks_spec_req same = base;
  same.bindings = &text;
  entry_of(dir, ctx, t, &same, name, sizeof name);
  assert_string_equal(name, "");
  same.bindings = &real;
  entry_of(dir, ctx, t, &same, name, sizeof name);
  assert_string_equal(name, "");
  /* ... nor from a new context or a template loaded again */
  ks_ctx *ctx2 = ctx_in(dir, 0);
  ks_template *t2 = conv1d(ctx2);
  for (int i = 0; i < 12; i++) {
    entry_of(dir, ctx2, t2, &v[i], name, sizeof name);
    assert_string_equal(name, "");
  }
  assert_int_equal(counters(ctx2).disk_hits, 12);
  ks_template_destroy(t2);
  ks_ctx_destroy(ctx2);
  /* the target: architecture, PTX ISA */
  const char *arch[] = {"sm_80", "sm_90"};
  const unsigned isa[] = {85, 84};
  for (int i = 0; i < 2; i++) {
    ks_ctx_opts o = {
        .arch = arch[i], .ptx_isa = isa[i], .no_driver = 1, .cache_dir = dir};
    ks_ctx *c3 = NULL;
    assert_int_equal(ks_ctx_create(&o, &c3), KS_OK);
    ks_template *t3 = conv1d(c3);
    entry_of(dir, c3, t3, &base, seen[12 + i], sizeof seen[0]);
    if (!seen[12 + i][0])
      fail_msg("%s / PTX %u wrote no entry of its own", arch[i], isa[i]);
    ks_template_destroy(t3);
    ks_ctx_destroy(c3);
  }
  /* the template's bytes: one constant differs */
  const char *consts[] = {"1.0", "2.0"};
  for (int i = 0; i < 2; i++) {
    char ir[1024];
    snprintf(ir, sizeof ir, tiny_fmt, consts[i]);
    ks_template *tt = NULL;
    assert_int_equal(ks_template_load_mem(NULL, "tiny", ir, strlen(ir), &tt),
                     KS_OK);
    ks_spec_req r = {0};
    entry_of(dir, ctx, tt, &r, seen[14 + i], sizeof seen[0]);
    if (!seen[14 + i][0])
      fail_msg("template with %s wrote no entry of its own", consts[i]);
    ks_template_destroy(tt);
  }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(seen[i], seen[j]) == 0)
        fail_msg("variants %d and %d share the entry %s", i, j, seen[i]);
  char *list = entries(dir);
  assert_int_equal(count_lines(list), 16);
  free(list);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* ---- damaged entries --------------------------------------------------------
 */

/* The entry is written back as bad (n bytes); a new context must miss,
 * count it corrupt, compile the reference PTX and rewrite the entry, which
 * a further context then hits. */
static void expect_rebuilt(const char *dir, const char *path,
                           const unsigned char *bad, size_t n, const char *want,
                           const char *what) {
  assert_int_equal(write_file(path, bad, n), 0);
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = conv1d(ctx);
  ks_kernel *k = NULL;
  assert_int_equal(spec_len(ctx, t, 6, &k), KS_OK);
  const char *ptx = NULL;
  ks_kernel_ptx(k, &ptx, NULL);
  ks_cache_counters c = counters(ctx);
  if (c.corrupt != 1 || c.disk_hits != 0 || c.compiles != 1 ||
      strcmp(ptx, want) != 0)
    fail_msg("%s: corrupt %llu, disk hits %llu, compiles %llu, ptx %s", what,
             (unsigned long long)c.corrupt, (unsigned long long)c.disk_hits,
             (unsigned long long)c.compiles,
             strcmp(ptx, want) ? "differs" : "right");
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  ctx = ctx_in(dir, 0);
  t = conv1d(ctx);
  assert_int_equal(spec_len(ctx, t, 6, &k), KS_OK);
  c = counters(ctx);
  if (c.disk_hits != 1 || c.corrupt != 0)
    fail_msg("%s: not rebuilt", what);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* Bit flips anywhere, truncation, trailing bytes and another key's entry are
 * all found, counted and rebuilt, and never loaded. */
static void damaged_entries(void **state) {
  (void)state;
  char dir[512], path[1024];
  new_dir(dir, sizeof dir, "damage");
  char *want = reference_ptx(6);
  assert_non_null(want);
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = conv1d(ctx);
  ks_kernel *k = NULL;
  assert_int_equal(spec_len(ctx, t, 6, &k), KS_OK);
  char *list = entries(dir);
  assert_int_equal(count_lines(list), 1);
  snprintf(path, sizeof path, "%s/%.38s", dir, list);
  size_t n = 0;
  unsigned char *good = tu_read_file(path, &n);
  assert_non_null(good);
  assert_true(n > HEADER_BYTES + 1000);
  unsigned char *bad = malloc(n + 1);
  int flips = 0;
  for (size_t at = 0; at < n; at += at < 128 ? 1 : 37) {
    char what[64];
    memcpy(bad, good, n);
    bad[at] ^= (unsigned char)(1u << (at % 8));
    snprintf(what, sizeof what, "bit %zu of byte %zu", at % 8, at);
    expect_rebuilt(dir, path, bad, n, want, what);
    flips++;
  }
  assert_true(flips > 150);
  const size_t cuts[] = {
      0,     1,     8,    50, HEADER_BYTES - 1, HEADER_BYTES, HEADER_BYTES + 1,
      n / 2, n - 2, n - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    char what[64];
    snprintf(what, sizeof what, "truncated to %zu bytes", cuts[i]);
    expect_rebuilt(dir, path, good, cuts[i], want, what);
  }
  memcpy(bad, good, n);
  bad[n] = '\n';
  expect_rebuilt(dir, path, bad, n + 1, want, "a byte appended");
  /* another key's entry under this name: whole and well-formed, but foreign */
  ks_kernel *k7 = NULL;
  assert_int_equal(spec_len(ctx, t, 7, &k7), KS_OK);
  char *list2 = entries(dir), other[64], opath[1024];
  new_entry(list, list2, other, sizeof other);
  snprintf(opath, sizeof opath, "%s/%s", dir, other);
  size_t on = 0;
  unsigned char *foreign = tu_read_file(opath, &on);
  assert_non_null(foreign);
  expect_rebuilt(dir, path, foreign, on, want, "another key's entry");
  free(foreign);
  free(list2);
  free(bad);
  free(good);
  free(list);
  free(want);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* ---- unsafe, read-only and full directories
 * ------------------------------------ */

/* ctx_in(dir) must refuse dir with a warning containing needle, and still
 * specialize. */
static void expect_refused(const char *dir, const char *needle) {
  ks_ctx *ctx = ctx_in(dir, 0);
  assert_non_null(ctx);
  TU_ASSERT_CONTAINS(ks_ctx_warning(ctx), needle);
  TU_ASSERT_CONTAINS(ks_ctx_warning(ctx), "disk caching off");
  assert_null(ks_cache_dir(ctx));
  ks_template *t = conv1d(ctx);
  ks_kernel *k = NULL;
  assert_int_equal(spec_len(ctx, t, 5, &k), KS_OK);
  ks_cache_counters c = counters(ctx);
  assert_int_equal(c.disk_writes, 0);
  assert_false(c.disk);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

static uid_t nobody(void) {
  struct passwd *pw = getpwnam("nobody");
  return pw ? pw->pw_uid : 65534;
}

static void unsafe_dirs(void **state) {
  (void)state;
  char dir[512], link[512], file[512];
  new_dir(dir, sizeof dir, "unsafe");
  assert_int_equal(mkdir(dir, 0700), 0);
  new_dir(link, sizeof link, "link");
  assert_int_equal(symlink(dir, link), 0);
  expect_refused(link, "symbolic link");
  assert_int_equal(chmod(dir, 0777), 0);
  expect_refused(dir, "writable by group or others");
  assert_int_equal(chmod(dir, 0770), 0);
  expect_refused(dir, "writable by group or others");
  assert_int_equal(chmod(dir, 0700), 0);
  char *list = entries(dir);
  assert_string_equal(list, ""); /* nothing was written while refused */
  free(list);
  if (geteuid() == 0) {
    assert_int_equal(chown(dir, nobody(), (gid_t)-1), 0);
    expect_refused(dir, "belongs to another user");
  } else {
    expect_refused("/", "belongs to another user");
  }
  new_dir(file, sizeof file, "file");
  assert_int_equal(write_file(file, "x", 1), 0);
  expect_refused(file, "refusing");
  /* the environment can switch the disk cache off */
  setenv("KSPEC_CACHE", "off", 1);
  ks_ctx *ctx = ctx_in(NULL, 0);
  assert_null(ks_cache_dir(ctx));
  assert_string_equal(ks_ctx_warning(ctx), "");
  ks_ctx_destroy(ctx);
  unsetenv("KSPEC_CACHE");
  ctx = ctx_in(NULL, 0);
  char want[512];
  snprintf(want, sizeof want, "%s/default", base_dir);
  assert_string_equal(ks_cache_dir(ctx), want); /* $KSPEC_CACHE_DIR */
  ks_ctx_destroy(ctx);
  setenv("KSPEC_CACHE_MAX", "lots", 1);
  ctx = ctx_in(NULL, 0);
  TU_ASSERT_CONTAINS(ks_ctx_warning(ctx), "KSPEC_CACHE_MAX");
  assert_non_null(ks_cache_dir(ctx));
  ks_ctx_destroy(ctx);
  unsetenv("KSPEC_CACHE_MAX");
}

/* Runs fn in a child process; the child's exit status 0 is a pass. */
static void in_child(int (*fn)(const char *), const char *dir,
                     const char *what) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    _exit(fn(dir));
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("%s: child failed (status %d)", what, status);
}

/* Specializes twice in dir, expecting the warning, no entries and no
 * temporary files left; 0 when all is as expected. */
static int degraded(const char *dir, const char *needle) {
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = ctx ? conv1d(ctx) : NULL;
  ks_kernel *k = NULL;
  if (!t || spec_len(ctx, t, 5, &k) != KS_OK ||
      spec_len(ctx, t, 6, &k) != KS_OK)
    return 1;
  const char *w = ks_ctx_warning(ctx);
  ks_cache_counters c = {.size = sizeof c};
  ks_cache_stats(ctx, &c);
  int bad = !strstr(w, needle) || !strstr(w, "disk caching off") || c.disk ||
            c.disk_writes || c.compiles != 2;
  if (bad)
    fprintf(stderr, "warning '%s', disk %d, writes %llu\n", w, c.disk,
            (unsigned long long)c.disk_writes);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d)))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
      fprintf(stderr, "left behind: %s\n", de->d_name);
      bad = 1;
    }
  if (d)
    closedir(d);
  return bad;
}

static int read_only_child(const char *dir) {
  if (geteuid() == 0 && (setgid(nobody()) != 0 || setuid(nobody()) != 0))
    return 2; /* root writes anywhere: test as nobody */
  return degraded(dir, "not writable");
}

/* A file-size limit makes every write fail as on a full disk. */
static int full_child(const char *dir) {
  struct rlimit rl = {.rlim_cur = 64, .rlim_max = 64};
  signal(SIGXFSZ, SIG_IGN);
  if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
    return 2;
  return degraded(dir, "cannot write");
}

static void read_only_and_full(void **state) {
  (void)state;
  char dir[512];
  new_dir(dir, sizeof dir, "ro");
  assert_int_equal(mkdir(dir, 0500), 0);
  if (geteuid() == 0)
    assert_int_equal(chown(dir, nobody(), (gid_t)-1), 0);
  in_child(read_only_child, dir, "read-only directory");
  new_dir(dir, sizeof dir, "full");
  in_child(full_child, dir, "full directory");
}

/* ---- eviction
 * ------------------------------------------------------------------- */

static ks_status spec_block(ks_ctx *ctx, ks_template *t, unsigned block,
                            ks_kernel **k) {
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 4};
  /* not coarsened: entries of the same size */
  static const char *const off[] = {"tcoarsen"};
  ks_spec_req req = {.bindings = &b,
                     .nbindings = 1,
                     .bounds.block = {block},
                     .no_pass = off,
                     .nno_pass = 1};
  return ks_specialize(ctx, t, &req, k);
}

/* Over the limit, the least recently used entries go: one that was hit
 * recently survives older ones written after it. */
static void eviction_lru(void **state) {
  (void)state;
  char dir[512], names[8][64];
  new_dir(dir, sizeof dir, "lru");
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = conv1d(ctx);
  ks_kernel *k = NULL;
  assert_int_equal(spec_block(ctx, t, 32, &k), KS_OK);
  uint64_t one = dir_bytes(dir); /* entries differ by a few bytes only */
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  /* 4.8 entries: a fifth is too many; eviction keeps 7/8, 4.2 entries */
  uint64_t limit = one * 48 / 10;
  for (int i = 0; i < 4; i++) {
    ctx = ctx_in(dir, limit);
    t = conv1d(ctx);
    char *before = entries(dir);
    assert_int_equal(spec_block(ctx, t, 64 + 32 * (unsigned)i, &k), KS_OK);
    char *after = entries(dir);
    new_entry(before, after, names[i], sizeof names[i]);
    free(before);
    free(after);
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
    usleep(20000); /* distinct modification times */
  }
  /* entries 0..3 plus the probe's: the probe's (the oldest) went */
  char *list = entries(dir);
  assert_int_equal(count_lines(list), 4);
  free(list);
  ctx = ctx_in(dir, limit);
  t = conv1d(ctx);
  assert_int_equal(spec_block(ctx, t, 64, &k), KS_OK); /* names[0]: a hit */
  assert_int_equal(counters(ctx).disk_hits, 1);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  usleep(20000);
  ctx = ctx_in(dir, limit);
  t = conv1d(ctx);
  assert_int_equal(spec_block(ctx, t, 256, &k), KS_OK); /* a fifth */
  assert_int_equal(counters(ctx).evictions, 1);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  list = entries(dir);
  assert_int_equal(count_lines(list), 4);
  TU_ASSERT_CONTAINS(list, names[0]);     /* used recently: kept */
  TU_ASSERT_NOT_CONTAINS(list, names[1]); /* the least recently used */
  TU_ASSERT_CONTAINS(list, names[2]);
  TU_ASSERT_CONTAINS(list, names[3]);
  assert_true(dir_bytes(dir) <= limit);
  free(list);
}

/* ---- maintenance and --why-miss
 * ------------------------------------------------- */

static void why(ks_ctx *ctx, ks_template *t, const ks_spec_req *req,
                const char *needle) {
  char text[1024];
  assert_int_equal(ks_cache_why_miss(ctx, t, req, text, sizeof text), KS_OK);
  TU_ASSERT_CONTAINS(text, needle);
}

/* --why-miss prints a value by its argument's signedness: an unsigned
 * 64-bit value of 2^63 and above as itself, not as a negative number. */
static const char wide_ll[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                              "define void @wide(i64 zeroext %u, ptr %out) {\n"
                              "  store i64 %u, ptr %out, align 8\n"
                              "  ret void\n"
                              "}\n"
                              "!nvvm.annotations = !{!0}\n"
                              "!0 = !{ptr @wide, !\"kernel\", i32 1}\n";

static void why_miss_unsigned(void **state) {
  (void)state;
  char dir[512];
  new_dir(dir, sizeof dir, "unsigned");
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = NULL;
  assert_int_equal(
      ks_template_load_mem(NULL, "wide", wide_ll, strlen(wide_ll), &t), KS_OK);
  ks_binding b = {
      .name = "u", .kind = KS_VALUE_TEXT, .v.s = "18446744073709551615"};
  ks_spec_req req = {.bindings = &b, .nbindings = 1};
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  b.v.s = "9223372036854775808";
  why(ctx, t, &req,
      "miss: u 9223372036854775808 != 18446744073709551615 (nearest of 1 "
      "entry)");
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* Usage, verify, clear, and what a miss is told apart by. */
static void maintenance(void **state) {
  (void)state;
  char dir[512];
  new_dir(dir, sizeof dir, "maint");
  ks_ctx *ctx = ctx_in(dir, 0);
  ks_template *t = conv1d(ctx);
  ks_cache_usage u = {.size = sizeof u};
  assert_int_equal(ks_cache_usage_get(ctx, &u), KS_OK);
  assert_int_equal(u.entries, 0);
  assert_int_equal(u.limit, 256u << 20);
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 32};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {64}};
  why(ctx, t, &req, "miss: the cache is empty");
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  why(ctx, t, &req, "hit");
  b.v.i = 31;
  why(ctx, t, &req, "miss: FILTER_LEN 31 != 32 (nearest of 1 entry)");
  req.bounds.block[0] = 128;
  why(ctx, t, &req, "FILTER_LEN 31 != 32, block 128,1,1 != 64,1,1");
  req.nbindings = 0;
  why(ctx, t, &req, "FILTER_LEN unset (the entry has 32)");
  /* a template whose bytes changed under the same name */
  char ir[1024];
  ks_template *tt = NULL;
  ks_spec_req none = {0};
  snprintf(ir, sizeof ir, tiny_fmt, "1.0");
  assert_int_equal(ks_template_load_mem(NULL, "tiny", ir, strlen(ir), &tt),
                   KS_OK);
  assert_int_equal(ks_specialize(ctx, tt, &none, &k), KS_OK);
  ks_template_destroy(tt);
  snprintf(ir, sizeof ir, tiny_fmt, "2.0");
  assert_int_equal(ks_template_load_mem(NULL, "tiny", ir, strlen(ir), &tt),
                   KS_OK);
  why(ctx, tt, &none, "miss: template tiny changed (nearest of 2 entries)");
  /* a bad request is reported as ks_specialize would */
  b.v.i = 0;
  req.nbindings = 1;
  char text[256];
  assert_int_equal(ks_cache_why_miss(ctx, t, &req, text, sizeof text),
                   KS_ERANGE);
  /* damage the conv1d entry: why_miss and verify see it */
  b.v.i = 32;
  req.bounds.block[0] = 64;
  assert_int_equal(ks_cache_usage_get(ctx, &u), KS_OK);
  assert_int_equal(u.entries, 2);
  assert_int_equal(u.bytes, dir_bytes(dir));
  char *list = entries(dir), path[1024];
  for (const char *p = list; *p; p += 39) {
    snprintf(path, sizeof path, "%s/%.38s", dir, p);
    size_t n = 0;
    unsigned char *buf = tu_read_file(path, &n);
    assert_non_null(buf);
    if (strstr((char *)buf + HEADER_BYTES, "conv1d")) {
      buf[n - 3] ^= 1;
      assert_int_equal(write_file(path, buf, n), 0);
    }
    free(buf);
  }
  why(ctx, t, &req, "miss: the entry is damaged (checksum mismatch)");
  uint64_t good = 0, removed = 0;
  assert_int_equal(ks_cache_verify(ctx, &good, &removed), KS_OK);
  assert_int_equal(good, 1);
  assert_int_equal(removed, 1);
  assert_int_equal(ks_cache_clear(ctx, &removed), KS_OK);
  assert_int_equal(removed, 1);
  assert_int_equal(ks_cache_usage_get(ctx, &u), KS_OK);
  assert_int_equal(u.entries + u.bytes, 0);
  free(list);
  ks_template_destroy(tt);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  /* without a disk cache: an error that says why */
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_cache_usage_get(ctx, &u), KS_EINVAL);
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "no disk cache");
  assert_int_equal(ks_cache_clear(ctx, NULL), KS_EINVAL);
  ks_ctx_destroy(ctx);
}

/* ---- processes sharing a directory
 * ------------------------------------------------ */

enum { NPROCS = 8, ROUNDS = 3 };

typedef struct shared_counts {
  uint64_t disk_hits[NPROCS], evictions[NPROCS], corrupt[NPROCS];
  int wrong[NPROCS];
} shared_counts;

static char *refs[NKEYS];
static shared_counts *shared;
static uint64_t tiny_limit;

/* One process: ROUNDS fresh contexts, each asking for every key, checking
 * each PTX against the one compiled without a cache. */
static int sharer(const char *dir, int id) {
  for (int round = 0; round < ROUNDS; round++) {
    ks_ctx *ctx = ctx_in(dir, tiny_limit);
    ks_template *t = NULL; /* its description in the cache too */
    if (ctx && ks_template_load(ctx, "conv1d", &t) != KS_OK)
      t = NULL;
    if (!t || !ks_cache_dir(ctx))
      return 3;
    for (int i = 0; i < NKEYS; i++) {
      int key = id % 2 ? NKEYS - 1 - i : (i + round) % NKEYS;
      ks_kernel *k = NULL;
      const char *ptx = NULL;
      if (spec_len(ctx, t, key + 1, &k) != KS_OK ||
          ks_kernel_ptx(k, &ptx, NULL) != KS_OK || strcmp(ptx, refs[key]))
        shared->wrong[id]++;
    }
    ks_cache_counters c = {.size = sizeof c};
    ks_cache_stats(ctx, &c);
    shared->disk_hits[id] += c.disk_hits;
    shared->evictions[id] += c.evictions;
    shared->corrupt[id] += c.corrupt;
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
  return 0;
}

/* 8 processes, one directory, a limit of about three entries so that
 * eviction runs all the time: nobody ever reads a bad entry. */
static void processes_share(void **state) {
  (void)state;
  char dir[512];
  new_dir(dir, sizeof dir, "shared");
  for (int i = 0; i < NKEYS; i++) {
    refs[i] = reference_ptx(i + 1);
    assert_non_null(refs[i]);
    tiny_limit += strlen(refs[i]) + 400;
  }
  tiny_limit = tiny_limit * 3 / NKEYS;
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  assert_true(shared != MAP_FAILED);
  memset(shared, 0, sizeof *shared);
  ks_ctx *mk = ctx_in(dir, tiny_limit); /* creates the directory */
  ks_ctx_destroy(mk);
  fflush(NULL);
  pid_t pid[NPROCS];
  for (int i = 0; i < NPROCS; i++) {
    pid[i] = fork();
    assert_true(pid[i] >= 0);
    if (pid[i] == 0)
      _exit(sharer(dir, i));
  }
  uint64_t hits = 0, evictions = 0;
  for (int i = 0; i < NPROCS; i++) {
    int status = 0;
    assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(shared->wrong[i], 0);
    assert_int_equal(shared->corrupt[i], 0);
    hits += shared->disk_hits[i];
    evictions += shared->evictions[i];
  }
  print_message("processes: %llu disk hits, %llu evictions\n",
                (unsigned long long)hits, (unsigned long long)evictions);
  assert_true(evictions > 0);
  assert_true(dir_bytes(dir) <= tiny_limit + tiny_limit / 2);
  munmap(shared, sizeof *shared);
  for (int i = 0; i < NKEYS; i++)
    free(refs[i]);
}

/* ---- writers killed mid-write
 * ------------------------------------------------ */

enum { NKILLED = 4, KILL_ROUNDS = 8, KILL_KEYS = 6 };

/* Compiles keys 1..KILL_KEYS in fresh contexts until it is killed. */
static int endless_writer(const char *dir, int id) {
  for (int round = 0;; round++) {
    ks_ctx *ctx = ctx_in(dir, tiny_limit);
    ks_template *t = NULL;
    if (!ctx || ks_template_load(ctx, "conv1d", &t) != KS_OK)
      return 3;
    for (int i = 0; i < KILL_KEYS; i++) {
      ks_kernel *k = NULL;
      if (spec_len(ctx, t, (i + id + round) % KILL_KEYS + 1, &k) != KS_OK)
        return 4;
    }
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
}

/* Processes SIGKILLed at random points of their compiles, writes, renames
 * and evictions, round after round: afterwards every entry in the
 * directory verifies, and every key read back is the PTX compiled without
 * a cache; no reader ever counts a corrupt entry. */
static void killed_writers(void **state) {
  (void)state;
  char dir[512];
  new_dir(dir, sizeof dir, "killed");
  char *ref[KILL_KEYS];
  uint64_t total = 0;
  for (int i = 0; i < KILL_KEYS; i++) {
    ref[i] = reference_ptx(i + 1);
    assert_non_null(ref[i]);
    total += strlen(ref[i]) + 400;
  }
  tiny_limit = total / 2; /* evictions run too */
  unsigned seed = 12345;
  int killed_with_tmp = 0;
  for (int round = 0; round < KILL_ROUNDS; round++) {
    fflush(NULL);
    pid_t pid[NKILLED];
    for (int i = 0; i < NKILLED; i++) {
      pid[i] = fork();
      assert_true(pid[i] >= 0);
      if (pid[i] == 0)
        _exit(endless_writer(dir, i));
    }
    for (int i = 0; i < NKILLED; i++) {
      usleep(1000u * (5 + rand_r(&seed) % 120));
      assert_int_equal(kill(pid[i], SIGKILL), 0);
    }
    for (int i = 0; i < NKILLED; i++) {
      int status = 0;
      assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
      if (!WIFSIGNALED(status)) /* it must not have stopped by itself */
        fail_msg("writer %d ended with status %d", i, status);
    }
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
      killed_with_tmp += strncmp(de->d_name, ".tmp.", 5) == 0;
    if (d)
      closedir(d);
    ks_ctx *ctx = ctx_in(dir, tiny_limit);
    assert_non_null(ctx);
    uint64_t good = 0, removed = 0;
    assert_int_equal(ks_cache_verify(ctx, &good, &removed), KS_OK);
    assert_int_equal(removed, 0);
    ks_template *t = NULL;
    assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
    for (int i = 0; i < KILL_KEYS; i++) {
      ks_kernel *k = NULL;
      const char *ptx = NULL;
      assert_int_equal(spec_len(ctx, t, i + 1, &k), KS_OK);
      assert_int_equal(ks_kernel_ptx(k, &ptx, NULL), KS_OK);
      assert_string_equal(ptx, ref[i]);
    }
    ks_cache_counters c = {.size = sizeof c};
    ks_cache_stats(ctx, &c);
    assert_int_equal(c.corrupt, 0);
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
  print_message("killed writers: %d rounds of %d, %d temporary files left by "
                "them (ignored by readers)\n",
                KILL_ROUNDS, NKILLED, killed_with_tmp);
  for (int i = 0; i < KILL_KEYS; i++)
    free(ref[i]);
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* ---- a cache shared between processes (ks_ctx_share) --------------------- */

/* A fake shared cache in this process: one entry per key, as put. */
typedef struct fake_share {
  uint64_t key[8][2];
  unsigned char *blob[8];
  size_t len[8], n;
  int damage;   /* get flips a byte of what it returns */
  int foreign;  /* get returns the first entry, whatever the key */
  int detached; /* detach calls */
} fake_share;

static int fake_get(void *arg, int kind, const uint64_t key[2], void **blob,
                    size_t *len, int *owner, char *note, size_t cap) {
  fake_share *f = arg;
  (void)kind;
  *owner = 1;
  snprintf(note, cap, "%s", "");
  for (size_t i = 0; i < f->n; i++) {
    if (!f->foreign && memcmp(f->key[i], key, sizeof f->key[i]) != 0)
      continue;
    unsigned char *copy = malloc(f->len[i]);
    memcpy(copy, f->blob[i], f->len[i]);
    if (f->damage)
      copy[f->len[i] / 2] ^= 0x40;
    *blob = copy;
    *len = f->len[i];
    return KS_SHARE_HIT;
  }
  return KS_SHARE_BUILD;
}

static void fake_put(void *arg, int kind, const uint64_t key[2],
                     const void *blob, size_t len) {
  fake_share *f = arg;
  if (kind != KS_SHARE_SPEC || !blob || f->n == 8)
    return;
  memcpy(f->key[f->n], key, sizeof f->key[f->n]);
  f->blob[f->n] = malloc(len);
  memcpy(f->blob[f->n], blob, len);
  f->len[f->n++] = len;
}

static void fake_detach(void *arg) { ((fake_share *)arg)->detached++; }

static const ks_share_ops fake_ops = {
    .get = fake_get, .put = fake_put, .detach = fake_detach};

/* A fresh context (no disk cache) on the fake shared cache. */
static ks_ctx *shared_ctx(fake_share *f, ks_template **t) {
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_ctx_share(ctx, &fake_ops, f), KS_OK);
  assert_int_equal(ks_template_load(ctx, "conv1d", t), KS_OK);
  return ctx;
}

/* The PTX of conv1d FILTER_LEN=len through ctx, malloc'd. */
static char *shared_ptx(ks_ctx *ctx, ks_template *t, int len) {
  ks_kernel *k = NULL;
  const char *ptx;
  size_t n;
  assert_int_equal(spec_len(ctx, t, len, &k), KS_OK);
  assert_int_equal(ks_kernel_ptx(k, &ptx, &n), KS_OK);
  return strdup(ptx);
}

/* What one context built, the next gets from the shared cache without
 * compiling; a damaged blob and another key's blob are compiled instead
 * (counted corrupt), with the same PTX. */
static void shared_hook(void **state) {
  (void)state;
  fake_share f = {0};
  ks_template *ta = NULL, *tb = NULL;
  ks_ctx *a = shared_ctx(&f, &ta);
  char *built = shared_ptx(a, ta, 5);
  assert_int_equal(counters(a).compiles, 1);
  assert_int_equal(f.n, 1); /* put */
  ks_ctx *b = shared_ctx(&f, &tb);
  char *got = shared_ptx(b, tb, 5);
  ks_cache_counters cb = counters(b);
  assert_int_equal(cb.compiles, 0);
  assert_int_equal(cb.remote_hits, 1);
  assert_string_equal(got, built);
  free(got);
  ks_template_destroy(tb);
  ks_ctx_destroy(b);
  assert_int_equal(f.detached, 1);
  for (int mode = 0; mode < 2; mode++) {
    f.damage = mode == 0;
    f.foreign = mode == 1;
    b = shared_ctx(&f, &tb);
    got = shared_ptx(b, tb, mode == 0 ? 5 : 6); /* 6: another key */
    cb = counters(b);
    assert_int_equal(cb.compiles, 1);
    assert_int_equal(cb.remote_hits, 0);
    assert_int_equal(cb.corrupt, 1);
    if (mode == 0)
      assert_string_equal(got, built);
    else
      assert_string_not_equal(got, built);
    free(got);
    ks_template_destroy(tb);
    ks_ctx_destroy(b);
  }
  assert_int_equal(ks_ctx_share(a, NULL, NULL), KS_OK); /* unplugged */
  assert_int_equal(f.detached, 4);
  ks_share_ops no_put = {.get = fake_get};
  assert_int_equal(ks_ctx_share(a, &no_put, &f), KS_EINVAL);
  free(built);
  ks_template_destroy(ta);
  ks_ctx_destroy(a);
  assert_int_equal(f.detached, 4); /* nothing plugged at destroy */
  for (size_t i = 0; i < f.n; i++)
    free(f.blob[i]);
}

/* A child forked with a shared context (a tuner's worker) has none of the
 * hooks' threads or connections: it builds what it needs itself, and
 * neither asks nor tells the hooks, nor detaches them. The hooks count in
 * the child's copy of f, so the child reports through its exit status. */
static void shared_hook_fork(void **state) {
  (void)state;
  fake_share f = {0};
  ks_template *t = NULL;
  ks_ctx *ctx = shared_ctx(&f, &t);
  char *built = shared_ptx(ctx, t, 5); /* put: f.n 1 */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    ks_kernel *k = NULL;
    int bad = spec_len(ctx, t, 5, &k) != KS_OK;     /* a memory hit */
    bad |= (spec_len(ctx, t, 7, &k) != KS_OK) << 1; /* built here */
    bad |= (counters(ctx).compiles != 2) << 2;
    bad |= (f.n != 1) << 3; /* nothing put */
    ks_ctx_share(ctx, NULL, NULL);
    bad |= (f.detached != 0) << 4;
    _exit(bad);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  assert_int_equal(f.n, 1);
  free(built);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  assert_int_equal(f.detached, 1);
  for (size_t i = 0; i < f.n; i++)
    free(f.blob[i]);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define D(fn) cmocka_unit_test(fn)

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(base_dir, sizeof base_dir, "%s/kspec_cache_test.XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(base_dir))
    return 1;
  chmod(base_dir, 0755); /* the read-only test's other user passes through */
  char dflt[512];
  snprintf(dflt, sizeof dflt, "%s/default", base_dir);
  setenv("KSPEC_CACHE_DIR", dflt, 1);
  unsetenv("KSPEC_CACHE");
  unsetenv("KSPEC_CACHE_MAX");
  const struct CMUnitTest tests[] = {
      T(single_flight),     T(single_flight_failure),
      T(counters_hits),     D(disk_roundtrip),
      D(key_inputs),        D(damaged_entries),
      D(unsafe_dirs),       D(read_only_and_full),
      D(eviction_lru),      D(maintenance),
      D(processes_share),   D(killed_writers),
      D(why_miss_unsigned), D(shared_hook),
      D(shared_hook_fork),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  nftw(base_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
