/*
 * test_launch.c - jit/kernel/launch.c over the mocked CUDA driver (mock/
 * cuda_mock.c, opened through KSPEC_LIBCUDA): what ks_launch_ex hands the
 * driver and what it refuses before the driver sees it.
 *
 *   cooperative    gridsync_sum (tests/data/launch.ll) at the largest
 *                  co-resident grid goes out with the cooperative
 *                  attribute; one block more is KS_EBOUNDS with the figures
 *   gcoarsened     reduce_sum's real grid is what must be co-resident
 *   dyn_smem       64 KiB sets the function's attribute once, a larger ask
 *                  raises it, the occupancy query sees it; over the opt-in
 *                  limit is refused
 *   clusters       cluster dims passed through on sm_90, shapes refused;
 *                  on an sm_80 device, refused as such
 *   coarsened      a thread-coarsened kernel goes out with its real block
 *   grid_sync      a kernel that reads the grid workspace (%envreg, as
 *                  cooperative groups' grid sync) says so in its info and
 *                  its template's; ks_launch launches it cooperatively,
 *                  and refuses a grid past the co-resident blocks
 *   textures       resize with --tex src: the texture object made from the
 *                  launch's own arguments (format, filter, mode, sizes),
 *                  passed after them, made once per array and shape,
 *                  destroyed with the kernel; an array the device cannot
 *                  sample (pitch off its alignment) gets 0 (software) and
 *                  the kernel's launch note says why, once
 *   textures3d     resize3d with --tex src: a CUDA 3-D array and an object
 *                  over it, made once; every launch copies src into the
 *                  array first (the mock's fetch sees the new values), on
 *                  the launch's stream after the previous launch; the
 *                  object and array go with the kernel
 *   textures_freed ks_mem_free of an array destroys the texture objects
 *                  (and 3-D arrays) over it in every kernel of the
 *                  context, and only those
 */
#define _GNU_SOURCE /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h> /* types only */

#include "kspec.h"
#include "mock/cuda_mock.h"
#include "test_util.h"

enum { SMS = 132, KIB = 1024 };

/* The mock's cuStreamCreate, of its own type (UBSan checks calls). */
typedef CUresult (*stream_create_fn)(CUstream *stream, unsigned flags);

static kspec_mock_counters_fn mock_counters;
static kspec_mock_tex_fetch_fn mock_fetch;
static stream_create_fn mock_stream_create;

static kspec_mock_counters mock_now(void) {
  kspec_mock_counters c;
  mock_counters(&c);
  return c;
}

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
  ks_devptr buf[5];
} fixture;

/* A context (arch NULL: the device's) with the template at path, and
 * five 1 MiB device buffers. */
static fixture *open_fixture(const char *arch, const char *path) {
  fixture *f = calloc(1, sizeof *f);
  ks_ctx_opts o = {.arch = arch, .no_disk_cache = 1};
  assert_non_null(f);
  assert_int_equal(ks_ctx_create(&o, &f->ctx), KS_OK);
  if (ks_template_load(f->ctx, path, &f->t) != KS_OK)
    fail_msg("load %s: %s", path, ks_errmsg(f->ctx));
  for (int i = 0; i < 5; i++)
    assert_int_equal(ks_mem_alloc(f->ctx, 1u << 20, &f->buf[i]), KS_OK);
  return f;
}

static void close_fixture(fixture *f) {
  for (int i = 0; i < 5; i++)
    ks_mem_free(f->ctx, f->buf[i]);
  ks_template_destroy(f->t);
  ks_ctx_destroy(f->ctx);
  free(f);
}

static ks_kernel *spec(fixture *f, const char *kernel, const ks_binding *b,
                       size_t nb, ks_launch_bounds bounds) {
  ks_spec_req req = {
      .kernel = kernel, .bindings = b, .nbindings = nb, .bounds = bounds};
  ks_kernel *k = NULL;
  if (ks_specialize(f->ctx, f->t, &req, &k) != KS_OK)
    fail_msg("specialize %s: %s", kernel, ks_errmsg(f->ctx));
  return k;
}

static const char *launch_ll(void) { return KS_TEST_DATA_DIR "/launch.ll"; }

