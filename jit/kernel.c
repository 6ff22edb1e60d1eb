/*
 * kernel.c - what a specialized kernel offers: its PTX and IR, its
 * figures, loading on the device and launching with checked geometry.
 */
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
  if (k->info.grid_coarsen > 1)
    return launch_grid_coarsened(k, g, b, smem, stream, args, err, cap);
  return ks_drv_launch(k->ctx->drv, k->mod.function, g, b, smem, stream, args,
                       err, cap);
}
