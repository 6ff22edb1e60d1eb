/*
 * info_globals.h - the globals part of `kspec info`.
 */
#ifndef KSPEC_INFO_GLOBALS_H
#define KSPEC_INFO_GLOBALS_H

#include <stdio.h>

#include "kspec.h"

/* Writes t's module globals to f, one line each after a "globals" line:
 * name, C type, bytes, __constant__ or __device__, whether a kernel may
 * write it and whether it has a non-zero initializer. Nothing when t has
 * none. */
void kspec_info_globals(FILE *f, const ks_template *t);

#endif /* KSPEC_INFO_GLOBALS_H */