static void cooperative(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, launch_ll());
  ks_kernel *k = spec(f, "gridsync_sum", NULL, 0,
                      (ks_launch_bounds){.block = {256, 1, 1}});
  int per_sm = 0, n = 1 << 18;
  unsigned most = 0;
  assert_int_equal(ks_kernel_max_active_blocks(k, 256, 0, &per_sm), KS_OK);
  assert_true(per_sm > 0);
  assert_int_equal(ks_kernel_max_coresident_grid(k, 256, 0, &most), KS_OK);
  assert_int_equal(most, (unsigned)per_sm * SMS);
  void *args[] = {&f->buf[0], &n, &f->buf[1], &f->buf[2], &f->buf[3]};
  ks_launch_attrs a = {.cooperative = 1};
  ks_dim3 block = {256, 1, 1};
  assert_int_equal(ks_launch_ex(k, (ks_dim3){most, 1, 1}, block, &a, args),
                   KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_launch_fn, 2); /* cuLaunchKernelEx */
  assert_int_equal(m.last_cooperative, 1);
  assert_int_equal(m.last_grid[0], most);
  /* one block more, spread over y: refused before the driver sees it */
  char want[256];
  snprintf(want, sizeof want,
           "launch: gridsync_sum: cooperative launch: grid of %u blocks over "
           "the %u that can be resident (%d per SM x %d SMs)",
           most + 2, most, per_sm, SMS);
  ks_dim3 over = {most / 2 + 1, 2, 1};
  assert_int_equal(ks_launch_ex(k, over, block, &a, args), KS_EBOUNDS);
  assert_string_equal(ks_errmsg(f->ctx), want);
  assert_int_equal(mock_now().launches, m.launches);
  assert_int_equal(mock_now().launch_errors, m.launch_errors);
  /* without the attribute: a plain launch, any grid */
  assert_int_equal(ks_launch_ex(k, over, block, NULL, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.last_launch_fn, 1); /* cuLaunchKernel */
  assert_int_equal(m.last_cooperative, 0);
  close_fixture(f);
}

/* reduce_sum is grid-coarsened by 16: the co-resident limit is in the
 * user's blocks, the driver gets a sixteenth of them. */
static void gcoarsened(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, "reduce_sum");
  ks_binding b = {.name = "BLOCK", .kind = KS_VALUE_INT, .v.i = 256};
  ks_kernel *k = spec(f, NULL, &b, 1, (ks_launch_bounds){.block = {256, 1, 1}});
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_int_equal(info.plan.grid_coarsen, 16);
  int per_sm = 0, n = 4096, blk = 256;
  unsigned most = 0;
  assert_int_equal(ks_kernel_max_active_blocks(k, 256, 0, &per_sm), KS_OK);
  assert_int_equal(ks_kernel_max_coresident_grid(k, 256, 0, &most), KS_OK);
  assert_int_equal(most, (unsigned)per_sm * SMS * 16);
  void *args[] = {&f->buf[0], &f->buf[1], &n, &blk};
  ks_launch_attrs a = {.cooperative = 1};
  ks_dim3 block = {256, 1, 1};
  assert_int_equal(ks_launch_ex(k, (ks_dim3){most, 1, 1}, block, &a, args),
                   KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_grid[0], most / 16);
  assert_int_equal(m.last_param, most); /* the hidden grid.x */
  assert_int_equal(m.last_cooperative, 1);
  assert_int_equal(ks_launch_ex(k, (ks_dim3){most + 1, 1, 1}, block, &a, args),
                   KS_EBOUNDS);
  TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), "cooperative launch: grid of ");
  TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), "(grid-coarsened)");
  close_fixture(f);
}

