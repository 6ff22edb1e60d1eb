/*
 * test_diskentry.c - the disk cache's cubin and template entries (jit/
 * cubin.c, jit/cache/tplcache.c) without a driver: the cubin key changes with
 * the device's name, compute capability, the driver version, the PTX and its
 * key, and not otherwise; entries of each kind round-trip, binary fields
 * included, and a reader never takes another kind's entry or a damaged
 * one; the launch plan round-trips field by field, no byte of it ignored,
 * and a plan over a field's limit or not fitting its block is refused with
 * the reason; template descriptions round-trip and reject every truncation; a
 * template loaded from its cached description is the same, bitcode, hash
 * and description, as one parsed now, and compiles to the same PTX; bad
 * templates fail the same way every time and leave no entry.
 *
 * Every cache directory lives under a temporary one, removed at the end.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "jit/ks_jit.h"

static char base_dir[256];

static ks_ctx *ctx_in(const char *what) {
  static int n;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s%d", base_dir, what, n++);
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .cache_dir = dir};
  ks_ctx *ctx = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_true(ks_disk_usable(ctx->disk));
  return ctx;
}

static ks_cache_counters counters(ks_ctx *ctx) {
  ks_cache_counters c = {.size = sizeof c};
  assert_int_equal(ks_cache_stats(ctx, &c), KS_OK);
  return c;
}

static int count_entries(ks_ctx *ctx) {
  uint64_t n = 0, bytes = 0;
  assert_int_equal(ks_disk_usage(ctx->disk, &n, &bytes), KS_OK);
  return (int)n;
}

/* ---- the cubin key --------------------------------------------------------
 */

static void cubin_key(void **state) {
  (void)state;
  char ptx[] = ".version 8.5\n.target sm_90\n";
  ks_kernel k = {.ptx = ptx, .ptx_len = strlen(ptx), .key = {1, 2}};
  ks_device_info dev = {.sm = 90, .driver_version = 13000};
  snprintf(dev.name, sizeof dev.name, "NVIDIA H100 80GB HBM3");
  uint64_t base[2], again[2], other[2];
  ks_jit_cubin_key(&k, &dev, base);
  ks_jit_cubin_key(&k, &dev, again);
  assert_memory_equal(base, again, sizeof base);
  /* fields the driver does not care about leave it alone */
  ks_device_info dev2 = dev;
  dev2.multiprocessors = 7;
  dev2.total_mem = 1;
  ks_jit_cubin_key(&k, &dev2, other);
  assert_memory_equal(base, other, sizeof base);
  /* each input alone changes it */
  dev2 = dev;
  dev2.driver_version = 13010;
  ks_jit_cubin_key(&k, &dev2, other);
  assert_memory_not_equal(base, other, sizeof base);
  dev2 = dev;
  dev2.sm = 100;
  ks_jit_cubin_key(&k, &dev2, other);
  assert_memory_not_equal(base, other, sizeof base);
  dev2 = dev;
  snprintf(dev2.name, sizeof dev2.name, "NVIDIA H200");
  ks_jit_cubin_key(&k, &dev2, other);
  assert_memory_not_equal(base, other, sizeof base);
  ks_kernel k2 = k;
  k2.key[0] = 3;
  ks_jit_cubin_key(&k2, &dev, other);
  assert_memory_not_equal(base, other, sizeof base);
  char ptx2[] = ".version 8.5\n.target sm_90 \n";
  k2 = k;
  k2.ptx = ptx2;
  k2.ptx_len = strlen(ptx2);
  ks_jit_cubin_key(&k2, &dev, other);
  assert_memory_not_equal(base, other, sizeof base);
  /* and it is never the PTX entry's own key */
  assert_memory_not_equal(base, k.key, sizeof base);
}

/* ---- entries of each kind ------------------------------------------------ */

/* A cubin-like entry with NULs inside its blob. */
static ks_disk_entry blob_entry(unsigned kind, const uint64_t key[2],
                                const unsigned char *blob, size_t n) {
  ks_disk_entry e = {.kind = kind, .key = {key[0], key[1]}};
  e.str[KS_DISK_NAME] = "conv1d";
  e.len[KS_DISK_NAME] = 6;
  e.str[KS_DISK_EXPLAIN] = "";
  e.str[KS_DISK_BLOB] = (const char *)blob;
  e.len[KS_DISK_BLOB] = (uint32_t)n;
  e.str[KS_DISK_WHY] = "device X\n";
  e.len[KS_DISK_WHY] = 9;
  return e;
}

