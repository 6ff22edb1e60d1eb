/*
 * test_cubin.c - ptxas's cubin in the disk cache, on the GPU.
 *
 * Each step is a fresh process (this program run again, so that every
 * step starts the driver anew) on one temporary cache directory:
 *   write     specialize conv1d and load it: the PTX is compiled by ptxas,
 *             whole-program, and its cubin stored (a cubin miss);
 *   hit       the same request: template and PTX from the disk, the cubin
 *             loaded without compiling (a cubin hit);
 *   refused   after the cubin entry was rewritten, checksum intact, with
 *             bytes the driver refuses: the entry is dropped, the PTX
 *             loaded, a new cubin stored (never an error);
 *   flipped   after a bit flip in the cubin entry: a miss (corrupt), the
 *             PTX loaded, a new cubin stored.
 * Every step launches the kernel and checks it against a CPU reference,
 * and the registers the driver reports for the loaded kernel against
 * ptxas's whole-program figure (the driver's linker, which kspec does not
 * use, compiles relocatable code and can need more).
 * Without a driver or a device it prints "skipped: ..." and exits 77.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_open.h"
#include "jit/ks_jit.h"

enum { N = 1000, TAPS = 7, BLOCK = 256 };

static int fail(const char *step, const char *what) {
  fprintf(stderr, "test_cubin: %s: %s\n", step, what);
  return 1;
}

/* The entries of dir, one name per line, into out. */
static void list(const char *dir, char *out, size_t cap) {
  DIR *d = opendir(dir);
  struct dirent *de;
  size_t used = 0;
  out[0] = '\0';
  while (d && (de = readdir(d)))
    if (ks_disk_is_entry(de->d_name) && used < cap)
      used += (size_t)snprintf(out + used, cap - used, "%s\n", de->d_name);
  if (d)
    closedir(d);
}

/* conv1d FILTER_LEN=TAPS on the device against the CPU. */
static int run_check(ks_ctx *ctx, ks_kernel *k, const char *step) {
  static float x[N + TAPS - 1], f[TAPS], y[N];
  for (int i = 0; i < N + TAPS - 1; i++)
    x[i] = (float)((i * 37 % 101) - 50) / 50.0f;
  for (int i = 0; i < TAPS; i++)
    f[i] = (float)(i + 1) / TAPS;
  ks_devptr dx = 0, df = 0, dy = 0;
  if (ks_mem_alloc(ctx, sizeof x, &dx) != KS_OK ||
      ks_mem_alloc(ctx, sizeof f, &df) != KS_OK ||
      ks_mem_alloc(ctx, sizeof y, &dy) != KS_OK ||
      ks_memcpy_htod(ctx, dx, x, sizeof x) != KS_OK ||
      ks_memcpy_htod(ctx, df, f, sizeof f) != KS_OK ||
      ks_memset8(ctx, dy, 0xff, sizeof y) != KS_OK)
    return fail(step, ks_errmsg(ctx));
  int n = N, taps = TAPS;
  void *args[] = {&dx, &df, &dy, &n, &taps};
  ks_dim3 grid = {(N + BLOCK - 1) / BLOCK, 1, 1}, block = {BLOCK, 1, 1};
  if (ks_launch(k, grid, block, 0, NULL, args) != KS_OK ||
      ks_synchronize(ctx) != KS_OK ||
      ks_memcpy_dtoh(ctx, y, dy, sizeof y) != KS_OK)
    return fail(step, ks_errmsg(ctx));
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < TAPS; j++)
      s += (double)x[i + j] * f[j];
    if (!(fabs(y[i] - s) <= 1e-4 * (1 + fabs(s)))) {
      char msg[128];
      snprintf(msg, sizeof msg, "y[%d] = %g, want %g", i, y[i], s);
      return fail(step, msg);
    }
  }
  ks_mem_free(ctx, dx);
  ks_mem_free(ctx, df);
  ks_mem_free(ctx, dy);
  return 0;
}

