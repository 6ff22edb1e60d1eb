/*
 * manifest.c - parsing the corpus MANIFEST, random inputs from a seed and
 * output comparison (see manifest.h). A bad line is refused whole, with
 * its line number and the word that was wrong, so that a typo in MANIFEST
 * never turns into a silently different test.
 */
#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {
    "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64"};
static const size_t type_sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 2, 4, 8};

size_t km_type_size(km_type t) { return type_sizes[t]; }
const char *km_type_name(km_type t) { return type_names[t]; }
int km_type_float(km_type t) { return t >= KM_F16; }

size_t km_arg_bytes(const km_arg *a) { return a->n * km_type_size(a->type); }

static int bad(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* The type named by s[0..len). */
static int parse_type(const char *s, size_t len, km_type *t) {
  for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++)
    if (strlen(type_names[i]) == len && !strncmp(s, type_names[i], len)) {
      *t = (km_type)i;
      return 0;
    }
  return -1;
}

/* An element count "N" or a product "A*B*...", all of s up to end. */
static int parse_count(const char *s, const char *end, size_t *n) {
  size_t v = 1;
  while (s < end) {
    char *e;
    errno = 0;
    unsigned long long f = strtoull(s, &e, 10);
    if (e == s || errno || f == 0 || e > end || v > SIZE_MAX / f)
      return -1;
    v *= (size_t)f;
    s = e;
    if (s < end && *s++ != '*')
      return -1;
  }
  *n = v;
  return 0;
}

/* A number filling all of s. */
static int parse_double(const char *s, double *v) {
  char *e;
  errno = 0;
  *v = strtod(s, &e);
  return e == s || *e || errno ? -1 : 0;
}

/* "X[,Y[,Z]]" into d (missing ones 1). */
static int parse_dims(const char *s, unsigned d[3]) {
  d[0] = d[1] = d[2] = 1;
  for (int i = 0; i < 3; i++) {
    char *e;
    unsigned long v = strtoul(s, &e, 10);
    if (e == s || v == 0 || v > 0x7fffffff)
      return -1;
    d[i] = (unsigned)v;
    if (!*e)
      return 0;
    if (*e != ',')
      return -1;
    s = e + 1;
  }
  return -1;
}

/* "T[N]" possibly followed by ":LO:HI" (only when ranges is set). */
static int parse_buffer(const char *s, km_arg *a, int ranges) {
  const char *lb = strchr(s, '['), *rb = lb ? strchr(lb, ']') : NULL;
  if (!lb || !rb || parse_type(s, (size_t)(lb - s), &a->type) ||
      parse_count(lb + 1, rb, &a->n))
    return -1;
  if (!rb[1])
    return 0;
  char lo[64], hi[64];
  if (!ranges || sscanf(rb + 1, ":%63[^:]:%63s", lo, hi) != 2 ||
      parse_double(lo, &a->lo) || parse_double(hi, &a->hi) || !(a->lo < a->hi))
    return -1;
  a->ranged = 1;
  return 0;
}

/* "T:W:H" of tex2d and surf2d. */
static int parse_image(const char *s, km_arg *a) {
  const char *c = strchr(s, ':');
  if (!c || parse_type(s, (size_t)(c - s), &a->type) ||
      sscanf(c + 1, "%u:%u", &a->w, &a->h) != 2 || !a->w || !a->h)
    return -1;
  a->n = (size_t)a->w * a->h;
  return 0;
}

/* "T=V": a scalar. */
static int parse_scalar(const char *s, km_arg *a) {
  const char *eq = strchr(s, '=');
  if (!eq || parse_type(s, (size_t)(eq - s), &a->type))
    return -1;
  a->kind = KM_SCALAR;
  if (km_type_float(a->type))
    return parse_double(eq + 1, &a->f);
  char *e;
  errno = 0;
  if (a->type == KM_U64) /* the bits: kspec's i64 is signed */
    a->i = (int64_t)strtoull(eq + 1, &e, 0);
  else
    a->i = strtoll(eq + 1, &e, 0);
  int is_unsigned = a->type == KM_U8 || a->type == KM_U16 ||
                    a->type == KM_U32 || a->type == KM_U64;
  return e == eq + 1 || *e || errno || (is_unsigned && eq[1] == '-') ? -1 : 0;
}

