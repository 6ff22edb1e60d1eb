/*
 * ctx.c - contexts: target choice, the lazily opened driver, and the device
 * memory and timing calls of the public API.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

/* PTX ISA versions (x10) the LLVM 19 backend can be asked for. */
static int ptx_supported(unsigned v) {
  return (v >= 60 && v <= 65) || (v >= 70 && v <= 78) || (v >= 80 && v <= 85);
}

ks_status ks_jit_driver(ks_ctx *ctx, ks_drv **out) {
  ks_status s;
  pthread_mutex_lock(&ctx->drv_lock);
  if (!ctx->drv_tried && !ctx->no_driver) {
    ctx->drv_tried = 1;
    ctx->drv_status =
        ks_drv_open(ctx->device, &ctx->drv, ctx->drv_err, sizeof ctx->drv_err);
    if (ctx->drv_status == KS_OK)
      ctx->drv_status = ks_drv_device_info(ctx->drv, &ctx->dev, ctx->drv_err,
                                           sizeof ctx->drv_err);
  } else if (ctx->no_driver && !ctx->drv_tried) {
    ctx->drv_tried = 1;
    ctx->drv_status = KS_ENODRIVER;
    snprintf(ctx->drv_err, sizeof ctx->drv_err,
             "driver: disabled for this context (no_driver)");
  }
  s = ctx->drv_status;
  *out = s == KS_OK ? ctx->drv : NULL;
  if (s != KS_OK)
    ks_jit_fail(s, "%s", ctx->drv_err);
  pthread_mutex_unlock(&ctx->drv_lock);
  return s;
}

/* The highest architecture of the table not above the device's. */
static const ks_arch *arch_for_device(int sm) {
  const ks_arch *best = NULL;
  for (int v = sm; v >= 60 && !best; v--)
    best = ks_jit_arch_for_sm(v);
  return best;
}

static ks_status choose_target(ks_ctx *ctx, const ks_ctx_opts *o) {
  ks_drv *drv = NULL;
  int have_drv = 0;
  if (!ctx->no_driver && (!o->arch || !o->ptx_isa))
    have_drv = ks_jit_driver(ctx, &drv) == KS_OK;
  if (o->arch) {
    ctx->arch = ks_jit_arch_find(o->arch);
    if (!ctx->arch)
      return ks_jit_fail(KS_EARCH,
                         "target: unknown architecture '%s' (want sm_60 .. "
                         "sm_90a, e.g. sm_90)",
                         o->arch);
  } else {
    ctx->arch = have_drv ? arch_for_device(ctx->dev.sm) : NULL;
    if (!ctx->arch)
      ctx->arch = ks_jit_arch_find("sm_90");
  }
  unsigned isa = ks_jit_llvm_max_ptx();
  if (have_drv) {
    ctx->load_isa = ks_jit_driver_max_ptx(ctx->dev.driver_version);
    if (ctx->load_isa < isa)
      isa = ctx->load_isa;
  }
  if (o->ptx_isa) {
    /* 9.0: LLVM emits 8.5; shared-memory spilling raises it (ptxedit.c) */
    if (!ptx_supported(o->ptx_isa) && o->ptx_isa != 90)
      return ks_jit_fail(KS_EARCH,
                         "target: PTX ISA %u.%u is not one LLVM 19 emits "
                         "(6.0 .. 8.5; 9.0 for shared-memory spilling)",
                         o->ptx_isa / 10, o->ptx_isa % 10);
    isa = o->ptx_isa == 90 ? ks_jit_llvm_max_ptx() : o->ptx_isa;
    ctx->load_isa = o->ptx_isa;
    ctx->load_pinned = 1;
  }
  if (isa < ctx->arch->min_ptx)
    return ks_jit_fail(KS_EARCH, "target: %s needs PTX ISA %u.%u, have %u.%u",
                       ctx->arch->name, ctx->arch->min_ptx / 10,
                       ctx->arch->min_ptx % 10, isa / 10, isa % 10);
  ctx->ptx_isa = isa;
  snprintf(ctx->features, sizeof ctx->features, "+ptx%u,+%s", isa,
           ctx->arch->name);
  return KS_OK;
}

