/*
 * test_resources.c - jit/kernel/resources.c and jit/kernel/occupancy.c on the
 * CPU: the ptxas report parser on canned outputs of several ptxas versions,
 * running ptxas (fake ones written as shell scripts: success, unknown arch,
 * errors, a hang), finding it, the offline occupancy calculator against cases
 * worked out by hand, and the public calls on a specialized kernel. Never
 * opens the CUDA driver; the tests with the real ptxas skip without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "jit/ks_jit.h"
#include "test_util.h"

#ifndef KS_PTXAS
#define KS_PTXAS ""
#endif

/* ---- the parser -----------------------------------------------------------
 */

/* ptxas 13.0 for sm_90, one kernel (kspec's conv1d). */
static const char log_sm90[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'conv1d' for 'sm_90'\n"
    "ptxas info    : Function properties for conv1d\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 31 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 24.505 ms\n";

/* ptxas 13.0 for sm_90: two kernels and a device function. */
static const char log_multi[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z2k2Pfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z2k2Pfi\n"
    "    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 80 registers, used 0 barriers, 256 bytes "
    "cumulative stack size\n"
    "ptxas info    : Compile time = 53.640 ms\n"
    "ptxas info    : Compiling entry function '_Z2k1Pfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z2k1Pfi\n"
    "    128 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 1 barriers, 128 bytes "
    "cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 28.321 ms\n"
    "ptxas info    : Function properties for _Z6helperPfi\n"
    "    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n";

/* ptxas 13.0 for sm_75: constant banks are reported, the module's user
 * constants (bank 3) on the gmem line. */
static const char log_sm75[] =
    "ptxas info    : 0 bytes gmem, 256 bytes cmem[3]\n"
    "ptxas info    : Compiling entry function '_Z2k2Pfi' for 'sm_75'\n"
    "ptxas info    : Function properties for _Z2k2Pfi\n"
    "    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 80 registers, used 0 barriers, 256 bytes "
    "cumulative stack size, 364 bytes cmem[0]\n"
    "ptxas info    : Compile time = 49.629 ms\n";

/* Older ptxas (CUDA 11): spills, shared memory, two banks, CRLF endings. */
static const char log_cuda11[] =
    "ptxas info    : 0 bytes gmem\r\n"
    "ptxas info    : Compiling entry function '_Z5heavyPfi' for 'sm_80'\r\n"
    "ptxas info    : Function properties for _Z5heavyPfi\r\n"
    "    64 bytes stack frame, 56 bytes spill stores, 48 bytes spill loads\r\n"
    "ptxas info    : Used 32 registers, 4096 bytes smem, 364 bytes cmem[0], "
    "8 bytes cmem[2]\r\n";

/* Very old ptxas: no properties line, "A+B bytes smem"; kernels named k
 * and k2, so that a prefix never matches. */
static const char log_old[] =
    "ptxas info    : Compiling entry function 'k2' for 'sm_20'\n"
    "ptxas info    : Used 7 registers, 40 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'k' for 'sm_20'\n"
    "ptxas info    : Used 4 registers, 8+16 bytes smem, 44 bytes cmem[0], "
    "4 bytes cmem[1]\n";

static ks_kernel_resources parse(const char *log, const char *fn, int found) {
  ks_kernel_resources r = {.size = sizeof r};
  memset(&r, 0x55, sizeof r);
  assert_int_equal(ks_jit_ptxas_parse(log, fn, &r), found);
  return r;
}

static void parse_sm90(void **state) {
  (void)state;
  ks_kernel_resources r = parse(log_sm90, "conv1d", 1);
  assert_int_equal(r.regs, 31);
  assert_int_equal(r.stack_frame, 0);
  assert_int_equal(r.spill_stores, 0);
  assert_int_equal(r.spill_loads, 0);
  assert_int_equal(r.static_smem, 0);
  assert_int_equal(r.const_bytes, -1); /* this report names no bank */
  parse(log_sm90, "conv", 0);
  parse(log_sm90, "conv1d_", 0);
}

static void parse_multi(void **state) {
  (void)state;
  ks_kernel_resources r = parse(log_multi, "_Z2k1Pfi", 1);
  assert_int_equal(r.regs, 40);
  assert_int_equal(r.stack_frame, 128);
  assert_int_equal(r.spill_stores, 8);
  assert_int_equal(r.spill_loads, 12);
  assert_int_equal(r.static_smem, 1024);
  r = parse(log_multi, "_Z2k2Pfi", 1);
  assert_int_equal(r.regs, 80);
  assert_int_equal(r.stack_frame, 256);
  assert_int_equal(r.spill_stores, 0);
  assert_int_equal(r.static_smem, 0);
  /* A device function has properties but is no entry: not found. */
  parse(log_multi, "_Z6helperPfi", 0);
}

static void parse_banks(void **state) {
  (void)state;
  ks_kernel_resources r = parse(log_sm75, "_Z2k2Pfi", 1);
  assert_int_equal(r.regs, 80);
  assert_int_equal(r.const_bytes, 256); /* bank 3; bank 0 is parameters */
  r = parse(log_cuda11, "_Z5heavyPfi", 1);
  assert_int_equal(r.regs, 32);
  assert_int_equal(r.stack_frame, 64);
  assert_int_equal(r.spill_stores, 56);
  assert_int_equal(r.spill_loads, 48);
  assert_int_equal(r.static_smem, 4096);
  assert_int_equal(r.const_bytes, 8);
}

static void parse_old(void **state) {
  (void)state;
  ks_kernel_resources r = parse(log_old, "k", 1);
  assert_int_equal(r.regs, 4);
  assert_int_equal(r.static_smem, 24);
  assert_int_equal(r.const_bytes, 4);
  assert_int_equal(r.stack_frame, -1); /* no properties line: unknown */
  assert_int_equal(r.spill_stores, -1);
  r = parse(log_old, "k2", 1);
  assert_int_equal(r.regs, 7);
  assert_int_equal(r.const_bytes, 0); /* only the parameter bank */
  parse("", "k", 0);
  parse(NULL, "k", 0);
  parse("ptxas fatal   : Ptx assembly aborted due to errors\n", "k", 0);
}

/* ---- running ptxas ---------------------------------------------------------
 */

typedef struct fake {
  char dir[256];
  char path[320];
} fake;

/* A fake ptxas: a shell script with body, in a fresh folder. */
static void fake_make(fake *f, const char *body) {
  const char *tmp = getenv("TMPDIR");
  snprintf(f->dir, sizeof f->dir, "%s/kspec_fake_XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->path, sizeof f->path, "%s/ptxas", f->dir);
  FILE *out = fopen(f->path, "w");
  assert_non_null(out);
  fprintf(out, "#!/bin/sh\n%s\n", body);
  assert_int_equal(fclose(out), 0);
  assert_int_equal(chmod(f->path, 0755), 0);
}

static void fake_remove(fake *f) {
  unlink(f->path);
  rmdir(f->dir);
}

static const char ptx_text[] = ".version 8.5\n.target sm_90\n"
                               ".address_size 64\n.visible .entry k() { "
                               "ret; }\n";

/* The arguments arrive as ptxas expects, the file holds the PTX, and the
 * report comes back from stdout and stderr alike. */
static void run_success(void **state) {
  (void)state;
  fake f;
  char *log = NULL;
  fake_make(&f, "[ \"$1\" = -arch=sm_90 ] && [ \"$2\" = -v ] && "
                "[ \"$3\" = -o ] && [ \"$4\" = /dev/null ] || exit 3\n"
                "grep -q '.entry k()' \"$5\" || exit 4\n"
                "echo \"ptxas info    : Compiling entry function 'k' for "
                "'sm_90'\"\n"
                "echo \"ptxas info    : Used 9 registers\" >&2\n");
  assert_int_equal(ks_jit_ptxas_run(f.path, "sm_90", ptx_text, strlen(ptx_text),
                                    10000, &log),
                   KS_OK);
  TU_ASSERT_CONTAINS(log, "Used 9 registers");
  ks_kernel_resources r = {.size = sizeof r};
  assert_int_equal(ks_jit_ptxas_parse(log, "k", &r), 1);
  assert_int_equal(r.regs, 9);
  free(log);
  fake_remove(&f);
}

/* The cubin run: whole-program (no -c), its output file read back and
 * removed; a ptxas that writes nothing is an error, not an empty cubin. */
static void run_cubin(void **state) {
  (void)state;
  fake f;
  char *log = NULL;
  void *cubin = NULL;
  size_t n = 0;
  fake_make(&f, "[ \"$1\" = -arch=sm_90 ] && [ \"$2\" = -v ] && "
                "[ \"$3\" = -o ] && [ \"$5\" != -c ] || exit 3\n"
                "case \"$4\" in *.cubin) ;; *) exit 5;; esac\n"
                "grep -q '.entry k()' \"$5\" || exit 4\n"
                "printf 'CUBIN:%s' \"$4\" > \"$4\"\n"
                "echo \"ptxas info    : Used 11 registers\"\n");
  assert_int_equal(ks_jit_ptxas_cubin(f.path, "sm_90", ptx_text,
                                      strlen(ptx_text), 10000, &cubin, &n,
                                      &log),
                   KS_OK);
  TU_ASSERT_CONTAINS(log, "Used 11 registers");
  free(log);
  assert_true(n > 6 && !memcmp(cubin, "CUBIN:", 6));
  char *path = strndup((char *)cubin + 6, n - 6);
  assert_non_null(path);
  assert_int_equal(access(path, F_OK), -1); /* removed */
  free(path);
  free(cubin);
  fake_remove(&f);
  fake_make(&f, "exit 0");
  assert_int_equal(ks_jit_ptxas_cubin(f.path, "sm_90", ptx_text,
                                      strlen(ptx_text), 10000, &cubin, &n,
                                      &log),
                   KS_EIO);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "cannot read the cubin");
  assert_null(cubin);
  assert_int_equal(n, 0);
  free(log);
  fake_remove(&f);
  fake_make(&f, "echo 'ptxas fatal   : Unresolved extern function' >&2; "
                "exit 1");
  assert_int_equal(ks_jit_ptxas_cubin(f.path, "sm_90", ptx_text,
                                      strlen(ptx_text), 10000, &cubin, &n,
                                      &log),
                   KS_ELOAD);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "Unresolved extern function");
  assert_null(cubin);
  free(log);
  fake_remove(&f);
}

static void run_failures(void **state) {
  (void)state;
  fake f;
  char *log = NULL;
  fake_make(&f, "echo \"ptxas fatal   : Value '$1' is not defined for "
                "option 'gpu-name'\" | sed 's/-arch=//' >&2; exit 255");
  assert_int_equal(ks_jit_ptxas_run(f.path, "sm_70", ptx_text, strlen(ptx_text),
                                    10000, &log),
                   KS_EARCH);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "sm_70");
  free(log);
  fake_remove(&f);

  fake_make(&f, "echo 'ptxas x.ptx, line 4; error   : Not a name of any "
                "known instruction' >&2\necho 'ptxas fatal   : Ptx assembly "
                "aborted due to errors' >&2; exit 255");
  assert_int_equal(ks_jit_ptxas_run(f.path, "sm_90", ptx_text, strlen(ptx_text),
                                    10000, &log),
                   KS_ELOAD);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "Not a name of any known instruction");
  assert_null(strchr(ks_errmsg(NULL), '\n'));
  free(log);
  fake_remove(&f);

  fake_make(&f, "exit 7");
  assert_int_equal(ks_jit_ptxas_run(f.path, "sm_90", ptx_text, strlen(ptx_text),
                                    10000, &log),
                   KS_ELOAD);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "status 7");
  free(log);
  fake_remove(&f);

  assert_int_equal(ks_jit_ptxas_run("/nonexistent/ptxas", "sm_90", ptx_text,
                                    strlen(ptx_text), 10000, &log),
                   KS_ELOAD);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "cannot run /nonexistent/ptxas");
  free(log);
}

