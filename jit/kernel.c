/*
 * kernel.c - what a specialized kernel offers: its PTX and IR, its
 * figures, loading on the device and launching with checked geometry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

ks_status ks_kernel_ptx(const ks_kernel *k, const char **ptx, size_t *len) {
  if (!k || !ptx)
    return ks_jit_fail(KS_EINVAL, "kernel: NULL argument");
  *ptx = k->ptx;
  if (len)
    *len = k->ptx_len;
  return KS_OK;
}

ks_status ks_kernel_ir(const ks_kernel *k, const char **ir, size_t *len) {
  if (!k || !ir)
    return ks_jit_fail(KS_EINVAL, "kernel: NULL argument");
  if (!k->ir)
    return ks_jit_fail(KS_EINVAL,
                       "kernel: %s: no IR kept (name a stage in dump_stage)",
                       k->name);
  *ir = k->ir;
  if (len)
    *len = k->ir_len;
  return KS_OK;
}

const char *ks_kernel_explain(const ks_kernel *k) {
  return k && k->explain ? k->explain : "";
}

const char *ks_kernel_name(const ks_kernel *k) { return k ? k->name : NULL; }

void ks_jit_set_coarsen(ks_kernel_info *info, unsigned coarsen_x,
                        unsigned coarsen_y) {
  info->coarsen_x = coarsen_x > 1 ? coarsen_x : 1;
  info->coarsen_y = coarsen_y > 1 ? coarsen_y : 1;
  memcpy(info->launch_block, info->reqntid, sizeof info->launch_block);
  info->launch_block[0] /= info->coarsen_x;
  info->launch_block[1] /= info->coarsen_y;
}

ks_status ks_kernel_info_get(const ks_kernel *k, ks_kernel_info *out) {
  if (!k || !out)
    return ks_jit_fail(KS_EINVAL, "kernel: NULL argument");
  ks_kernel *mk = (ks_kernel *)k; /* the lock is not part of the value */
  pthread_mutex_lock(&mk->load_lock);
  *out = k->info;
  pthread_mutex_unlock(&mk->load_lock);
  return KS_OK;
}

static ks_status load_locked(ks_kernel *k, ks_drv *drv) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = ks_jit_module_load(k, drv, err, cap);
  if (s != KS_OK)
    return s;
  ks_drv_func_attrs a;
  s = ks_drv_func_attrs_get(drv, k->mod.function, &a, err, cap);
  if (s != KS_OK) {
    ks_drv_module_unload(drv, &k->mod);
    return s;
  }
  k->info.regs = a.regs;
  k->info.static_smem = a.static_smem;
  k->info.local_bytes = a.local_bytes;
  k->info.max_threads = a.max_threads;
  k->const_bytes = a.const_bytes;
  for (unsigned i = 0; i < k->info.const_copies; i++) {
    char sym[32];
    size_t n = 0;
    unsigned arg = k->info.const_copy_arg[i];
    snprintf(sym, sizeof sym, "ks_cmem_%u", arg);
    s = arg < k->nargs ? ks_drv_module_global(drv, &k->mod, sym,
                                              &k->cmem_ptr[i], &n, err, cap)
                       : KS_ELOAD;
    if (s == KS_OK && n < k->info.const_copy_bytes[i])
      s = KS_ELOAD;
    if (s != KS_OK) {
      ks_drv_module_unload(drv, &k->mod);
      return ks_jit_fail(KS_ELOAD,
                         "load: %s: no constant copy %s of %u bytes for "
                         "argument %u in the module",
                         k->name, sym, k->info.const_copy_bytes[i], arg);
    }
  }
  k->info.loaded = 1;
  k->loaded = 1;
  return KS_OK;
}

ks_status ks_kernel_load(ks_kernel *k) {
  ks_jit_clear();
  if (!k)
    return ks_jit_fail(KS_EINVAL, "load: NULL kernel");
  ks_drv *drv = NULL;
  ks_status s = ks_jit_driver(k->ctx, &drv);
  if (s != KS_OK)
    return s;
  pthread_mutex_lock(&k->load_lock);
  s = k->loaded ? KS_OK : load_locked(k, drv);
  pthread_mutex_unlock(&k->load_lock);
  return s;
}

/* The launch geometry against the kernel's bounds and the device. ub is the
 * user's block; b gets the block to launch (the real one of a coarsened
 * kernel). */
static ks_status check_launch(const ks_kernel *k, const ks_device_info *dev,
                              const unsigned g[3], const unsigned ub[3],
                              unsigned smem, unsigned b[3]) {
  for (int i = 0; i < 3; i++)
    if (k->info.reqntid[0] && ub[i] != k->info.reqntid[i])
      return ks_jit_fail(KS_EBOUNDS,
                         "launch: %s was specialized for block %ux%ux%u, "
                         "launched with %ux%ux%u",
                         k->name, k->info.reqntid[0], k->info.reqntid[1],
                         k->info.reqntid[2], ub[0], ub[1], ub[2]);
  memcpy(b, ub, 3 * sizeof *b);
  if (k->info.reqntid[0])
    memcpy(b, k->info.launch_block, 3 * sizeof *b);
  unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
  for (int i = 0; i < 3; i++) {
    if (!g[i] || !b[i])
      return ks_jit_fail(KS_EBOUNDS, "launch: %s: grid/block.%c is 0", k->name,
                         "xyz"[i]);
    if (b[i] > (unsigned)dev->max_block_dim[i] ||
        g[i] > (unsigned)dev->max_grid_dim[i])
      return ks_jit_fail(KS_EBOUNDS,
                         "launch: %s: grid.%c=%u block.%c=%u over the "
                         "device limits %d, %d",
                         k->name, "xyz"[i], g[i], "xyz"[i], b[i],
                         dev -> max_grid_dim[i], dev -> max_block_dim[i]);
  }
  if (threads > (unsigned long long)k->info.max_threads)
    return ks_jit_fail(KS_EBOUNDS,
                       "launch: %s: block of %llu threads over the kernel's "
                       "limit %d (maxntid %u, registers %d)",
                       k->name, threads, k->info.max_threads, k->info.maxntid,
                       k->info.regs);
  if (smem + (unsigned long long)k->info.static_smem >
      (unsigned long long)dev->max_smem_per_block)
    return ks_jit_fail(KS_EBOUNDS,
                       "launch: %s: %u bytes of dynamic shared memory plus "
                       "%d static over the limit %d",
                       k->name, smem, k->info.static_smem,
                       dev->max_smem_per_block);
  return KS_OK;
}

