/*
 * diag.c - what the passes report: a failure (ks_diag_fail, one line
 * naming the stage), what they transformed or declined (ks_diag_explain, kept
 * with the kernel for ks_kernel_explain and `kspec explain`), and the
 * names those lines give arguments.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

int ks_diag_fail(ks_diag *d, ks_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
  d->status = s;
  return 1;
}

void ks_diag_explain(ks_diag *d, const char *pass, const char *fmt, ...) {
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

const char *ks_diag_arg_name(LLVMValueRef arg, char *buf, size_t cap) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(arg, &len);
  if (len && len < cap) {
    memcpy(buf, name, len);
    buf[len] = '\0';
  } else {
    snprintf(buf, cap, "argument %u", ks_ir_param_index(arg));
  }
  return buf;
}
