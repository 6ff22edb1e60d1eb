/*
 * test_async.c - background specialization (ks_specialize_async and its
 * futures) and the prewarm list (KSPEC_RECORD / ks_ctx_opts.record and
 * ks_prewarm).
 *
 * Futures: many in parallel over distinct and equal keys, waited for in any
 * order, mixed with synchronous requests (one compile per key); requests
 * copied deeply; futures freed before their compile ends; errors reported
 * by ks_future_wait; contexts destroyed with compiles queued and running.
 * Prewarm: a recorded file compiled into a fresh cache directory, after
 * which a new process finds every request on disk.
 *
 * Every directory is made under a temporary one, removed at the end.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kspec.h"
#include "test_util.h"

enum { NKEYS = 12, COPIES = 3 };

static char base_dir[256];

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
} fixture;

static ks_ctx *make_ctx(const char *cache_dir, const char *record,
                        unsigned jobs) {
  ks_ctx_opts o = {.arch = "sm_90",
                   .ptx_isa = 85,
                   .no_driver = 1,
                   .no_disk_cache = cache_dir == NULL,
                   .cache_dir = cache_dir,
                   .record = record,
                   .jobs = jobs};
  ks_ctx *ctx = NULL;
  return ks_ctx_create(&o, &ctx) == KS_OK ? ctx : NULL;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f || !(f->ctx = make_ctx(NULL, NULL, 4)) ||
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

/* A conv1d request with FILTER_LEN = len and 64-thread blocks; b is the
 * binding's storage. */
static ks_spec_req req_len(ks_binding *b, int64_t len) {
  *b = (ks_binding){.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = len};
  return (ks_spec_req){.bindings = b, .nbindings = 1, .bounds.block = {64}};
}

static ks_cache_counters counters(ks_ctx *ctx) {
  ks_cache_counters c = {.size = sizeof c};
  assert_int_equal(ks_cache_stats(ctx, &c), KS_OK);
  return c;
}

/* ---- futures ------------------------------------------------------------ */

/* NKEYS keys, COPIES futures each, started interleaved and waited for in a
 * scrambled order, with a synchronous request per key in between: every
 * key compiles once and all its requests get one kernel. */
static void test_parallel_keys(void **state) {
  fixture *f = *state;
  ks_future *fut[NKEYS * COPIES];
  for (int c = 0; c < COPIES; c++)
    for (int i = 0; i < NKEYS; i++) {
      ks_binding b;
      ks_spec_req r = req_len(&b, i + 1);
      assert_int_equal(
          ks_specialize_async(f->ctx, f->t, &r, &fut[c * NKEYS + i]), KS_OK);
    }
  ks_kernel *sync[NKEYS];
  for (int i = NKEYS - 1; i >= 0; i--) {
    ks_binding b;
    ks_spec_req r = req_len(&b, i + 1);
    assert_int_equal(ks_specialize(f->ctx, f->t, &r, &sync[i]), KS_OK);
  }
  for (int n = 0; n < NKEYS * COPIES; n++) {
    int j = (n * 7) % (NKEYS * COPIES); /* 7 is prime to 36: a permutation */
    ks_kernel *k = NULL;
    assert_int_equal(ks_future_wait(fut[j], &k), KS_OK);
    assert_ptr_equal(k, sync[j % NKEYS]);
    assert_true(ks_future_ready(fut[j]));
    assert_ptr_equal(ks_future_kernel_or(fut[j], NULL), k);
  }
  for (int n = 0; n < NKEYS * COPIES; n++)
    ks_future_free(fut[n]);
  ks_cache_counters c = counters(f->ctx);
  assert_int_equal(c.compiles, NKEYS);
  assert_int_equal(c.misses, NKEYS);
  assert_int_equal(c.memory_hits,
                   NKEYS * COPIES); /* NKEYS*(COPIES+1) - NKEYS */
}

