/*
 * const_promote.c - under construction: transforms nothing yet.
 */
#include "passes/ks_passes.h"

int ks_pass_const_promote(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  (void)m;
  (void)s;
  (void)d;
  return 0;
}
