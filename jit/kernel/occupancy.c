/*
 * occupancy.c - how many blocks of a kernel fit on one SM and what stops
 * more: the offline calculator (the CUDA occupancy rules over the limits of
 * an architecture, or of the device when one is open), the driver's own
 * answer, and the block size that maximizes occupancy.
 *
 * The rules, each giving the blocks that one resource allows:
 *  - warps: a block takes ceil(threads / 32) of the SM's warp slots;
 *  - registers: a warp gets regs x 32 registers rounded up to the
 *    allocation unit (256), all from one of the SM's sub-partitions, each
 *    holding an equal share of the register file; a block whose warps,
 *    rounded up to a multiple of the sub-partitions, need more than the
 *    per-block file cannot run at all;
 *  - shared memory: static + dynamic + the driver's reservation per block
 *    (1 KiB from sm_80), rounded up to the allocation unit, out of the
 *    SM's whole shared capacity (the driver's default carveout); over the
 *    per-block limit (48 KiB, or the opt-in one) the block cannot run;
 *  - blocks: the SM's fixed limit.
 * The answer is the smallest; every resource that gives it is a limiter.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "jit/ks_jit.h"

void ks_jit_occ_limits(const ks_arch *a, const ks_device_info *dev,
                       ks_occ_limits *o) {
  *o = (ks_occ_limits){
      .arch = a->name,
      .warp = 32,
      .max_threads_block = a->max_threads_block,
      .max_threads_sm = a->max_threads_sm,
      .max_blocks_sm = a->max_blocks_sm,
      .regs_sm = a->regs_sm,
      .regs_block = a->regs_block,
      .reg_unit = a->reg_unit,
      .max_regs_thread = a->max_regs_thread,
      .subpartitions = a->subpartitions,
      .smem_sm = a->smem_sm,
      .smem_block = a->smem_block,
      .smem_optin = a->max_smem_block_optin,
      .smem_reserved = a->smem_reserved,
      .smem_unit = a->smem_unit,
  };
  if (!dev)
    return;
  const struct {
    unsigned *dst;
    int v;
  } over[] = {
      {&o->warp, dev->warp_size},
      {&o->max_threads_block, dev->max_threads_per_block},
      {&o->max_threads_sm, dev->max_threads_per_sm},
      {&o->regs_sm, dev->max_regs_per_sm},
      {&o->regs_block, dev->max_regs_per_block},
      {&o->smem_sm, dev->max_smem_per_sm},
      {&o->smem_block, dev->max_smem_per_block},
      {&o->smem_optin, dev->max_smem_per_block_optin},
  };
  for (size_t i = 0; i < sizeof over / sizeof over[0]; i++)
    if (over[i].v > 0)
      *over[i].dst = (unsigned)over[i].v;
  o->multiprocessors = dev->multiprocessors;
}

static long long round_up(long long x, long long unit) {
  return unit > 0 ? (x + unit - 1) / unit * unit : x;
}

static int clamp_int(long long v) { return v > INT_MAX ? INT_MAX : (int)v; }

/* Blocks the register file allows; *per_block gets a block's allocation. */
static int regs_limit(const ks_occ_limits *l, int regs, unsigned warps,
                      int *per_block) {
  long long per_warp = round_up((long long)regs * l->warp, l->reg_unit);
  *per_block = clamp_int(per_warp * warps);
  if (per_warp == 0)
    return INT_MAX;
  long long assumed = per_warp * round_up(warps, l->subpartitions);
  if (per_warp * warps > l->regs_block || assumed > l->regs_block)
    return 0;
  long long per_part = (l->regs_sm / l->subpartitions) / per_warp;
  return clamp_int(per_part * l->subpartitions / warps);
}

/* Blocks shared memory allows; *per_block gets a block's allocation. */
static int smem_limit(const ks_occ_limits *l, const ks_occ_input *in,
                      int *per_block) {
  long long alloc =
      round_up((long long)in->smem + l->smem_reserved, l->smem_unit);
  long long limit =
      (long long)(in->smem_optin && in->smem > l->smem_block ? l->smem_optin
                                                             : l->smem_block) +
      l->smem_reserved;
  *per_block = clamp_int(alloc);
  if (alloc > limit)
    return 0;
  return alloc ? clamp_int(l->smem_sm / alloc) : INT_MAX;
}