/* A ptxas that hangs (and started a child of its own) is killed. */
static void run_timeout(void **state) {
  (void)state;
  fake f;
  char *log = NULL;
  struct timespec t0, t1;
  fake_make(&f, "echo started; sleep 30 & sleep 30");
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(
      ks_jit_ptxas_run(f.path, "sm_90", ptx_text, strlen(ptx_text), 300, &log),
      KS_ELOAD);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "timed out after 300 ms");
  TU_ASSERT_CONTAINS(log, "started");
  assert_true(t1.tv_sec - t0.tv_sec < 10);
  free(log);
  fake_remove(&f);
}

/* Sets or (value NULL) unsets an environment variable, returning a copy of
 * the old value (NULL when it was unset) for env_restore. */
static char *env_swap(const char *name, const char *value) {
  const char *old = getenv(name);
  char *copy = old ? strdup(old) : NULL;
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  return copy;
}

static void env_restore(const char *name, char *old) {
  if (old)
    setenv(name, old, 1);
  else
    unsetenv(name);
  free(old);
}

static void find_ptxas(void **state) {
  (void)state;
  fake f;
  char path[4096], why[512];
  fake_make(&f, "exit 0");
  char *old_env = env_swap("KSPEC_PTXAS", f.path);
  assert_int_equal(ks_jit_ptxas_find(path, sizeof path, why, sizeof why), 0);
  assert_string_equal(path, f.path);
  setenv("KSPEC_PTXAS", "/nonexistent/ptxas", 1);
  assert_int_equal(ks_jit_ptxas_find(path, sizeof path, why, sizeof why), -1);
  TU_ASSERT_CONTAINS(why, "KSPEC_PTXAS=/nonexistent/ptxas");
  /* Unset: PATH first. */
  unsetenv("KSPEC_PTXAS");
  char dirs[600];
  snprintf(dirs, sizeof dirs, "/nonexistent:%s", f.dir);
  char *old_path = env_swap("PATH", dirs);
  assert_int_equal(ks_jit_ptxas_find(path, sizeof path, why, sizeof why), 0);
  assert_string_equal(path, f.path);
  env_restore("PATH", old_path);
  env_restore("KSPEC_PTXAS", old_env);
  fake_remove(&f);
}