static void dyn_smem(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, launch_ll());
  ks_kernel *k = spec(f, "smem_reverse", NULL, 0,
                      (ks_launch_bounds){.block = {256, 1, 1}});
  int n = 16 * KIB, per_sm = 0;
  void *args[] = {&f->buf[0], &f->buf[1], &n};
  ks_dim3 grid = {4, 1, 1}, block = {256, 1, 1};
  kspec_mock_counters m0 = mock_now();
  /* plain ks_launch: set once, then enough */
  assert_int_equal(ks_launch(k, grid, block, 64 * KIB, NULL, args), KS_OK);
  assert_int_equal(ks_launch(k, grid, block, 64 * KIB, NULL, args), KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.func_attr_sets - m0.func_attr_sets, 1);
  assert_int_equal(m.last_dyn_smem_attr, 64 * KIB);
  assert_int_equal(m.last_smem, 64 * KIB);
  assert_int_equal(m.launches - m0.launches, 2);
  /* within the default 48 KiB: nothing to set */
  assert_int_equal(ks_launch(k, grid, block, 32 * KIB, NULL, args), KS_OK);
  assert_int_equal(mock_now().func_attr_sets - m0.func_attr_sets, 1);
  /* a larger ask raises it, the occupancy query too (the driver would
   * count no block otherwise): 100 KiB + 1 KiB reserved, 2 in 228 KiB */
  assert_int_equal(ks_kernel_max_active_blocks(k, 256, 100 * KIB, &per_sm),
                   KS_OK);
  assert_int_equal(per_sm, 2);
  m = mock_now();
  assert_int_equal(m.func_attr_sets - m0.func_attr_sets, 2);
  assert_int_equal(m.last_dyn_smem_attr, 100 * KIB);
  ks_launch_attrs a = {.smem = 100 * KIB};
  assert_int_equal(ks_launch_ex(k, grid, block, &a, args), KS_OK);
  a.smem = 64 * KIB;
  assert_int_equal(ks_launch_ex(k, grid, block, &a, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.func_attr_sets - m0.func_attr_sets, 2);
  assert_int_equal(m.last_smem, 64 * KIB);
  /* over the opt-in limit (227 KiB): refused, nothing set or launched */
  a.smem = 228 * KIB;
  assert_int_equal(ks_launch_ex(k, grid, block, &a, args), KS_EBOUNDS);
  assert_string_equal(ks_errmsg(f->ctx),
                      "launch: smem_reverse: 233472 bytes of dynamic shared "
                      "memory plus 0 static over the device's opt-in limit "
                      "232448");
  assert_int_equal(ks_kernel_max_active_blocks(k, 256, 228 * KIB, &per_sm),
                   KS_EBOUNDS);
  kspec_mock_counters after = mock_now();
  assert_int_equal(after.func_attr_sets, m.func_attr_sets);
  assert_int_equal(after.launches, m.launches);
  close_fixture(f);
}

static void clusters(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, launch_ll());
  ks_kernel *k = spec(f, "smem_reverse", NULL, 0,
                      (ks_launch_bounds){.block = {128, 1, 1}});
  int n = 256;
  void *args[] = {&f->buf[0], &f->buf[1], &n};
  ks_dim3 block = {128, 1, 1};
  ks_launch_attrs a = {.cluster = {2, 0, 0}};
  assert_int_equal(ks_launch_ex(k, (ks_dim3){8, 2, 1}, block, &a, args), KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_launch_fn, 2);
  assert_int_equal(m.last_cluster[0], 2);
  assert_int_equal(m.last_cluster[1], 1);
  assert_int_equal(m.last_cluster[2], 1);
  assert_int_equal(m.last_cooperative, 0);
  a = (ks_launch_attrs){.cluster = {2, 2, 1}};
  assert_int_equal(ks_launch_ex(k, (ks_dim3){8, 2, 1}, block, &a, args), KS_OK);
  assert_int_equal(mock_now().last_cluster[1], 2);
  /* not whole clusters; over the portable 8 */
  assert_int_equal(ks_launch_ex(k, (ks_dim3){7, 2, 1}, block, &a, args),
                   KS_EBOUNDS);
  assert_string_equal(ks_errmsg(f->ctx),
                      "launch: smem_reverse: grid 7x2x1 is not a multiple of "
                      "the cluster 2x2x1");
  a = (ks_launch_attrs){.cluster = {4, 4, 1}};
  assert_int_equal(ks_launch_ex(k, (ks_dim3){8, 8, 1}, block, &a, args),
                   KS_EBOUNDS);
  TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), "over the portable limit of 8");
  assert_int_equal(mock_now().launches, m.launches + 1);
  close_fixture(f);

  /* an sm_80 device has no clusters */
  setenv("KSPEC_MOCK_SM", "80", 1);
  f = open_fixture("sm_80", launch_ll());
  k = spec(f, "smem_reverse", NULL, 0, (ks_launch_bounds){.block = {128}});
  args[0] = &f->buf[0]; /* the buffers of the new fixture */
  args[1] = &f->buf[1];
  a = (ks_launch_attrs){.cluster = {2, 1, 1}};
  m = mock_now();
  assert_int_equal(ks_launch_ex(k, (ks_dim3){8, 1, 1}, block, &a, args),
                   KS_EARCH);
  TU_ASSERT_CONTAINS(ks_errmsg(f->ctx),
                     "launch: smem_reverse: thread-block clusters need sm_90 "
                     "or later; the device (");
  TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), ") is sm_80");
  assert_int_equal(mock_now().launches, m.launches);
  /* a cooperative launch there is fine */
  a = (ks_launch_attrs){.cooperative = 1};
  assert_int_equal(ks_launch_ex(k, (ks_dim3){8, 1, 1}, block, &a, args), KS_OK);
  assert_int_equal(mock_now().last_cooperative, 1);
  close_fixture(f);
  unsetenv("KSPEC_MOCK_SM");
}