static int parse_arg(const char *w, km_arg *a) {
  static const struct {
    const char *prefix;
    km_kind kind;
  } bufs[] = {{"in:", KM_IN},      {"out:", KM_OUT},     {"io:", KM_IO},
              {"zero:", KM_ZERO},  {"tex2d:", KM_TEX2D}, {"surf2d:", KM_SURF2D},
              {"tex1d:", KM_TEX1D}};
  memset(a, 0, sizeof *a);
  snprintf(a->text, sizeof a->text, "%s", w);
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) {
    size_t len = strlen(bufs[i].prefix);
    if (strncmp(w, bufs[i].prefix, len))
      continue;
    a->kind = bufs[i].kind;
    if (a->kind == KM_TEX2D || a->kind == KM_SURF2D)
      return parse_image(w + len, a);
    return parse_buffer(w + len, a,
                        a->kind == KM_IN || a->kind == KM_IO ||
                            a->kind == KM_TEX1D);
  }
  return parse_scalar(w, a);
}

/* gset:NAME:T[N][:LO:HI] / gget:NAME:T[N]. */
static int parse_global(const char *w, km_global *g) {
  memset(g, 0, sizeof *g);
  g->set = !strncmp(w, "gset:", 5);
  const char *name = w + 5, *c = strchr(name, ':');
  if (!c || c == name || (size_t)(c - name) >= sizeof g->name)
    return -1;
  memcpy(g->name, name, (size_t)(c - name));
  km_arg a = {0};
  if (parse_buffer(c + 1, &a, g->set))
    return -1;
  g->type = a.type;
  g->n = a.n;
  g->ranged = a.ranged;
  g->lo = a.lo;
  g->hi = a.hi;
  return 0;
}

/* One option word before "--". */
static int parse_option(const char *w, km_case *c) {
  double d;
  if (!strncmp(w, "grid=", 5)) {
    if (!strcmp(w + 5, "coresident")) {
      c->grid_coresident = 1;
      return 0;
    }
    return parse_dims(w + 5, c->grid);
  }
  if (!strncmp(w, "block=", 6))
    return parse_dims(w + 6, c->block);
  if (!strncmp(w, "smem=", 5) && !parse_double(w + 5, &d) && d >= 0 &&
      d < 4294967296.0 && d == floor(d)) {
    c->smem = (unsigned)d;
    return 0;
  }
  if (!strcmp(w, "coop"))
    return c->coop = 1, 0;
  if (!strncmp(w, "tol=", 4))
    return parse_double(w + 4, &c->tol) || !(c->tol >= 0) ? -1 : 0;
  if (!strncmp(w, "bind=", 5) && w[5] && strlen(w + 5) < sizeof c->bind) {
    strcpy(c->bind, w + 5);
    return 0;
  }
  if (!strncmp(w, "reps=", 5) && !parse_double(w + 5, &d) && d >= 1 &&
      d <= 100000 && d == floor(d))
    return c->reps = (int)d, 0;
  return -1;
}

/* Splits line (modified) into words at blanks outside <> and (), so that
 * a kernel written "reduce_block<float, 256>" stays one word; returns their
 * number (cap + 1: too many). */
static size_t words(char *line, char **w, size_t cap) {
  size_t n = 0;
  int depth = 0;
  for (char *p = line; *p;) {
    while (*p && strchr(" \t\r\n", *p))
      p++;
    if (!*p)
      break;
    if (n == cap)
      return cap + 1;
    w[n++] = p;
    for (; *p && (depth > 0 || !strchr(" \t\r\n", *p)); p++)
      depth += strchr("<(", *p) ? 1 : strchr(">)", *p) ? -1 : 0;
    if (*p)
      *p++ = 0;
  }
  return n;
}

int km_parse_line(const char *line, km_case *c, char *err, size_t cap) {
  char buf[4096], *w[64];
  if (strlen(line) >= sizeof buf)
    return bad(err, cap, "line too long");
  strcpy(buf, line);
  char *hash = strchr(buf, '#');
  if (hash)
    *hash = 0;
  size_t n = words(buf, w, 64);
  if (n == 0)
    return 0;
  if (n > 64)
    return bad(err, cap, "too many words");
  memset(c, 0, sizeof *c);
  c->tol = 1e-5;
  strcpy(c->bind, "all");
  if (n < 5 || strlen(w[0]) >= sizeof c->name ||
      strlen(w[1]) >= sizeof c->file || strlen(w[2]) >= sizeof c->kernel)
    return bad(err, cap, "want NAME FILE KERNEL grid=.. block=.. -- ARGS");
  strcpy(c->name, w[0]);
  strcpy(c->file, w[1]);
  strcpy(c->kernel, w[2]);
  size_t i = 3;
  int grid = 0, block = 0;
  for (; i < n && strcmp(w[i], "--"); i++) {
    if (parse_option(w[i], c))
      return bad(err, cap, "bad option '%s'", w[i]);
    grid |= !strncmp(w[i], "grid=", 5);
    block |= !strncmp(w[i], "block=", 6);
  }
  if (i == n)
    return bad(err, cap, "no '--' before the arguments");
  if (!grid || !block)
    return bad(err, cap, "grid= and block= are required");
  for (i++; i < n; i++) {
    if (!strncmp(w[i], "gset:", 5) || !strncmp(w[i], "gget:", 5)) {
      if (c->nglobals == KM_MAX_GLOBALS ||
          parse_global(w[i], &c->globals[c->nglobals]))
        return bad(err, cap, "bad global '%s'", w[i]);
      c->nglobals++;
    } else if (c->nglobals || c->nargs == KM_MAX_ARGS ||
               parse_arg(w[i], &c->args[c->nargs])) {
      return bad(err, cap, "bad argument '%s'", w[i]);
    } else {
      c->nargs++;
    }
  }
  return 1;
}

