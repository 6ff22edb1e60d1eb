/*
 * target.c - GPU architectures as data, PTX ISA versions, and LLVM's NVPTX
 * target machines.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Support.h>
#include <llvm-c/Target.h>

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

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

/* Codegen's IR passes up to nvptx-lower-unreachable are skipped for the
 * whole process (LLVM options, read when a compile builds its pass
 * list): the pipeline's last stage, lower, does what of them a module
 * needs (passes/lower.c): NVPTX's lowering of arguments and allocas,
 * address-space inference, atomic expansion, and the straight-line
 * passes only where a loop is left, where in codegen they ran on every
 * kernel (ScalarEvolution for every address: a sixth of a separable
 * filter's specialization, for the same SASS). Skipped with them, as
 * before they were switched off one by one:
 *   loop strength reduction  over tools/ptx_identity.sh's grid, ptxas's
 *       code without it is never longer (235 of 303 requests shorter, by
 *       up to 39% in the histogram's vectorized loop; no spill added), and
 *       it was a sixth of the histogram's specialization;
 *   the load/store vectorizer  runs in the optimize stage instead, only
 *       where two adjacent accesses could merge (ks_vectorize_worth);
 *       in codegen it compared every pair of loads in a block through
 *       ScalarEvolution, a fifth of a separable filter's specialization,
 *       to find nothing;
 *   early-cse, sroa, constant hoisting and the other optimizations of
 *       that stretch  not one byte of PTX over the grid, for 4% of a
 *       specialization.
 * Five machine passes are switched off too: the peephole optimizer,
 * branch folding, dead machine instruction elimination, stack slot
 * coloring and early tail duplication. ptxas does that work again on the
 * PTX: over tools/ptx_identity.sh's grid (304 requests) and 189 requests
 * without a block, the PTX changes for 272, the SASS for none of the 267
 * that CUDA 13's ptxas assembles (not sm_70); 1.5-2% of a specialization
 * (conv1d without a block 18.54 -> 18.27 M instructions, the histogram
 * 23.11 -> 22.76, reduce_sum 22.82 -> 22.37, the transpose 18.47 ->
 * 18.17). Machine CSE, LICM and sinking, CodeGenPrepare and block
 * placement, the other passes worth switching off, change the SASS.
 * expand-variadics, which lower runs where a module has variadic
 * functions, is told to lower them, as codegen's own did. A process that
 * uses the same shared libLLVM for codegen of its own sees these options
 * too; with LLVM linked statically into libkspec (KSPEC_LLVM_STATIC) they
 * are kspec's alone. Errors are ignored (an option already given by the
 * host stays as it was). */
static void llvm_init(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  static const char *const argv[] = {"kspec",
                                     "-start-before=nvptx-lower-unreachable",
                                     "-expand-variadics-override=lowering",
                                     "-disable-peephole",
                                     "-disable-branch-fold",
                                     "-disable-machine-dce",
                                     "-disable-ssc",
                                     "-disable-early-taildup"};
  LLVMParseCommandLineOptions(sizeof argv / sizeof argv[0], argv, NULL);
}

void ks_jit_llvm_init(void) { pthread_once(&llvm_once, llvm_init); }

LLVMTargetMachineRef ks_jit_target_machine(const ks_arch *a, unsigned ptx) {
  static const char triple[] = "nvptx64-nvidia-cuda";
  LLVMTargetRef target = NULL;
  char *msg = NULL;
  ks_jit_llvm_init();
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    ks_jit_fail(KS_ECODEGEN, "codegen: no NVPTX target: %s", msg);
    LLVMDisposeMessage(msg);
    return NULL;
  }
  char features[32];
  snprintf(features, sizeof features, "+ptx%u", ptx);
  /* Default, not Aggressive: for NVPTX the difference is GVN instead of
   * early-cse, twice, in codegen's straight-line scalar passes. It found
   * nothing the optimize stage had not (identical PTX for the specialized
   * built-in templates) and took about half of codegen's time. */
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, triple, a->name, features, LLVMCodeGenLevelDefault,
      LLVMRelocDefault, LLVMCodeModelDefault);
  if (!tm)
    ks_jit_fail(KS_ECODEGEN, "codegen: cannot create a target machine for %s",
                a->name);
  return tm;
}

/* Making a target machine costs 0.2-0.5 ms, as much as a small kernel's
 * whole optimize stage, and every compile needs one. One machine must not
 * be used by two threads at once, but is fine for one compile after
 * another, in any LLVM context: so compiles borrow from a process-wide
 * pool and give back, and concurrent compiles each get their own. A machine
 * is retired after TM_USES compiles, since NVPTX's keeps strings of each
 * compile (parameter symbols, call prototypes) for its whole life, and
 * after a failed compile, to be safe. */
enum { TM_POOL = 16, TM_USES = 256 };

typedef struct pooled {
  ks_jit_tm t;
  const ks_arch *arch;
  unsigned ptx;
} pooled;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pooled pool[TM_POOL];
static size_t npool;

ks_status ks_jit_tm_get(const ks_arch *a, unsigned ptx, ks_jit_tm *out) {
  pthread_mutex_lock(&pool_lock);
  for (size_t i = npool; i-- > 0;)
    if (pool[i].arch == a && pool[i].ptx == ptx) {
      *out = pool[i].t;
      pool[i] = pool[--npool];
      pthread_mutex_unlock(&pool_lock);
      return KS_OK;
    }
  pthread_mutex_unlock(&pool_lock);
  out->tm = ks_jit_target_machine(a, ptx);
  out->uses = 0;
  return out->tm ? KS_OK : KS_ECODEGEN;
}

void ks_jit_tm_put(const ks_arch *a, unsigned ptx, ks_jit_tm t, int reuse) {
  if (!t.tm)
    return;
  if (reuse && ++t.uses < TM_USES) {
    pthread_mutex_lock(&pool_lock);
    if (npool < TM_POOL) {
      pool[npool++] = (pooled){t, a, ptx};
      t.tm = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
  }
  if (t.tm)
    LLVMDisposeTargetMachine(t.tm);
}
