/*
 * smem_promote.c - the shared-memory promotion stage: shared-array sizing
 * (smem_size.c), atomic privatization (smem_atomics.c), window staging
 * (smem_window.c), store exchange (smem_store.c), then private arrays out
 * of local memory (smem_local.c).
 */
#include "passes/smem_atomics.h"

int ks_pass_smem_promote(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  return ks_smem_size(m, s, d) || ks_smem_atomics(m, s, d) ||
         ks_smem_window(m, s, d) || ks_smem_store(m, s, d) ||
         ks_smem_local(m, s, d);
}
