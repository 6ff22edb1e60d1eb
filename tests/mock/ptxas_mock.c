/*
 * ptxas_mock.c - ptxas for the CPU tests over the mocked driver
 * (cuda_mock.c), named by KSPEC_PTXAS: `ptxas -arch=sm_NN [-v] -o OUT FILE`
 * writes the mock's cubin (cuda_mock.h: a header, then the PTX) to OUT,
 * which the mock loads as it loads PTX; a real ptxas's cubin it cannot.
 * With -o /dev/null (the figures' run: `ptxas -v`) it runs the real ptxas
 * the build found (KS_REAL_PTXAS), with the same arguments, and fails as
 * a missing one would where there is none.
 *
 * For the tests: KSPEC_MOCK_PTXAS_LOG names a file that gets one line per
 * cubin made (the arch); KSPEC_MOCK_PTXAS_SM=NN makes cubins for sm_NN
 * whatever -arch says (a cubin the mocked device refuses, as a driver
 * refuses a newer ptxas's); KSPEC_MOCK_PTXAS_FAIL=1 fails every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_mock.h"

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
    len += got;
    if (len == cap) {
      char *more = realloc(buf, cap *= 2);
      if (!more)
        free(buf);
      buf = more;
    }
  }
  fclose(f);
  *n = len;
  return buf;
}

int main(int argc, char **argv) {
  const char *arch = NULL, *out = NULL, *in = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "-arch=", 6))
      arch = argv[i] + 6;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] != '-')
      in = argv[i];
  }
  const char *fail = getenv("KSPEC_MOCK_PTXAS_FAIL");
  if (fail && *fail == '1') {
    fprintf(stderr, "ptxas fatal   : the mock was told to fail\n");
    return 1;
  }
  if (!arch || !out || !in || strncmp(arch, "sm_", 3) != 0) {
    fprintf(stderr, "ptxas fatal   : usage: -arch=sm_NN [-v] -o OUT FILE\n");
    return 1;
  }
  if (!strcmp(out, "/dev/null")) {
#ifdef KS_REAL_PTXAS
    if (KS_REAL_PTXAS[0]) {
      argv[0] = KS_REAL_PTXAS;
      execv(KS_REAL_PTXAS, argv);
    }
#endif
    fprintf(stderr, "ptxas fatal   : no real ptxas for the figures\n");
    return 1;
  }
  size_t n = 0;
  char *ptx = slurp(in, &n);
  if (!ptx) {
    fprintf(stderr, "ptxas fatal   : cannot read %s\n", in);
    return 1;
  }
  const char *sm = getenv("KSPEC_MOCK_PTXAS_SM");
  kspec_mock_cubin_header h = {.sm = (uint32_t)atoi(sm && *sm ? sm : arch + 3),
                               .ptx_len = (uint32_t)n};
  memcpy(h.magic, KSPEC_MOCK_CUBIN_MAGIC, sizeof h.magic);
  FILE *f = fopen(out, "wb");
  int ok = f && fwrite(&h, sizeof h, 1, f) == 1 && fwrite(ptx, 1, n, f) == n &&
           fputc('\0', f) == 0;
  ok = f && fclose(f) == 0 && ok;
  free(ptx);
  if (!ok) {
    fprintf(stderr, "ptxas fatal   : cannot write %s\n", out);
    return 1;
  }
  const char *log = getenv("KSPEC_MOCK_PTXAS_LOG");
  FILE *l = log && *log ? fopen(log, "a") : NULL;
  if (l) {
    fprintf(l, "%s\n", arch);
    fclose(l);
  }
  return 0;
}
