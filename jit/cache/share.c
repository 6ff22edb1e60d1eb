/*
 * share.c - the cache shared between processes (ks_ctx_share): asked
 * after the memory and disk caches miss, told what was built here.
 *
 * A specialization travels as the bytes of its disk cache entry
 * (ks_disk_encode), a cubin as the bytes of its cubin entry, so that a
 * received blob passes the checks a disk read makes (magic, format,
 * length, checksum, the key, the kernel's name and bounds): a damaged or
 * foreign blob is a miss and the kernel is built here. Only the key's
 * owner writes what it receives to its disk cache.
 *
 * The same bytes carry a tuner's compiled variants to its measuring
 * workers (ks_jit_kernel_pack, ks_jit_kernel_adopt): a worker forked
 * before the compiles, so that it opens its GPU meanwhile, takes each
 * kernel as if it came from the disk cache, checks included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/request/request.h"

ks_status ks_ctx_share(ks_ctx *ctx, const ks_share_ops *ops, void *arg) {
  ks_jit_clear();
  if (!ctx || (ops && (!ops->get || !ops->put)))
    return ks_jit_fail(KS_EINVAL, "share: NULL context, get or put");
  ks_jit_share_detach(ctx);
  if (ops) {
    ctx->share = *ops;
    ctx->share_arg = arg;
    ctx->share_pid = (long)getpid();
    ctx->shared = 1;
  }
  return KS_OK;
}

int ks_jit_share_on(const ks_ctx *ctx) {
  return ctx->shared && ctx->share_pid == (long)getpid();
}

void ks_jit_share_detach(ks_ctx *ctx) {
  int mine = ks_jit_share_on(ctx);
  ctx->shared = 0;
  if (mine && ctx->share.detach)
    ctx->share.detach(ctx->share_arg);
}

/* Asks the shared cache for key: the blob (malloc'd) or NULL. */
static unsigned char *ask(ks_ctx *ctx, int kind, const uint64_t key[2],
                          size_t *n, int *owner) {
  char note[256] = "";
  void *blob = NULL;
  *n = 0;
  *owner = 1;
  int got = ctx->share.get(ctx->share_arg, kind, key, &blob, n, owner, note,
                           sizeof note);
  if (note[0])
    ks_jit_warn(ctx, "%s", note);
  if (got != KS_SHARE_HIT) {
    free(blob);
    return NULL;
  }
  return blob;
}

int ks_jit_share_get_kernel(ks_ctx *ctx, ks_kernel *k, int *owner) {
  size_t n = 0;
  unsigned char *buf = ask(ctx, KS_SHARE_SPEC, k->key, &n, owner);
  if (!buf)
    return 0;
  ks_disk_entry e;
  char why[128];
  int ok = ks_disk_check(buf, n, k->key, &e, why, sizeof why) == 0 &&
           e.kind == KS_DISK_KIND_PTX && ks_disk_fill(&e, k);
  k->info.from_disk = 0;
  if (!ok)
    ks_jit_cache_count(ctx->cache, KS_CTR_CORRUPT, 1);
  else if (*owner && ks_disk_usable(ctx->disk))
    ks_disk_write(ctx, ctx->disk, &e);
  free(buf);
  return ok;
}

void ks_jit_share_put_kernel(ks_ctx *ctx, const uint64_t key[2],
                             const ks_kernel *k, const char *why) {
  size_t n = 0;
  unsigned char *buf = k ? ks_disk_kernel_blob(k, why, &n) : NULL;
  ctx->share.put(ctx->share_arg, KS_SHARE_SPEC, key, buf, n);
  free(buf);
}

unsigned char *ks_jit_share_get_cubin(ks_ctx *ctx, const uint64_t key[2],
                                      const char *name, size_t *n, int *owner) {
  unsigned char *buf = ask(ctx, KS_SHARE_CUBIN, key, n, owner);
  ks_disk_entry e;
  char why[128];
  if (!buf)
    return NULL;
  if (ks_disk_check(buf, *n, key, &e, why, sizeof why) != 0 ||
      e.kind != KS_DISK_KIND_CUBIN || strcmp(e.str[KS_DISK_NAME], name) != 0 ||
      !e.len[KS_DISK_BLOB]) {
    ks_jit_cache_count(ctx->cache, KS_CTR_CORRUPT, 1);
    free(buf);
    return NULL;
  }
  return buf;
}

void ks_jit_share_put_cubin(ks_ctx *ctx, const uint64_t key[2],
                            const ks_disk_entry *e) {
  size_t n = 0;
  unsigned char *buf = e ? ks_disk_encode(e, &n) : NULL;
  ctx->share.put(ctx->share_arg, KS_SHARE_CUBIN, key, buf, n);
  free(buf);
}

/* ---- a sweep's kernels handed to its workers (tune/) --------------------- */

void *ks_jit_kernel_pack(const ks_kernel *k, size_t *len) {
  *len = 0;
  return k ? ks_disk_kernel_blob(k, "", len) : NULL;
}

/* Fills the claimed k from image: 0, or -1 (why set) when the image is
 * not req's kernel. */
static int adopt(ks_kernel *k, const void *image, size_t len, char *why,
                 size_t cap) {
  ks_disk_entry e;
  if (ks_disk_check(image, len, k->key, &e, why, cap) != 0)
    return -1;
  if (e.kind != KS_DISK_KIND_PTX || !ks_disk_fill(&e, k)) {
    snprintf(why, cap, "not a kernel of this request");
    return -1;
  }
  ks_jit_ptx_launch_needs(k);
  return 0;
}

ks_status ks_jit_kernel_adopt(ks_ctx *ctx, const ks_template *t,
                              const ks_spec_req *req, const void *image,
                              size_t len, ks_kernel **out) {
  ks_request r;
  uint64_t key[2];
  ks_key_in in;
  int claimed = 0;
  *out = NULL;
  ks_status s = ks_req_make(ctx, t, req, &r);
  if (s != KS_OK)
    return s;
  ks_key_of(ctx, t, &r, &in);
  ks_key_hash(&in, key);
  s = ks_jit_cache_acquire(ctx->cache, key, out, &claimed);
  if (s != KS_OK || !claimed)
    return s; /* a kernel this process has already */
  char why[128] = "no kernel sent";
  ks_kernel *k = ks_jit_kernel_new(ctx, t, &r, key);
  if (!k)
    s = ks_jit_fail(KS_ENOMEM, "tune: out of memory");
  else if (!image || adopt(k, image, len, why, sizeof why) != 0)
    s = ks_jit_fail(KS_EINVAL, "tune: the kernel handed to the worker: %s",
                    why);
  if (s != KS_OK && k) {
    ks_jit_kernel_free(k, NULL);
    k = NULL;
  }
  ks_jit_cache_finish(ctx->cache, key, k, s);
  *out = k;
  return s;
}
