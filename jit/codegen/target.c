/*
 * target.c - LLVM's process-wide state and NVPTX target machines (the
 * architectures and PTX versions themselves are jit/arch.c's data).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Support.h>
#include <llvm-c/Target.h>

#include "jit/ks_jit.h"

/* ---- LLVM's process-wide state -------------------------------------------
 *
 * LLVM keeps its command-line options for the whole process, and in the
 * default build libkspec shares the process's libLLVM with whatever else
 * uses it (Mesa's llvmpipe, a host's own NVPTX codegen): an option kspec
 * set would change that code's compiles too (with codegen's atomic
 * expansion skipped, a host's `atomicrmw nand` cannot be selected). So the
 * options below are set only where LLVM is kspec's alone: in a process
 * that says so (ks_llvm_own_process) and in the static build, where LLVM
 * is linked into libkspec with its symbols hidden (KSPEC_LLVM_STATIC).
 * Otherwise codegen runs every pass of its own, the lower stage is skipped
 * (ks_spec.codegen_lowers) and no option is touched. Which mode a process
 * runs in is fixed when the NVPTX target is first registered (the first
 * context), since an option once parsed cannot be taken back.
 *
 * What the options buy (BENCHMARKS.md, "LLVM's options: shared and static
 * builds", has the figures): codegen's IR passes up to
 * nvptx-lower-unreachable are skipped, and the pipeline's last stage,
 * lower, does what of them a module needs (passes/lower.c): NVPTX's
 * lowering of arguments and allocas, address-space inference, atomic
 * expansion, and the straight-line passes only where a loop is left,
 * where codegen ran them on every kernel, with ScalarEvolution for every
 * address. Skipped with them: loop strength reduction (ptxas's code
 * without it is never longer over the grid, and it cost much of a looping
 * kernel's specialization), the load/store vectorizer (the optimize stage
 * runs it where two accesses could merge, ks_vectorize_worth; codegen's
 * compared every pair of loads of a block to find nothing), and the
 * optimizations of that stretch that changed no byte of PTX. Five machine
 * passes go too: the peephole optimizer, branch folding, dead machine
 * instruction elimination, stack slot coloring and early tail
 * duplication, whose work ptxas does again (the PTX changes, the SASS
 * does not). Machine CSE, LICM and sinking, CodeGenPrepare and block
 * placement change the SASS and stay. expand-variadics, which lower runs
 * where a module has variadic functions, is told to lower them, as
 * codegen's own does. Errors are ignored (an option a host already gave
 * stays as it was). */
static pthread_mutex_t llvm_lock = PTHREAD_MUTEX_INITIALIZER;
static int llvm_ready; /* NVPTX registered: llvm_own is fixed */
#ifdef KSPEC_LLVM_STATIC
static int llvm_own = 1; /* LLVM is libkspec's own, hidden */
#else
static int llvm_own;
#endif
static unsigned llvm_holders; /* live contexts */

static void set_options(void) {
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

ks_status ks_llvm_own_process(void) {
  ks_jit_clear();
  pthread_mutex_lock(&llvm_lock);
  int late = llvm_ready && !llvm_own;
  if (!late)
    llvm_own = 1;
  pthread_mutex_unlock(&llvm_lock);
  if (late)
    return ks_jit_fail(KS_EINVAL,
                       "llvm: ks_llvm_own_process after the first context: "
                       "LLVM's options stay unset in this process");
  return KS_OK;
}

void ks_jit_llvm_init(void) {
  pthread_mutex_lock(&llvm_lock);
  if (!llvm_ready) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    if (llvm_own)
      set_options();
    llvm_ready = 1;
  }
  pthread_mutex_unlock(&llvm_lock);
}

int ks_jit_llvm_options(void) {
  ks_jit_llvm_init();
  pthread_mutex_lock(&llvm_lock);
  int own = llvm_own;
  pthread_mutex_unlock(&llvm_lock);
  return own;
}

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
   * early-cse, twice, in codegen's straight-line scalar passes, which found
   * nothing the optimize stage had not (identical PTX for the specialized
   * built-in templates) at a large part of codegen's time. */
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      target, triple, a->name, features, LLVMCodeGenLevelDefault,
      LLVMRelocDefault, LLVMCodeModelDefault);
  if (!tm)
    ks_jit_fail(KS_ECODEGEN, "codegen: cannot create a target machine for %s",
                a->name);
  return tm;
}

/* Making a target machine costs as much as a small kernel's whole optimize
 * stage, and every compile needs one. One machine must not be used by two
 * threads at once, but is fine for one compile after another, in any LLVM
 * context: so compiles borrow from a pool and give back, and concurrent
 * compiles each get their own. A machine is retired after TM_USES
 * compiles, since NVPTX's keeps strings of each compile (parameter
 * symbols, call prototypes) for its whole life, and after a failed
 * compile, to be safe. The pool lives while a context does: the last
 * context destroyed empties it (ks_jit_llvm_release), as it does the pool
 * of prepared templates (template.c). */
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

/* Disposes of every pooled machine (none is lent: no context is left). */
static void tm_drain(void) {
  pooled old[TM_POOL];
  pthread_mutex_lock(&pool_lock);
  size_t n = npool;
  memcpy(old, pool, n * sizeof *old);
  npool = 0;
  pthread_mutex_unlock(&pool_lock);
  for (size_t i = 0; i < n; i++)
    LLVMDisposeTargetMachine(old[i].t.tm);
}

void ks_jit_llvm_hold(void) {
  ks_jit_llvm_init();
  pthread_mutex_lock(&llvm_lock);
  llvm_holders++;
  pthread_mutex_unlock(&llvm_lock);
}

/* The pools are emptied under llvm_lock, so that a context created
 * meanwhile starts with empty ones rather than racing the drain. */
void ks_jit_llvm_release(void) {
  pthread_mutex_lock(&llvm_lock);
  if (llvm_holders > 0 && --llvm_holders == 0) {
    tm_drain();
    ks_jit_tpl_drain();
    ks_jit_libdevice_drain();
  }
  pthread_mutex_unlock(&llvm_lock);
}

void ks_jit_llvm_pooled(size_t *machines, size_t *contexts) {
  pthread_mutex_lock(&pool_lock);
  *machines = npool;
  pthread_mutex_unlock(&pool_lock);
  *contexts = ks_jit_tpl_pooled();
}
