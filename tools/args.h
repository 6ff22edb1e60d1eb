/*
 * args.h - parsers of the tool's option values (args.c), shared by kspec.c
 * and tune.c and linked into the fuzz harness of tests/fuzz/, so that the
 * code the harness runs is the code the tool runs.
 */
#ifndef KS_TOOLS_ARGS_H
#define KS_TOOLS_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* Strict unsigned: digits only (no sign), within [lo, hi]. 1 with *out
 * set, else 0. */
int ks_arg_uint(const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *out);

/* "X[,Y[,Z]]" (',' or 'x' between), each in [1, 2^20], into block[0..2]
 * (the components not given are left alone). 1, or 0 on bad syntax or
 * text of 64 bytes or more. */
int ks_arg_block(const char *s, unsigned block[3]);

/* "ARG=V,V,...": the name into name (cap bytes, at least one character,
 * shorter than cap), the numbers into *values (malloc'd, the caller frees
 * it) and their count into *n. "ARG" alone (a global baked from its
 * initializer): *values NULL, *n 0. 1, or 0 on bad syntax (nothing
 * allocated). */
int ks_arg_bake(const char *text, char *name, size_t cap, double **values,
                size_t *n);

/* "NAME=V,V,..." of `kspec tune --sweep`: the name into name (cap bytes),
 * at most max non-negative integers into values, their count into *n.
 * 0, or -1 with the reason (without the "kspec: tune: " prefix) in why.
 * name is set as soon as the NAME part is well-formed, even when the
 * values are not (else it is left alone). */
int ks_arg_sweep(const char *arg, char *name, size_t cap, int64_t *values,
                 size_t max, size_t *n, char *why, size_t whycap);

/* A floating-point option as nvcc spells it, into the KS_FP_* bits of
 * *fp: name "ftz" (value NULL, "true", "false", "1" or "0"), "prec-div"
 * and "prec-sqrt" (the same values, required; 0 or false: approximate),
 * "fast-math" or "use_fast_math" (no value). 1, or 0 for a value it does
 * not know. */
int ks_arg_fp(const char *name, const char *value, unsigned *fp);

#endif /* KS_TOOLS_ARGS_H */