/* ---- the calculator -------------------------------------------------------
 */

static ks_occupancy calc(const char *arch, unsigned block, int regs,
                         unsigned smem, int optin) {
  ks_occ_input in = {
      .block = block, .regs = regs, .smem = smem, .smem_optin = optin};
  ks_occupancy o = {.size = sizeof o};
  ks_status s = ks_occupancy_calc(arch, &in, &o);
  if (s != KS_OK)
    fail_msg("%s %u threads %d regs %u smem: %s", arch, block, regs, smem,
             ks_errmsg(NULL));
  return o;
}

/* sm_90: 64 warps, 32 blocks, 65536 registers in 4 sub-partitions of
 * 16384, 233472 bytes of shared memory, 1024 reserved per block. */
static void occ_sm90(void **state) {
  (void)state;
  /* 8 warps a block: 64 / 8 = 8 by warps; 32 x 32 = 1024 registers a warp,
   * 16384 / 1024 = 16 warps per sub-partition, 64 / 8 = 8 by registers. */
  ks_occupancy o = calc("sm_90", 256, 32, 0, 0);
  assert_int_equal(o.blocks_per_sm, 8);
  assert_int_equal(o.limiters, KS_LIMIT_WARPS | KS_LIMIT_REGS);
  assert_int_equal(o.warps_per_sm, 64);
  assert_int_equal(o.max_warps_sm, 64);
  assert_true(o.occupancy == 1.0);
  assert_int_equal(o.by_smem, 228); /* 233472 / 1024 reserved */
  assert_int_equal(o.regs_per_block, 8192);
  assert_int_equal(o.smem_per_block, 1024);
  /* 64 registers: 2048 a warp, 8 warps per sub-partition, 32 / 8 = 4. */
  o = calc("sm_90", 256, 64, 0, 0);
  assert_int_equal(o.blocks_per_sm, 4);
  assert_int_equal(o.limiters, KS_LIMIT_REGS);
  assert_true(o.occupancy == 0.5);
  /* One warp a block: 64 by warps, but 32 blocks at most. */
  o = calc("sm_90", 32, 16, 0, 0);
  assert_int_equal(o.blocks_per_sm, 32);
  assert_int_equal(o.limiters, KS_LIMIT_BLOCKS);
  assert_true(o.occupancy == 0.5);
  /* 40000 + 1024 rounded to 128 = 41088; 233472 / 41088 = 5. */
  o = calc("sm_90", 256, 32, 40000, 0);
  assert_int_equal(o.blocks_per_sm, 5);
  assert_int_equal(o.limiters, KS_LIMIT_SMEM);
  assert_int_equal(o.smem_per_block, 41088);
  assert_int_equal(o.warps_per_sm, 40);
}

