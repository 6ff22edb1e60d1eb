/*
 * dialect_math.c - test_dialect.c's checks of math.cu: each result of
 * kspec's build against the exact value (long double libm), within the
 * bound CUDA's programming guide documents for the function (its appendix
 * "Mathematical Functions"; libdevice is what implements them) or, where
 * it is not, no farther from the exact value than nvcc's build of the same
 * source on the same input: the project's judge of a user's kernel is the
 * same source built by nvcc, and libdevice (which nvcc links too) does not
 * meet every documented bound everywhere (expm1f, coshf, __cosf, __expf
 * exceeded theirs on an H100 by a little). Per function, the report says
 * the worst error of each build and how many results differ.
 *
 * nvcc's build (math.nvcc.cubin) is loaded and run through the driver
 * itself, in the primary context kspec's own context uses.
 */
#include <dlfcn.h>
#include <fenv.h>
#include <math.h>
#include <stdlib.h>

#include <cuda.h>

#include "dialect.h"

/* ---- the judge ------------------------------------------------------------
 * The arguments are made exactly as math.cu makes them. */
typedef struct margs {
  float x, y, z;
  double a;
} margs;

static margs math_args(const uint32_t *in, int t) {
  uint32_t v = in[4 * t], w = in[4 * t + 1];
  margs m;
  m.x = (float)((int32_t)(v & 0xffff) - 32768) / 4096.0f;
  m.y = (float)((v >> 16) + 1) / 256.0f;
  m.z = (float)((int32_t)(w & 0xffff) - 32768) / 32768.0f;
  m.a = (double)m.x + (double)w / 4294967296.0;
  return m;
}

/* A result's bits as a double (a float's with !dbl). */
static double value(uint64_t bits, int dbl) {
  double d;
  float f;
  uint32_t b = (uint32_t)bits;
  if (dbl)
    memcpy(&d, &bits, 8);
  else
    memcpy(&f, &b, 4), d = f;
  return d;
}

/* Column c of thread t (a float, or a double with dbl) within ulps of exact
 * (0: correctly rounded), or within abs of it where abs is non-zero; else
 * no farther from it than nvcc's result where there is one. */
static void near(run *r, long t, int c, const char *fn, int dbl,
                 long double exact, double ulps, double abs) {
  uint64_t bits = OUT(r, t, c);
  double got = value(bits, dbl);
  int e = 0;
  frexpl(exact, &e);
  int mant = dbl ? 53 : 24, emin = dbl ? -1074 : -149;
  long double ulp = exact == 0 ? ldexpl(1, emin) : ldexpl(1, e - mant);
  if (ulp < ldexpl(1, emin))
    ulp = ldexpl(1, emin);
  long double err = fabsl((long double)got - exact);
  mstat *s = &r->stat[c];
  s->fn = fn;
  if (err / ulp > s->worst)
    s->worst = (double)(err / ulp);
  if (abs > 0 && err > s->worst_abs)
    s->worst_abs = (double)err;
  /* 0 ulps: correctly rounded, within half an ulp */
  int ok = abs > 0 ? err <= abs : err <= (ulps > 0 ? ulps : 0.5) * ulp;
  ok |= isnan(got) && isnan((double)exact);
  if (r->ref) {
    uint64_t rbits = r->ref[GLOBALS + (size_t)t * COLS + (size_t)c];
    long double rerr = fabsl((long double)value(rbits, dbl) - exact);
    if (isnan((double)rerr) && !isnan((double)exact))
      rerr = INFINITY; /* nvcc's NaN, or a result its kernel did not write */
    if (rerr / ulp > s->worst_ref)
      s->worst_ref = (double)(rerr / ulp);
    s->differ +=
        (dbl ? rbits : (uint32_t)rbits) != (dbl ? bits : (uint32_t)bits);
    if (!ok && err <= rerr)
      ok = 1, s->beyond++;
  }
  if (!ok && r->bad++ < 8)
    fprintf(stderr, "  %s: %s, thread %ld: got %.9g, want %.9Lg (%.2Lf ulp)\n",
            r->k, fn, t, got, exact, err / ulp);
}

void math_report(const run *r) {
  for (int c = 0; c < COLS; c++) {
    const mstat *s = &r->stat[c];
    if (!s->fn)
      continue;
    printf("  %-18s kspec %.2f ulp", s->fn, s->worst);
    if (s->worst_abs > 0)
      printf(" (%.3g absolute)", s->worst_abs);
    if (r->ref)
      printf(", nvcc %.2f ulp; %ld beyond the bound, as far as nvcc's; "
             "%ld of %d differ from nvcc's",
             s->worst_ref, s->beyond, s->differ, r->n);
    printf("\n");
  }
}