/* The request's memory goes (and is scribbled on) right after the call:
 * the future works from its own copy, text values, no_pass and bakes
 * included, and gives the synchronous request's kernel. */
static void test_deep_copy(void **state) {
  fixture *f = *state;
  char *name = strdup("FILTER_LEN"), *val = strdup("5");
  char *np = strdup("const_promote"), *arg = strdup("f");
  double *w = malloc(5 * sizeof *w);
  ks_binding *b = malloc(sizeof *b);
  ks_bake *bk = malloc(sizeof *bk);
  const char **nps = malloc(sizeof *nps);
  for (int i = 0; i < 5; i++)
    w[i] = 0.5 * i;
  *b = (ks_binding){.name = name, .kind = KS_VALUE_TEXT, .v.s = val};
  *bk = (ks_bake){.arg = arg, .values = w, .n = 5};
  nps[0] = np;
  ks_spec_req r = {.bindings = b,
                   .nbindings = 1,
                   .bounds.block = {128},
                   .no_pass = nps,
                   .nno_pass = 1,
                   .bakes = bk,
                   .nbakes = 1};
  ks_future *fut = NULL;
  assert_int_equal(ks_specialize_async(f->ctx, f->t, &r, &fut), KS_OK);
  memset(name, 'x', 10);
  val[0] = '9';
  np[0] = 'z';
  arg[0] = 'q';
  w[2] = 1e9;
  free(name), free(val), free(np), free(arg), free(w), free(b), free(bk);
  free(nps);
  ks_kernel *k = NULL;
  assert_int_equal(ks_future_wait(fut, &k), KS_OK);
  ks_future_free(fut);

  double w2[5] = {0, 0.5, 1, 1.5, 2};
  ks_binding b2 = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 5};
  ks_bake bk2 = {.arg = "f", .values = w2, .n = 5};
  const char *np2[] = {"const_promote"};
  ks_spec_req r2 = {.bindings = &b2,
                    .nbindings = 1,
                    .bounds.block = {128},
                    .no_pass = np2,
                    .nno_pass = 1,
                    .bakes = &bk2,
                    .nbakes = 1};
  ks_kernel *k2 = NULL;
  assert_int_equal(ks_specialize(f->ctx, f->t, &r2, &k2), KS_OK);
  assert_ptr_equal(k, k2); /* the same key: a memory hit */
  assert_int_equal(counters(f->ctx).compiles, 1);
}

/* Failures of the compile come back through ks_future_wait, as often as it
 * is asked; ks_future_kernel_or keeps giving the fallback. */
static void test_error_reported(void **state) {
  fixture *f = *state;
  ks_binding b;
  ks_spec_req r = req_len(&b, 1000); /* over the range [1, 128] */
  ks_binding bad = {.name = "NO_SUCH", .kind = KS_VALUE_INT, .v.i = 1};
  ks_spec_req r2 = {.bindings = &bad, .nbindings = 1};
  ks_future *f1 = NULL, *f2 = NULL;
  assert_int_equal(ks_specialize_async(f->ctx, f->t, &r, &f1), KS_OK);
  assert_int_equal(ks_specialize_async(f->ctx, f->t, &r2, &f2), KS_OK);
  ks_kernel *k = (ks_kernel *)&b, *fallback = (ks_kernel *)&r;
  for (int i = 0; i < 2; i++) {
    assert_int_equal(ks_future_wait(f1, &k), KS_ERANGE);
    assert_null(k);
    assert_non_null(strstr(ks_errmsg(f->ctx), "FILTER_LEN=1000 out of range"));
  }
  assert_int_equal(ks_future_wait(f2, NULL), KS_EPARAM);
  assert_non_null(strstr(ks_errmsg(f->ctx), "no parameter 'NO_SUCH'"));
  assert_true(ks_future_ready(f1));
  assert_ptr_equal(ks_future_kernel_or(f1, fallback), fallback);
  ks_future_free(f1);
  ks_future_free(f2);
  /* the arguments' own checks stay synchronous */
  ks_future *f3 = (ks_future *)&b;
  ks_spec_req r3 = {.nbindings = 1};
  assert_int_equal(ks_specialize_async(f->ctx, f->t, &r3, &f3), KS_EINVAL);
  assert_null(f3);
  assert_int_equal(ks_specialize_async(f->ctx, NULL, &r, &f3), KS_EINVAL);
  assert_int_equal(ks_future_wait(NULL, NULL), KS_EINVAL);
  ks_future_free(NULL);
  assert_ptr_equal(ks_future_kernel_or(NULL, fallback), fallback);
}