static void occ_edges(void **state) {
  (void)state;
  /* 3 warps of 40 registers (1280 a warp): 16384 / 1280 = 12 warps per
   * sub-partition, 48 / 3 = 16 blocks (the whole file would say 17). */
  ks_occupancy o = calc("sm_90", 96, 40, 0, 0);
  assert_int_equal(o.blocks_per_sm, 16);
  assert_int_equal(o.by_regs, 16);
  assert_int_equal(o.by_warps, 21);
  assert_int_equal(o.limiters, KS_LIMIT_REGS);
  /* 1024 threads: 64 registers fill the 65536 of a block exactly... */
  o = calc("sm_90", 1024, 64, 0, 0);
  assert_int_equal(o.blocks_per_sm, 1);
  assert_int_equal(o.limiters, KS_LIMIT_REGS);
  /* ...65 (2304 a warp, x 32) do not fit at all. */
  o = calc("sm_90", 1024, 65, 0, 0);
  assert_int_equal(o.blocks_per_sm, 0);
  assert_int_equal(o.limiters, KS_LIMIT_REGS);
  assert_true(o.occupancy == 0.0);
  /* 60000 bytes: over 48 KiB without opt-in, 3 blocks with it. */
  o = calc("sm_90", 128, 32, 60000, 0);
  assert_int_equal(o.blocks_per_sm, 0);
  assert_int_equal(o.limiters, KS_LIMIT_SMEM);
  o = calc("sm_90", 128, 32, 60000, 1);
  assert_int_equal(o.blocks_per_sm, 3); /* 233472 / 61056 */
  assert_int_equal(o.limiters, KS_LIMIT_SMEM);
  /* Exactly 48 KiB is allowed without opt-in. */
  o = calc("sm_90", 128, 32, 48 * 1024, 0);
  assert_int_equal(o.blocks_per_sm, 4); /* 233472 / 50176 */
  /* sm_86: 48 warps; sm_75: 32 warps and 16 blocks. */
  o = calc("sm_86", 256, 32, 0, 0);
  assert_int_equal(o.blocks_per_sm, 6);
  assert_int_equal(o.limiters, KS_LIMIT_WARPS);
  assert_true(o.occupancy == 1.0);
  o = calc("sm_75", 64, 32, 0, 0);
  assert_int_equal(o.blocks_per_sm, 16);
  assert_int_equal(o.limiters, KS_LIMIT_WARPS | KS_LIMIT_BLOCKS);
  /* sm_70 reserves nothing: no shared memory, no limit from it; 100 bytes
   * take one unit of 256. */
  o = calc("sm_70", 256, 32, 0, 0);
  assert_int_equal(o.by_smem, INT_MAX);
  o = calc("sm_70", 256, 32, 100, 0);
  assert_int_equal(o.smem_per_block, 256);
  assert_int_equal(o.by_smem, 96 * 1024 / 256);
  /* No registers at all (a kernel that does nothing). */
  o = calc("sm_90", 1024, 0, 0, 0);
  assert_int_equal(o.blocks_per_sm, 2);
  assert_int_equal(o.limiters, KS_LIMIT_WARPS);
}