void check_math_f1(run *r) {
  for (int t = 0; t < r->n; t++) {
    margs m = math_args(r->in, t);
    long double x = m.x, y = m.y, z = m.z;
    near(r, t, 0, "expf", 0, expl(x), 2, 0);
    near(r, t, 1, "exp2f", 0, exp2l(x), 2, 0);
    near(r, t, 2, "exp10f", 0, powl(10.0L, x), 2, 0);
    near(r, t, 3, "expm1f", 0, expm1l(x), 1, 0);
    near(r, t, 4, "logf", 0, logl(y), 1, 0);
    near(r, t, 5, "log2f", 0, log2l(y), 1, 0);
    near(r, t, 6, "log10f", 0, log10l(y), 2, 0);
    near(r, t, 7, "log1pf", 0, log1pl(y), 1, 0);
    near(r, t, 8, "powf", 0, powl(y, (long double)(m.z * 4.0f)), 4, 0);
    near(r, t, 9, "sinf", 0, sinl(x), 2, 0);
    near(r, t, 10, "cosf", 0, cosl(x), 2, 0);
    near(r, t, 11, "tanf", 0, tanl(x), 4, 0);
    near(r, t, 12, "tanhf", 0, tanhl(x), 2, 0);
    near(r, t, 13, "erff", 0, erfl(x), 2, 0);
    near(r, t, 14, "sqrtf", 0, sqrtl(y), 0, 0);
    near(r, t, 15, "rsqrtf", 0, 1.0L / sqrtl(y), 2, 0);
    (void)z;
  }
}

void check_math_f2(run *r) {
  for (int t = 0; t < r->n; t++) {
    margs m = math_args(r->in, t);
    long double x = m.x, y = m.y, z = m.z;
    near(r, t, 0, "cbrtf", 0, cbrtl(x), 1, 0);
    near(r, t, 1, "asinf", 0, asinl(z), 2, 0);
    near(r, t, 2, "acosf", 0, acosl(z), 2, 0);
    near(r, t, 3, "atanf", 0, atanl(x), 2, 0);
    near(r, t, 4, "atan2f", 0, atan2l(x, z), 3, 0);
    near(r, t, 5, "sinhf", 0, sinhl(x), 3, 0);
    near(r, t, 6, "coshf", 0, coshl(x), 2, 0);
    near(r, t, 7, "erfcf", 0, erfcl(x), 4, 0);
    near(r, t, 8, "hypotf", 0, hypotl(x, y), 3, 0);
    near(r, t, 9, "fmaf", 0, fmaf(m.x, m.y, m.z), 0, 0);
    near(r, t, 10, "floorf", 0, floorf(m.x * 3.0f), 0, 0);
    near(r, t, 11, "ceilf", 0, ceilf(m.x * 3.0f), 0, 0);
    near(r, t, 12, "roundf", 0, roundf(m.x * 3.0f), 0, 0);
    near(r, t, 13, "fminf + fmaxf", 0, fminf(m.x, m.z) + fmaxf(m.x, m.z), 0, 0);
    near(r, t, 14, "fabsf", 0, fabsl(x), 0, 0);
    long double s = sinl(x), c = cosl(x); /* 2 ulps each, then the add */
    float sf = (float)s, cf = (float)c;
    double tol = 2.0 * (nextafterf(fabsf(sf), INFINITY) - fabsf(sf)) +
                 2.0 * (nextafterf(fabsf(cf), INFINITY) - fabsf(cf)) +
                 (nextafterf(fabsf(sf + cf), INFINITY) - fabsf(sf + cf));
    near(r, t, 15, "sincosf", 0, s + c, 0, tol);
  }
}

void check_math_cxx(run *r) {
  for (int t = 0; t < r->n; t++) {
    margs m = math_args(r->in, t);
    long double x = m.x, y = m.y;
    near(r, t, 0, "sqrt(float)", 0, sqrtl(y), 0, 0);
    near(r, t, 1, "exp(float)", 0, expl(x), 2, 0);
    near(r, t, 2, "sin(float)", 0, sinl(x), 2, 0);
    near(r, t, 3, "pow(float, int)", 0, y * y * y, 2, 0);
    near(r, t, 4, "max(float, float)", 0, fmaxf(m.x, m.z), 0, 0);
    near(r, t, 5, "fabs + abs", 0, fabsf(m.x) + fabsf(m.z), 0, 0);
    int32_t v = (int32_t)r->in[4 * t], w = (int32_t)r->in[4 * t + 1];
    want_col(r, 6, t, (uint32_t)(v < w ? v : w));
  }
}

