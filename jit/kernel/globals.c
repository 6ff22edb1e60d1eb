/*
 * globals.c - a template's module globals (described by ir/globals.c at
 * load, kept with the template's description) and a loaded kernel's
 * copies of them. Every specialization is a module of its own, so a
 * global's storage belongs to one kernel: the calls take the kernel and
 * look the symbol up in its module (cuModuleGetGlobal) each time, which
 * costs less than the copy it precedes.
 */
#include <stdio.h>
#include <string.h>

#include "jit/ks_jit.h"

size_t ks_template_global_count(const ks_template *t) {
  return t ? t->desc.nglobals : 0;
}

ks_status ks_template_global(const ks_template *t, size_t i,
                             ks_global_info *out) {
  ks_status s = KS_OUT_CHECK(out, "template", ks_global_info);
  if (s != KS_OK)
    return s;
  if (!t || i >= t->desc.nglobals)
    return ks_jit_fail(KS_EINVAL, "template: no global %zu", i);
  const ks_ir_global *g = &t->desc.globals[i];
  ks_global_info full = {.name = g->name,
                         .type = g->type,
                         .bytes = (size_t)g->bytes,
                         .constant = g->constant,
                         .written = g->nwriters > 0,
                         .has_init = g->has_init};
  ks_jit_out_put(out, &full, sizeof full);
  return KS_OK;
}

/* k's global name after loading k; the thread's message on failure. */
static ks_status find(ks_kernel *k, const char *name, uint64_t *ptr,
                      size_t *bytes) {
  if (!k || !name)
    return ks_jit_fail(KS_EINVAL, "global: NULL argument");
  ks_status s = ks_kernel_load(k);
  if (s != KS_OK)
    return s;
  char why[256];
  s = ks_drv_module_global(k->ctx->drv, &k->mod, name, ptr, bytes, why,
                           sizeof why);
  if (s == KS_EINVAL) /* the driver found no such name */
    return ks_jit_fail(KS_EINVAL,
                       "global: kernel '%s' has no global '%s' in its module "
                       "(%s)",
                       k->name, name, why);
  if (s != KS_OK) /* the driver's or context's failure, as it is */
    return ks_jit_fail(s, "global: kernel '%s', global '%s': %s", k->name, name,
                       why);
  return KS_OK;
}

ks_status ks_kernel_global(ks_kernel *k, const char *name, ks_devptr *ptr,
                           size_t *bytes) {
  uint64_t p = 0;
  size_t n = 0;
  ks_status s = find(k, name, &p, &n);
  if (ptr)
    *ptr = s == KS_OK ? p : 0;
  if (bytes)
    *bytes = s == KS_OK ? n : 0;
  return s;
}

/* The global's address at offset, after checking that bytes bytes from
 * there lie inside it and that host (src or dst) is given. */
static ks_status span(ks_kernel *k, const char *name, size_t offset,
                      const void *host, size_t bytes, uint64_t *at) {
  uint64_t p = 0;
  size_t n = 0;
  ks_status s = find(k, name, &p, &n);
  if (s != KS_OK)
    return s;
  if (offset > n || bytes > n - offset)
    return ks_jit_fail(KS_ERANGE,
                       "global: kernel '%s': %zu bytes at offset %zu do not "
                       "fit in '%s' (%zu bytes)",
                       k->name, bytes, offset, name, n);
  if (!host && bytes)
    return ks_jit_fail(KS_EINVAL, "global: NULL host buffer for '%s'", name);
  *at = p + offset;
  return KS_OK;
}

ks_status ks_kernel_global_write(ks_kernel *k, const char *name, size_t offset,
                                 const void *src, size_t bytes, void *stream) {
  uint64_t at = 0;
  ks_status s = span(k, name, offset, src, bytes, &at);
  if (s != KS_OK || !bytes)
    return s;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  return ks_drv_htod_async(k->ctx->drv, at, src, bytes, stream, err, cap);
}

ks_status ks_kernel_global_read(ks_kernel *k, const char *name, size_t offset,
                                void *dst, size_t bytes, void *stream) {
  uint64_t at = 0;
  ks_status s = span(k, name, offset, dst, bytes, &at);
  if (s != KS_OK || !bytes)
    return s;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  return ks_drv_dtoh_async(k->ctx->drv, dst, at, bytes, stream, err, cap);
}
