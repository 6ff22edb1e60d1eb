/*
 * args.c - parsers of the tool's option values (see args.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "kspec.h"

int ks_arg_uint(const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *out) {
  char *end = NULL;
  if (!s || *s < '0' || *s > '9') /* no sign, no leading blanks */
    return 0;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

int ks_arg_block(const char *s, unsigned block[3]) {
  char buf[64];
  if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf)
    return 0;    /* cut short, the rest would go unchecked */
  char *p = buf; /* "X[,Y[,Z]]" or "XxYxZ": no empty parts */
  for (int i = 0; i < 3; i++) {
    size_t n = strcspn(p, ",x");
    char sep = p[n];
    unsigned long long v;
    p[n] = '\0';
    if (!ks_arg_uint(p, 1, 1u << 20, &v))
      return 0;
    block[i] = (unsigned)v;
    if (!sep)
      return 1;
    p += n + 1;
  }
  return 0; /* a fourth part */
}

int ks_arg_bake(const char *text, char *name, size_t cap, double **values,
                size_t *n) {
  const char *eq = strchr(text, '=');
  size_t len = eq ? (size_t)(eq - text) : strlen(text);
  if (len == 0 || len >= cap || (eq && !eq[1]))
    return 0;
  if (!eq) { /* a global baked from its initializer */
    memcpy(name, text, len + 1);
    *values = NULL;
    *n = 0;
    return 1;
  }
  size_t count = 1;
  for (const char *p = eq + 1; *p; p++)
    count += *p == ',';
  double *v = malloc(count * sizeof *v);
  if (!v)
    return 0;
  const char *p = eq + 1;
  for (size_t i = 0; i < count; i++) {
    char *end = NULL;
    errno = 0;
    v[i] = strtod(p, &end);
    /* ERANGE on underflow is a subnormal or zero: a value all the same */
    if (end == p || (errno == ERANGE && fabs(v[i]) > 1) ||
        (*end && *end != ',')) {
      free(v);
      return 0;
    }
    p = *end ? end + 1 : end;
  }
  memcpy(name, text, len);
  name[len] = '\0';
  *values = v;
  *n = count;
  return 1;
}

static int why_not(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int why_not(char *why, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
  return -1;
}

int ks_arg_sweep(const char *arg, char *name, size_t cap, int64_t *values,
                 size_t max, size_t *n, char *why, size_t whycap) {
  /* the argument as messages quote it: a long list is cut, so that what
   * is wrong with it still fits */
  enum { QUOTE = 48 };
  int ql = strlen(arg) > QUOTE ? QUOTE : (int)strlen(arg);
  const char *more = strlen(arg) > QUOTE ? "..." : "";
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) >= cap)
    return why_not(why, whycap, "--sweep %.*s%s: want NAME=V,V,...", ql, arg,
                   more);
  memcpy(name, arg, (size_t)(eq - arg));
  name[eq - arg] = '\0';
  const char *s = eq + 1;
  size_t count = 0;
  if (!*s)
    return why_not(why, whycap, "--sweep %.*s%s: empty list", ql, arg, more);
  for (;;) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s == ',' || !*s)
      return why_not(why, whycap, "--sweep %.*s%s: an empty value", ql, arg,
                     more);
    if (end == s || errno || v < 0 || (*end && *end != ','))
      return why_not(why, whycap, "--sweep %.*s%s: '%.*s' is not a number", ql,
                     arg, more, (int)strcspn(s, ","), s);
    if (count == max)
      return why_not(why, whycap, "--sweep %.*s%s: at most %zu values", ql, arg,
                     more, max);
    values[count++] = v;
    if (!*end)
      break;
    s = end + 1;
  }
  *n = count;
  return 0;
}

/* "1"/"true" 1, "0"/"false" 0, else -1. */
static int truth(const char *v) {
  if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
    return 1;
  if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
    return 0;
  return -1;
}

int ks_arg_fp(const char *name, const char *value, unsigned *fp) {
  if (strcmp(name, "fast-math") == 0 || strcmp(name, "use_fast_math") == 0) {
    *fp |= KS_FP_FAST_MATH;
    return value == NULL;
  }
  int ftz = strcmp(name, "ftz") == 0;
  unsigned bit = ftz                              ? KS_FP_FTZ
                 : strcmp(name, "prec-div") == 0  ? KS_FP_APPROX_DIV
                 : strcmp(name, "prec-sqrt") == 0 ? KS_FP_APPROX_SQRT
                                                  : 0;
  int t = value ? truth(value) : ftz ? 1 : -1;
  if (!bit || t < 0)
    return 0;
  /* --ftz=true sets its bit; --prec-*=false sets theirs */
  if (ftz == t)
    *fp |= bit;
  else
    *fp &= ~bit;
  return 1;
}