static void entry_kinds(void **state) {
  (void)state;
  ks_ctx *ctx = ctx_in("kinds");
  unsigned char blob[300];
  for (size_t i = 0; i < sizeof blob; i++)
    blob[i] = (unsigned char)(i * 7); /* NULs included */
  uint64_t key[2] = {0x1234, 0x5678};
  ks_disk_entry e = blob_entry(KS_DISK_KIND_CUBIN, key, blob, sizeof blob);
  ks_disk_write(ctx, ctx->disk, &e);
  assert_int_equal(count_entries(ctx), 1);
  ks_disk_entry r;
  unsigned char *buf = NULL;
  assert_int_equal(
      ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_CUBIN, key, &r, &buf), 1);
  assert_int_equal(r.kind, KS_DISK_KIND_CUBIN);
  assert_int_equal(r.len[KS_DISK_BLOB], sizeof blob);
  assert_memory_equal(r.str[KS_DISK_BLOB], blob, sizeof blob);
  assert_string_equal(r.str[KS_DISK_NAME], "conv1d");
  free(buf);
  assert_int_equal(counters(ctx).corrupt, 0);
  /* another kind under the same key: a miss, counted */
  assert_int_equal(
      ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_PTX, key, &r, &buf), 0);
  assert_int_equal(
      ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_TEMPLATE, key, &r, &buf), 0);
  assert_int_equal(counters(ctx).corrupt, 2);
  /* a PTX entry may not hold NULs inside its strings */
  ks_disk_entry p = blob_entry(KS_DISK_KIND_PTX, key, blob, sizeof blob);
  ks_disk_write(ctx, ctx->disk, &p);
  assert_int_equal(
      ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_PTX, key, &r, &buf), 0);
  assert_int_equal(counters(ctx).corrupt, 3);
  /* verify keeps sound entries of every kind */
  ks_disk_write(ctx, ctx->disk, &e);
  uint64_t key2[2] = {9, 9};
  ks_disk_entry t =
      blob_entry(KS_DISK_KIND_TEMPLATE, key2, blob, sizeof blob - 1);
  ks_disk_write(ctx, ctx->disk, &t);
  uint64_t good = 0, removed = 0;
  assert_int_equal(ks_disk_verify(ctx->disk, 0, &good, &removed), KS_OK);
  assert_int_equal(good, 2);
  assert_int_equal(removed, 0);
  /* every single bit flip of the cubin entry is a miss */
  char name[KS_DISK_NAME_CAP], path[1024];
  ks_disk_name(key, name);
  snprintf(path, sizeof path, "%s/%s", ks_disk_path(ctx->disk), name);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  for (off_t at = 0; at < st.st_size; at += 13) {
    ks_disk_write(ctx, ctx->disk, &e);
    int fd = open(path, O_RDWR);
    unsigned char c;
    assert_int_equal(pread(fd, &c, 1, at), 1);
    c ^= 0x10;
    assert_int_equal(pwrite(fd, &c, 1, at), 1);
    close(fd);
    assert_int_equal(
        ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_CUBIN, key, &r, &buf), 0);
  }
  /* truncated */
  ks_disk_write(ctx, ctx->disk, &e);
  assert_int_equal(truncate(path, st.st_size - 1), 0);
  assert_int_equal(
      ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_CUBIN, key, &r, &buf), 0);
  /* dropped */
  ks_disk_write(ctx, ctx->disk, &e);
  ks_disk_drop(ctx->disk, key);
  assert_int_not_equal(stat(path, &st), 0);
  ks_ctx_destroy(ctx);
}

/* Writes v at byte at of the entry's n bytes at b and makes the checksum
 * (at byte 40) right again, as damage a checksum cannot see would be. */
static void patch32(unsigned char *b, size_t n, size_t at, uint32_t v) {
  uint64_t sum = 0;
  memcpy(b + at, &v, sizeof v);
  memcpy(b + 40, &sum, sizeof sum);
  sum = XXH3_64bits(b, n);
  memcpy(b + 40, &sum, sizeof sum);
}