static void occ_bad_input(void **state) {
  (void)state;
  ks_occupancy o = {.size = sizeof o};
  ks_occ_input in = {.block = 256, .regs = 32};
  assert_int_equal(ks_occupancy_calc("sm_99", &in, &o), KS_EARCH);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "sm_99");
  in.block = 0;
  assert_int_equal(ks_occupancy_calc("sm_90", &in, &o), KS_EBOUNDS);
  in.block = 1025;
  assert_int_equal(ks_occupancy_calc("sm_90", &in, &o), KS_EBOUNDS);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "1025");
  in.block = 256;
  in.regs = 256;
  assert_int_equal(ks_occupancy_calc("sm_90", &in, &o), KS_EBOUNDS);
  in.regs = -1;
  assert_int_equal(ks_occupancy_calc("sm_90", &in, &o), KS_EBOUNDS);
  assert_int_equal(ks_occupancy_calc(NULL, &in, &o), KS_EINVAL);
}

static void best_block(void **state) {
  (void)state;
  ks_occ_limits l;
  unsigned block = 0;
  int blocks = 0;
  ks_jit_occ_limits(ks_jit_arch_find("sm_90"), NULL, &l);
  /* 32 registers: 1024 threads already fill the SM. */
  assert_int_equal(ks_jit_best_block(&l, 32, 0, 1024, &block, &blocks), KS_OK);
  assert_int_equal(block, 1024);
  assert_int_equal(blocks, 2);
  /* 72 registers (2304 a warp, 7 warps per sub-partition, 28 per SM): no
   * block over 28 warps runs, 896 threads is the most. */
  assert_int_equal(ks_jit_best_block(&l, 72, 0, 1024, &block, &blocks), KS_OK);
  assert_int_equal(block, 896);
  assert_int_equal(blocks, 1);
  /* A limit that is not a multiple of the warp is tried as it is. */
  assert_int_equal(ks_jit_best_block(&l, 32, 0, 100, &block, &blocks), KS_OK);
  assert_int_equal(block, 64); /* 32 x 64 beats 16 x 100 and 21 x 96 */
  /* Over 48 KiB as a launch raises the kernel's limit: 60000 + 1024
   * reserved, 3 in 228 KiB; over the opt-in limit, nothing fits. */
  assert_int_equal(ks_jit_best_block(&l, 32, 60000, 1024, &block, &blocks),
                   KS_OK);
  assert_int_equal(block, 1024);
  assert_int_equal(blocks, 2);
  assert_int_equal(ks_jit_best_block(&l, 32, 240000, 1024, &block, &blocks),
                   KS_EBOUNDS);
}

/* ---- the public calls on a kernel -----------------------------------------
 */

typedef struct spec {
  ks_ctx *ctx;
  ks_template *t;
  ks_kernel *k;
} spec;

static void specialize(spec *s, unsigned block, unsigned maxntid) {
  ks_ctx_opts co = {.arch = "sm_90", .ptx_isa = 85, .no_driver = 1};
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 32};
  static const char *const off[] = {"tcoarsen"}; /* the block as given */
  ks_spec_req req = {.bindings = &b,
                     .nbindings = 1,
                     .bounds = {.block = {block}, .maxntid = maxntid},
                     .no_pass = off,
                     .nno_pass = 1};
  assert_int_equal(ks_ctx_create(&co, &s->ctx), KS_OK);
  assert_int_equal(ks_template_load(s->ctx, "conv1d", &s->t), KS_OK);
  assert_int_equal(ks_specialize(s->ctx, s->t, &req, &s->k), KS_OK);
}

