/*
 * arch.c - GPU architectures as data, and the PTX ISA versions the LLVM
 * backend emits and each driver accepts: the target's description, which
 * contexts, requests, occupancy and codegen all read (codegen/target.c
 * holds LLVM's state).
 */
#include <stddef.h>
#include <string.h>

#include "jit/ks_jit.h"

/* Limits from the CUDA programming guide's table of compute capabilities
 * and the CUDA occupancy rules; a present device's own figures take
 * precedence where they exist. Every architecture here has 64 Ki registers
 * per SM and per block, allocated per warp in units of 256 (KS_REGS), and
 * 48 KiB of shared memory per block without opt-in. */
#define KS_REGS 65536, 65536, 256
/* clang-format off */
static const ks_arch arches[] = {
    /* name  sm  ptx  thr/blk z  blk/sm  regs  smem optin
         thr/sm  regs/sm, regs/blk, reg unit (KS_REGS)  sub-partitions
         smem/sm   smem/blk   reserved/blk unit */
    {"sm_60", 60, 50, 1024, 64, 32, 255, 48 * 1024,
     2048, KS_REGS, 2, 64 * 1024, 48 * 1024, 0, 256},
    {"sm_61", 61, 50, 1024, 64, 32, 255, 48 * 1024,
     2048, KS_REGS, 4, 96 * 1024, 48 * 1024, 0, 256},
    {"sm_70", 70, 60, 1024, 64, 32, 255, 96 * 1024,
     2048, KS_REGS, 4, 96 * 1024, 48 * 1024, 0, 256},
    {"sm_72", 72, 61, 1024, 64, 32, 255, 96 * 1024,
     2048, KS_REGS, 4, 96 * 1024, 48 * 1024, 0, 256},
    {"sm_75", 75, 63, 1024, 64, 16, 255, 64 * 1024,
     1024, KS_REGS, 4, 64 * 1024, 48 * 1024, 0, 256},
    {"sm_80", 80, 70, 1024, 64, 32, 255, 163 * 1024,
     2048, KS_REGS, 4, 164 * 1024, 48 * 1024, 1024, 128},
    {"sm_86", 86, 71, 1024, 64, 16, 255, 99 * 1024,
     1536, KS_REGS, 4, 100 * 1024, 48 * 1024, 1024, 128},
    {"sm_87", 87, 74, 1024, 64, 16, 255, 163 * 1024,
     1536, KS_REGS, 4, 164 * 1024, 48 * 1024, 1024, 128},
    {"sm_89", 89, 78, 1024, 64, 24, 255, 99 * 1024,
     1536, KS_REGS, 4, 100 * 1024, 48 * 1024, 1024, 128},
    {"sm_90", 90, 78, 1024, 64, 32, 255, 227 * 1024,
     2048, KS_REGS, 4, 228 * 1024, 48 * 1024, 1024, 128},
    {"sm_90a", 90, 80, 1024, 64, 32, 255, 227 * 1024,
     2048, KS_REGS, 4, 228 * 1024, 48 * 1024, 1024, 128},
};
/* clang-format on */
#undef KS_REGS
enum { NARCH = sizeof arches / sizeof arches[0] };

const ks_arch *ks_jit_arch_find(const char *name) {
  for (size_t i = 0; i < NARCH; i++)
    if (strcmp(arches[i].name, name) == 0)
      return &arches[i];
  return NULL;
}

const ks_arch *ks_jit_arch_for_sm(int sm) {
  for (size_t i = 0; i < NARCH; i++)
    if ((int)arches[i].sm == sm)
      return &arches[i]; /* the plain (non-"a") variant comes first */
  return NULL;
}

/* LLVM 19's NVPTX backend knows PTX ISA up to 8.5. */
unsigned ks_jit_llvm_max_ptx(void) { return 85; }

/* The PTX ISA version each CUDA release introduced (release notes). */
static const struct {
  int driver;
  unsigned ptx;
} driver_ptx[] = {
    {13000, 90}, {12090, 88}, {12080, 87}, {12050, 85}, {12040, 84},
    {12030, 83}, {12020, 82}, {12010, 81}, {12000, 80}, {11080, 78},
    {11070, 77}, {11060, 76}, {11050, 75}, {11040, 74}, {11030, 73},
    {11020, 72}, {11010, 71}, {11000, 70}, {10020, 65}, {10010, 64},
    {10000, 63},
};

unsigned ks_jit_driver_max_ptx(int driver_version) {
  for (size_t i = 0; i < sizeof driver_ptx / sizeof driver_ptx[0]; i++)
    if (driver_version >= driver_ptx[i].driver)
      return driver_ptx[i].ptx;
  return 60;
}