/* sepfilter_cols with a 32x8 block runs 8 rows a thread: launched with
 * the user's block, it goes out with its real block 32x1, attributes and
 * all. */
static void coarsened(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, "sepfilter_cols");
  ks_binding b = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = 8};
  ks_kernel *k = spec(f, NULL, &b, 1, (ks_launch_bounds){.block = {32, 8, 1}});
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_int_equal(info.plan.coarsen_y, 8);
  int w = 128, h = 64, radius = 8, per_sm = 0;
  void *args[] = {&f->buf[0], &f->buf[1], &f->buf[2], &w, &h, &radius};
  ks_launch_attrs a = {.cooperative = 1, .smem = 60 * KIB};
  assert_int_equal(
      ks_launch_ex(k, (ks_dim3){4, 8, 1}, (ks_dim3){32, 8, 1}, &a, args),
      KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_block[0], 32);
  assert_int_equal(m.last_block[1], 1);
  assert_int_equal(m.last_grid[1], 8);
  assert_int_equal(m.last_cooperative, 1);
  assert_int_equal(m.last_smem, 60 * KIB);
  /* the occupancy of the real block (one warp; 256 threads would be at
   * most 8 blocks), asked with the user's */
  assert_int_equal(ks_kernel_max_active_blocks(k, 256, 0, &per_sm), KS_OK);
  assert_true(per_sm > 8);
  ks_occupancy o = {.size = sizeof o};
  assert_int_equal(ks_kernel_occupancy(k, 256, 0, KS_RES_DRIVER, &o), KS_OK);
  assert_int_equal(per_sm, o.blocks_per_sm);
  assert_int_equal(ks_kernel_max_active_blocks(k, 32, 0, &per_sm), KS_EBOUNDS);
  assert_int_equal(
      ks_launch_ex(k, (ks_dim3){4, 8, 1}, (ks_dim3){32, 1, 1}, &a, args),
      KS_EBOUNDS);
  TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), "was specialized for block 32x8x1");
  close_fixture(f);
}

/* tests/data/gridws.ll reads %envreg1 and %envreg2 as cooperative
 * groups' grid sync does; gridsync_sum's own barrier does not. The first
 * is launched cooperatively by plain ks_launch, and its grid refused past
 * the co-resident blocks (never shrunk); the template says so too. */
