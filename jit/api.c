/*
 * api.c - the library's version, and the size check of the structs the
 * library fills (kspec.h, "Conventions"): the caller sets the first member,
 * size, to the struct's size as its kspec.h knows it; the library writes no
 * byte past it and fills the bytes past its own struct with zeros.
 */
#include <string.h>

#include "jit/ks_jit.h"

int ks_version(void) { return KSPEC_VERSION_NUMBER; }

const char *ks_version_string(void) { return KSPEC_VERSION_STRING; }

ks_status ks_jit_out_check(const void *out, size_t min, const char *stage,
                           const char *type) {
  if (!out)
    return ks_jit_fail(KS_EINVAL, "%s: NULL %s", stage, type);
  size_t size = *(const size_t *)out;
  if (size == 0)
    return ks_jit_fail(KS_EINVAL,
                       "%s: %s.size is 0: set it to sizeof(%s) before the "
                       "call",
                       stage, type, type);
  if (size < min)
    return ks_jit_fail(KS_EINVAL,
                       "%s: %s.size is %zu, smaller than any version of %s "
                       "(the first had %zu bytes): set it to sizeof(%s)",
                       stage, type, size, type, min, type);
  return KS_OK;
}

void ks_jit_out_put(void *out, const void *full, size_t full_size) {
  size_t size = *(const size_t *)out;
  size_t hdr = sizeof size;
  size_t n = size < full_size ? size : full_size;
  memcpy((char *)out + hdr, (const char *)full + hdr, n - hdr);
  if (size > full_size)
    memset((char *)out + full_size, 0, size - full_size);
}

const ks_tune_entry *ks_tune_result_entry(const ks_tune_result *r, size_t i) {
  if (!r || !r->entries || i >= r->n)
    return NULL;
  return (const ks_tune_entry *)((const char *)r->entries +
                                 i * r->entries[0].size);
}
