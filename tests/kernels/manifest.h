/*
 * manifest.h - the kernel corpus's MANIFEST (tests/kernels/MANIFEST, format
 * in its header and in CORPUS.md): parsing, the inputs a case's arguments
 * get from a fixed seed, and comparing outputs. Shared by the CPU test
 * (test_kernels.c) and the GPU harness (tests/gpu/test_gpu_corpus.c).
 * Plain C over host memory: nothing here opens a driver.
 */
#ifndef KS_TEST_MANIFEST_H
#define KS_TEST_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "kspec.h"

enum { KM_MAX_ARGS = 16, KM_MAX_GLOBALS = 4, KM_NAME = 64, KM_TEXT = 256 };

typedef enum km_type {
  KM_I8,
  KM_U8,
  KM_I16,
  KM_U16,
  KM_I32,
  KM_U32,
  KM_I64,
  KM_U64,
  KM_F16,
  KM_F32,
  KM_F64
} km_type;

typedef enum km_kind {
  KM_IN,     /* in:T[N] or in:T[N]:LO:HI: random input */
  KM_OUT,    /* out:T[N]: poisoned before, compared after */
  KM_IO,     /* io:T[N]: random input, compared after */
  KM_ZERO,   /* zero:T[N]: zeroed before, compared after */
  KM_SCALAR, /* T=V */
  KM_TEX2D,  /* tex2d:T:W:H: a texture object over a random W x H array */
  KM_SURF2D, /* surf2d:T:W:H: a surface object, compared after */
  KM_TEX1D   /* tex1d:T[N][:LO:HI]: a texture object over a random linear
                buffer of N elements (tex1Dfetch) */
} km_kind;

typedef struct km_arg {
  km_kind kind;
  km_type type;
  size_t n;           /* elements (W * H for tex2d and surf2d) */
  unsigned w, h;      /* tex2d, surf2d */
  int ranged;         /* in: LO:HI given */
  double lo, hi;      /* in: the range (default: floats [-1,1), ints [0,100)) */
  int64_t i;          /* scalar value, integers */
  double f;           /* scalar value, floats */
  char text[KM_NAME]; /* the word as written, for messages */
} km_arg;

typedef struct km_global {
  int set; /* 1: gset (random data written before); 0: gget */
  char name[KM_NAME];
  km_type type;
  size_t n;
  int ranged; /* gset:NAME:T[N]:LO:HI */
  double lo, hi;
} km_global;

typedef struct km_case {
  char name[KM_NAME];
  char file[KM_NAME]; /* the .cu's file name, "transpose.cu" */
  char kernel[KM_TEXT];
  unsigned grid[3];
  int grid_coresident; /* grid=coresident */
  unsigned block[3];
  unsigned smem;
  int coop;
  double tol;
  char bind[KM_TEXT]; /* "all", "none" or a list "@2,n" */
  int reps;           /* 0: the harness's default */
  km_arg args[KM_MAX_ARGS];
  size_t nargs;
  km_global globals[KM_MAX_GLOBALS];
  size_t nglobals;
  int line; /* in MANIFEST, for messages */
} km_case;

/* Reads every case of the MANIFEST at path into *cases (malloc'ed, *n of
 * them; free with free()). On a bad line or a duplicate case name returns
 * -1 with "MANIFEST:LINE: what" in err; 0 on success. */
int km_load(const char *path, km_case **cases, size_t *n, char *err,
            size_t cap);

/* Parses one line. Returns 1 (a case in *c), 0 (blank or comment) or -1
 * (err says what was wrong). */
int km_parse_line(const char *line, km_case *c, char *err, size_t cap);

size_t km_type_size(km_type t);
const char *km_type_name(km_type t);
int km_type_float(km_type t);

/* Bytes of a buffer argument or global (n elements of its type). */
size_t km_arg_bytes(const km_arg *a);

/* Fills n elements of type t at dst with the random input rule of CORPUS.md
 * (ranged: [lo, hi)), from *seed (advanced). */
void km_fill(void *dst, km_type t, size_t n, int ranged, double lo, double hi,
             uint64_t *seed);

/* Writes scalar argument a's value in its type (km_type_size bytes) to dst. */
void km_scalar_bytes(const km_arg *a, void *dst);

/* For a u32 scalar above INT32_MAX: the signed value of the same bits
 * into *v, 1. Else 0. (clang marks unsigned i8 and i16 arguments zeroext
 * but not i32, so kspec sees an unsigned int as a signed i32: such a value
 * is out of its range, its bits are not.) */
int km_wrap_signed(const km_arg *a, int64_t *v);

/* Compares n elements of type t: integers exactly, floats within
 * |a - b| <= tol * max(|a|, |b|) + tol; equal bit patterns (the same NaN)
 * match. Returns the number of mismatches, the first at *first (an index)
 * with the two values as text in what. */
size_t km_compare(const void *want, const void *got, km_type t, size_t n,
                  double tol, size_t *first, char *what, size_t cap);

/* Whether argument index i (a scalar) is bound by the case's bind= (all:
 * every scalar; none: nothing; else "@i" or the name given, names[i] being
 * the argument's name in the IR or NULL). */
int km_binds(const km_case *c, size_t i, const char *const *names);

/* The name to put in ks_spec_req.kernel for the case's KERNEL in t: KERNEL
 * itself where kspec selects kernels by demangled name
 * (KS_HAVE_KERNEL_DISPLAY), else the symbol of the one kernel whose demangled
 * name (without "void " and spaces) is KERNEL, with or without its argument
 * list, or starts with KERNEL followed by '<'. NULL when none or several match
 * (why says which). */
const char *km_kernel_symbol(const ks_template *t, const char *kernel,
                             char *why, size_t cap);

#endif
