/*
 * cubin.c - loading a kernel: the cubin ptxas makes of a kernel's PTX is
 * kept in the disk cache and loaded directly the next time
 * (cuModuleLoadData), so a fresh process skips both LLVM and ptxas.
 *
 * The cubin is ptxas's whole-program compile of the PTX, the compile that
 * nvcc's cubins and cuModuleLoadDataEx get. Not the driver's linker's
 * (cuLinkAddData, cuLinkComplete), the only driver API that hands back a
 * cubin: it compiles PTX as relocatable code (ptxas -c), which does not
 * aim at an occupancy (41 of 174 corpus kernels took more registers,
 * matmul_naive bound 32 -> 164), keeps atomics whose value is unused as
 * ATOMG and knows a shared array only by its declared alignment
 * (BENCHMARKS.md, "Slower than nvcc's build: the driver's linker"). So
 * without a ptxas (ks_jit_ptxas_find), or one whose cubins the driver
 * refuses (newer than the driver), the PTX is loaded as it is
 * (cuModuleLoadDataEx: the driver's own JIT cache keeps its compile) and
 * no cubin is stored.
 *
 * The cubin's key is the PTX entry's key plus a hash of the PTX itself and
 * the device's name, compute capability and driver version: a cubin is
 * only ever loaded by the kind of device and the driver it was made for.
 * The PTX entry does not depend on the driver. A cubin entry that passes
 * its checks but that the driver refuses is removed and the PTX loaded
 * instead (counted, never an error). Processes sharing a cache
 * (ks_ctx_share) ask each other for a cubin the disk cache does not have
 * before making one; only the key's owner writes the disk entry. A cubin
 * made elsewhere for the kernel (a tuner's parent, whose figures' ptxas
 * run makes it: ks_jit_kernel_load_cubin) is loaded first, and stored.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"

/* ptxas on one kernel: as long as the guard lets it take (full unrolls of
 * big loops take tens of seconds on a loaded host). */
enum { CUBIN_PTXAS_MS = 120000, PATH_CAP = 4096 };

void ks_jit_cubin_key(const ks_kernel *k, const ks_device_info *dev,
                      uint64_t out[2]) {
  XXH3_state_t st;
  uint64_t ptx = XXH3_64bits(k->ptx, k->ptx_len);
  int nums[2] = {dev->sm, dev->driver_version};
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, "kspec-cubin-2", 13); /* 1: linked */
  XXH3_128bits_update(&st, k->key, sizeof k->key);
  XXH3_128bits_update(&st, &ptx, sizeof ptx);
  XXH3_128bits_update(&st, dev->name, strnlen(dev->name, sizeof dev->name));
  XXH3_128bits_update(&st, nums, sizeof nums);
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  out[0] = h.low64;
  out[1] = h.high64;
}

/* Loads the cubin of n bytes at p, copied first so that the driver gets
 * it at malloc's alignment. */
static ks_status load_image(ks_kernel *k, ks_drv *drv, const void *p, size_t n,
                            char *err, size_t cap) {
  void *copy = malloc(n ? n : 1);
  if (!copy)
    return ks_jit_fail(KS_ENOMEM, "load: out of memory");
  memcpy(copy, p, n);
  ks_status s = ks_drv_module_load_image(drv, copy, k->name, &k->mod, err, cap);
  free(copy);
  return s;
}

/* From key's cubin entry: 1 when loaded; 0 when there is none or the
 * driver refused it (then it is removed). */
static int from_entry(ks_kernel *k, ks_drv *drv, const uint64_t key[2],
                      char *err, size_t cap) {
  ks_ctx *ctx = k->ctx;
  ks_disk_entry e;
  unsigned char *buf = NULL;
  if (!ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_CUBIN, key, &e, &buf))
    return 0;
  int ok = strcmp(e.str[KS_DISK_NAME], k->name) == 0 && e.len[KS_DISK_BLOB] &&
           load_image(k, drv, e.str[KS_DISK_BLOB], e.len[KS_DISK_BLOB], err,
                      cap) == KS_OK;
  free(buf);
  if (!ok) {
    ks_disk_drop(ctx->disk, key);
    ks_jit_cache_count(ctx->cache, KS_CTR_CUBIN_DROPPED, 1);
    err[0] = '\0'; /* not an error: the PTX is loaded instead */
  }
  return ok;
}

