/*
 * hist_grid.c - runs kspec's histogram kernel, compiled for the host from
 * its IR after the coarsen stage (coarsen_sim.sh), over a simulated grid:
 * every thread of every block in turn, %tid/%ctaid/%ntid/%nctaid served by
 * the functions below. Checks each bin against a direct count, and that
 * the bins add up to n: every sample counted exactly once.
 *
 *   hist_grid BLOCK      (BLOCK: the block width to simulate)
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

void histogram(const unsigned char *data, unsigned *hist, int n, int bins);

static int run(int n, int off, unsigned grid, unsigned block) {
  /* a heap block ending exactly after data[n-1]: ASan reports any read
   * past the samples */
  size_t bytes = n > 0 ? (size_t)n + off : (size_t)off;
  unsigned char *raw = malloc(bytes ? bytes : 1);
  unsigned char *data = raw + off;
  unsigned hist[256] = {0}, want[256] = {0};
  uint32_t x = 12345u + n * 7u + off;
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    data[i] = (unsigned char)(x >> 24);
    want[data[i]]++;
  }
  g_ntid = block;
  g_nctaid = grid;
  for (g_ctaid = 0; g_ctaid < grid; g_ctaid++)
    for (g_tid = 0; g_tid < block; g_tid++)
      histogram(data, hist, n, 256);
  unsigned long long total = 0;
  int bad = 0;
  for (int b = 0; b < 256; b++) {
    total += hist[b];
    bad |= hist[b] != want[b];
  }
  free(raw);
  if (bad || total != (unsigned long long)(n > 0 ? n : 0)) {
    printf("FAIL n=%d off=%d grid=%u block=%u total=%llu\n", n, off, grid,
           block, total);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  unsigned block = argc > 1 ? (unsigned)atoi(argv[1]) : 256;
  static const int ns[] = {-5, 0,  1,    15,   16,   17,     31,
                           32, 33, 4095, 4096, 4097, 1000003};
  static const unsigned grids[] = {1, 2, 3, 7, 64};
  static const int offs[] = {0, 1, 8, 15, 16}; /* malloc gives 16-aligned */
  int fails = 0, runs = 0;
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t o = 0; o < 5; o++)
      for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        fails += run(ns[a], offs[o], grids[g], block);
        runs++;
      }
  printf("%d runs, %d failures (block %u)\n", runs, fails, block);
  return fails != 0;
}
