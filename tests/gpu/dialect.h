/*
 * dialect.h - what test_dialect.c (the harness and the checks of every
 * group but math) and dialect_math.c (math's checks, judged by CUDA's
 * documented bounds and by nvcc's build of the same source) share.
 */
#ifndef KS_TEST_DIALECT_H
#define KS_TEST_DIALECT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kspec.h"

enum { BLOCK = 256, NTHREADS = 65536, GLOBALS = 64, COLS = 16 };

/* What one column of a math kernel came to over a run (dialect_math.c). */
typedef struct mstat {
  const char *fn;   /* NULL: the column is not a math function's */
  const char *rule; /* the documented bound, for the report */
  double worst;     /* kspec's largest error, in ulps of the exact value */
  double worst_ref; /* nvcc's, on the same inputs */
  double worst_abs; /* kspec's largest absolute error where that is judged */
  long beyond;      /* results beyond the bound, accepted as nvcc's are */
  long differ;      /* results whose bits differ from nvcc's */
} mstat;

typedef struct run {
  const uint32_t *in;
  const uint64_t *out;
  const uint64_t *ref; /* nvcc's outputs for the same input, or NULL */
  int n;               /* threads */
  const char *k;       /* kernel, for messages */
  int bad;
  mstat stat[COLS];
} run;

#define OUT(r, t, c) ((r)->out[GLOBALS + (size_t)(t) * COLS + (c)])

/* Compares one slot; the first few mismatches of a kernel are printed. */
static inline void want(run *r, const char *what, long t, uint64_t got,
                        uint64_t expect) {
  if (got == expect)
    return;
  if (r->bad++ < 8)
    fprintf(stderr, "  %s: %s, thread %ld: got 0x%llx, want 0x%llx\n", r->k,
            what, t, (unsigned long long)got, (unsigned long long)expect);
}
static inline void want_col(run *r, int c, long t, uint64_t expect) {
  char what[32];
  snprintf(what, sizeof what, "column %d", c);
  want(r, what, t, OUT(r, t, c), expect);
}

static inline uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* ---- dialect_math.c ------------------------------------------------------
 */
void check_math_f1(run *r);
void check_math_f2(run *r);
void check_math_cxx(run *r);
void check_math_d(run *r);
void check_math_intrin(run *r);
/* Prints what r->stat holds: per function the worst error of kspec and of
 * nvcc, how many results were beyond the bound and how many differ. */
void math_report(const run *r);

/* nvcc's build of math.cu (math.nvcc.cubin, tests/dialect/CMakeLists.txt),
 * loaded through the driver into the primary context kspec uses. */
typedef struct nvref nvref;
/* NULL, with why in err, when the file is absent or the driver refuses
 * it. */
nvref *nvref_open(const char *path, char *err, size_t cap);
/* Runs kernel over n threads in blocks of BLOCK on (in, out, n) and waits;
 * 0, or -1 with why in err. */
int nvref_run(nvref *v, const char *kernel, ks_devptr in, ks_devptr out, int n,
              char *err, size_t cap);
void nvref_close(nvref *v);

#endif
