/*
 * check_grid.c - runs tools/wl_check.ll's ks_wl_close (the workloads'
 * compare on the device), compiled for the host (check_sim.sh), over a
 * simulated grid: every thread of every block in turn. Against the
 * host's rule, |(double)got - ref| <= tol (1 + |ref|) or <= tolv[i], on
 * outputs with planted mismatches (NaN, infinities, a value on the
 * tolerance's edge and the next float past it, one exactly on a given
 * tolerance, a NaN reference): the
 * count of elements outside must be the host's, the smallest index the
 * host's first, every element examined once (counted), for grids shorter
 * than the output (each thread strides) and longer, and a right output
 * must give no mismatch. got, ref and tolv are heap blocks of exactly
 * their size, so that AddressSanitizer reports any access past them.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned g_tid, g_ntid, g_ctaid, g_nctaid;
unsigned sreg_tid_x(void) { return g_tid; }
unsigned sreg_ntid_x(void) { return g_ntid; }
unsigned sreg_ctaid_x(void) { return g_ctaid; }
unsigned sreg_nctaid_x(void) { return g_nctaid; }

void ks_wl_close(const float *got, const double *ref, const double *tolv,
                 uint64_t n, double tol, uint64_t *out);

/* The host's rule (workloads.c: close_range, resize_compare). */
static int bad_at(const float *got, const double *ref, const double *tolv,
                  size_t i, double tol) {
  double lim = tolv ? tolv[i] : tol * (1.0 + fabs(ref[i]));
  return !(fabs(got[i] - ref[i]) <= lim);
}

static int failures;

/* One compare over a grid of blocks x threads; 1 when it disagrees. */
static void run(const char *what, const float *got, const double *ref,
                const double *tolv, size_t n, double tol, unsigned blocks,
                unsigned threads) {
  uint64_t out[3] = {0, UINT64_MAX, 0}, want = 0, first = UINT64_MAX;
  for (size_t i = 0; i < n; i++)
    if (bad_at(got, ref, tolv, i, tol)) {
      want++;
      if (first == UINT64_MAX)
        first = i;
    }
  g_ntid = threads;
  g_nctaid = blocks;
  for (g_ctaid = 0; g_ctaid < blocks; g_ctaid++)
    for (g_tid = 0; g_tid < threads; g_tid++)
      ks_wl_close(got, ref, tolv, n, tol, out);
  if (out[0] != want || out[1] != first || out[2] != n) {
    printf("%s (n %zu, %u x %u): bad %llu first %llu seen %llu; want %llu "
           "%llu %zu\n",
           what, n, blocks, threads, (unsigned long long)out[0],
           (unsigned long long)out[1], (unsigned long long)out[2],
           (unsigned long long)want, (unsigned long long)first, n);
    failures++;
  }
}

/* The float next to x away from zero. */
static float next_out(float x) {
  return nextafterf(x, x < 0 ? -INFINITY : INFINITY);
}

/* The largest float within tol (1 + |r|) of r, above it. */
static float edge_above(double r, double tol) {
  float f = (float)r;
  while (!(fabs((double)nextafterf(f, INFINITY) - r) > tol * (1.0 + fabs(r))))
    f = nextafterf(f, INFINITY);
  return f;
}

static void case_set(size_t n) {
  float *got = malloc(n * sizeof *got);
  double *ref = malloc(n * sizeof *ref), *tolv = malloc(n * sizeof *tolv);
  if (!got || !ref || !tolv)
    exit(2);
  uint64_t st = 12345 + n;
  for (size_t i = 0; i < n; i++) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    ref[i] = ((double)(st >> 11) / 9007199254740992.0 - 0.5) * 200.0;
    got[i] = (float)ref[i];
    tolv[i] = 1e-5 * (1.0 + (double)(i % 7));
  }
  const double tol = 1e-4;
  unsigned grids[][2] = {{1, 1}, {1, 32}, {3, 7}, {4, 256}, {1024, 256}};
  for (size_t gi = 0; gi < sizeof grids / sizeof *grids; gi++)
    run("right", got, ref, NULL, n, tol, grids[gi][0], grids[gi][1]);
  if (n > 40) {
    got[n - 1] = NAN;                                   /* the poison */
    got[n / 2] = INFINITY;                              /* far */
    got[n / 3] = edge_above(ref[n / 3], tol);           /* on the edge: right */
    got[n / 4] = next_out(edge_above(ref[n / 4], tol)); /* past it */
    ref[n / 5] = NAN;                                   /* no value is right */
    got[29] = (float)ref[29] * 1.01f;                   /* in a low slice */
    /* exactly on a given tolerance: right (<=, not <) */
    tolv[n / 6] = fabs((double)got[n / 6] - ref[n / 6]);
    tolv[n / 7] = 0.0; /* and none at all: wrong unless exact */
  }
  for (size_t gi = 0; gi < sizeof grids / sizeof *grids; gi++) {
    run("planted", got, ref, NULL, n, tol, grids[gi][0], grids[gi][1]);
    run("planted, per-element", got, ref, tolv, n, tol, grids[gi][0],
        grids[gi][1]);
  }
  free(got);
  free(ref);
  free(tolv);
}

int main(void) {
  size_t sizes[] = {1, 31, 1000, 100003};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    case_set(sizes[k]);
  printf("%s\n", failures ? "FAIL" : "ok");
  return failures != 0;
}
