/*
 * alias_grid.c - runs tests/data/hist64.ll, versioned by smem_promote's
 * run-time alias check and compiled for the host from its IR
 * (alias_sim.sh), over a simulated grid of one-thread blocks, one after
 * another (%tid/%ctaid/%ntid/%nctaid served below; the shared copy is a
 * host global, which blocks run in turn may share; a barrier of a block
 * of one thread waits for nobody, so sim_barrier only counts). Checks,
 * against a count on the CPU, that the privatized version runs where the
 * bins and the input are disjoint (two barriers a block) and the original
 * one where they overlap (none), and that each gives the right bins: with
 * overlapping buffers, one thread over bins it increments reads what its
 * own increments wrote, which only the original kernel gives.
 *
 *   alias_grid N_BOUND   (0: n is an argument; else the n it was bound to)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned g_ctaid, g_nctaid, g_barriers;
unsigned sreg_tid_x(void) { return 0; }
unsigned sreg_tid_y(void) { return 0; }
unsigned sreg_tid_z(void) { return 0; }
unsigned sreg_ntid_x(void) { return 1; }
unsigned sreg_ntid_y(void) { return 1; }
unsigned sreg_ntid_z(void) { return 1; }
unsigned sreg_ctaid_x(void) { return g_ctaid; }
unsigned sreg_nctaid_x(void) { return g_nctaid; }
void sim_barrier(void) { g_barriers++; }

void hist64(const unsigned char *data, unsigned *bins, int n);

enum { BINS = 64 };

/* The bins as the original kernel leaves them, one thread: in order, each
 * byte read after the increments before it. */
static void count(unsigned char *mem, size_t data, size_t bins, int n) {
  for (int i = 0; i < n; i++) {
    uint32_t c;
    size_t at = bins + 4u * (mem[data + (size_t)i] >> 2);
    memcpy(&c, mem + at, 4);
    c++;
    memcpy(mem + at, &c, 4);
  }
}

/* Runs the kernel over mem (bytes) with grid blocks; 1 on a failure. */
static int run(const char *what, unsigned char *mem, size_t bytes, size_t data,
               size_t bins, int n, unsigned grid, unsigned want_barriers) {
  unsigned char *want = malloc(bytes);
  if (!want)
    return 1;
  memcpy(want, mem, bytes);
  if (grid == 1)
    count(want, data, bins, n);
  else /* blocks in turn: a grid stride; the bytes are never bins here */
    for (unsigned b = 0; b < grid; b++)
      for (int i = (int)b; i < n; i += (int)grid)
        count(want, data + (size_t)i, bins, 1);
  g_barriers = 0;
  g_nctaid = grid;
  for (g_ctaid = 0; g_ctaid < grid; g_ctaid++)
    hist64(mem + data, (unsigned *)(void *)(mem + bins), n);
  int bad = memcmp(mem, want, bytes) != 0 || g_barriers != want_barriers;
  printf("%s: %u barriers (want %u), bins %s\n", what, g_barriers,
         want_barriers, memcmp(mem, want, bytes) ? "WRONG" : "right");
  free(want);
  return bad;
}

int main(int argc, char **argv) {
  int bound = argc > 1 ? atoi(argv[1]) : 0;
  int n = bound ? bound : 5000;
  size_t bytes = 1024 + (size_t)n + 1024;
  unsigned char *mem = aligned_alloc(16, (bytes + 15) / 16 * 16);
  uint32_t r = 12345u;
  int bad = 0;
  if (!mem)
    return 1;

  /* disjoint: bins at 0, data after them (adjacent, then further on) */
  for (size_t gap = 0; gap <= 256; gap += 256) {
    memset(mem, 0, bytes);
    for (size_t i = 256 + gap; i < bytes; i++)
      mem[i] = (unsigned char)((r = r * 1664525u + 1013904223u) >> 24);
    bad |= run(gap ? "disjoint" : "disjoint, adjacent", mem,
               256 + gap + (size_t)n, 256 + gap, 0, n, 5, 2 * 5);
  }
  /* disjoint the other way: data first, bins right after it */
  memset(mem, 0, bytes);
  for (int i = 0; i < n; i++)
    mem[i] = (unsigned char)((r = r * 1664525u + 1013904223u) >> 24);
  bad |= run("disjoint, bins after data", mem, (size_t)n + 256, 0, (size_t)n, n,
             3, 2 * 3);

  /* overlapping, one thread: data starts 64 bytes before the bins and runs
   * through them; its first 64 bytes select bin 63, which it reads after
   * 64 increments (the privatized kernel would read 0 there) */
  memset(mem, 0, bytes);
  memset(mem, 252, 64);
  for (size_t i = 64 + 256; i < (size_t)n; i++)
    mem[i] = (unsigned char)((r = r * 1664525u + 1013904223u) >> 24);
  bad |= run("overlapping, one thread", mem, (size_t)n, 0, 64, n, 1, 0);

  /* overlapping, several blocks: data starts at bin 32, whose bytes (and
   * the later bins') no byte selects */
  memset(mem, 0, bytes);
  for (size_t i = 256; i < 128 + (size_t)n; i++)
    mem[i] = (unsigned char)((r = r * 1664525u + 1013904223u) >> 25);
  bad |= run("overlapping, 7 blocks", mem, 128 + (size_t)n, 128, 0, n, 7, 0);

  free(mem);
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