ks_status ks_ctx_create(const ks_ctx_opts *opts, ks_ctx **out) {
  static const ks_ctx_opts defaults = {0};
  const ks_ctx_opts *o = opts ? opts : &defaults;
  ks_jit_clear();
  if (!out)
    return ks_jit_fail(KS_EINVAL, "ctx: out is NULL");
  *out = NULL;
  if (o->device < 0)
    return ks_jit_fail(KS_EINVAL, "ctx: negative device ordinal %d", o->device);
  ks_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return ks_jit_fail(KS_ENOMEM, "ctx: out of memory");
  ctx->device = o->device;
  ctx->no_driver = o->no_driver;
  pthread_mutex_init(&ctx->drv_lock, NULL);
  pthread_mutex_init(&ctx->warn_lock, NULL);
  ctx->cache = ks_jit_cache_create();
  ks_status s = ctx->cache ? choose_target(ctx, o)
                           : ks_jit_fail(KS_ENOMEM, "ctx: out of memory");
  if (s != KS_OK) {
    ks_ctx_destroy(ctx);
    return s;
  }
  ctx->disk = ks_disk_open(ctx, o);
  ctx->record = ks_record_open(ctx, o);
  ctx->async = ks_async_create(o->jobs);
  if (!ctx->async) {
    ks_ctx_destroy(ctx);
    return ks_jit_fail(KS_ENOMEM, "ctx: out of memory");
  }
  ks_jit_llvm_hold();
  ctx->llvm_held = 1;
  ks_jit_clear();
  *out = ctx;
  return KS_OK;
}

void ks_ctx_destroy(ks_ctx *ctx) {
  if (!ctx)
    return;
  ks_async_destroy(ctx->async); /* first: its workers use everything else */
  ks_jit_share_detach(ctx);
  ks_record_close(ctx->record);
  ks_jit_cache_destroy(ctx->cache, ctx->drv);
  ks_disk_close(ctx->disk);
  ks_drv_close(ctx->drv);
  pthread_mutex_destroy(&ctx->drv_lock);
  pthread_mutex_destroy(&ctx->warn_lock);
  if (ctx->llvm_held) /* the last context takes LLVM's pools with it */
    ks_jit_llvm_release();
  free(ctx);
}

void ks_jit_warn(ks_ctx *ctx, const char *fmt, ...) {
  pthread_mutex_lock(&ctx->warn_lock);
  if (!ctx->warning[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->warning, sizeof ctx->warning, fmt, ap);
    va_end(ap);
  }
  pthread_mutex_unlock(&ctx->warn_lock);
}

const char *ks_ctx_warning(const ks_ctx *ctx) {
  if (!ctx)
    return "";
  ks_ctx *c = (ks_ctx *)ctx; /* the lock is not part of the value */
  pthread_mutex_lock(&c->warn_lock);
  const char *w = c->warning; /* written once, before it is non-empty */
  pthread_mutex_unlock(&c->warn_lock);
  return w;
}

int ks_jit_ctx_no_driver(const ks_ctx *ctx) { return ctx->no_driver; }

ks_status ks_jit_ctx_use_device(ks_ctx *ctx, int gpu) {
  pthread_mutex_lock(&ctx->drv_lock);
  int opened = ctx->drv_tried && !ctx->no_driver && ctx->device != gpu;
  if (!opened)
    ctx->device = gpu;
  pthread_mutex_unlock(&ctx->drv_lock);
  return opened ? ks_jit_fail(KS_EINVAL,
                              "tune: the context opened the driver (device "
                              "%d) before the sweep; a worker for GPU %d "
                              "cannot use it",
                              ctx->device, gpu)
                : KS_OK;
}

const char *ks_ctx_arch(const ks_ctx *ctx) {
  return ctx ? ctx->arch->name : NULL;
}

unsigned ks_ctx_ptx_isa(const ks_ctx *ctx) { return ctx ? ctx->ptx_isa : 0; }

ks_status ks_device_query(ks_ctx *ctx, ks_device_info *out) {
  ks_drv *drv = NULL;
  ks_status s = KS_OUT_CHECK(out, "device", ks_device_info);
  if (s != KS_OK)
    return s;
  if (!ctx)
    return ks_jit_fail(KS_EINVAL, "device: NULL argument");
  s = ks_jit_driver(ctx, &drv);
  if (s == KS_OK)
    ks_jit_out_put(out, &ctx->dev, sizeof ctx->dev);
  return s;
}