int km_load(const char *path, km_case **cases, size_t *n, char *err,
            size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f)
    return bad(err, cap, "%s: %s", path, strerror(errno));
  km_case *v = NULL, c;
  size_t nv = 0;
  char line[4096], why[256];
  int ln = 0, rc = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    int r = km_parse_line(line, &c, why, sizeof why);
    if (r < 0) {
      rc = bad(err, cap, "MANIFEST:%d: %s", ln, why);
      break;
    }
    if (r == 0)
      continue;
    c.line = ln;
    for (size_t i = 0; i < nv && !rc; i++)
      if (!strcmp(v[i].name, c.name))
        rc = bad(err, cap, "MANIFEST:%d: case '%s' again (line %d)", ln, c.name,
                 v[i].line);
    km_case *g = rc ? NULL : realloc(v, (nv + 1) * sizeof *v);
    if (!g) {
      if (!rc)
        rc = bad(err, cap, "out of memory");
      break;
    }
    v = g;
    v[nv++] = c;
  }
  fclose(f);
  if (rc) {
    free(v);
    return rc;
  }
  *cases = v;
  *n = nv;
  return 0;
}

/* ---- inputs and comparison ------------------------------------------- */

static uint64_t next(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 11; /* 53 bits */
}

/* IEEE half from a float in the finite range, rounded to nearest even. */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int e = (int)((x >> 23) & 0xff) - 127 + 15;
  uint32_t m = x & 0x7fffff;
  if (e >= 31)
    return (uint16_t)(sign | 0x7c00);
  if (e <= 0) { /* subnormal or zero */
    if (e < -10)
      return (uint16_t)sign;
    m |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e), h = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    h += rem > half || (rem == half && (h & 1));
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
  h += rem > 0x1000 || (rem == 0x1000 && (h & 1));
  return (uint16_t)(sign | h);
}

static double from_half(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0    ? ldexp(m, -24)
             : e == 31 ? (m ? NAN : INFINITY)
                       : ldexp(m | 0x400, e - 25);
  return h & 0x8000 ? -v : v;
}

void km_fill(void *dst, km_type t, size_t n, int ranged, double lo, double hi,
             uint64_t *seed) {
  if (!ranged) {
    lo = km_type_float(t) ? -1.0 : 0.0;
    hi = km_type_float(t) ? 1.0 : 100.0;
  }
  unsigned char *p = dst;
  for (size_t i = 0; i < n; i++, p += km_type_size(t)) {
    double u = (double)next(seed) / 9007199254740992.0; /* [0, 1) */
    double v = lo + u * (hi - lo);
    if (!km_type_float(t))
      v = floor(v);
    int64_t iv = (int64_t)v;
    switch (t) {
    case KM_I8:
    case KM_U8:
      *p = (unsigned char)iv;
      break;
    case KM_I16:
    case KM_U16: {
      uint16_t x = (uint16_t)iv;
      memcpy(p, &x, 2);
      break;
    }
    case KM_I32:
    case KM_U32: {
      uint32_t x = (uint32_t)iv;
      memcpy(p, &x, 4);
      break;
    }
    case KM_I64:
    case KM_U64:
      memcpy(p, &iv, 8);
      break;
    case KM_F16: {
      uint16_t x = to_half((float)v);
      memcpy(p, &x, 2);
      break;
    }
    case KM_F32: {
      float x = (float)v;
      memcpy(p, &x, 4);
      break;
    }
    case KM_F64:
      memcpy(p, &v, 8);
      break;
    }
  }
}

void km_scalar_bytes(const km_arg *a, void *dst) {
  union {
    int64_t i;
    uint16_t h;
    float f;
    double d;
  } u = {.i = a->i}; /* little-endian: the low bytes for narrower ints */
  if (a->type == KM_F16)
    u.h = to_half((float)a->f);
  else if (a->type == KM_F32)
    u.f = (float)a->f;
  else if (a->type == KM_F64)
    u.d = a->f;
  memcpy(dst, &u, km_type_size(a->type));
}

