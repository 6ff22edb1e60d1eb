/*
 * fuzz_main.c - libFuzzer's entry points for the kspec harnesses.
 *
 * kspec-fuzz holds every target; KSPEC_FUZZ_TARGET names the one to run
 * (a missing or unknown name is an error that lists them), so that one
 * binary carries all of them to another machine. A fuzz_NAME binary is
 * built with KS_FUZZ_ONLY=ks_fuzz_NAME and runs that target alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#ifdef KS_FUZZ_ONLY
static const ks_fuzz_target *const targets[] = {&KS_FUZZ_ONLY};
#else
static const ks_fuzz_target *const targets[] = {&ks_fuzz_template,
                                                &ks_fuzz_args, &ks_fuzz_entry};
#endif
enum { NTARGETS = sizeof targets / sizeof targets[0] };

static const ks_fuzz_target *chosen;

_Noreturn void ks_fuzz_fail(const char *file, int line, const char *what) {
  fprintf(stderr, "kspec-fuzz: %s:%d: property failed: %s\n", file, line, what);
  abort();
}

char *ks_fuzz_text(const uint8_t *data, size_t n) {
  char *s = malloc(n + 1);
  if (!s)
    abort();
  if (n)
    memcpy(s, data, n);
  s[n] = '\0';
  return s;
}

static _Noreturn void no_target(const char *name) {
  if (name)
    fprintf(stderr, "kspec-fuzz: KSPEC_FUZZ_TARGET=%s is not a target\n", name);
  else
    fprintf(stderr, "kspec-fuzz: set KSPEC_FUZZ_TARGET to the target\n");
  fprintf(stderr, "targets:\n");
  for (size_t i = 0; i < NTARGETS; i++)
    fprintf(stderr, "  %-10s %s\n", targets[i]->name, targets[i]->what);
  exit(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *name = getenv("KSPEC_FUZZ_TARGET");
  if (!name && NTARGETS == 1) {
    chosen = targets[0];
  } else {
    for (size_t i = 0; name && i < NTARGETS; i++)
      if (strcmp(targets[i]->name, name) == 0)
        chosen = targets[i];
    if (!chosen)
      no_target(name);
  }
  /* Nothing outside the process: no cache directory, no record file. */
  setenv("KSPEC_CACHE", "off", 1);
  unsetenv("KSPEC_RECORD");
  if (chosen->init)
    chosen->init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return chosen->run(data, size);
}