void check_math_d(run *r) {
  for (int t = 0; t < r->n; t++) {
    margs m = math_args(r->in, t);
    long double a = m.a, b = m.y, c = m.z;
    near(r, t, 0, "exp", 1, expl(a), 1, 0);
    near(r, t, 1, "log", 1, logl(b), 1, 0);
    near(r, t, 2, "pow", 1, powl(b, c * 4.0L), 2, 0);
    near(r, t, 3, "sin", 1, sinl(a), 2, 0);
    near(r, t, 4, "cos", 1, cosl(a), 2, 0);
    near(r, t, 5, "tanh", 1, tanhl(a), 2, 0);
    near(r, t, 6, "erf", 1, erfl(a), 2, 0);
    near(r, t, 7, "sqrt", 1, sqrtl(b), 0, 0);
    near(r, t, 8, "cbrt", 1, cbrtl(a), 1, 0);
    near(r, t, 9, "atan2", 1, atan2l(a, c), 2, 0);
    near(r, t, 10, "log1p", 1, log1pl(b), 1, 0);
    near(r, t, 11, "exp2", 1, exp2l(a), 1, 0);
    near(r, t, 12, "asin", 1, asinl(c), 2, 0);
    near(r, t, 13, "rsqrt", 1, 1.0L / sqrtl(b), 1, 0);
    near(r, t, 14, "fma", 1, fma(m.a, (double)m.y, (double)m.z), 0, 0);
    near(r, t, 15, "floor", 1, floor(m.a * 3.0), 0, 0);
  }
}

/* float op in a rounding mode, kept from being folded */
static float rounded(int mode, float a, float b, char op) {
  volatile float x = a, y = b, res;
  fesetround(mode);
  res = op == '+' ? x + y : x * y;
  fesetround(FE_TONEAREST);
  return res;
}

void check_math_intrin(run *r) {
  for (int t = 0; t < r->n; t++) {
    margs m = math_args(r->in, t);
    long double x = m.x, y = m.y, z = m.z;
    /* the documented bounds: 2 + floor(|1.173 x|) ulps for __expf; 2^-21.41
     * absolute for __logf in [0.5, 2] (3 ulps elsewhere), for __sinf and
     * __cosf in [-pi, pi] (unbounded elsewhere: not checked) */
    double abs_bound = exp2(-21.41);
    near(r, t, 0, "__expf", 0, expl(x), 2 + floor(fabs(1.173 * m.x)), 0);
    if (m.y >= 0.5f && m.y <= 2.0f)
      near(r, t, 1, "__logf", 0, logl(y), 0, abs_bound);
    else
      near(r, t, 1, "__logf", 0, logl(y), 3, 0);
    if (fabsl(x) <= 3.14159265358979323846L) {
      near(r, t, 2, "__sinf", 0, sinl(x), 0, abs_bound);
      near(r, t, 3, "__cosf", 0, cosl(x), 0, abs_bound);
    }
    /* __powf: exp2(z * log2(y)) from the approximate forms, documented
     * only as derived from them: within 2^-16 relative here */
    long double p = powl(y, z);
    near(r, t, 4, "__powf", 0, p, 0, (double)(p * ldexpl(1, -16)));
    near(r, t, 5, "__fdividef", 0, x / y, 2, 0);
    float s = m.z * 2.0f;
    near(r, t, 6, "__saturatef", 0, s < 0 ? 0 : s > 1 ? 1 : s, 0, 0);
    near(r, t, 7, "__fmaf_rn", 0, fmaf(m.x, m.y, m.z), 0, 0);
    fesetround(FE_TOWARDZERO);
    volatile float fx = m.x, fy = m.y, fz = m.z;
    float rz = fmaf(fx, fy, fz);
    fesetround(FE_TONEAREST);
    near(r, t, 8, "__fmaf_rz", 0, rz, 0, 0);
    near(r, t, 9, "__fadd_rd", 0, rounded(FE_DOWNWARD, m.x, m.z, '+'), 0, 0);
    near(r, t, 10, "__fmul_ru", 0, rounded(FE_UPWARD, m.x, m.z, '*'), 0, 0);
    near(r, t, 11, "__frcp_rn", 0, 1.0f / m.y, 0, 0);
    near(r, t, 12, "__fsqrt_rn", 0, sqrtf(m.y), 0, 0);
    near(r, t, 13, "__fdiv_rn", 0, m.x / m.y, 0, 0);
    want_col(r, 14, t, (uint32_t)(int32_t)lrintf(m.x * 1000.0f));
    near(r, t, 15, "__dadd_rn", 1, (double)m.x + (double)m.z * 1e-9, 0, 0);
  }
}