static void grid_sync(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, KS_TEST_DATA_DIR "/gridws.ll");
  assert_int_equal(ks_template_kernel_cooperative(f->t, 0), 1);
  assert_int_equal(ks_template_kernel_cooperative(f->t, 1), 0);
  ks_kernel *k = spec(f, "grid_ws", NULL, 0, (ks_launch_bounds){0});
  ks_kernel_info in = {.size = sizeof in};
  assert_int_equal(ks_kernel_info_get(k, &in), KS_OK);
  assert_int_equal(in.grid_sync, 1);
  void *args[] = {&f->buf[0]};
  ks_dim3 grid = {4, 1, 1}, block = {128, 1, 1};
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_launch_fn, 2); /* cuLaunchKernelEx */
  assert_int_equal(m.last_cooperative, 1);
  assert_int_equal(m.last_grid[0], 4);
  /* attributes that do not ask for it: cooperative all the same */
  ks_launch_attrs none = {.cooperative = 0};
  assert_int_equal(ks_launch_ex(k, grid, block, &none, args), KS_OK);
  assert_int_equal(mock_now().last_cooperative, 1);
  assert_int_equal(ks_launch_ex(k, grid, block, NULL, args), KS_OK);
  assert_int_equal(mock_now().last_cooperative, 1);
  /* the largest co-resident grid goes; one block more is refused with
   * the figure, before the driver sees it */
  int per_sm = 0;
  unsigned most = 0;
  assert_int_equal(ks_kernel_max_active_blocks(k, 128, 0, &per_sm), KS_OK);
  assert_int_equal(ks_kernel_max_coresident_grid(k, 128, 0, &most), KS_OK);
  assert_true(per_sm > 0);
  assert_int_equal(most, (unsigned)per_sm * SMS);
  assert_int_equal(ks_launch(k, (ks_dim3){most, 1, 1}, block, 0, NULL, args),
                   KS_OK);
  assert_int_equal(mock_now().last_grid[0], most);
  m = mock_now();
  char want[512];
  snprintf(want, sizeof want,
           "launch: grid_ws: cooperative launch: grid of %u blocks over the "
           "%u that can be resident (%d per SM x %d SMs); the kernel "
           "synchronizes the grid: launch at most that many blocks "
           "(ks_kernel_max_coresident_grid), each covering more of the data",
           most + 1, most, per_sm, SMS);
  assert_int_equal(
      ks_launch(k, (ks_dim3){most + 1, 1, 1}, block, 0, NULL, args),
      KS_EBOUNDS);
  assert_string_equal(ks_errmsg(f->ctx), want);
  assert_int_equal(mock_now().launches, m.launches);
  assert_int_equal(mock_now().launch_errors, m.launch_errors);
  close_fixture(f);
  /* a kernel with a barrier of its own needs nothing of the driver */
  f = open_fixture(NULL, launch_ll());
  for (size_t i = 0; i < ks_template_kernel_count(f->t); i++)
    assert_int_equal(ks_template_kernel_cooperative(f->t, i), 0);
  k = spec(f, "gridsync_sum", NULL, 0, (ks_launch_bounds){0});
  assert_int_equal(ks_kernel_info_get(k, &in), KS_OK);
  assert_int_equal(in.grid_sync, 0);
  int n = 1 << 18;
  void *sargs[] = {&f->buf[0], &n, &f->buf[1], &f->buf[2], &f->buf[3]};
  assert_int_equal(ks_launch(k, (ks_dim3){4 * most, 1, 1}, (ks_dim3){256, 1, 1},
                             0, NULL, sargs),
                   KS_OK);
  assert_int_equal(mock_now().last_cooperative, 0);
  close_fixture(f);
}

/* A 32-byte aligned address inside buf (the mock's allocations are not). */
static ks_devptr aligned32(ks_devptr p) { return (p + 31) / 32 * 32; }

static void textures(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, "resize");
  ks_binding b[] = {{.name = "FACTOR", .kind = KS_VALUE_INT, .v.i = 2},
                    {.name = "FILTER", .kind = KS_VALUE_INT, .v.i = 1}};
  const char *tex[] = {"src"};
  ks_spec_req req = {.kernel = "resize",
                     .bindings = b,
                     .nbindings = 2,
                     .bounds = {.block = {32, 8, 1}},
                     .tex = tex,
                     .ntex = 1};
  ks_kernel *k = NULL;
  if (ks_specialize(f->ctx, f->t, &req, &k) != KS_OK)
    fail_msg("specialize: %s", ks_errmsg(f->ctx));
  ks_kernel_info in = {.size = sizeof in};
  assert_int_equal(ks_kernel_info_get(k, &in), KS_OK);
  assert_int_equal(in.plan.texs, 1);
  assert_int_equal(in.plan.tex_arg[0], 0);
  assert_int_equal(in.plan.tex_dims[0], 2);
  assert_int_equal(in.plan.tex_format[0], KS_TEX_F32);
  assert_int_equal(in.plan.tex_filter[0], 1);
  assert_int_equal(in.plan.tex_mode[0], 0);
  /* w, h: argument n (2); depth 1; pitch: argument pitch (3) */
  assert_int_equal(in.plan.tex_size_arg[0], 3);
  assert_int_equal(in.plan.tex_size_arg[1], 3);
  assert_int_equal(in.plan.tex_size_arg[2], 0);
  assert_int_equal(in.plan.tex_size_value[2], 1);
  assert_int_equal(in.plan.tex_size_arg[3], 4);
  ks_devptr src = aligned32(f->buf[0]);
  int n = 100, pitch = 128, factor = 2, filter = 1;
  void *args[] = {&src, &f->buf[1], &n, &pitch, &factor, &filter};
  ks_dim3 grid = {7, 25, 1}, block = {32, 8, 1};
  kspec_mock_counters m0 = mock_now();
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.tex_creates, m0.tex_creates + 1);
  assert_int_equal(m.last_nparams, 7);
  assert_true(m.last_param != 0);
  uint64_t obj = m.last_param;
  assert_int_equal(m.last_tex[0], 0x20); /* CU_AD_FORMAT_FLOAT */
  assert_int_equal(m.last_tex[1], 1);    /* CU_TR_FILTER_MODE_LINEAR */
  assert_int_equal(m.last_tex[2], 1);    /* CU_TR_ADDRESS_MODE_CLAMP */
  assert_int_equal(m.last_tex[3], 0);    /* unnormalized, read as floats */
  assert_int_equal(m.last_tex[4], 100);
  assert_int_equal(m.last_tex[5], 100);
  assert_int_equal(m.last_tex[6], 512);
  assert_null(ks_kernel_launch_note(k));
  /* the same array and shape: the same object */
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.tex_creates, m0.tex_creates + 1);
  assert_int_equal(m.last_param, obj);
  /* a pitch of 133 floats (532 bytes): software, said once */
  pitch = 133;
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.tex_creates, m0.tex_creates + 1);
  assert_int_equal(m.last_param, 0);
  const char *note = ks_kernel_launch_note(k);
  assert_non_null(note);
  TU_ASSERT_CONTAINS(note, "launch: resize: texture of argument 0 sampled in "
                           "software: its pitch (532 bytes)");
  TU_ASSERT_CONTAINS(note, "texture pitch alignment, 32 bytes");
  /* another shape: another object; both go with the kernel */
  pitch = 128;
  n = 64;
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.tex_creates, m0.tex_creates + 2);
  assert_true(m.last_param != 0 && m.last_param != obj);
  assert_int_equal(m.live_texs, m0.live_texs + 2);
  close_fixture(f);
  assert_int_equal(mock_now().live_texs, m0.live_texs);
}

