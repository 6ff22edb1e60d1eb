/*
 * fuzz.h - the libFuzzer harnesses of kspec (tests/fuzz/fuzz_*.c): one
 * table entry per target, chosen in fuzz_main.c by KSPEC_FUZZ_TARGET (the
 * kspec-fuzz binary holds them all) or fixed at build time (fuzz_NAME).
 */
#ifndef KS_FUZZ_H
#define KS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

typedef struct ks_fuzz_target {
  const char *name; /* KSPEC_FUZZ_TARGET's value */
  const char *what; /* one line, for the list of targets */
  void (*init)(void);
  int (*run)(const uint8_t *data, size_t size);
} ks_fuzz_target;

extern const ks_fuzz_target ks_fuzz_template, ks_fuzz_args, ks_fuzz_entry;

/* A property the code under test broke: prints what and where, then
 * aborts, which libFuzzer reports as a crash with its reproducer. */
_Noreturn void ks_fuzz_fail(const char *file, int line, const char *what);
#define KS_FUZZ_CHECK(cond)                                                    \
  ((cond) ? (void)0 : ks_fuzz_fail(__FILE__, __LINE__, #cond))

/* A NUL-terminated, malloc'd copy of n bytes (NULs inside stay: the text
 * then ends at the first). Aborts when out of memory. */
char *ks_fuzz_text(const uint8_t *data, size_t n);

#endif /* KS_FUZZ_H */