ks_status ks_jit_occupancy(const ks_occ_limits *l, const ks_occ_input *in,
                           ks_occupancy *out) {
  if (!l || !in || !out)
    return ks_jit_fail(KS_EINVAL, "occupancy: NULL argument");
  if (!in->block || in->block > l->max_threads_block)
    return ks_jit_fail(KS_EBOUNDS,
                       "occupancy: block of %u threads: %s allows 1 .. %u",
                       in->block, l->arch, l->max_threads_block);
  if (in->regs < 0 || (unsigned)in->regs > l->max_regs_thread)
    return ks_jit_fail(KS_EBOUNDS,
                       "occupancy: %d registers per thread: %s allows 0 .. %u",
                       in->regs, l->arch, l->max_regs_thread);
  unsigned warps = (in->block + l->warp - 1) / l->warp;
  int max_warps = (int)(l->max_threads_sm / l->warp);
  memset(out, 0, sizeof *out);
  out->by_warps = max_warps / (int)warps;
  out->by_blocks = (int)l->max_blocks_sm;
  out->by_regs = regs_limit(l, in->regs, warps, &out->regs_per_block);
  out->by_smem = smem_limit(l, in, &out->smem_per_block);
  const struct {
    int n;
    unsigned bit;
  } by[] = {{out->by_warps, KS_LIMIT_WARPS},
            {out->by_regs, KS_LIMIT_REGS},
            {out->by_smem, KS_LIMIT_SMEM},
            {out->by_blocks, KS_LIMIT_BLOCKS}};
  int blocks = INT_MAX;
  for (size_t i = 0; i < 4; i++)
    blocks = by[i].n < blocks ? by[i].n : blocks;
  for (size_t i = 0; i < 4; i++)
    out->limiters |= by[i].n == blocks ? by[i].bit : 0;
  out->blocks_per_sm = blocks;
  out->warps_per_sm = blocks * (int)warps;
  out->max_warps_sm = max_warps;
  out->occupancy = max_warps ? (double)out->warps_per_sm / max_warps : 0;
  return KS_OK;
}

ks_status ks_jit_best_block(const ks_occ_limits *l, int regs, unsigned smem,
                            unsigned limit, unsigned *block, int *blocks) {
  long long best_threads = 0;
  *block = 0;
  *blocks = 0;
  if (limit > l->max_threads_block)
    limit = l->max_threads_block;
  /* From the limit down, a warp at a time; the first try is the limit
   * itself even when it is not a multiple of the warp. */
  for (long long aligned = round_up(limit, l->warp); aligned > 0;
       aligned -= l->warp) {
    unsigned b = aligned < limit ? (unsigned)aligned : limit;
    ks_occ_input in = {.block = b, .regs = regs, .smem = smem, .smem_optin = 1};
    ks_occupancy o = {0};
    if (ks_jit_occupancy(l, &in, &o) != KS_OK)
      return KS_EBOUNDS; /* regs out of range: the message is set */
    long long threads = (long long)b * o.blocks_per_sm;
    if (threads > best_threads) {
      best_threads = threads;
      *block = b;
      *blocks = o.blocks_per_sm;
    }
    if (threads >= l->max_threads_sm)
      break;
  }
  if (!best_threads)
    return ks_jit_fail(KS_EBOUNDS,
                       "occupancy: no block size fits on %s with %d "
                       "registers and %u bytes of shared memory",
                       l->arch, regs, smem);
  return KS_OK;
}

ks_status ks_occupancy_calc(const char *arch, const ks_occ_input *in,
                            ks_occupancy *out) {
  ks_jit_clear();
  ks_status s = KS_OUT_CHECK(out, "occupancy", ks_occupancy);
  if (s != KS_OK)
    return s;
  if (!arch || !in)
    return ks_jit_fail(KS_EINVAL, "occupancy: NULL argument");
  const ks_arch *a = ks_jit_arch_find(arch);
  if (!a)
    return ks_jit_fail(KS_EARCH,
                       "occupancy: unknown architecture '%s' (want sm_60 .. "
                       "sm_90a, e.g. sm_90)",
                       arch);
  ks_occ_limits l;
  ks_jit_occ_limits(a, NULL, &l);
  ks_occupancy full;
  s = ks_jit_occupancy(&l, in, &full);
  if (s == KS_OK)
    ks_jit_out_put(out, &full, sizeof full);
  return s;
}