/* resize3d specialized with --tex src (FILTER bound, block 32x8). */
static ks_kernel *resize3d_tex(fixture *f, int filter) {
  ks_binding b[] = {{.name = "FACTOR", .kind = KS_VALUE_INT, .v.i = 2},
                    {.name = "FILTER", .kind = KS_VALUE_INT, .v.i = filter}};
  const char *tex[] = {"src"};
  ks_spec_req req = {.kernel = "resize3d",
                     .bindings = b,
                     .nbindings = 2,
                     .bounds = {.block = {32, 8, 1}},
                     .tex = tex,
                     .ntex = 1};
  ks_kernel *k = NULL;
  if (ks_specialize(f->ctx, f->t, &req, &k) != KS_OK)
    fail_msg("specialize: %s", ks_errmsg(f->ctx));
  return k;
}

/* n^3 floats, rows pitch floats apart, value base + index. */
static void fill_cube(fixture *f, ks_devptr p, int n, int pitch, float base) {
  size_t count = (size_t)pitch * n * n;
  float *h = malloc(count * sizeof *h);
  assert_non_null(h);
  for (size_t i = 0; i < count; i++)
    h[i] = base + (float)i;
  assert_int_equal(ks_memcpy_htod(f->ctx, p, h, count * sizeof *h), KS_OK);
  free(h);
}

/* The mock's fetch at the centre of texel (x, y, z) of obj is src's
 * element there (src's rows pitch floats apart; the array is dense). */
static void assert_texels(uint64_t obj, int n, int pitch, float base) {
  const int pts[][3] = {
      {0, 0, 0}, {n - 1, 0, 0}, {2, 3, 1}, {n - 1, n - 1, n - 1}};
  for (size_t i = 0; i < sizeof pts / sizeof *pts; i++) {
    float v = -1;
    assert_int_equal(mock_fetch(obj, pts[i][0] + 0.5f, pts[i][1] + 0.5f,
                                pts[i][2] + 0.5f, &v),
                     0);
    float want =
        base + (float)(((size_t)pts[i][2] * n + pts[i][1]) * pitch + pts[i][0]);
    assert_true(v == want);
  }
}