/* An entry's bytes read back are the entry, and encoding what was read
 * gives the same bytes; a header figure the writer never writes (an
 * estimate of registers over INT_MAX) or a launch plan it never makes is
 * rejected even under a good checksum. */
static void entry_exact(void **state) {
  (void)state;
  ks_disk_entry e = {.kind = KS_DISK_KIND_PTX,
                     .key = {1, 2},
                     .str = {"k", "explained", ".version 8.5\n", "why"},
                     .len = {1, 9, 13, 3},
                     .reqntid = {256, 4, 1},
                     .est_regs = 40,
                     .plan = {.coarsen_x = 2,
                              .coarsen_y = 4,
                              .grid_coarsen = 16,
                              .const_copies = 2,
                              .const_copy_arg = {1, 3},
                              .const_copy_bytes = {128, 68}},
                     .compile_ns = 123456789};
  size_t n = 0;
  unsigned char *b = ks_disk_encode(&e, &n);
  assert_non_null(b);
  assert_int_equal(n,
                   KS_DISK_HEADER_BYTES + KS_DISK_PLAN_BYTES + 2 + 10 + 14 + 4);
  ks_disk_entry r;
  char why[128];
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), 0);
  assert_int_equal(r.est_regs, 40);
  assert_memory_equal(&r.plan, &e.plan, sizeof e.plan);
  assert_string_equal(r.str[KS_DISK_PTX], ".version 8.5\n");
  assert_true(r.compile_ns == 123456789);
  size_t m = 0;
  unsigned char *again = ks_disk_encode(&r, &m);
  assert_int_equal(m, n);
  assert_memory_equal(again, b, n);
  free(again);
  /* est_regs sits at byte 104 */
  patch32(b, n, 104, 0x80000000u);
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), -1);
  assert_non_null(strstr(why, "registers"));
  patch32(b, n, 104, 40);
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), 0);
  /* the plan's length (byte 108) is not this format's */
  patch32(b, n, 108, KS_DISK_PLAN_BYTES - 4);
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), -1);
  assert_non_null(strstr(why, "launch plan of"));
  patch32(b, n, 108, KS_DISK_PLAN_BYTES);
  /* more constant copies than a kernel can have (the plan's 4th word) */
  patch32(b, n, KS_DISK_HEADER_BYTES + 12, 5);
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), -1);
  assert_string_equal(why, "launch plan: const_copies 5 over 4");
  /* another format version: refused, saying so */
  patch32(b, n, KS_DISK_HEADER_BYTES + 12, 2);
  patch32(b, n, 8, KS_DISK_FORMAT_VERSION - 1);
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), -1);
  assert_non_null(strstr(why, "format version"));
  free(b);
  /* grid coarsening without a fixed block is rejected too */
  e.reqntid[0] = e.reqntid[1] = 0;
  e.plan.coarsen_x = e.plan.coarsen_y = 0;
  b = ks_disk_encode(&e, &n);
  assert_non_null(b);
  assert_int_equal(ks_disk_check(b, n, e.key, &r, why, sizeof why), -1);
  assert_non_null(strstr(why, "grid coarsening"));
  free(b);
}

/* ---- the launch plan ------------------------------------------------------
 */

/* A plan with every field at a value of its own, each within its limit. */
static const ks_launch_plan full_plan = {.coarsen_x = 4,
                                         .coarsen_y = 2,
                                         .grid_coarsen = 1024,
                                         .const_copies = KS_CMEM_MAX,
                                         .const_copy_arg = {1, 2, 7, 4096},
                                         .const_copy_bytes = {4, 8, 65536, 12}};
static const unsigned full_block[3] = {256, 8, 1};

/* Decoding what was encoded gives the plan back, field by field, in
 * exactly KS_DISK_PLAN_BYTES little-endian bytes; and no byte is ignored:
 * changing any one of them either is refused, with a reason, or gives
 * another plan. */