/* ---- a kernel's occupancy ------------------------------------------------ */

/* The limits for k whose figures are r: the device's when its driver is
 * open and it is the device the figures are for, else the architecture's. */
static void kernel_limits(ks_kernel *k, const ks_kernel_resources *r,
                          ks_occ_limits *l) {
  ks_ctx *ctx = k->ctx;
  ks_device_info dev;
  int have = 0;
  pthread_mutex_lock(&ctx->drv_lock);
  if (ctx->drv_tried && ctx->drv_status == KS_OK && ctx->drv) {
    dev = ctx->dev;
    have = 1;
  }
  pthread_mutex_unlock(&ctx->drv_lock);
  const ks_arch *a = ctx->arch;
  if (have && r && r->source == KS_RES_DRIVER) {
    const ks_arch *d = ks_jit_arch_for_sm(dev.sm);
    a = d ? d : a;
  } else if (have && dev.sm != (int)a->sm) {
    have = 0;
  }
  ks_jit_occ_limits(a, have ? &dev : NULL, l);
}

/* The open device's multiprocessors, or 0. */
static int device_sms(ks_ctx *ctx) {
  pthread_mutex_lock(&ctx->drv_lock);
  int n = ctx->drv_tried && ctx->drv_status == KS_OK && ctx->drv
              ? ctx->dev.multiprocessors
              : 0;
  pthread_mutex_unlock(&ctx->drv_lock);
  return n;
}

/* The block against the block k was specialized for and its maxntid. */
static ks_status check_block(const ks_kernel *k, unsigned block) {
  const unsigned *r = k->info.reqntid;
  unsigned fixed = r[0] * r[1] * r[2];
  if (!block)
    return ks_jit_fail(KS_EBOUNDS, "occupancy: %s: block of 0 threads",
                       k->name);
  if (fixed && block != fixed)
    return ks_jit_fail(KS_EBOUNDS,
                       "occupancy: %s was specialized for block %ux%ux%u (%u "
                       "threads), not %u",
                       k->name, r[0], r[1], r[2], fixed, block);
  if (k->info.maxntid && block > k->info.maxntid)
    return ks_jit_fail(KS_EBOUNDS,
                       "occupancy: %s: block of %u threads over its maxntid %u",
                       k->name, block, k->info.maxntid);
  return KS_OK;
}

static ks_status driver_occupancy(ks_kernel *k, unsigned block,
                                  unsigned dyn_smem, ks_occupancy *out) {
  ks_drv *drv = NULL;
  size_t cap = 0;
  int blocks = 0;
  ks_status s = ks_kernel_load(k);
  if (s == KS_OK)
    s = ks_jit_driver(k->ctx, &drv);
  if (s == KS_OK) /* as a launch would have it */
    s = ks_jit_allow_dyn_smem(k, dyn_smem);
  if (s == KS_OK)
    s = ks_drv_occupancy(drv, k->mod.function, (int)block, dyn_smem, &blocks,
                         ks_jit_errbuf(&cap), cap);
  if (s != KS_OK)
    return s;
  const ks_device_info *dev = &k->ctx->dev;
  int warp = dev->warp_size > 0 ? dev->warp_size : 32;
  int warps = (int)((block + (unsigned)warp - 1) / (unsigned)warp);
  *out = (ks_occupancy){
      .blocks_per_sm = blocks,
      .warps_per_sm = blocks * warps,
      .max_warps_sm = dev->max_threads_per_sm / warp,
      .by_warps = -1,
      .by_regs = -1,
      .by_smem = -1,
      .by_blocks = -1,
      .regs_per_block = -1,
      .smem_per_block = -1,
  };
  out->occupancy =
      out->max_warps_sm ? (double)out->warps_per_sm / out->max_warps_sm : 0;
  return KS_OK;
}