/* The cubin entry of k under key (why: cap bytes for its text). */
static void cubin_entry(const ks_kernel *k, const uint64_t key[2],
                        const void *cubin, size_t n, char *why, size_t cap,
                        ks_disk_entry *e) {
  ks_ctx *ctx = k->ctx;
  snprintf(why, cap,
           "ptx %016" PRIx64 "%016" PRIx64 "\ndevice %s\nsm %d\ndriver %d\n",
           k->key[1], k->key[0], ctx->dev.name, ctx->dev.sm,
           ctx->dev.driver_version);
  *e = (ks_disk_entry){.kind = KS_DISK_KIND_CUBIN};
  memcpy(e->key, key, sizeof e->key);
  e->str[KS_DISK_NAME] = k->name;
  e->len[KS_DISK_NAME] = (uint32_t)strlen(k->name);
  e->str[KS_DISK_EXPLAIN] = "";
  e->str[KS_DISK_BLOB] = cubin;
  e->len[KS_DISK_BLOB] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
  e->str[KS_DISK_WHY] = why;
  e->len[KS_DISK_WHY] = (uint32_t)strlen(why);
  memcpy(e->reqntid, k->info.reqntid, sizeof e->reqntid);
  e->maxntid = k->info.maxntid;
  e->minctasm = k->info.minctasm;
  e->maxnreg = k->info.maxnreg;
  e->smem_bytes = k->info.smem_bytes;
}

/* From the processes sharing the cache: 1 when loaded. */
static int from_share(ks_kernel *k, ks_drv *drv, const uint64_t key[2],
                      int *owner, char *err, size_t cap) {
  ks_ctx *ctx = k->ctx;
  size_t n = 0;
  unsigned char *buf = ks_jit_share_get_cubin(ctx, key, k->name, &n, owner);
  ks_disk_entry e;
  char why[128];
  int ok = buf && ks_disk_check(buf, n, key, &e, why, sizeof why) == 0 &&
           load_image(k, drv, e.str[KS_DISK_BLOB], e.len[KS_DISK_BLOB], err,
                      cap) == KS_OK;
  if (ok && *owner && ks_disk_usable(ctx->disk))
    ks_disk_write(ctx, ctx->disk, &e);
  if (buf && !ok)
    err[0] = '\0'; /* not an error: made here instead */
  free(buf);
  return ok;
}

/* Makes the cubin of k's PTX with ptxas and loads it; stores it (the
 * owner of key) and shares it. Without a ptxas whose cubins this driver
 * takes, the PTX as it is. */