static void plan_roundtrip(void **state) {
  (void)state;
  unsigned char buf[KS_DISK_PLAN_BYTES + 1];
  memset(buf, 0xa5, sizeof buf);
  ks_disk_plan_encode(&full_plan, buf);
  assert_int_equal(buf[KS_DISK_PLAN_BYTES], 0xa5);
  /* coarsen_x first, little-endian; grid_coarsen (1024) third */
  static const unsigned char head[12] = {4, 0, 0, 0, 2, 0, 0, 0, 0, 4, 0, 0};
  assert_memory_equal(buf, head, sizeof head);
  ks_launch_plan p;
  char why[128] = "";
  assert_int_equal(ks_disk_plan_decode(buf, full_block, &p, why, sizeof why),
                   0);
  assert_int_equal(p.coarsen_x, 4);
  assert_int_equal(p.coarsen_y, 2);
  assert_int_equal(p.grid_coarsen, 1024);
  assert_int_equal(p.const_copies, KS_CMEM_MAX);
  for (int i = 0; i < KS_CMEM_MAX; i++) {
    assert_int_equal(p.const_copy_arg[i], full_plan.const_copy_arg[i]);
    assert_int_equal(p.const_copy_bytes[i], full_plan.const_copy_bytes[i]);
  }
  assert_memory_equal(&p, &full_plan, sizeof p);
  for (size_t at = 0; at < KS_DISK_PLAN_BYTES; at++) {
    unsigned char d[KS_DISK_PLAN_BYTES];
    memcpy(d, buf, sizeof d);
    d[at] ^= 0x01;
    why[0] = '\0';
    if (ks_disk_plan_decode(d, full_block, &p, why, sizeof why) == 0)
      assert_memory_not_equal(&p, &full_plan, sizeof p);
    else
      assert_non_null(strstr(why, "launch plan: "));
  }
  /* the plan of a kernel that needs nothing, and of cubin and template
   * entries: all zero, with or without a fixed block */
  static const ks_launch_plan none;
  static const unsigned no_block[3];
  ks_disk_plan_encode(&none, buf);
  assert_int_equal(ks_disk_plan_decode(buf, no_block, &p, why, sizeof why), 0);
  assert_memory_equal(&p, &none, sizeof p);
}

/* The plan's bytes after damage no checksum sees: refused with a message
 * naming what is wrong. */
static void refused(const ks_launch_plan *bad_plan, const unsigned block[3],
                    const char *want) {
  unsigned char buf[KS_DISK_PLAN_BYTES];
  ks_disk_plan_encode(bad_plan, buf);
  ks_launch_plan p;
  char why[128] = "";
  assert_int_equal(ks_disk_plan_decode(buf, block, &p, why, sizeof why), -1);
  if (!strstr(why, want))
    fail_msg("refused with '%s', want '%s'", why, want);
}

static void plan_refused(void **state) {
  (void)state;
  ks_launch_plan p = full_plan;
  p.coarsen_x = 1025; /* over every field's limit */
  refused(&p, full_block, "launch plan: coarsen_x 1025 over 1024");
  p = full_plan;
  p.grid_coarsen = 1025;
  refused(&p, full_block, "launch plan: grid_coarsen 1025 over 1024");
  p = full_plan;
  p.const_copy_arg[3] = 4097;
  refused(&p, full_block, "launch plan: const_copy_arg 4097 over 4096");
  p = full_plan;
  p.const_copy_bytes[1] = 65537;
  refused(&p, full_block, "launch plan: const_copy_bytes 65537 over 65536");
  /* within the limits, but not what the block allows */
  p = full_plan;
  p.coarsen_x = 3;
  refused(&p, full_block, "coarsening by 3 of block.x 256");
  p = full_plan;
  p.coarsen_y = 16;
  refused(&p, full_block, "coarsening by 16 of block.y 8");
  static const unsigned no_block[3];
  p = full_plan;
  p.coarsen_x = p.coarsen_y = 1;
  refused(&p, no_block, "grid coarsening by 1024 without a fixed block");
  /* constant copies: none of 0 bytes, nothing past const_copies */
  p = full_plan;
  p.const_copy_bytes[2] = 0;
  refused(&p, full_block, "constant copy 2 (of 4) of 0 bytes from argument 7");
  p = full_plan;
  p.const_copies = 2;
  refused(&p, full_block, "constant copy 2 (of 2)");
}

/* The kernel's info takes a plan in one form: coarsenings of 0 are 1,
 * elements past const_copies 0, and launch_block the real block. */