/* ---- nvcc's build ---------------------------------------------------------
 */

#define NV_SYMBOLS                                                             \
  X(cuInit, "cuInit")                                                          \
  X(cuDeviceGet, "cuDeviceGet")                                                \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                      \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")                 \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                        \
  X(cuCtxSynchronize, "cuCtxSynchronize")                                      \
  X(cuGetErrorString, "cuGetErrorString")                                      \
  X(cuModuleLoadData, "cuModuleLoadData")                                      \
  X(cuModuleUnload, "cuModuleUnload")                                          \
  X(cuModuleGetFunction, "cuModuleGetFunction")                                \
  X(cuLaunchKernel, "cuLaunchKernel")

struct nvref {
  void *lib;
  CUdevice dev;
  CUcontext primary;
  CUmodule mod;
  struct {
#define X(f, s) __typeof__(&f) f;
    NV_SYMBOLS
#undef X
  } cu;
};

/* A driver call's failure as text into err; -1. */
static int cu_fail(const nvref *v, CUresult r, const char *what, char *err,
                   size_t cap) {
  const char *s = NULL;
  v->cu.cuGetErrorString(r, &s);
  snprintf(err, cap, "%s: %s", what, s ? s : "unknown CUDA error");
  return -1;
}

/* The driver (the one kspec uses: $KSPEC_LIBCUDA, else libcuda.so.1), the
 * primary context of device 0 current (kspec's, as the test opens it), the
 * module loaded; -1 with why in err. */
static int nvref_load(nvref *v, const char *path, const char *image, char *err,
                      size_t cap) {
  const char *lib = getenv("KSPEC_LIBCUDA");
  v->lib = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!v->lib)
    return snprintf(err, cap, "the driver: %s", dlerror()), -1;
#define X(f, s)                                                                \
  if (!(*(void **)&v->cu.f = dlsym(v->lib, s)))                                \
    return snprintf(err, cap, "the driver has no %s", s), -1;
  NV_SYMBOLS
#undef X
  CUresult r = v->cu.cuInit(0);
  if (!r)
    r = v->cu.cuDeviceGet(&v->dev, 0);
  if (!r)
    r = v->cu.cuDevicePrimaryCtxRetain(&v->primary, v->dev);
  if (!r)
    r = v->cu.cuCtxSetCurrent(v->primary);
  if (r)
    return cu_fail(v, r, "the primary context", err, cap);
  r = v->cu.cuModuleLoadData(&v->mod, image);
  return r ? cu_fail(v, r, path, err, cap) : 0;
}

/* The file at path, NUL-terminated (a cubin, or PTX), into *image. */
static int read_image(const char *path, char **image, char *err, size_t cap) {
  FILE *f = fopen(path, "rb");
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0)
    n = ftell(f);
  *image = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
  int ok = *image && fread(*image, 1, (size_t)n, f) == (size_t)n;
  if (f)
    fclose(f);
  if (ok)
    (*image)[n] = 0;
  else
    snprintf(err, cap,
             "%s: cannot read it (tools/gpu-pack.sh builds it where "
             "nvcc is)",
             path);
  return ok ? 0 : -1;
}

nvref *nvref_open(const char *path, char *err, size_t cap) {
  char *image = NULL;
  nvref *v = NULL;
  if (read_image(path, &image, err, cap) == 0 && !(v = calloc(1, sizeof *v)))
    snprintf(err, cap, "out of memory");
  if (v && nvref_load(v, path, image, err, cap)) {
    nvref_close(v);
    v = NULL;
  }
  free(image);
  return v;
}

int nvref_run(nvref *v, const char *kernel, ks_devptr in, ks_devptr out, int n,
              char *err, size_t cap) {
  CUfunction fn;
  CUresult r = v->cu.cuModuleGetFunction(&fn, v->mod, kernel);
  if (r)
    return cu_fail(v, r, kernel, err, cap);
  CUdeviceptr din = (CUdeviceptr)in, dout = (CUdeviceptr)out;
  void *args[] = {&din, &dout, &n};
  unsigned blocks = (unsigned)((n + BLOCK - 1) / BLOCK);
  r = v->cu.cuLaunchKernel(fn, blocks, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL);
  if (!r)
    r = v->cu.cuCtxSynchronize();
  return r ? cu_fail(v, r, kernel, err, cap) : 0;
}

void nvref_close(nvref *v) {
  if (!v)
    return;
  if (v->mod)
    v->cu.cuModuleUnload(v->mod);
  if (v->primary)
    v->cu.cuDevicePrimaryCtxRelease(v->dev);
  if (v->lib)
    dlclose(v->lib);
  free(v);
}
