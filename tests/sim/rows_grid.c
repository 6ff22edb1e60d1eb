/*
 * rows_grid.c - runs kspec's sepfilter_rows, coarsened by tcoarsen and
 * split by unclamp into the interior copy and the clamped original, compiled
 * for the host from its IR (unclamp_sim.sh), over a simulated 2-D grid:
 * every real thread of every block in turn (the real block is BX/4 x BY;
 * %tid/%ctaid/%ntid/%nctaid are served by the functions below). Every
 * output must match a direct, clamped row filter, and nothing outside
 * out[0..w*h) may be written; the buffers are heap blocks of exactly
 * their size, so AddressSanitizer reports any access past them. The values
 * are small integers: every sum is exact.
 *
 *   rows_grid BX BY RADIUS   (the launch's block)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned g_tid[2], g_ctaid[2], g_ntid[2], g_nctaid[2];
unsigned sreg_tid_x(void) { return g_tid[0]; }
unsigned sreg_tid_y(void) { return g_tid[1]; }
unsigned sreg_ctaid_x(void) { return g_ctaid[0]; }
unsigned sreg_ctaid_y(void) { return g_ctaid[1]; }
unsigned sreg_ntid_x(void) { return g_ntid[0]; }
unsigned sreg_ntid_y(void) { return g_ntid[1]; }
unsigned sreg_nctaid_x(void) { return g_nctaid[0]; }
unsigned sreg_nctaid_y(void) { return g_nctaid[1]; }

void sepfilter_rows(const float *in, const float *c, float *out, int w, int h,
                    int radius);

/* const_promote's constant copy of the taps (argument 1), when made. */
extern unsigned char ks_cmem_1[] __attribute__((weak));

enum { K = 4 };

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static int run(int w, int h, unsigned bx, unsigned by, int radius) {
  size_t n = (size_t)w * (size_t)h, taps = 2 * (size_t)radius + 1;
  float *in = malloc((n ? n : 1) * sizeof *in);
  float *c = malloc(taps * sizeof *c), *out = malloc((n ? n : 1) * sizeof *out);
  uint32_t r = 777u + (uint32_t)w * 31u + (uint32_t)h;
  for (size_t i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    in[i] = (float)(r >> 28);
  }
  for (size_t k = 0; k < taps; k++)
    c[k] = (float)((k * 3 + 1) % 5);
  for (size_t i = 0; i < n; i++)
    out[i] = -1.0f; /* no output is negative */
  if (ks_cmem_1)
    memcpy(ks_cmem_1, c, taps * sizeof *c);
  g_ntid[0] = bx / K; /* the real block */
  g_ntid[1] = by;
  g_nctaid[0] = ((unsigned)w + bx - 1) / bx;
  g_nctaid[1] = ((unsigned)h + by - 1) / by;
  for (g_ctaid[1] = 0; g_ctaid[1] < g_nctaid[1]; g_ctaid[1]++)
    for (g_ctaid[0] = 0; g_ctaid[0] < g_nctaid[0]; g_ctaid[0]++)
      for (g_tid[1] = 0; g_tid[1] < by; g_tid[1]++)
        for (g_tid[0] = 0; g_tid[0] < bx / K; g_tid[0]++)
          sepfilter_rows(in, c, out, w, h, radius);
  int bad = 0;
  for (int y = 0; y < h && !bad; y++)
    for (int x = 0; x < w && !bad; x++) {
      float want = 0.0f;
      for (int k = -radius; k <= radius; k++)
        want += in[(size_t)y * w + clampi(x + k, 0, w - 1)] * c[k + radius];
      float got = out[(size_t)y * w + x];
      if (got != want) {
        printf("FAIL w=%d h=%d block %ux%u radius %d: out[%d][%d] = %g, want "
               "%g\n",
               w, h, bx, by, radius, y, x, got, want);
        bad = 1;
      }
    }
  free(in), free(c), free(out);
  return bad;
}

int main(int argc, char **argv) {
  unsigned bx = argc > 1 ? (unsigned)atoi(argv[1]) : 32;
  unsigned by = argc > 2 ? (unsigned)atoi(argv[2]) : 8;
  int radius = argc > 3 ? atoi(argv[3]) : 8;
  static const int widths[] = {1,  2,  3,  5,  8,  17, 31,  32, 33,
                               63, 64, 65, 95, 96, 97, 130, 160};
  static const int heights[] = {1, 3, 9, 17};
  int fails = 0, runs = 0;
  for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
    for (size_t j = 0; j < sizeof heights / sizeof heights[0]; j++) {
      fails += run(widths[i], heights[j], bx, by, radius);
      runs++;
    }
  printf("%d runs, %d failures (block %ux%u, radius %d)\n", runs, fails, bx, by,
         radius);
  return fails != 0;
}