/* A global bake with values and a count of 0 is refused as ks_specialize
 * refuses it, not taken for a bake from the initializer (values NULL) once
 * copied; NULL values and 0 still bake the initializer (data/globals.ll). */
static void test_bake_shape_kept(void **state) {
  fixture *f = *state;
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(f->ctx, KS_TEST_DATA_DIR "/globals.ll", &t),
                   KS_OK);
  double one = 0.5;
  ks_bake bk = {.arg = "taps", .values = &one, .n = 0};
  ks_spec_req r = {.kernel = "conv3x3", .bakes = &bk, .nbakes = 1};
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize(f->ctx, t, &r, &k), KS_EPARAM);
  ks_future *fu = NULL;
  assert_int_equal(ks_specialize_async(f->ctx, t, &r, &fu), KS_OK);
  assert_int_equal(ks_future_wait(fu, &k), KS_EPARAM);
  assert_null(k);
  assert_non_null(
      strstr(ks_errmsg(f->ctx), "holds 9 values; the bake gives 0"));
  ks_future_free(fu);
  bk.values = NULL;
  assert_int_equal(ks_specialize_async(f->ctx, t, &r, &fu), KS_OK);
  assert_int_equal(ks_future_wait(fu, &k), KS_OK);
  assert_non_null(k);
  ks_future_free(fu);
  ks_template_destroy(t);
}

/* Futures freed at once, while queued or running: nothing crashes or leaks
 * (run under KSPEC_SANITIZE), the context stays usable and a kernel already
 * made stays cached. */
static void test_free_early(void **state) {
  fixture *f = *state;
  ks_future *fut[NKEYS];
  for (int i = 0; i < NKEYS; i++) {
    ks_binding b;
    ks_spec_req r = req_len(&b, 40 + i);
    assert_int_equal(ks_specialize_async(f->ctx, f->t, &r, &fut[i]), KS_OK);
  }
  for (int i = 0; i < NKEYS; i++)
    ks_future_free(fut[i]);
  /* nothing runs after the frees: the counters stay still */
  ks_cache_counters c1 = counters(f->ctx);
  assert_true(c1.compiles <= NKEYS);
  usleep(100 * 1000);
  ks_cache_counters c2 = counters(f->ctx);
  assert_int_equal(c2.compiles, c1.compiles);
  ks_binding b;
  ks_spec_req r = req_len(&b, 40);
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize(f->ctx, f->t, &r, &k), KS_OK);
  assert_non_null(k);
}

/* ks_ctx_destroy with compiles queued and running: it drops and waits for
 * them; every future is then finished with KS_EINVAL and freed after. */
static void test_destroy_with_futures(void **state) {
  (void)state;
  ks_ctx *ctx = make_ctx(NULL, NULL, 2);
  ks_template *t = NULL;
  assert_non_null(ctx);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  ks_future *fut[NKEYS];
  for (int i = 0; i < NKEYS; i++) {
    ks_binding b;
    ks_spec_req r = req_len(&b, 60 + i);
    assert_int_equal(ks_specialize_async(ctx, t, &r, &fut[i]), KS_OK);
  }
  ks_ctx_destroy(ctx);
  ks_template_destroy(t); /* nothing uses it any more */
  ks_kernel *fallback = (ks_kernel *)&fut[0];
  for (int i = 0; i < NKEYS; i++) {
    ks_kernel *k = fallback;
    assert_true(ks_future_ready(fut[i]));
    assert_int_equal(ks_future_wait(fut[i], &k), KS_EINVAL);
    assert_null(k);
    assert_non_null(strstr(ks_errmsg(NULL), "context was destroyed"));
    assert_ptr_equal(ks_future_kernel_or(fut[i], fallback), fallback);
    ks_future_free(fut[i]);
  }
}