static void plan_in_info(void **state) {
  (void)state;
  ks_kernel_info info = {.reqntid = {256, 8, 1}};
  ks_launch_plan p = {.coarsen_x = 4,
                      .const_copies = 1,
                      .const_copy_arg = {1, 2},
                      .const_copy_bytes = {64, 32}};
  ks_jit_set_plan(&info, &p);
  assert_int_equal(info.plan.coarsen_x, 4);
  assert_int_equal(info.plan.coarsen_y, 1);
  assert_int_equal(info.plan.grid_coarsen, 1);
  assert_int_equal(info.plan.const_copy_arg[0], 1);
  assert_int_equal(info.plan.const_copy_bytes[0], 64);
  assert_int_equal(info.plan.const_copy_arg[1], 0);
  assert_int_equal(info.plan.const_copy_bytes[1], 0);
  assert_int_equal(info.launch_block[0], 64);
  assert_int_equal(info.launch_block[1], 8);
  assert_int_equal(info.launch_block[2], 1);
  /* so what the info holds is what a reader takes */
  unsigned char buf[KS_DISK_PLAN_BYTES];
  ks_disk_plan_encode(&info.plan, buf);
  char why[128];
  assert_int_equal(ks_disk_plan_decode(buf, info.reqntid, &p, why, sizeof why),
                   0);
  assert_memory_equal(&p, &info.plan, sizeof p);
}

/* ---- template descriptions ----------------------------------------------- */

static void same_desc(const ks_ir_desc *a, const ks_ir_desc *b) {
  assert_int_equal(a->nkernels, b->nkernels);
  for (size_t i = 0; i < a->nkernels; i++) {
    const ks_ir_kernel *x = &a->kernels[i], *y = &b->kernels[i];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->doc == NULL, y->doc == NULL);
    if (x->doc)
      assert_string_equal(x->doc, y->doc);
    assert_int_equal(x->nargs, y->nargs);
    for (unsigned j = 0; j < x->nargs; j++) {
      assert_string_equal(x->args[j].name, y->args[j].name);
      assert_int_equal(x->args[j].pointer, y->args[j].pointer);
      assert_int_equal(x->args[j].kind, y->args[j].kind);
      assert_int_equal(x->args[j].type, y->args[j].type);
      assert_int_equal(x->args[j].sign, y->args[j].sign);
    }
    assert_int_equal(x->own_bounds, y->own_bounds);
    assert_int_equal(x->grid_sync, y->grid_sync);
    assert_int_equal(x->nparams, y->nparams);
    for (size_t j = 0; j < x->nparams; j++) {
      const ks_ir_param *p = &x->params[j], *q = &y->params[j];
      assert_string_equal(p->name, q->name);
      assert_int_equal(p->type, q->type);
      assert_int_equal(p->arg_index, q->arg_index);
      assert_int_equal(p->flags, q->flags);
      assert_true(p->def == q->def && p->min == q->min && p->max == q->max);
    }
  }
}

static void desc_roundtrip(void **state) {
  (void)state;
  for (size_t i = 0; i < ks_builtin_count(); i++) {
    ks_template *t = NULL;
    assert_int_equal(ks_template_load(NULL, ks_builtin_name(i), &t), KS_OK);
    size_t n = 0;
    unsigned char *p = ks_jit_desc_pack(&t->desc, &n);
    assert_non_null(p);
    ks_ir_desc d;
    assert_int_equal(ks_jit_desc_unpack(p, n, &d), 0);
    same_desc(&t->desc, &d);
    ks_ir_desc_free(&d);
    /* every truncation, and a byte too many, is rejected */
    for (size_t cut = 0; cut < n; cut++)
      assert_int_equal(ks_jit_desc_unpack(p, cut, &d), -1);
    unsigned char *more = malloc(n + 1);
    memcpy(more, p, n);
    more[n] = 0;
    assert_int_equal(ks_jit_desc_unpack(more, n + 1, &d), -1);
    /* a huge count is rejected before any allocation */
    memset(more, 0xff, 4);
    assert_int_equal(ks_jit_desc_unpack(more, n, &d), -1);
    free(more);
    free(p);
    ks_template_destroy(t);
  }
}

