/*
 * ks_passes.h - internal interface of passes/: kspec's own LLVM passes and
 * the pipeline that runs them with LLVM's. Plain C over LLVMModuleRef; knows
 * nothing of CUDA. Every pass has the signature
 *
 *   int ks_pass_NAME(LLVMModuleRef m, const ks_spec *s, ks_diag *d);
 *
 * returning 0 on success and non-zero with d filled on failure.
 */
#ifndef KS_PASSES_H
#define KS_PASSES_H

#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "kspec.h"

/* One value to fold: argument arg_index of the kernel becomes a constant. */
typedef struct ks_spec_value {
  unsigned arg_index;
  ks_type type;
  int64_t i; /* integer types */
  double f;  /* floating types */
} ks_spec_value;

/* Everything that specializes a module. */
typedef struct ks_spec {
  const char *kernel; /* the kernel's symbol */
  const ks_spec_value *values;
  size_t nvalues;
  unsigned block[3]; /* 0: not fixed */
  unsigned maxntid, minctasm, maxnreg;
  const char *cpu;        /* "sm_90" */
  const char *features;   /* "+ptx85,+sm_90" */
  const char *dump_stage; /* keep the IR after this stage; NULL: none */
} ks_spec;

typedef struct ks_diag {
  ks_status status;
  char msg[1024];
  char *dump; /* malloc'd IR text after spec->dump_stage, or NULL */
} ks_diag;

/* Records a failure on d; returns 1 so passes can `return ks_diag_fail()`. */
int ks_diag_fail(ks_diag *d, ks_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- bind.c ------------------------------------------------------------ */

/* Folds bound arguments and the block size of spec->kernel into constants,
 * adds the launch-bound annotations (reqntid/maxntid/minctasm/maxnreg) and
 * retargets every function to spec->cpu/features. */
int ks_pass_bind(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- loops.c ----------------------------------------------------------- */

/* Marks every loop of spec->kernel llvm.loop.unroll.full, so that loops
 * whose trip count binding made constant unroll fully. */
int ks_pass_loops(LLVMModuleRef m, const ks_spec *s, ks_diag *d);

/* ---- pipeline.c -------------------------------------------------------- */

/* Stage names, in pipeline order. */
size_t ks_pipeline_stage_count(void);
const char *ks_pipeline_stage_name(size_t i);
/* Version of the pipeline, part of every cache key; bump on any change that
 * can alter generated code. */
#define KS_PIPELINE_VERSION 3

/* Runs every stage on m (the kernel's whole module) with tm's target. */
int ks_pipeline_run(LLVMModuleRef m, LLVMTargetMachineRef tm, const ks_spec *s,
                    ks_diag *d);

#endif /* KS_PASSES_H */