/* The calculator's input for k from source src; *l gets the limits. */
static ks_status calc_input(ks_kernel *k, unsigned block, unsigned dyn_smem,
                            ks_res_source src, ks_occ_input *in,
                            ks_occ_limits *l) {
  ks_kernel_resources r = {.size = sizeof r};
  ks_status s = ks_kernel_resources_get(k, src, &r);
  if (s != KS_OK)
    return s;
  kernel_limits(k, &r, l);
  /* ks_launch raises the kernel's limit to the opt-in one where asked */
  *in = (ks_occ_input){.block = block,
                       .regs = r.regs,
                       .smem = (unsigned)r.static_smem + dyn_smem,
                       .smem_optin = 1};
  return KS_OK;
}

static ks_status kernel_occupancy(ks_kernel *k, unsigned block,
                                  unsigned dyn_smem, ks_res_source src,
                                  ks_occupancy *out) {
  if (!k || (unsigned)src > KS_RES_DRIVER)
    return ks_jit_fail(KS_EINVAL, "occupancy: NULL or bad argument");
  ks_status s = check_block(k, block);
  if (s != KS_OK)
    return s;
  /* a fixed block (check_block made block its threads) runs as the
   * plan's real block, fewer threads when coarsened */
  const unsigned *b = k->info.launch_block;
  if (k->info.reqntid[0])
    block = b[0] * b[1] * b[2];
  if (src == KS_RES_DRIVER)
    return driver_occupancy(k, block, dyn_smem, out);
  ks_occ_input in;
  ks_occ_limits l;
  s = calc_input(k, block, dyn_smem, src, &in, &l);
  return s == KS_OK ? ks_jit_occupancy(&l, &in, out) : s;
}

ks_status ks_kernel_occupancy(ks_kernel *k, unsigned block, unsigned dyn_smem,
                              ks_res_source src, ks_occupancy *out) {
  ks_jit_clear();
  ks_status s = KS_OUT_CHECK(out, "occupancy", ks_occupancy);
  ks_occupancy full;
  if (s == KS_OK)
    s = kernel_occupancy(k, block, dyn_smem, src, &full);
  if (s == KS_OK)
    ks_jit_out_put(out, &full, sizeof full);
  return s;
}

ks_status ks_kernel_best_block(ks_kernel *k, unsigned dyn_smem,
                               ks_res_source src, unsigned *block,
                               int *min_grid) {
  ks_jit_clear();
  if (!k || !block || !min_grid || (unsigned)src > KS_RES_DRIVER)
    return ks_jit_fail(KS_EINVAL, "occupancy: NULL or bad argument");
  const unsigned *r = k->info.reqntid;
  ks_status s;
  *block = 0;
  *min_grid = 0;
  if (r[0]) { /* fixed: its own block, however many fit */
    ks_occupancy o = {.size = sizeof o};
    s = ks_kernel_occupancy(k, r[0] * r[1] * r[2], dyn_smem, src, &o);
    if (s != KS_OK)
      return s;
    *block = r[0] * r[1] * r[2];
    *min_grid = o.blocks_per_sm * device_sms(k->ctx);
    return KS_OK;
  }
  if (src == KS_RES_DRIVER) {
    ks_drv *drv = NULL;
    size_t cap = 0;
    int b = 0;
    s = ks_kernel_load(k);
    if (s == KS_OK)
      s = ks_jit_driver(k->ctx, &drv);
    if (s == KS_OK)
      s = ks_drv_best_block(drv, k->mod.function, dyn_smem,
                            (int)k->info.maxntid, min_grid, &b,
                            ks_jit_errbuf(&cap), cap);
    *block = s == KS_OK ? (unsigned)b : 0;
    return s;
  }
  ks_occ_input in;
  ks_occ_limits l;
  s = calc_input(k, 1, dyn_smem, src, &in, &l);
  int blocks = 0;
  unsigned limit = k->info.maxntid ? k->info.maxntid : l.max_threads_block;
  if (s == KS_OK)
    s = ks_jit_best_block(&l, in.regs, in.smem, limit, block, &blocks);
  *min_grid = s == KS_OK ? blocks * device_sms(k->ctx) : 0;
  return s;
}