/* A description that packs fine but that ks_ir_discover could not have
 * made is rejected (the fuzzer's rule: what is accepted is exactly what
 * is written). */
static void desc_unsound(void **state) {
  (void)state;
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(NULL, "conv1d", &t), KS_OK);
  ks_ir_kernel *k = &t->desc.kernels[0];
  assert_true(k->nparams == 1 && k->doc);
  ks_ir_param *p = &k->params[0];
  ks_ir_param keep = *p;
  char *doc = k->doc;
  unsigned pointer_arg = 0;
  while (!k->args[pointer_arg].pointer)
    pointer_arg++;
  for (int c = 0; c < 7; c++) {
    *p = keep;
    k->doc = doc;
    switch (c) {
    case 0: /* a parameter on a buffer */
      p->arg_index = pointer_arg;
      break;
    case 1: /* named after no argument */
      p->name = "NOPE";
      break;
    case 2: /* not an integer */
      p->def = 2.5;
      break;
    case 3: /* infinite */
      p->max = 1.0 / 0.0;
      break;
    case 4: /* fixes the block from 0 */
      p->flags = KS_PARAM_BLOCK_X;
      p->min = 0;
      p->def = 1;
      break;
    case 5: /* out of int32 */
      p->max = 4294967296.0;
      break;
    case 6: /* no doc, but the doc's bytes */
      break;
    }
    size_t n = 0;
    unsigned char *b = ks_jit_desc_pack(&t->desc, &n);
    assert_non_null(b);
    if (c == 6)
      b[4 + 4 + strlen(k->name)] = 0; /* the has-doc byte */
    ks_ir_desc d;
    if (ks_jit_desc_unpack(b, n, &d) == 0)
      fail_msg("case %d was accepted", c);
    free(b);
  }
  *p = keep;
  ks_template_destroy(t);
}

/* The PTX of t's first kernel with its parameters' defaults, block 128,
 * compiled without a cache. */
