/*
 * workload_block.h - the block each built-in template's workload launches
 * with (tools/workloads.c), for the programs that specialize without
 * preparing a workload (kspec-latency, kspec-train): 32 x 8 for the
 * separable filters, none for reduce_sum and transpose (their BLOCK and
 * TILE fix it), 256 threads for the others. Header-only: kspec-train
 * links nothing of kspec's.
 */
#ifndef KS_WORKLOAD_BLOCK_H
#define KS_WORKLOAD_BLOCK_H

#include <string.h>

#include "kspec.h"

static inline void ks_workload_block(const char *name, ks_launch_bounds *b) {
  if (strcmp(name, "sepfilter_rows") == 0 ||
      strcmp(name, "sepfilter_cols") == 0) {
    b->block[0] = 32;
    b->block[1] = 8;
  } else if (strcmp(name, "reduce_sum") != 0 &&
             strcmp(name, "transpose") != 0) {
    b->block[0] = 256;
  }
}

#endif