static void textures3d(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, "resize3d");
  ks_kernel *k = resize3d_tex(f, 0);
  ks_kernel_info in = {.size = sizeof in};
  assert_int_equal(ks_kernel_info_get(k, &in), KS_OK);
  assert_int_equal(in.plan.texs, 1);
  assert_int_equal(in.plan.tex_dims[0], 3);
  assert_int_equal(in.plan.tex_filter[0], 0);
  /* w, h, d: argument n (2); pitch: argument pitch (3) */
  for (int j = 0; j < 3; j++)
    assert_int_equal(in.plan.tex_size_arg[j], 3);
  assert_int_equal(in.plan.tex_size_arg[3], 4);
  int n = 20, pitch = 21, factor = 2, filter = 0; /* any pitch: a copy */
  fill_cube(f, f->buf[0], n, pitch, 0.0f);
  void *args[] = {&f->buf[0], &f->buf[1], &n, &pitch, &factor, &filter};
  ks_dim3 grid = {2, 5, 40}, block = {32, 8, 1};
  kspec_mock_counters m0 = mock_now();
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  kspec_mock_counters m = mock_now();
  assert_null(ks_kernel_launch_note(k));
  assert_int_equal(m.array_creates, m0.array_creates + 1);
  assert_int_equal(m.tex_creates, m0.tex_creates + 1);
  assert_int_equal(m.array_copies, m0.array_copies + 1);
  assert_int_equal(m.last_array_copy_bytes, (uint64_t)n * n * n * 4);
  assert_int_equal(m.last_tex[0], 0x20); /* CU_AD_FORMAT_FLOAT */
  assert_int_equal(m.last_tex[1], 0);    /* CU_TR_FILTER_MODE_POINT */
  assert_int_equal(m.last_tex[2], 1);    /* CU_TR_ADDRESS_MODE_CLAMP */
  assert_int_equal(m.last_nparams, 7);
  uint64_t obj = m.last_param;
  assert_true(obj != 0);
  assert_texels(obj, n, pitch, 0.0f);
  /* new contents, on a stream of its own: the same object, copied again
   * before the launch */
  fill_cube(f, f->buf[0], n, pitch, 1000.0f);
  CUstream s1 = NULL;
  assert_int_equal(mock_stream_create(&s1, 0), CUDA_SUCCESS);
  assert_int_equal(ks_launch(k, grid, block, 0, s1, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.tex_creates, m0.tex_creates + 1);
  assert_int_equal(m.array_copies, m0.array_copies + 2);
  assert_int_equal(m.last_param, obj);
  assert_texels(obj, n, pitch, 1000.0f);
  /* each copy waits for the launch before it, on another stream */
  assert_int_equal(m.stream_waits, m0.stream_waits + 1);
  assert_int_equal(ks_launch(k, grid, block, 0, NULL, args), KS_OK);
  m = mock_now();
  assert_int_equal(m.stream_waits, m0.stream_waits + 2);
  assert_int_equal(m.array_copies, m0.array_copies + 3);
  close_fixture(f);
  m = mock_now();
  assert_int_equal(m.live_texs, m0.live_texs);
  assert_int_equal(m.live_arrays, m0.live_arrays);
}

/* Linear filtering, another shape and pitch; a cube over the device's
 * 3-D limits samples in software. */
static void textures3d_pitch(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, "resize3d");
  ks_kernel *k = resize3d_tex(f, 1);
  int n = 9, pitch = 16, factor = 2, filter = 1;
  fill_cube(f, f->buf[0], n, pitch, 5.0f);
  void *args[] = {&f->buf[0], &f->buf[1], &n, &pitch, &factor, &filter};
  assert_int_equal(
      ks_launch(k, (ks_dim3){1, 3, 18}, (ks_dim3){32, 8, 1}, 0, NULL, args),
      KS_OK);
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.last_tex[1], 1); /* CU_TR_FILTER_MODE_LINEAR */
  assert_texels(m.last_param, n, pitch, 5.0f);
  /* between two texels along x: their mean */
  float v = -1;
  assert_int_equal(mock_fetch(m.last_param, 4.0f, 2.5f, 1.5f, &v), 0);
  assert_true(v == 5.0f + (float)((1 * n + 2) * pitch + 3) + 0.5f);
  /* a size over the device's 3-D limit: software, said */
  int big = 20000;
  void *bargs[] = {&f->buf[0], &f->buf[1], &big, &big, &factor, &filter};
  assert_int_equal(
      ks_launch(k, (ks_dim3){1, 1, 1}, (ks_dim3){32, 8, 1}, 0, NULL, bargs),
      KS_OK);
  assert_int_equal(mock_now().last_param, 0);
  TU_ASSERT_CONTAINS(ks_kernel_launch_note(k),
                     "20000x20000x20000 texels, over the device's limits for "
                     "a 3-D texture (16384x16384x16384)");
  close_fixture(f);
}

