/*
 * smem_promote.c - the shared-memory promotion stage: atomic privatization
 * (smem_atomics.c), window staging (smem_window.c), store exchange
 * (smem_store.c), then private arrays out of local memory (smem_atomics.c).
 */
#include "passes/ks_passes.h"

int ks_pass_smem_promote(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  return ks_smem_size(m, s, d) || ks_smem_atomics(m, s, d) ||
         ks_smem_window(m, s, d) || ks_smem_store(m, s, d) ||
         ks_smem_local(m, s, d);
}