/* One step in this process: specialize, load, check the counters, run. */
static int step(const char *name, const char *dir) {
  ks_ctx_opts o = {.cache_dir = dir};
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(&o, &ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK)
    return fail(name, ks_errmsg(ctx));
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = TAPS};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {BLOCK}};
  char before[4096], after[4096];
  if (ks_template_load(ctx, "conv1d", &t) != KS_OK ||
      ks_specialize(ctx, t, &req, &k) != KS_OK)
    return fail(name, ks_errmsg(ctx));
  list(dir, before, sizeof before);
  if (ks_kernel_load(k) != KS_OK)
    return fail(name, ks_errmsg(ctx));
  list(dir, after, sizeof after);
  ks_kernel_info info = {.size = sizeof info};
  ks_cache_counters c = {.size = sizeof c};
  ks_kernel_info_get(k, &info);
  ks_cache_stats(ctx, &c);
  int hit = strcmp(name, "hit") == 0, rc = 0;
  if (hit != !!info.from_cubin || c.cubin_hits != (uint64_t)hit ||
      c.cubin_misses != (uint64_t)!hit)
    rc = fail(name, "wrong cubin hit/miss");
  if (strcmp(name, "write") == 0 && (c.disk_hits || c.template_hits))
    rc = fail(name, "the cache was not empty");
  if (strcmp(name, "write") != 0 &&
      (c.disk_hits != 1 || c.template_hits != 1 || c.compiles))
    rc = fail(name, "template or PTX not from the disk cache");
  if (c.cubin_dropped != (strcmp(name, "refused") == 0))
    rc = fail(name, "wrong count of dropped cubins");
  if (strcmp(name, "flipped") == 0 && c.corrupt != 1)
    rc = fail(name, "the flipped entry was not counted as corrupt");
  ks_kernel_resources drv = {.size = sizeof drv}, pt = {.size = sizeof pt};
  if (!rc && ks_kernel_resources_get(k, KS_RES_DRIVER, &drv) == KS_OK &&
      ks_kernel_resources_get(k, KS_RES_PTXAS, &pt) == KS_OK) {
    printf("%s: %d registers loaded, %d whole-program (ptxas)\n", name,
           drv.regs, pt.regs);
    if (drv.regs != pt.regs)
      rc = fail(name, "the loaded kernel is not ptxas's whole-program one");
  }
  if (!rc)
    rc = run_check(ctx, k, name);
  if (!rc && !hit) { /* the new cubin entry's name, for the next step */
    const char *p = after;
    while (*p) {
      size_t len = strcspn(p, "\n");
      char one[64];
      snprintf(one, sizeof one, "%.*s\n", (int)len, p);
      if (!strstr(before, one))
        printf("%s", one);
      p += len + 1;
    }
  }
  printf("%s: cubin hits %" PRIu64 ", misses %" PRIu64 ", dropped %" PRIu64
         "\n",
         name, c.cubin_hits, c.cubin_misses, c.cubin_dropped);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}

/* Runs `self STEP DIR`; the name of a new entry it printed into entry. */
static int child(const char *self, const char *name, const char *dir,
                 char *entry) {
  char cmd[1024], line[256];
  snprintf(cmd, sizeof cmd, "'%s' %s '%s'", self, name, dir);
  FILE *p = popen(cmd, "r");
  if (!p)
    return fail(name, "cannot run the step");
  while (fgets(line, sizeof line, p)) {
    fputs(line, stdout);
    line[strcspn(line, "\n")] = '\0';
    if (entry && ks_disk_is_entry(line))
      memcpy(entry, line, KS_DISK_NAME_CAP > 39 ? 39 : KS_DISK_NAME_CAP);
  }
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* The key an entry's name stands for. */
static void name_key(const char *name, uint64_t key[2]) {
  char hi[17], lo[17];
  memcpy(hi, name, 16);
  memcpy(lo, name + 16, 16);
  hi[16] = lo[16] = '\0';
  key[1] = strtoull(hi, NULL, 16);
  key[0] = strtoull(lo, NULL, 16);
}

/* Rewrites the cubin entry with bytes the driver refuses, its checksum
 * intact (no driver opened here). */
static int refuse(const char *dir, const char *entry) {
  ks_ctx_opts o = {.no_driver = 1, .arch = "sm_90", .cache_dir = dir};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&o, &ctx) != KS_OK || !ks_disk_usable(ctx->disk))
    return fail("refused", "no disk cache");
  uint64_t key[2];
  name_key(entry, key);
  ks_disk_entry e;
  unsigned char *buf = NULL;
  if (!ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_CUBIN, key, &e, &buf))
    return fail("refused", "no cubin entry");
  size_t n = e.len[KS_DISK_BLOB];
  char *junk = malloc(n);
  for (size_t i = 0; i < n; i++)
    junk[i] = (char)(i * 131 + 7);
  e.str[KS_DISK_BLOB] = junk;
  ks_disk_write(ctx, ctx->disk, &e);
  free(junk);
  free(buf);
  ks_ctx_destroy(ctx);
  return 0;
}

static int flip(const char *dir, const char *entry) {
  char path[1024];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, entry);
  int fd = open(path, O_RDWR);
  unsigned char c = 0;
  if (fd < 0 || fstat(fd, &st) != 0 || pread(fd, &c, 1, st.st_size / 2) != 1)
    return fail("flipped", "cannot read the cubin entry");
  c ^= 0x04;
  if (pwrite(fd, &c, 1, st.st_size / 2) != 1)
    return fail("flipped", "cannot write the cubin entry");
  close(fd);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3)
    return step(argv[1], argv[2]);
  char self[512], dir[] = "/tmp/kspec_cubin_XXXXXX", entry[64] = "";
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || !mkdtemp(dir))
    return fail("setup", "no executable path or temporary directory");
  self[n] = '\0';
  int rc = child(self, "write", dir, entry);
  if (!rc && !entry[0])
    rc = fail("write", "no cubin entry written");
  if (!rc)
    rc = child(self, "hit", dir, NULL);
  if (!rc)
    rc = refuse(dir, entry);
  if (!rc)
    rc = child(self, "refused", dir, entry);
  if (!rc)
    rc = child(self, "hit", dir, NULL);
  if (!rc)
    rc = flip(dir, entry);
  if (!rc)
    rc = child(self, "flipped", dir, entry);
  if (!rc)
    rc = child(self, "hit", dir, NULL);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "test_cubin: could not remove %s\n", dir);
  if (rc == 0)
    printf("ok\n");
  return rc;
}