static void textures_freed(void **state) {
  (void)state;
  fixture *f = open_fixture(NULL, "resize");
  fixture *g = open_fixture(NULL, "resize3d");
  ks_binding b[2][2] = {{{.name = "FILTER", .kind = KS_VALUE_INT, .v.i = 0}},
                        {{.name = "FILTER", .kind = KS_VALUE_INT, .v.i = 1}}};
  const char *tex[] = {"src"};
  ks_kernel *k[2];
  for (int i = 0; i < 2; i++) {
    ks_spec_req req = {.kernel = "resize",
                       .bindings = b[i],
                       .nbindings = 1,
                       .bounds = {.block = {32, 8, 1}},
                       .tex = tex,
                       .ntex = 1};
    if (ks_specialize(f->ctx, f->t, &req, &k[i]) != KS_OK)
      fail_msg("specialize: %s", ks_errmsg(f->ctx));
  }
  kspec_mock_counters m0 = mock_now();
  /* both kernels over buf[0] (inside it), one over buf[1] */
  ks_devptr in0 = aligned32(f->buf[0]) + 256, in1 = aligned32(f->buf[1]);
  int n = 64, pitch = 64, factor = 2, filter = 0;
  ks_dim3 grid = {4, 16, 1}, block = {32, 8, 1};
  for (int i = 0; i < 2; i++) {
    filter = i;
    void *a0[] = {&in0, &f->buf[2], &n, &pitch, &factor, &filter};
    void *a1[] = {&in1, &f->buf[2], &n, &pitch, &factor, &filter};
    assert_int_equal(ks_launch(k[i], grid, block, 0, NULL, a0), KS_OK);
    assert_int_equal(ks_launch(k[i], grid, block, 0, NULL, a1), KS_OK);
  }
  kspec_mock_counters m = mock_now();
  assert_int_equal(m.tex_creates, m0.tex_creates + 4);
  assert_int_equal(m.live_texs, m0.live_texs + 4);
  /* another context's kernels are not this one's */
  ks_kernel *k3 = resize3d_tex(g, 0);
  int n3 = 8;
  void *a3[] = {&g->buf[0], &g->buf[1], &n3, &n3, &factor, &filter};
  filter = 0;
  assert_int_equal(ks_launch(k3, (ks_dim3){1, 2, 16}, block, 0, NULL, a3),
                   KS_OK);
  m0 = mock_now();
  ks_mem_free(f->ctx, f->buf[0]);
  m = mock_now();
  assert_int_equal(m.tex_destroys, m0.tex_destroys + 2);
  assert_int_equal(m.live_texs, m0.live_texs - 2);
  assert_int_equal(m.live_arrays, m0.live_arrays);
  /* a new array at the same place: a new object */
  assert_int_equal(ks_mem_alloc(f->ctx, 1u << 20, &f->buf[0]), KS_OK);
  in0 = aligned32(f->buf[0]);
  void *a0[] = {&in0, &f->buf[2], &n, &pitch, &factor, &filter};
  assert_int_equal(ks_launch(k[0], grid, block, 0, NULL, a0), KS_OK);
  assert_int_equal(mock_now().tex_creates, m0.tex_creates + 1);
  /* a 3-D texture's array goes with its memory */
  m0 = mock_now();
  ks_mem_free(g->ctx, g->buf[0]);
  m = mock_now();
  assert_int_equal(m.tex_destroys, m0.tex_destroys + 1);
  assert_int_equal(m.live_arrays, m0.live_arrays - 1);
  g->buf[0] = 0;
  close_fixture(g);
  close_fixture(f);
}

int main(void) {
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  void *lib = dlopen(KS_MOCK_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib || !(mock_counters = (kspec_mock_counters_fn)dlsym(
                    lib, KSPEC_MOCK_COUNTERS_FN))) {
    fprintf(stderr, "cannot open the mock %s\n", KS_MOCK_LIB);
    return 1;
  }
  mock_fetch = (kspec_mock_tex_fetch_fn)dlsym(lib, KSPEC_MOCK_TEX_FETCH_FN);
  mock_stream_create = (stream_create_fn)dlsym(lib, "cuStreamCreate");
  if (!mock_fetch || !mock_stream_create)
    return 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cooperative),      cmocka_unit_test(gcoarsened),
      cmocka_unit_test(dyn_smem),         cmocka_unit_test(clusters),
      cmocka_unit_test(coarsened),        cmocka_unit_test(grid_sync),
      cmocka_unit_test(textures),         cmocka_unit_test(textures3d),
      cmocka_unit_test(textures3d_pitch), cmocka_unit_test(textures_freed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
