/*
 * test_workloads.c - the tools' workloads (tools/workloads.c, included
 * here for its static helpers): the inputs filled on every core are the
 * values a serial fill gives, every slice of a parallel range runs once,
 * and the parallel compare finds the first element out of tolerance,
 * whichever slice finds it; the compare on the device accepts nothing it
 * did not examine (over the mocked driver).
 */
#include "../tools/workloads.c"

#include <setjmp.h> /* cmocka.h needs these first */
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* A fill over many slices against the serial splitmix64 stream. */
static void fill_matches_serial(void **state) {
  (void)state;
  enum { N = (1 << 20) + 123 };
  wl_buf b = {.elem = ELEM_F32, .count = N};
  b.host = malloc(N * sizeof(float));
  assert_non_null(b.host);
  uint64_t st = 42, serial = 42;
  fill_random(&b, &st, 0);
  for (size_t i = 0; i < N; i++)
    assert_true(((float *)b.host)[i] == rnd_float(&serial));
  assert_true(st == serial); /* the next buffer starts where a serial one */
  wl_buf u = {.elem = ELEM_U32, .count = N};
  u.host = malloc(N * sizeof(uint32_t));
  assert_non_null(u.host);
  fill_random(&u, &st, 1024);
  for (size_t i = 0; i < N; i++)
    assert_int_equal(((uint32_t *)u.host)[i], (uint32_t)(rnd(&serial) % 1024));
  free(b.host);
  free(u.host);
}

static void count_range(void *arg, size_t lo, size_t hi) {
  unsigned char *seen = arg;
  for (size_t i = lo; i < hi; i++)
    seen[i]++;
}

static void ranges_cover_once(void **state) {
  (void)state;
  size_t sizes[] = {0, 1, 100, (1 << 16) - 1, 1 << 16, 3 << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    size_t n = sizes[k];
    unsigned char *seen = calloc(n ? n : 1, 1);
    assert_non_null(seen);
    par_range(seen, n, 1 << 12, count_range);
    for (size_t i = 0; i < n; i++)
      assert_int_equal(seen[i], 1);
    free(seen);
  }
}

/* The first element out of tolerance, with mismatches planted in several
 * slices: always the lowest; a NaN counts; none gives n. */
static void first_far_is_first(void **state) {
  (void)state;
  enum { N = 4 << 20 };
  float *got = malloc(N * sizeof *got);
  double *ref = malloc(N * sizeof *ref);
  assert_non_null(got);
  assert_non_null(ref);
  for (size_t i = 0; i < N; i++)
    got[i] = (float)(ref[i] = (double)(i % 1000) / 7.0);
  assert_int_equal(first_far(got, ref, N, 1e-4), N);
  size_t plant[] = {N - 1, 3 * (N / 4) + 5, N / 2, 70000, 0};
  for (size_t k = 0; k < sizeof plant / sizeof *plant; k++) {
    got[plant[k]] += 1.0f;
    assert_int_equal(first_far(got, ref, N, 1e-4), plant[k]);
  }
  got[0] = (float)ref[0];
  assert_int_equal(first_far(got, ref, N, 1e-4), 70000);
  got[10] = NAN;
  assert_int_equal(first_far(got, ref, N, 1e-4), 10);
  free(got);
  free(ref);
}

/* Over the mocked driver, whose launches run nothing: the compare on the
 * device launches but examines nothing, so it vouches for nothing, and
 * the host's compare finds the poison the kernel left, with its message:
 * a checker never passes an output it did not see. */
static void device_compare_needs_every_element(void **state) {
  (void)state;
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL, *checker = NULL;
  ks_wl *w = NULL;
  char err[512] = "";
  ks_spec_req req = {0};
  ks_binding taps = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 5};
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  ks_ctx_opts co = {.no_disk_cache = 1};
  assert_int_equal(ks_ctx_create(&co, &ctx), KS_OK);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_wl_compile_checker(ctx, &checker, err, sizeof err),
                   KS_OK);
  assert_int_equal(
      ks_wl_create(ctx, t, NULL, 1000, &taps, 1, 0, 3, &w, err, sizeof err),
      KS_OK);
  ks_wl_use_checker(w, checker);
  assert_int_equal(ks_wl_check(w, k, err, sizeof err), KS_ERANGE);
  assert_non_null(strstr(err, "conv1d: y[0] = "));
  assert_int_equal(ks_wl_device_accepts(w), 0);
  assert_int_equal(w->dev_off, 0); /* it ran; it found nothing to vouch for */
  ks_wl_destroy(w);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* w's reference, as its first check makes it. */