/* ---- memory and timing: thin, checked wrappers over driver/ ------------ */

static ks_status need_driver(ks_ctx *ctx, ks_drv **drv) {
  *drv = NULL;
  if (!ctx)
    return ks_jit_fail(KS_EINVAL, "memory: NULL context");
  return ks_jit_driver(ctx, drv);
}

ks_status ks_mem_alloc(ks_ctx *ctx, size_t bytes, ks_devptr *out) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_mem_alloc(d, bytes, out, err, cap);
}

/* The memory a texture entry is forgotten over: [base, base + bytes). */
typedef struct mem_span {
  ks_drv *drv;
  uint64_t base;
  size_t bytes;
} mem_span;

static void forget_textures(ks_kernel *k, void *arg) {
  const mem_span *m = arg;
  ks_jit_tex_forget(k, m->drv, m->base, m->bytes);
}

/* Texture objects over memory that is freed would sample whatever is
 * allocated there next (and a 3-D texture's array would outlive it):
 * every kernel's go first. */
void ks_mem_free(ks_ctx *ctx, ks_devptr p) {
  if (!ctx || !ctx->drv || !p)
    return;
  if (atomic_load(&ctx->tex_made)) {
    mem_span m = {ctx->drv, p, 1};
    char err[256];
    if (ks_drv_mem_range(ctx->drv, p, &m.base, &m.bytes, err, sizeof err) !=
        KS_OK) { /* not an allocation's start: objects made over p itself */
      m.base = p;
      m.bytes = 1;
    }
    ks_jit_cache_each(ctx->cache, forget_textures, &m);
  }
  ks_drv_mem_free(ctx->drv, p);
}

ks_status ks_memcpy_htod(ks_ctx *ctx, ks_devptr dst, const void *src,
                         size_t bytes) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_htod(d, dst, src, bytes, err, cap);
}

ks_status ks_memcpy_dtoh(ks_ctx *ctx, void *dst, ks_devptr src, size_t bytes) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_dtoh(d, dst, src, bytes, err, cap);
}

ks_status ks_memcpy_dtod(ks_ctx *ctx, ks_devptr dst, ks_devptr src,
                         size_t bytes) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_dtod(d, dst, src, bytes, err, cap);
}

ks_status ks_memset8(ks_ctx *ctx, ks_devptr dst, unsigned char v,
                     size_t bytes) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_memset8(d, dst, v, bytes, err, cap);
}

ks_status ks_synchronize(ks_ctx *ctx) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_sync(d, err, cap);
}

ks_status ks_timer_start(ks_ctx *ctx) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_timer_start(d, err, cap);
}

ks_status ks_timer_stop(ks_ctx *ctx, float *ms) {
  ks_drv *d = NULL;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = need_driver(ctx, &d);
  return s != KS_OK ? s : ks_drv_timer_stop(d, ms, err, cap);
}

int ks_jit_ctx_fits(const ks_ctx *ctx, const ks_device_info *dev, char *arch,
                    size_t acap, unsigned *ptx, char *why, size_t cap) {
  const ks_arch *best = arch_for_device(dev->sm);
  unsigned drv_max = ks_jit_driver_max_ptx(dev->driver_version);
  unsigned isa = ks_jit_llvm_max_ptx();
  snprintf(arch, acap, "%s", best ? best->name : "");
  *ptx = drv_max < isa ? drv_max : isa;
  const ks_arch *a = ctx->arch;
  size_t n = strlen(a->name);
  int exact = n && a->name[n - 1] == 'a'; /* sm_90a: that GPU alone */
  if (exact ? (int)a->sm != dev->sm : (int)a->sm > dev->sm)
    return snprintf(why, cap, "%s (sm_%d) cannot run code for %s", dev->name,
                    dev->sm, a->name),
           0;
  if (ctx->ptx_isa > drv_max)
    return snprintf(why, cap,
                    "its driver (%d) takes PTX ISA %u.%u at most, the sweep "
                    "compiles for %u.%u",
                    dev->driver_version, drv_max / 10, drv_max % 10,
                    ctx->ptx_isa / 10, ctx->ptx_isa % 10),
           0;
  return 1;
}