static void spec_free(spec *s) {
  ks_template_destroy(s->t);
  ks_ctx_destroy(s->ctx);
}

/* With a fake ptxas: its figures, kept after the first run; occupancy
 * from them; a block other than the fixed one refused. */
static void kernel_fake_ptxas(void **state) {
  (void)state;
  fake f;
  spec s;
  ks_kernel_resources r = {.size = sizeof r};
  ks_occupancy o = {.size = sizeof o};
  fake_make(&f, "echo \"ptxas info    : Compiling entry function 'conv1d' "
                "for 'sm_90'\"\necho 'ptxas info    : Function properties "
                "for conv1d'\necho '    8 bytes stack frame, 4 bytes spill "
                "stores, 4 bytes spill loads'\necho 'ptxas info    : Used 64 "
                "registers, 2048 bytes smem'");
  char *old = env_swap("KSPEC_PTXAS", f.path);
  specialize(&s, 256, 0);
  assert_int_equal(ks_kernel_resources_get(s.k, KS_RES_ANY, &r), KS_OK);
  assert_int_equal(r.source, KS_RES_PTXAS);
  assert_string_equal(r.arch, "sm_90");
  assert_int_equal(r.regs, 64);
  assert_int_equal(r.spill_stores, 4);
  assert_int_equal(r.stack_frame, 8);
  assert_int_equal(r.static_smem, 2048);
  /* Kept: a missing ptxas now changes nothing. */
  setenv("KSPEC_PTXAS", "/nonexistent/ptxas", 1);
  r = (ks_kernel_resources){.size = sizeof r};
  assert_int_equal(ks_kernel_resources_get(s.k, KS_RES_PTXAS, &r), KS_OK);
  assert_int_equal(r.regs, 64);
  /* 64 registers, 256 threads: 4 blocks by registers; 2048 + 1024 bytes of
   * shared memory: 233472 / 3072 = 76. */
  assert_int_equal(ks_kernel_occupancy(s.k, 256, 0, KS_RES_ANY, &o), KS_OK);
  assert_int_equal(o.blocks_per_sm, 4);
  assert_int_equal(o.limiters, KS_LIMIT_REGS);
  assert_int_equal(o.by_smem, 76);
  /* Dynamic shared memory adds to the static. */
  assert_int_equal(ks_kernel_occupancy(s.k, 256, 40000, KS_RES_ANY, &o), KS_OK);
  assert_int_equal(o.smem_per_block, 43136); /* 2048+40000+1024 -> 128 */
  assert_int_equal(ks_kernel_occupancy(s.k, 128, 0, KS_RES_ANY, &o),
                   KS_EBOUNDS);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "specialized for block 256x1x1");
  unsigned block = 0;
  int grid = -1;
  assert_int_equal(ks_kernel_best_block(s.k, 0, KS_RES_ANY, &block, &grid),
                   KS_OK);
  assert_int_equal(block, 256);
  assert_int_equal(grid, 0); /* no device */
  /* The driver is off in this context. */
  assert_int_equal(ks_kernel_occupancy(s.k, 256, 0, KS_RES_DRIVER, &o),
                   KS_ENODRIVER);
  spec_free(&s);
  env_restore("KSPEC_PTXAS", old);
  fake_remove(&f);
}

/* No ptxas and no driver: a clear KS_ENODRIVER naming both. */
static void kernel_no_ptxas(void **state) {
  (void)state;
  spec s;
  ks_kernel_resources r = {.size = sizeof r};
  ks_occupancy o = {.size = sizeof o};
  char *old = env_swap("KSPEC_PTXAS", "/nonexistent/ptxas");
  specialize(&s, 0, 512);
  assert_int_equal(ks_kernel_resources_get(s.k, KS_RES_ANY, &r), KS_ENODRIVER);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "KSPEC_PTXAS=/nonexistent/ptxas");
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "driver");
  assert_int_equal(ks_kernel_resources_get(s.k, KS_RES_PTXAS, &r),
                   KS_ENODRIVER);
  assert_int_equal(ks_kernel_occupancy(s.k, 256, 0, KS_RES_ANY, &o),
                   KS_ENODRIVER);
  /* Over maxntid: refused before any figures are needed. */
  assert_int_equal(ks_kernel_occupancy(s.k, 1024, 0, KS_RES_ANY, &o),
                   KS_EBOUNDS);
  TU_ASSERT_CONTAINS(ks_errmsg(NULL), "maxntid 512");
  assert_int_equal(ks_kernel_resources_get(NULL, KS_RES_ANY, &r), KS_EINVAL);
  spec_free(&s);
  env_restore("KSPEC_PTXAS", old);
}