static int desc_reference(ks_wl *w) { return w->desc->reference(w); }

/* A workload filled on the host first (no driver), then moved to a
 * context and allocated, has the inputs and reference of one made at
 * once with the same seed: the fill draws the same values in the same
 * order. */
static void fill_then_alloc_is_create(void **state) {
  (void)state;
  ks_ctx *ctx = NULL, *host = NULL;
  ks_template *t = NULL, *ht = NULL;
  ks_wl *a = NULL, *b = NULL;
  char err[512] = "";
  ks_binding taps = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 7};
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  ks_ctx_opts co = {.no_disk_cache = 1};
  ks_ctx_opts ho = {.no_driver = 1, .no_disk_cache = 1, .arch = "sm_90"};
  assert_int_equal(ks_ctx_create(&co, &ctx), KS_OK);
  assert_int_equal(ks_ctx_create(&ho, &host), KS_OK);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  assert_int_equal(ks_template_load(host, "conv1d", &ht), KS_OK);
  assert_int_equal(
      ks_wl_create(ctx, t, NULL, 5000, &taps, 1, 128, 9, &a, err, sizeof err),
      KS_OK);
  assert_int_equal(ks_wl_prepare(host, ht, NULL, 5000, &taps, 1, 128, 9, &b,
                                 err, sizeof err),
                   KS_OK);
  assert_int_equal(ks_wl_fill(b, err, sizeof err), KS_OK);
  assert_null(b->ref);
  assert_int_equal(ks_wl_reference(b, err, sizeof err), KS_OK);
  assert_non_null(b->ref); /* without a driver */
  assert_int_equal(ks_wl_rebind(b, ctx), KS_OK);
  assert_int_equal(ks_wl_alloc(b, err, sizeof err), KS_OK);
  assert_int_equal(ks_wl_rebind(b, host), KS_EINVAL); /* it is on ctx now */
  assert_int_equal(a->nbufs, b->nbufs);
  for (size_t i = 0; i < a->nbufs; i++) {
    assert_true(b->bufs[i].dev != 0);
    if (a->bufs[i].role == ROLE_IN)
      assert_memory_equal(a->bufs[i].host, b->bufs[i].host,
                          a->bufs[i].count * elem_size[a->bufs[i].elem]);
  }
  assert_int_equal(a->rng, b->rng);
  assert_int_equal(desc_reference(a), 0);
  assert_memory_equal(a->ref, b->ref, b->nref * sizeof *b->ref);
  ks_wl_destroy(a);
  ks_wl_destroy(b);
  ks_template_destroy(t);
  ks_template_destroy(ht);
  ks_ctx_destroy(ctx);
  ks_ctx_destroy(host);
}

/* conv1d's reference, computed CONV_ROW outputs at a time, is bit for bit
 * the serial loop's, whatever the slices' edges. */
static void conv1d_reference_is_serial(void **state) {
  (void)state;
  ks_ctx *host = NULL;
  ks_template *t = NULL;
  ks_wl *w = NULL;
  char err[512] = "";
  ks_ctx_opts ho = {.no_driver = 1, .no_disk_cache = 1, .arch = "sm_90"};
  long taps_of[] = {1, 7, 32};
  assert_int_equal(ks_ctx_create(&ho, &host), KS_OK);
  assert_int_equal(ks_template_load(host, "conv1d", &t), KS_OK);
  for (size_t c = 0; c < sizeof taps_of / sizeof *taps_of; c++) {
    ks_binding taps = {
        .name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = taps_of[c]};
    size_t n = 300007;
    assert_int_equal(ks_wl_prepare(host, t, NULL, n, &taps, 1, 0, 11 + c, &w,
                                   err, sizeof err),
                     KS_OK);
    assert_int_equal(ks_wl_reference(w, err, sizeof err), KS_OK);
    const float *x = w->bufs[0].host, *f = w->bufs[1].host;
    for (size_t i = 0; i < n; i++) {
      double s = 0.0;
      for (long k = 0; k < taps_of[c]; k++)
        s += (double)x[i + (size_t)k] * f[k];
      assert_memory_equal(&s, &w->ref[i], sizeof s);
    }
    ks_wl_destroy(w);
  }
  ks_template_destroy(t);
  ks_ctx_destroy(host);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fill_matches_serial),
      cmocka_unit_test(ranges_cover_once),
      cmocka_unit_test(first_far_is_first),
      cmocka_unit_test(device_compare_needs_every_element),
      cmocka_unit_test(fill_then_alloc_is_create),
      cmocka_unit_test(conv1d_reference_is_serial),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