static char *ptx_of(const ks_template *t) {
  ks_ctx_opts o = {
      .arch = "sm_90", .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  ks_binding b[16];
  size_t nb = 0;
  for (size_t i = 0; i < ks_template_param_count(t, 0) && nb < 16; i++) {
    ks_param_info p = {.size = sizeof p};
    assert_int_equal(ks_template_param(t, 0, i, &p), KS_OK);
    if (!p.marked)
      continue;
    b[nb++] = (ks_binding){.name = p.name, .kind = KS_VALUE_REAL, .v.f = p.def};
  }
  ks_spec_req req = {
      .bindings = b, .nbindings = nb, .kernel = ks_template_kernel_name(t, 0)};
  ks_kernel *k = NULL;
  char *out = NULL;
  const char *ptx = NULL;
  if (ks_specialize(ctx, t, &req, &k) == KS_OK &&
      ks_kernel_ptx(k, &ptx, NULL) == KS_OK)
    out = strdup(ptx);
  ks_ctx_destroy(ctx);
  return out;
}

static void lazy_equals_full(const char *what) {
  ks_ctx *a = ctx_in("lazy"), *b = NULL;
  ks_template *full = NULL, *first = NULL, *lazy = NULL;
  assert_int_equal(ks_template_load(NULL, what, &full), KS_OK);
  assert_int_equal(ks_template_load(a, what, &first), KS_OK);
  ks_cache_counters c = counters(a);
  assert_int_equal(c.template_misses, 1);
  assert_int_equal(c.template_hits, 0);
  assert_int_equal(count_entries(a), 1);
  /* a fresh context on the same directory: no parsing */
  ks_ctx_opts o = {.arch = "sm_90",
                   .ptx_isa = 85,
                   .no_driver = 1,
                   .cache_dir = ks_disk_path(a->disk)};
  assert_int_equal(ks_ctx_create(&o, &b), KS_OK);
  assert_int_equal(ks_template_load(b, what, &lazy), KS_OK);
  c = counters(b);
  assert_int_equal(c.template_hits, 1);
  assert_int_equal(c.template_misses + c.corrupt, 0);
  assert_string_equal(lazy->name, full->name);
  assert_int_equal(lazy->len, full->len);
  assert_memory_equal(lazy->bitcode, full->bitcode, full->len);
  assert_memory_equal(lazy->hash, full->hash, sizeof full->hash);
  same_desc(&lazy->desc, &full->desc);
  char *pf = ptx_of(full), *pl = ptx_of(lazy);
  assert_non_null(pf);
  assert_non_null(pl);
  assert_string_equal(pf, pl);
  free(pf);
  free(pl);
  ks_template_destroy(full);
  ks_template_destroy(first);
  ks_template_destroy(lazy);
  ks_ctx_destroy(a);
  ks_ctx_destroy(b);
}

static void template_lazy(void **state) {
  (void)state;
  for (size_t i = 0; i < ks_builtin_count(); i++)
    lazy_equals_full(ks_builtin_name(i));
  lazy_equals_full(KS_TEST_DATA_DIR "/saxpy.ll");
  lazy_equals_full(KS_TEST_BINARY_DIR "/saxpy.bc");
}

static const char bad_ir[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                             "define void @k(ptr %p) {\n"
                             "entry:\n"
                             "  store float 1.0, ptr %p\n"
                             "}\n"; /* no terminator: fails verification */

static const char no_kernel_ir[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                                   "define void @f() {\n"
                                   "  ret void\n"
                                   "}\n";

static void template_bad(void **state) {
  (void)state;
  ks_ctx *ctx = ctx_in("bad");
  const char *irs[] = {bad_ir, no_kernel_ir, "not IR at all"};
  for (size_t i = 0; i < 3; i++) {
    ks_template *t = NULL;
    ks_status s0 =
        ks_template_load_mem(NULL, "bad", irs[i], strlen(irs[i]), &t);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ks_errmsg(NULL));
    assert_int_not_equal(s0, KS_OK);
    for (int round = 0; round < 2; round++) {
      assert_int_equal(
          ks_template_load_mem(ctx, "bad", irs[i], strlen(irs[i]), &t), s0);
      assert_null(t);
      assert_string_equal(ks_errmsg(NULL), msg);
    }
  }
  assert_int_equal(count_entries(ctx), 0);
  assert_int_equal(counters(ctx).template_hits, 0);
  ks_ctx_destroy(ctx);
}

/* A damaged description entry is a miss: parsed again, rewritten. */
static void template_damaged(void **state) {
  (void)state;
  ks_ctx *ctx = ctx_in("damaged");
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  ks_template_destroy(t);
  DIR *d = opendir(ks_disk_path(ctx->disk));
  struct dirent *de;
  char path[1024] = "";
  while ((de = readdir(d)))
    if (ks_disk_is_entry(de->d_name))
      snprintf(path, sizeof path, "%s/%s", ks_disk_path(ctx->disk), de->d_name);
  closedir(d);
  assert_true(path[0]);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  int fd = open(path, O_RDWR);
  unsigned char c = 0;
  assert_int_equal(pread(fd, &c, 1, st.st_size / 2), 1);
  c ^= 1;
  assert_int_equal(pwrite(fd, &c, 1, st.st_size / 2), 1);
  close(fd);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  ks_cache_counters n = counters(ctx);
  assert_int_equal(n.corrupt, 1);
  assert_int_equal(n.template_misses, 2);
  assert_int_equal(n.template_hits, 0);
  ks_template_destroy(t);
  assert_int_equal(ks_template_load(ctx, "conv1d", &t), KS_OK);
  assert_int_equal(counters(ctx).template_hits, 1);
  assert_int_equal(ks_template_kernel_count(t), 1);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int main(void) {
  snprintf(base_dir, sizeof base_dir, "/tmp/kspec_diskentry.XXXXXX");
  if (!mkdtemp(base_dir))
    return 1;
  setenv("KSPEC_CACHE_DIR", base_dir, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cubin_key),        cmocka_unit_test(entry_kinds),
      cmocka_unit_test(entry_exact),      cmocka_unit_test(plan_roundtrip),
      cmocka_unit_test(plan_refused),     cmocka_unit_test(plan_in_info),
      cmocka_unit_test(desc_roundtrip),   cmocka_unit_test(desc_unsound),
      cmocka_unit_test(template_lazy),    cmocka_unit_test(template_bad),
      cmocka_unit_test(template_damaged),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  nftw(base_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
