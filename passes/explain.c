/*
 * explain.c - what the passes say about a specialization: one line per
 * transformation made or declined, kept with the kernel (ks_kernel_explain,
 * `kspec explain`).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

void ks_explain(ks_diag *d, const char *pass, const char *fmt, ...) {
  char line[1024]; /* gcoarsen's longest is over 512 */
  int n = snprintf(line, sizeof line, "%s: ", pass);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  size_t len = strlen(line);
  if (d->explain_len + len + 2 > d->explain_cap) {
    size_t cap = d->explain_cap ? 2 * d->explain_cap : 256;
    while (cap < d->explain_len + len + 2)
      cap *= 2;
    char *p = realloc(d->explain, cap);
    if (!p)
      return;
    d->explain = p;
    d->explain_cap = cap;
  }
  memcpy(d->explain + d->explain_len, line, len);
  d->explain_len += len;
  d->explain[d->explain_len++] = '\n';
  d->explain[d->explain_len] = '\0';
}