/* A grid-coarsened kernel: the user's grid.x (checked above) becomes
 * ceil(grid.x / C) blocks, and the kernel gets grid.x after args' own. */
static ks_status launch_grid_coarsened(ks_kernel *k, unsigned g[3],
                                       const unsigned b[3], unsigned smem,
                                       void *stream, void **args, char *err,
                                       size_t cap) {
  unsigned user_x = g[0], c = k->info.grid_coarsen;
  void *small[32], **all = small;
  if (k->nargs && !args)
    return ks_jit_fail(KS_EINVAL, "launch: %s: NULL arguments", k->name);
  if (k->nargs + 1 > sizeof small / sizeof *small &&
      !(all = malloc((k->nargs + 1) * sizeof *all)))
    return ks_jit_fail(KS_ENOMEM, "launch: out of memory");
  if (k->nargs)
    memcpy(all, args, k->nargs * sizeof *all);
  all[k->nargs] = &user_x;
  g[0] = user_x / c + (user_x % c != 0);
  ks_status s = ks_drv_launch(k->ctx->drv, k->mod.function, g, b, smem, stream,
                              all, err, cap);
  if (all != small)
    free(all);
  return s;
}

static ks_status launch_plain(ks_kernel *k, unsigned g[3], const unsigned b[3],
                              unsigned smem, void *stream, void **args,
                              char *err, size_t cap) {
  if (k->info.grid_coarsen > 1)
    return launch_grid_coarsened(k, g, b, smem, stream, args, err, cap);
  return ks_drv_launch(k->ctx->drv, k->mod.function, g, b, smem, stream, args,
                       err, cap);
}

/* A kernel with constant copies: on the launch's stream, after the
 * kernel's previous launch (on whichever stream) has finished, each
 * buffer's first bytes go to its .const symbol, then the kernel runs. A
 * NULL buffer is not copied: no thread of a correct launch reads it. */
static ks_status launch_with_copies(ks_kernel *k, unsigned g[3],
                                    const unsigned b[3], unsigned smem,
                                    void *stream, void **args, char *err,
                                    size_t cap) {
  ks_drv *drv = k->ctx->drv;
  if (!args)
    return ks_jit_fail(KS_EINVAL, "launch: %s: NULL arguments", k->name);
  for (unsigned i = 0; i < k->info.const_copies; i++)
    if (!args[k->info.const_copy_arg[i]])
      return ks_jit_fail(KS_EINVAL, "launch: %s: NULL pointer to argument %u",
                         k->name, k->info.const_copy_arg[i]);
  pthread_mutex_lock(&k->launch_lock);
  ks_status s = KS_OK;
  if (!k->cmem_event)
    s = ks_drv_event_create(drv, &k->cmem_event, err, cap);
  if (s == KS_OK && k->cmem_launched && k->cmem_stream != stream)
    s = ks_drv_stream_wait(drv, stream, k->cmem_event, err, cap);
  for (unsigned i = 0; s == KS_OK && i < k->info.const_copies; i++) {
    uint64_t src = 0;
    memcpy(&src, args[k->info.const_copy_arg[i]], sizeof src);
    if (src)
      s = ks_drv_dtod_async(drv, k->cmem_ptr[i], src,
                            k->info.const_copy_bytes[i], stream, err, cap);
    if (s != KS_OK) { /* which buffer: one too small is the usual cause */
      char why[512];
      snprintf(why, sizeof why, "%s", err);
      s = ks_jit_fail(s,
                      "launch: %s: the constant copy of argument %u (its "
                      "first %u bytes): %s",
                      k->name, k->info.const_copy_arg[i],
                      k->info.const_copy_bytes[i], why);
    }
  }
  if (s == KS_OK)
    s = launch_plain(k, g, b, smem, stream, args, err, cap);
  if (s == KS_OK)
    s = ks_drv_event_record(drv, k->cmem_event, stream, err, cap);
  if (s == KS_OK) {
    k->cmem_stream = stream;
    k->cmem_launched = 1;
  }
  pthread_mutex_unlock(&k->launch_lock);
  return s; /* the message is in err, the thread's error buffer */
}

ks_status ks_launch(ks_kernel *k, ks_dim3 grid, ks_dim3 block, unsigned smem,
                    void *stream, void **args) {
  ks_status s = ks_kernel_load(k);
  if (s != KS_OK)
    return s;
  unsigned g[3] = {grid.x, grid.y, grid.z};
  const unsigned ub[3] = {block.x, block.y, block.z};
  unsigned b[3];
  s = check_launch(k, &k->ctx->dev, g, ub, smem, b);
  if (s != KS_OK)
    return s;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  if (k->info.const_copies)
    return launch_with_copies(k, g, b, smem, stream, args, err, cap);
  return launch_plain(k, g, b, smem, stream, args, err, cap);
}
