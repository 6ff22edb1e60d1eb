/*
 * info_globals.c - the globals part of `kspec info`: what a user may set
 * (ks_kernel_global_write) or bake (--bake NAME) before running a kernel.
 */
#include "info_globals.h"

void kspec_info_globals(FILE *f, const ks_template *t) {
  size_t n = ks_template_global_count(t);
  if (!n)
    return;
  fprintf(f, "globals\n");
  for (size_t i = 0; i < n; i++) {
    ks_global_info g = {.size = sizeof g};
    if (ks_template_global(t, i, &g) != KS_OK)
      continue;
    fprintf(f, "  %-12s %-12s %6zu bytes  %s (%s%s)\n", g.name,
            g.constant ? "__constant__" : "__device__", g.bytes, g.type,
            g.written ? "written by a kernel" : "read-only",
            g.has_init ? ", initialized" : "");
  }
}
