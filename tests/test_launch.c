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

#include "kspec.h"
#include "mock/cuda_mock.h"
#include "test_util.h"

enum { SMS = 132, KIB = 1024 };

static kspec_mock_counters_fn mock_counters;

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
  /* w, h: argument n (2); pitch: argument pitch (3) */
  assert_int_equal(in.plan.tex_size_arg[0], 3);
  assert_int_equal(in.plan.tex_size_arg[1], 3);
  assert_int_equal(in.plan.tex_size_arg[2], 4);
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

int main(void) {
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  void *lib = dlopen(KS_MOCK_LIB, RTLD_NOW | RTLD_LOCAL);
  if (!lib || !(mock_counters = (kspec_mock_counters_fn)dlsym(
                    lib, KSPEC_MOCK_COUNTERS_FN))) {
    fprintf(stderr, "cannot open the mock %s\n", KS_MOCK_LIB);
    return 1;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cooperative), cmocka_unit_test(gcoarsened),
      cmocka_unit_test(dyn_smem),    cmocka_unit_test(clusters),
      cmocka_unit_test(coarsened),   cmocka_unit_test(grid_sync),
      cmocka_unit_test(textures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