/* The real ptxas on a real specialization. */
static void kernel_real_ptxas(void **state) {
  (void)state;
  if (!tu_have_tool(KS_PTXAS))
    skip();
  spec s;
  ks_kernel_resources r = {.size = sizeof r};
  ks_occupancy o = {.size = sizeof o};
  char *old = env_swap("KSPEC_PTXAS", KS_PTXAS);
  specialize(&s, 0, 0);
  assert_int_equal(ks_kernel_resources_get(s.k, KS_RES_ANY, &r), KS_OK);
  assert_int_equal(r.source, KS_RES_PTXAS);
  assert_in_range(r.regs, 8, 128);
  assert_int_equal(r.spill_stores, 0);
  assert_int_equal(r.spill_loads, 0);
  assert_int_equal(r.static_smem, 0);
  assert_int_equal(ks_kernel_occupancy(s.k, 128, 0, KS_RES_PTXAS, &o), KS_OK);
  assert_in_range(o.blocks_per_sm, 1, 16);
  unsigned block = 0;
  int grid = 0;
  assert_int_equal(ks_kernel_best_block(s.k, 0, KS_RES_ANY, &block, &grid),
                   KS_OK);
  assert_in_range(block, 32, 1024);
  spec_free(&s);
  env_restore("KSPEC_PTXAS", old);
}

/* ks_jit_ptx_maxnreg (the never-slower guard's edit): `.maxnreg N` among
 * the entry's directives, right before its body; ptxas then keeps to it
 * (stencil1d at RADIUS 16, block 256: 104 registers with ptxas 13.0, 64
 * under .maxnreg 64; ptxas takes no fewer than 24 for sm_90, whatever
 * .maxnreg says). A kernel the PTX lacks is refused. */
static void ptx_maxnreg(void **state) {
  (void)state;
  spec s;
  ks_ctx_opts co = {.arch = "sm_90", .ptx_isa = 85, .no_driver = 1};
  ks_binding b = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = 16};
  ks_spec_req req = {
      .bindings = &b, .nbindings = 1, .bounds = {.block = {256}}};
  assert_int_equal(ks_ctx_create(&co, &s.ctx), KS_OK);
  assert_int_equal(ks_template_load(s.ctx, "stencil1d", &s.t), KS_OK);
  assert_int_equal(ks_specialize(s.ctx, s.t, &req, &s.k), KS_OK);
  char *out = NULL;
  size_t len = 0;
  assert_int_equal(
      ks_jit_ptx_maxnreg(s.k->ptx, s.k->ptx_len, "stencil1d", 64, &out, &len),
      KS_OK);
  assert_int_equal(len, strlen(out));
  assert_int_equal(len, s.k->ptx_len + strlen(".maxnreg 64\n"));
  TU_ASSERT_CONTAINS(out, ".reqntid 256, 1, 1\n.maxnreg 64\n{\n");
  assert_int_equal(ks_jit_ptx_maxnreg(s.k->ptx, s.k->ptx_len, "stencil", 64,
                                      &(char *){NULL}, &len),
                   KS_ECODEGEN);
  if (tu_have_tool(KS_PTXAS)) {
    char *log = NULL;
    ks_kernel_resources r = {.size = sizeof r}, r0 = {.size = sizeof r0};
    assert_int_equal(ks_jit_ptxas_run(KS_PTXAS, "sm_90", out, len, 60000, &log),
                     KS_OK);
    assert_true(ks_jit_ptxas_parse(log, "stencil1d", &r));
    free(log);
    assert_int_equal(ks_jit_ptxas_run(KS_PTXAS, "sm_90", s.k->ptx, s.k->ptx_len,
                                      60000, &log),
                     KS_OK);
    assert_true(ks_jit_ptxas_parse(log, "stencil1d", &r0));
    free(log);
    assert_true(r0.regs > 64);
    assert_in_range(r.regs, 24, 64);
  }
  free(out);
  spec_free(&s);
}

/* ks_jit_ptx_red: an atom.global whose old value its function never reads
 * becomes red (the driver's linker, which makes the disk cache's cubins,
 * compiles relocatable code, where ptxas keeps such an atom as ATOMG
 * waiting for its value); one whose value is read, exch, cas, acquire
 * orderings and atomics outside global memory stay. Registers are told
 * apart by whole token (%r1 is not %r10) and per function (%r2 read in
 * another function does not count). ptxas takes the result. */