int km_wrap_signed(const km_arg *a, int64_t *v) {
  /* u8 and u16 are zeroext, so unsigned to kspec; u64 values are read
   * into an int64_t as their bits already */
  if (a->kind != KM_SCALAR || a->type != KM_U32 || a->i <= INT32_MAX)
    return 0;
  *v = a->i - ((int64_t)1 << 32);
  return 1;
}

/* Element i as a double (integers exactly up to 2^53), its bits in *bits. */
static double element(const unsigned char *p, km_type t, size_t i,
                      uint64_t *bits) {
  size_t sz = km_type_size(t);
  *bits = 0;
  memcpy(bits, p + i * sz, sz); /* little-endian: the low bytes */
  switch (t) {
  case KM_I8:
    return (int8_t)*bits;
  case KM_I16:
    return (int16_t)*bits;
  case KM_I32:
    return (int32_t)*bits;
  case KM_I64:
    return (double)(int64_t)*bits;
  case KM_F16:
    return from_half((uint16_t)*bits);
  case KM_F32: {
    float f;
    memcpy(&f, p + i * 4, 4);
    return f;
  }
  case KM_F64: {
    double d;
    memcpy(&d, p + i * 8, 8);
    return d;
  }
  default:
    return (double)*bits;
  }
}

size_t km_compare(const void *want, const void *got, km_type t, size_t n,
                  double tol, size_t *first, char *what, size_t cap) {
  size_t bad_n = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t bw, bg;
    double a = element(want, t, i, &bw), b = element(got, t, i, &bg);
    if (bw == bg)
      continue;
    if (km_type_float(t) && fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) + tol)
      continue;
    if (bad_n++ == 0) {
      *first = i;
      snprintf(what, cap, "want %.9g got %.9g", a, b);
    }
  }
  return bad_n;
}

int km_binds(const km_case *c, size_t i, const char *const *names) {
  if (c->args[i].kind != KM_SCALAR || !strcmp(c->bind, "none"))
    return 0;
  if (!strcmp(c->bind, "all"))
    return 1;
  char list[KM_TEXT], *save = NULL;
  strcpy(list, c->bind);
  for (char *w = strtok_r(list, ",", &save); w;
       w = strtok_r(NULL, ",", &save)) {
    if (w[0] == '@' && isdigit((unsigned char)w[1]) &&
        strtoul(w + 1, NULL, 10) == i)
      return 1;
    if (names && names[i] && !strcmp(w, names[i]))
      return 1;
  }
  return 0;
}

/* ---- kernels by name ----------------------------------------------------- */

#ifndef KS_HAVE_KERNEL_DISPLAY
/* libstdc++'s, which LLVM links anyway */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* s without spaces, and without a leading "void " (a template's return). */
static void squeeze(const char *s, char *out, size_t cap) {
  size_t n = 0;
  if (!strncmp(s, "void ", 5))
    s += 5;
  for (; *s && n + 1 < cap; s++)
    if (*s != ' ')
      out[n++] = *s;
  out[n] = 0;
}

/* The end of the name before its argument list: the first '(' outside <>. */
static size_t base_len(const char *s) {
  int depth = 0;
  for (size_t i = 0; s[i]; i++) {
    depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
    if (s[i] == '(' && depth == 0)
      return i;
  }
  return strlen(s);
}
#endif

const char *km_kernel_symbol(const ks_template *t, const char *kernel,
                             char *why, size_t cap) {
#ifdef KS_HAVE_KERNEL_DISPLAY
  (void)t, (void)why, (void)cap;
  return kernel;
#else
  char want[KM_TEXT], d[1024];
  squeeze(kernel, want, sizeof want);
  const char *found = NULL;
  int many = 0;
  for (size_t i = 0; i < ks_template_kernel_count(t); i++) {
    const char *sym = ks_template_kernel_name(t, i);
    if (!strcmp(sym, kernel))
      return sym;
    int st = 0;
    char *dm = __cxa_demangle(sym, NULL, NULL, &st);
    squeeze(dm ? dm : sym, d, sizeof d);
    free(dm);
    size_t b = base_len(d), w = strlen(want);
    if (!strcmp(d, want) || (b == w && !strncmp(d, want, w)))
      return sym; /* exact: wins over prefixes */
    if (w < b && !strncmp(d, want, w) && d[w] == '<')
      many += found != NULL, found = sym;
  }
  if (found && !many)
    return found;
  snprintf(why, cap, "%s kernel '%s' in %s", found ? "more than one" : "no",
           kernel, ks_template_name(t));
  return NULL;
#endif
}
