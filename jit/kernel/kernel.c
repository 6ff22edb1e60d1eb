/*
 * kernel.c - what a specialized kernel offers: its PTX and IR, its
 * figures and loading on the device (launch.c launches it).
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

void ks_jit_ptx_launch_needs(ks_kernel *k) {
  /* the driver's ABI for cooperative groups: the grid barrier's address
   * is in %envreg1 and %envreg2, set for cooperative launches only */
  k->info.grid_sync = k->ptx && strstr(k->ptx, "%envreg") != NULL;
}

void ks_jit_set_plan(ks_kernel_info *info, const ks_launch_plan *p) {
  ks_launch_plan *q = &info->plan;
  *q = *p;
  q->coarsen_x = p->coarsen_x > 1 ? p->coarsen_x : 1;
  q->coarsen_y = p->coarsen_y > 1 ? p->coarsen_y : 1;
  q->grid_coarsen = p->grid_coarsen > 1 ? p->grid_coarsen : 1;
  /* one form for one plan: a disk entry's bytes depend on nothing else */
  for (unsigned i = q->const_copies; i < KS_CMEM_MAX; i++)
    q->const_copy_arg[i] = q->const_copy_bytes[i] = 0;
  memcpy(info->launch_block, info->reqntid, sizeof info->launch_block);
  info->launch_block[0] /= q->coarsen_x;
  info->launch_block[1] /= q->coarsen_y;
}

ks_status ks_kernel_info_get(const ks_kernel *k, ks_kernel_info *out) {
  ks_status s = KS_OUT_CHECK(out, "kernel", ks_kernel_info);
  if (s != KS_OK)
    return s;
  if (!k)
    return ks_jit_fail(KS_EINVAL, "kernel: NULL argument");
  ks_kernel *mk = (ks_kernel *)k; /* the lock is not part of the value */
  pthread_mutex_lock(&mk->load_lock);
  ks_jit_out_put(out, &k->info, sizeof k->info);
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
  const ks_launch_plan *p = &k->info.plan;
  for (unsigned i = 0; i < p->const_copies; i++) {
    char sym[32];
    size_t n = 0;
    unsigned arg = p->const_copy_arg[i];
    snprintf(sym, sizeof sym, "ks_cmem_%u", arg);
    s = arg < k->nargs ? ks_drv_module_global(drv, &k->mod, sym,
                                              &k->cmem_ptr[i], &n, err, cap)
                       : KS_ELOAD;
    if (s == KS_OK && n < p->const_copy_bytes[i])
      s = KS_ELOAD;
    if (s != KS_OK) {
      ks_drv_module_unload(drv, &k->mod);
      return ks_jit_fail(KS_ELOAD,
                         "load: %s: no constant copy %s of %u bytes for "
                         "argument %u in the module",
                         k->name, sym, p->const_copy_bytes[i], arg);
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