/* ---- prewarm ------------------------------------------------------------ */

typedef struct fails {
  int n;
  unsigned long line[8];
  char why[8][256];
} fails;

static void on_fail(void *arg, unsigned long line, const char *why) {
  fails *fl = arg;
  if (fl->n < 8) {
    fl->line[fl->n] = line;
    snprintf(fl->why[fl->n], sizeof fl->why[0], "%s", why);
  }
  fl->n++;
}

/* The requests the "program" makes: a text binding, an int one with a
 * bake and a pass switched off, and a bound-less generic kernel. */
static void program(ks_ctx *ctx, ks_template *t, int expect_disk) {
  double w[3] = {0.25, 0.5, 0.25};
  ks_binding b1 = {.name = "FILTER_LEN", .kind = KS_VALUE_TEXT, .v.s = "17"};
  ks_binding b2 = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 3};
  ks_bake bk = {.arg = "f", .values = w, .n = 3};
  const char *np[] = {"smem_promote"};
  ks_spec_req r[3] = {{.bindings = &b1, .nbindings = 1, .bounds.block = {256}},
                      {.bindings = &b2,
                       .nbindings = 1,
                       .bounds = {.block = {128}, .maxnreg = 64},
                       .bakes = &bk,
                       .nbakes = 1,
                       .no_pass = np,
                       .nno_pass = 1},
                      {.bounds.maxntid = 512}};
  for (int i = 0; i < 3; i++)
    for (int rep = 0; rep < 2; rep++) { /* the repeat: a memory hit */
      ks_kernel *k = NULL;
      assert_int_equal(ks_specialize(ctx, t, &r[i], &k), KS_OK);
      ks_kernel_info info = {.size = sizeof info};
      assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
      if (expect_disk)
        assert_true(info.from_disk);
    }
}

static int count_lines(const char *path) {
  char *text = (char *)tu_read_file(path, NULL);
  int n = 0;
  for (char *p = text; p && *p; p++)
    n += *p == '\n';
  free(text);
  return n;
}