static ks_status make_load(ks_kernel *k, ks_drv *drv, const uint64_t key[2],
                           int owner, char *err, size_t cap) {
  ks_ctx *ctx = k->ctx;
  char ptxas[PATH_CAP], why[512];
  void *cubin = NULL;
  size_t n = 0;
  char *log = NULL;
  ks_status s = KS_ELOAD;
  /* for the device's architecture: PTX for an older target (a context
   * made for sm_80 on an H100) is compiled for the device, as the driver
   * compiles it; sm_80 SASS would not run on sm_90 */
  char arch[16];
  if (ctx->dev.sm == (int)ctx->arch->sm)
    snprintf(arch, sizeof arch, "%s", ctx->arch->name); /* sm_90a stays */
  else
    snprintf(arch, sizeof arch, "sm_%d", ctx->dev.sm);
  if (!atomic_load(&ctx->ptxas_refused) &&
      ks_jit_ptxas_find(ptxas, sizeof ptxas, why, sizeof why) == 0) {
    s = ks_jit_ptxas_cubin(ptxas, arch, k->ptx, k->ptx_len, CUBIN_PTXAS_MS,
                           &cubin, &n, &log);
    free(log);
    ks_jit_clear(); /* ptxas's message: the driver's JIT log says more */
  }
  if (s == KS_OK) {
    s = load_image(k, drv, cubin, n, err, cap);
    if (s != KS_OK) { /* a ptxas newer than this driver: not again */
      atomic_store(&ctx->ptxas_refused, 1);
      err[0] = '\0';
    }
  }
  if (s != KS_OK) {
    free(cubin);
    if (ks_jit_share_on(ctx))
      ks_jit_share_put_cubin(ctx, key, NULL);
    return ks_drv_module_load(drv, k->ptx, k->name, &k->mod, err, cap);
  }
  ks_disk_entry e;
  cubin_entry(k, key, cubin, n, why, sizeof why, &e);
  if (owner && ks_disk_usable(ctx->disk) && n <= UINT32_MAX)
    ks_disk_write(ctx, ctx->disk, &e);
  if (ks_jit_share_on(ctx))
    ks_jit_share_put_cubin(ctx, key, n <= UINT32_MAX ? &e : NULL);
  free(cubin);
  return KS_OK;
}

/* A cubin made for k elsewhere (k->given_cubin: the figures' ptxas run of
 * a tuner's parent): 1 when loaded, and stored as make_load stores its
 * own; 0 when the driver refuses it (a ptxas newer than the driver, or
 * another architecture: the load goes on as without it). */
static int from_given(ks_kernel *k, ks_drv *drv, char *err, size_t cap) {
  ks_ctx *ctx = k->ctx;
  size_t n = k->given_cubin_len;
  if (load_image(k, drv, k->given_cubin, n, err, cap) != KS_OK) {
    err[0] = '\0';
    return 0;
  }
  if (ks_disk_usable(ctx->disk) && n <= UINT32_MAX) {
    uint64_t key[2];
    ks_disk_entry e;
    char why[512];
    ks_jit_cubin_key(k, &ctx->dev, key);
    cubin_entry(k, key, k->given_cubin, n, why, sizeof why, &e);
    ks_disk_write(ctx, ctx->disk, &e);
  }
  return 1;
}

ks_status ks_jit_kernel_load_cubin(ks_kernel *k, const void *cubin, size_t n) {
  pthread_mutex_lock(&k->load_lock);
  k->given_cubin = cubin;
  k->given_cubin_len = n;
  pthread_mutex_unlock(&k->load_lock);
  ks_status s = ks_kernel_load(k);
  pthread_mutex_lock(&k->load_lock);
  k->given_cubin = NULL; /* the caller's */
  k->given_cubin_len = 0;
  pthread_mutex_unlock(&k->load_lock);
  return s;
}

ks_status ks_jit_module_load(ks_kernel *k, ks_drv *drv, char *err, size_t cap) {
  ks_ctx *ctx = k->ctx;
  int disk = ks_disk_usable(ctx->disk), owner = 1;
  if (k->given_cubin && from_given(k, drv, err, cap)) {
    k->info.from_cubin = 1;
    return KS_OK;
  }
  if (!disk && !ks_jit_share_on(ctx))
    return ks_drv_module_load(drv, k->ptx, k->name, &k->mod, err, cap);
  uint64_t key[2];
  ks_jit_cubin_key(k, &ctx->dev, key);
  if (disk && from_entry(k, drv, key, err, cap)) {
    ks_jit_cache_count(ctx->cache, KS_CTR_CUBIN_HITS, 1);
    k->info.from_cubin = 1;
    return KS_OK;
  }
  if (disk)
    ks_jit_cache_count(ctx->cache, KS_CTR_CUBIN_MISSES, 1);
  if (ks_jit_share_on(ctx) && from_share(k, drv, key, &owner, err, cap)) {
    ks_jit_cache_count(ctx->cache, KS_CTR_CUBIN_REMOTE, 1);
    k->info.from_cubin = 1;
    return KS_OK;
  }
  return make_load(k, drv, key, owner, err, cap);
}
