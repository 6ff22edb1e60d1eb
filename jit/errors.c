/*
 * errors.c - status names and messages, and the per-thread message of the
 * last failure. A message lives per thread, not per handle, so that a
 * context shared by threads never mixes their errors.
 */
#include <stdarg.h>
#include <stdio.h>

#include "jit/ks_jit.h"

enum { ERR_CAP = 2048 };
static _Thread_local char tls_err[ERR_CAP];

static const char *const names[] = {
#define KS_STATUS_NAME(name, msg) "KS_" #name,
    KS_STATUS_LIST(KS_STATUS_NAME)
#undef KS_STATUS_NAME
};
static const char *const messages[] = {
#define KS_STATUS_MSG(name, msg) msg,
    KS_STATUS_LIST(KS_STATUS_MSG)
#undef KS_STATUS_MSG
};

const char *ks_status_name(ks_status s) {
  return (unsigned)s < KS_STATUS_COUNT ? names[s] : "KS_?";
}

const char *ks_status_str(ks_status s) {
  return (unsigned)s < KS_STATUS_COUNT ? messages[s] : "unknown status";
}

ks_status ks_jit_fail(ks_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tls_err, sizeof tls_err, fmt, ap);
  va_end(ap);
  return s;
}

char *ks_jit_errbuf(size_t *cap) {
  *cap = sizeof tls_err;
  return tls_err;
}

void ks_jit_clear(void) { tls_err[0] = '\0'; }

const char *ks_errmsg(const ks_ctx *ctx) {
  (void)ctx;
  return tls_err[0] ? tls_err : "no error";
}
