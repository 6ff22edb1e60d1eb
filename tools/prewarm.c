/*
 * prewarm.c - `kspec prewarm FILE [--arch sm_XX] [-j N]`: compiles the
 * requests a program recorded (KSPEC_RECORD=FILE) into the disk cache, in
 * parallel, so that the program's next run finds every kernel there.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kspec.h"
#include "prewarm.h"

static const char usage[] =
    "usage: kspec prewarm FILE [--arch sm_XX] [--ptx-isa N] [-j N]\n"
    "\n"
    "Compiles every specialization recorded in FILE (by a program run with\n"
    "KSPEC_RECORD=FILE) into the disk cache ahead of time, N at a time\n"
    "(default: $KSPEC_JOBS, else the CPUs, at most 8), and says how many\n"
    "were compiled, already cached, repeated or failed, and why.\n"
    "\n"
    "  --arch sm_XX  target (default: the GPU's, else sm_90), as the\n"
    "                program's own context chooses it\n"
    "  --ptx-isa N   PTX ISA x10 (default: the highest the driver accepts)\n"
    "  -j N          parallel compiles\n"
    "  -h, --help    this text\n";

static void report(void *arg, unsigned long line, const char *why) {
  fprintf(stderr, "kspec: prewarm: %s:%lu: %s\n", (const char *)arg, line, why);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int bad(const char *fmt, const char *arg) {
  fprintf(stderr, "kspec: prewarm: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (try `kspec prewarm --help`)\n");
  return 2;
}

int kspec_prewarm_main(int argc, char **argv) {
  static const struct option longs[] = {
      {"arch", required_argument, NULL, 'a'},
      {"ptx-isa", required_argument, NULL, 'p'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  ks_ctx_opts co = {0};
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "j:h", longs, NULL)) != -1) {
    char *end = NULL;
    if (c == 'h') {
      fputs(usage, stdout);
      return 0;
    } else if (c == 'a') {
      co.arch = optarg;
    } else if (c == 'p') {
      unsigned long n = strtoul(optarg, &end, 10);
      if (end == optarg || *end || n < 60 || n > 99)
        return bad("--ptx-isa '%s': want e.g. 85", optarg);
      co.ptx_isa = (unsigned)n;
    } else if (c == 'j') {
      unsigned long n = strtoul(optarg, &end, 10);
      if (end == optarg || *end || n < 1 || n > 64)
        return bad("-j '%s': want 1 to 64", optarg);
      co.jobs = (unsigned)n;
    } else {
      return bad("unknown option or missing value '%s'", argv[optind - 1]);
    }
  }
  if (optind != argc - 1)
    return bad(optind < argc ? "unexpected argument '%s'" : "missing FILE%s",
               optind < argc ? argv[optind + 1] : "");
  const char *file = argv[optind];
  unsetenv("KSPEC_RECORD"); /* the prewarm's own requests are not news */
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&co, &ctx) != KS_OK) {
    fprintf(stderr, "kspec: %s\n", ks_errmsg(NULL));
    return 1;
  }
  if (ks_ctx_warning(ctx)[0])
    fprintf(stderr, "kspec: warning: %s\n", ks_ctx_warning(ctx));
  else if (!ks_cache_dir(ctx))
    fprintf(stderr, "kspec: warning: no disk cache (KSPEC_CACHE is off): "
                    "nothing will be kept\n");
  ks_prewarm_result r = {.size = sizeof r};
  double t0 = now_ms();
  ks_status s = ks_prewarm(ctx, file, report, (void *)file, &r);
  double ms = now_ms() - t0;
  if (s != KS_OK) {
    fprintf(stderr, "kspec: %s\n", ks_errmsg(ctx));
    ks_ctx_destroy(ctx);
    return 1;
  }
  printf("%llu requests for %s in %.0f ms: %llu compiled, %llu already "
         "cached, %llu repeated, %llu failed\n",
         (unsigned long long)r.requests, ks_ctx_arch(ctx), ms,
         (unsigned long long)r.compiled, (unsigned long long)r.cached,
         (unsigned long long)r.duplicates, (unsigned long long)r.failed);
  if (ks_cache_dir(ctx))
    printf("disk cache: %s\n", ks_cache_dir(ctx));
  ks_ctx_destroy(ctx);
  return r.failed ? 1 : 0;
}