static void ptx_red(void **state) {
  (void)state;
  static const char in[] =
      ".version 8.5\n.target sm_90\n.address_size 64\n\n"
      ".visible .func  (.param .b32 func_retval0) f(\n"
      "\t.param .b32 f_param_0\n)\n{\n"
      "\t.reg .b32 \t%r<4>;\n\n"
      "\tld.param.u32 \t%r2, [f_param_0];\n"
      "\tst.param.b32 \t[func_retval0], %r2;\n\tret;\n\n}\n"
      "\t// .globl\tk\n"
      ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
      "\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<12>;\n"
      "\t.reg .f32 \t%f<3>;\n\t.reg .b64 \t%rd<5>;\n\n"
      "\tld.param.u64 \t%rd1, [k_param_0];\n"
      "\tcvta.to.global.u64 \t%rd2, %rd1;\n"
      "\tmov.u32 \t%r1, %tid.x;\n"
      "\tatom.global.add.u32 \t%r2, [%rd2], %r1;\n"
      "\tatom.global.add.u32 \t%r3, [%rd2+4], %r1;\n"
      "\tst.global.u32 \t[%rd2+8], %r3;\n"
      "\tatom.global.exch.b32 \t%r4, [%rd2+12], %r1;\n"
      "\tatom.global.cas.b32 \t%r5, [%rd2+16], %r1, 7;\n"
      "\tsetp.eq.s32 \t%p1, %r1, 0;\n"
      "\t@%p1 atom.global.max.s32 \t%r10, [%rd2+20], %r1;\n"
      "\tatom.add.u32 \t%r6, [%rd1+24], %r1;\n"
      "\tatom.global.add.u64 \t%rd3, [%rd2+32], %rd1;\n"
      "\tcvt.rn.f32.u32 \t%f1, %r1;\n"
      "\tatom.global.add.f32 \t%f2, [%rd2+40], %f1;\n"
      "\tatom.acquire.gpu.global.add.u32 \t%r7, [%rd2+44], %r1;\n"
      "\tatom.global.or.b32 \t%r8, [%rd2+48], %r1;\n"
      "\tret;\n\n}\n";
  size_t len = sizeof in - 1;
  char *ptx = malloc(len + 1);
  assert_non_null(ptx);
  memcpy(ptx, in, len + 1);
  assert_int_equal(ks_jit_ptx_red(&ptx, &len), KS_OK);
  assert_int_equal(len, strlen(ptx));
  static const char *const red[] = {
      "\tred.global.add.u32 \t[%rd2], %r1;\n",
      "\t@%p1 red.global.max.s32 \t[%rd2+20], %r1;\n",
      "\tred.global.add.u64 \t[%rd2+32], %rd1;\n",
      "\tred.global.add.f32 \t[%rd2+40], %f1;\n",
      "\tred.global.or.b32 \t[%rd2+48], %r1;\n"};
  static const char *const kept[] = {
      "\tatom.global.add.u32 \t%r3, [%rd2+4], %r1;\n",
      "\tatom.global.exch.b32 \t%r4, [%rd2+12], %r1;\n",
      "\tatom.global.cas.b32 \t%r5, [%rd2+16], %r1, 7;\n",
      "\tatom.add.u32 \t%r6, [%rd1+24], %r1;\n",
      "\tatom.acquire.gpu.global.add.u32 \t%r7, [%rd2+44], %r1;\n",
      "\tld.param.u32 \t%r2, [f_param_0];\n"};
  for (size_t i = 0; i < sizeof red / sizeof *red; i++)
    TU_ASSERT_CONTAINS(ptx, red[i]);
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
    TU_ASSERT_CONTAINS(ptx, kept[i]);
  /* each "atom" one byte shorter, each destination and its ", " gone */
  assert_int_equal(len,
                   sizeof in - 1 - 5 - strlen("%r2, %r10, %rd3, %f2, %r8, "));
  if (tu_have_tool(KS_PTXAS)) {
    char *log = NULL;
    assert_int_equal(ks_jit_ptxas_run(KS_PTXAS, "sm_90", ptx, len, 60000, &log),
                     KS_OK);
    free(log);
  }
  /* nothing to change: the same text, not a copy */
  const char *before = ptx;
  assert_int_equal(ks_jit_ptx_red(&ptx, &len), KS_OK);
  assert_ptr_equal(ptx, before);
  free(ptx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parse_sm90),      cmocka_unit_test(parse_multi),
      cmocka_unit_test(parse_banks),     cmocka_unit_test(parse_old),
      cmocka_unit_test(run_success),     cmocka_unit_test(run_cubin),
      cmocka_unit_test(run_failures),    cmocka_unit_test(run_timeout),
      cmocka_unit_test(find_ptxas),      cmocka_unit_test(occ_sm90),
      cmocka_unit_test(occ_edges),       cmocka_unit_test(occ_bad_input),
      cmocka_unit_test(best_block),      cmocka_unit_test(kernel_fake_ptxas),
      cmocka_unit_test(kernel_no_ptxas), cmocka_unit_test(kernel_real_ptxas),
      cmocka_unit_test(ptx_maxnreg),     cmocka_unit_test(ptx_red),
  };
  return cmocka_run_group_tests_name("resources", tests, NULL, NULL);
}