static void test_record_prewarm(void **state) {
  (void)state;
  char rec[300], dir[300];
  snprintf(rec, sizeof rec, "%s/requests.txt", base_dir);
  snprintf(dir, sizeof dir, "%s/prewarmed", base_dir);
  ks_template *t = NULL;

  /* 1. record: three requests, each once (memory hits are not recorded) */
  ks_ctx *ctx = make_ctx(NULL, rec, 0);
  assert_non_null(ctx);
  assert_string_equal(ks_ctx_warning(ctx), "");
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  program(ctx, t, 0);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  assert_int_equal(count_lines(rec), 3);
  char *text = (char *)tu_read_file(rec, NULL);
  assert_non_null(strstr(text, "kspec-req-1 conv1d "));
  assert_non_null(strstr(text, " D:FILTER_LEN=17"));
  assert_non_null(strstr(text, " no_pass=smem_promote bake:f=0.25,0.5,0.25"));
  assert_non_null(strstr(text, " maxnreg=64"));
  free(text);

  /* 2. prewarm into a fresh directory, twice */
  ks_prewarm_result res = {.size = sizeof res};
  fails fl = {0};
  ctx = make_ctx(dir, NULL, 3);
  assert_non_null(ctx);
  assert_int_equal(ks_prewarm(ctx, rec, on_fail, &fl, &res), KS_OK);
  assert_int_equal(fl.n, 0);
  assert_int_equal(res.requests, 3);
  assert_int_equal(res.compiled, 3);
  assert_int_equal(res.cached + res.duplicates + res.failed, 0);
  ks_ctx_destroy(ctx);
  ctx = make_ctx(dir, NULL, 3);
  assert_int_equal(ks_prewarm(ctx, rec, on_fail, &fl, &res), KS_OK);
  assert_int_equal(res.cached, 3);
  assert_int_equal(res.compiled + res.failed, 0);
  ks_ctx_destroy(ctx);

  /* 3. a new process: all three from the disk cache, nothing compiled */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    ctx = make_ctx(dir, NULL, 0);
    if (!ctx || ks_template_load(ctx, "conv1d", &t) != KS_OK)
      _exit(3);
    program(ctx, t, 1);
    ks_cache_counters c = {.size = sizeof c};
    ks_cache_stats(ctx, &c);
    _exit(c.disk_hits == 3 && c.misses == 0 && c.compiles == 0 ? 0 : 4);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* A user's kernel bound by position (ks_binding.arg) is recorded as
 * "@N", prewarms, and is the same disk entry as the request by name. */
static void test_record_positions(void **state) {
  (void)state;
  char rec[300], dir[300];
  snprintf(rec, sizeof rec, "%s/positions.txt", base_dir);
  snprintf(dir, sizeof dir, "%s/positions", base_dir);
  const char *path = KS_TEST_DATA_DIR "/user_args.ll";
  ks_binding pos = {.name = NULL, .kind = KS_VALUE_INT, .v.i = 4096, .arg = 0};
  ks_binding named = {.name = "n", .kind = KS_VALUE_TEXT, .v.s = "4096"};
  ks_spec_req rp = {.kernel = "scaled_sum", .bindings = &pos, .nbindings = 1};
  ks_spec_req rn = {.kernel = "scaled_sum", .bindings = &named, .nbindings = 1};
  ks_ctx *ctx = make_ctx(NULL, rec, 0);
  ks_template *t = NULL;
  ks_kernel *a = NULL, *b = NULL;
  assert_int_equal(ks_template_load(ctx, path, &t), KS_OK);
  assert_int_equal(ks_specialize(ctx, t, &rp, &a), KS_OK);
  assert_int_equal(ks_specialize(ctx, t, &rn, &b), KS_OK);
  assert_ptr_equal(a, b); /* one key: the second is a memory hit */
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  assert_int_equal(count_lines(rec), 1);
  char *text = (char *)tu_read_file(rec, NULL);
  assert_non_null(strstr(text, " kernel=scaled_sum "));
  assert_non_null(strstr(text, " D:@0=4096\n"));
  free(text);
  ks_prewarm_result res = {.size = sizeof res};
  fails fl = {0};
  ctx = make_ctx(dir, NULL, 1);
  assert_int_equal(ks_prewarm(ctx, rec, on_fail, &fl, &res), KS_OK);
  assert_int_equal(res.compiled, 1);
  assert_int_equal(fl.n, 0);
  ks_ctx_destroy(ctx);
  ctx = make_ctx(dir, NULL, 1);
  assert_int_equal(ks_template_load(ctx, path, &t), KS_OK);
  char why[256];
  assert_int_equal(ks_cache_why_miss(ctx, t, &rn, why, sizeof why), KS_OK);
  assert_string_equal(why, "hit");
  assert_int_equal(ks_specialize(ctx, t, &rn, &b), KS_OK);
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_kernel_info_get(b, &info), KS_OK);
  assert_true(info.from_disk);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* Bad lines, unknown templates, changed templates and failing requests
 * are counted and reported with their line; the good lines still compile,
 * and a repeated line is a duplicate. */
static void test_prewarm_failures(void **state) {
  (void)state;
  char rec[300];
  snprintf(rec, sizeof rec, "%s/bad.txt", base_dir);
  FILE *fp = fopen(rec, "w");
  assert_non_null(fp);
  ks_ctx *ctx = make_ctx(NULL, NULL, 2);
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  char good[256];
  /* the hash of the real template, as a recorded line gives it */
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s/one.txt", base_dir);
  ks_ctx *rc = make_ctx(NULL, tmp, 0);
  ks_binding b;
  ks_spec_req r = req_len(&b, 9);
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize(rc, t, &r, &k), KS_OK);
  ks_ctx_destroy(rc);
  char *one = (char *)tu_read_file(tmp, NULL);
  assert_non_null(one);
  snprintf(good, sizeof good, "%s", one);
  free(one);
  char hash[33];
  assert_int_equal(sscanf(good, "kspec-req-1 conv1d %32s", hash), 1);
  fprintf(fp, "# a comment\n%s", good);                            /* 2 */
  fprintf(fp, "not a record\n");                                   /* 3 */
  fprintf(fp, "kspec-req-1 no_such_template %s kernel=x\n", hash); /* 4 */
  fprintf(fp, "kspec-req-1 conv1d 0123456789abcdef0123456789abcdef "
              "kernel=conv1d\n");                                /* 5 */
  fprintf(fp, "kspec-req-1 conv1d %s D:FILTER_LEN=999\n", hash); /* 6 */
  fprintf(fp, "%s", good);                                       /* 7 */
  fprintf(fp, "kspec-req-1 conv1d %s color=blue\n", hash);       /* 8 */
  fclose(fp);
  ks_ctx_destroy(ctx);
  ks_template_destroy(t);

  ctx = make_ctx(NULL, NULL, 2);
  fails fl = {0};
  ks_prewarm_result res = {.size = sizeof res};
  assert_int_equal(ks_prewarm(ctx, rec, on_fail, &fl, &res), KS_OK);
  assert_int_equal(res.requests, 7);
  assert_int_equal(res.compiled, 1);
  assert_int_equal(res.duplicates, 1);
  assert_int_equal(res.failed, 5);
  assert_int_equal(fl.n, 5);
  /* parse and template failures come first, compile failures at the end */
  assert_int_equal(fl.line[0], 3);
  assert_non_null(strstr(fl.why[0], "not a kspec-req-1 line"));
  assert_int_equal(fl.line[1], 4);
  assert_non_null(strstr(fl.why[1], "no_such_template"));
  assert_int_equal(fl.line[2], 5);
  assert_non_null(strstr(fl.why[2], "changed since it was recorded"));
  assert_int_equal(fl.line[3], 8);
  assert_non_null(strstr(fl.why[3], "unknown field 'color'"));
  assert_int_equal(fl.line[4], 6);
  assert_non_null(strstr(fl.why[4], "out of range"));
  assert_int_equal(ks_prewarm(ctx, "/nonexistent/x", NULL, NULL, &res), KS_EIO);
  ks_ctx_destroy(ctx);
}

/* A record file that cannot be opened is a warning, not an error. */
static void test_record_unopenable(void **state) {
  (void)state;
  ks_ctx *ctx = make_ctx(NULL, "/nonexistent/dir/requests.txt", 0);
  assert_non_null(ctx);
  assert_non_null(strstr(ks_ctx_warning(ctx), "record: cannot open"));
  ks_ctx_destroy(ctx);
}

static int rm_one(const char *path, const struct stat *sb, int flag,
                  struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(base_dir, sizeof base_dir, "%s/kspec_async_XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(base_dir))
    return 1;
  unsetenv("KSPEC_RECORD");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_parallel_keys, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deep_copy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_error_reported, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bake_shape_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_free_early, setup, teardown),
      cmocka_unit_test(test_destroy_with_futures),
      cmocka_unit_test(test_record_prewarm),
      cmocka_unit_test(test_record_positions),
      cmocka_unit_test(test_prewarm_failures),
      cmocka_unit_test(test_record_unopenable),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  nftw(base_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
