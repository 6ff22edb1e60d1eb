/*
 * conv_grid.c - runs kspec's conv1d, coarsened by tcoarsen and compiled for
 * the host from its IR (tcoarsen_sim.sh), over a simulated grid: every real
 * thread of every block in turn (the real block is BLOCK/4 threads wide;
 * %tid/%ctaid/%ntid/%nctaid are served by the functions below). Checks
 * every output against a direct convolution, and that nothing outside
 * y[0..n) is written; x and y are heap blocks of exactly their size, so
 * that AddressSanitizer reports any access past them. The values are small
 * integers: every sum is exact, whatever the order or fusion.
 *
 *   conv_grid BLOCK FILTER_LEN   (BLOCK: the launch's block width)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned g_tid, g_ctaid, g_ntid, g_nctaid;
unsigned sreg_tid_x(void) { return g_tid; }
unsigned sreg_ctaid_x(void) { return g_ctaid; }
unsigned sreg_ntid_x(void) { return g_ntid; }
unsigned sreg_nctaid_x(void) { return g_nctaid; }

void conv1d(const float *x, const float *f, float *y, int n, int filter_len);

/* const_promote's constant copy of f (argument 1), where the kernel has
 * one: ks_launch fills it from f before every launch, and so does run(). */
extern unsigned char ks_cmem_1[] __attribute__((weak));

enum { K = 4 };

static int run(int n, unsigned grid, unsigned block, int taps) {
  size_t nx = (size_t)(n > 0 ? n : 0) + (size_t)taps - 1;
  size_t ny = n > 0 ? (size_t)n : 0;
  float *x = malloc(nx * sizeof *x), *f = malloc((size_t)taps * sizeof *f);
  float *y = malloc((ny ? ny : 1) * sizeof *y);
  uint32_t r = 12345u + (uint32_t)n * 7u + grid;
  for (size_t i = 0; i < nx; i++) {
    r = r * 1664525u + 1013904223u;
    x[i] = (float)(r >> 28);
  }
  for (int k = 0; k < taps; k++)
    f[k] = (float)((k * 5 + 3) % 8);
  for (size_t i = 0; i < ny; i++)
    y[i] = -1.0f; /* no output is negative */
  if (ks_cmem_1)
    memcpy(ks_cmem_1, f, (size_t)taps * sizeof *f);
  g_ntid = block / K; /* the real block */
  g_nctaid = grid;
  for (g_ctaid = 0; g_ctaid < grid; g_ctaid++)
    for (g_tid = 0; g_tid < block / K; g_tid++)
      conv1d(x, f, y, n, taps);
  int bad = 0;
  size_t covered = (size_t)grid * block < ny ? (size_t)grid * block : ny;
  for (size_t i = 0; i < ny; i++) {
    float want = -1.0f;
    if (i < covered) {
      want = 0.0f;
      for (int k = 0; k < taps; k++)
        want += x[i + (size_t)k] * f[k];
    }
    if (y[i] != want) {
      if (!bad)
        printf("FAIL n=%d grid=%u block=%u taps=%d: y[%zu] = %g, want %g\n", n,
               grid, block, taps, i, y[i], want);
      bad = 1;
    }
  }
  free(x), free(f), free(y);
  return bad;
}

int main(int argc, char **argv) {
  unsigned block = argc > 1 ? (unsigned)atoi(argv[1]) : 256;
  int taps = argc > 2 ? atoi(argv[2]) : 32;
  int fails = 0, runs = 0;
  for (int n = -3; n <= 3 * (int)block + 9; n++) {
    unsigned need = n > 0 ? ((unsigned)n + block - 1) / block : 1;
    unsigned grids[] = {need, need + 1, need > 1 ? need - 1 : 1};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
      fails += run(n, grids[g], block, taps);
      runs++;
    }
  }
  printf("%d runs, %d failures (block %u, %d taps)\n", runs, fails, block,
         taps);
  return fails != 0;
}
