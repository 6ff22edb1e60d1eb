/*
 * kspec.c - the command-line tool.
 *
 *   kspec list
 *   kspec info TEMPLATE
 *   kspec ptx  TEMPLATE [-D NAME=VALUE]... [--kernel K] [--arch sm_XX]
 *              [--block X[,Y[,Z]]] [--maxntid N] [--minctasm N]
 *              [--maxnreg N] [-o FILE]
 *   kspec ir   TEMPLATE ... [--stage NAME]
 *   kspec explain TEMPLATE ...
 *   kspec run  TEMPLATE ... [--size N] [--reps N] [--seed S] [--compare]
 *   kspec cache stats|verify|clear|path
 *   kspec prewarm FILE [--arch sm_XX] [-j N]                 (prewarm.c)
 *   kspec stats TEMPLATE ... [--smem N] [--no-driver] [--json]  (stats.c)
 *   kspec tune TEMPLATE --sweep NAME=V,V,... | --show           (tune.c)
 *
 * Every specializing command also takes [--no-pass NAME]... and
 * [--bake ARG=V,V,...]...; ptx, explain and run take --why-miss.
 *
 * Exit status: 0 success, 1 failure, 2 bad usage. Errors are one line on
 * stderr: "kspec: STAGE: what was wrong".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "info_globals.h"
#include "kspec.h"
#include "prewarm.h"
#include "stats.h"
#include "tune.h"
#include "workloads.h"

enum { EXIT_USAGE = 2, MAX_DEFS = 64, MAX_NO_PASS = 16, MAX_BAKES = 16 };

/* Everything the subcommands take from the command line. */
typedef struct options {
  const char *tmpl;
  const char *kernel;
  const char *arch;
  const char *out;
  const char *stage;
  ks_binding defs[MAX_DEFS];
  char def_names[MAX_DEFS][64];
  size_t ndefs;
  ks_launch_bounds bounds;
  const char *no_pass[MAX_NO_PASS];
  size_t nno_pass;
  const char *tex[MAX_NO_PASS];
  size_t ntex;
  ks_bake bakes[MAX_BAKES]; /* values malloc'd, freed by options_free */
  char bake_names[MAX_BAKES][64];
  size_t nbakes;
  unsigned ptx_isa;
  size_t size;
  unsigned reps;
  unsigned long long seed;
  int compare;
  int why_miss;
  int smem_spill;
  unsigned fp; /* KS_FP_* */
} options;

static const char usage_text[] =
    "usage: kspec COMMAND [ARGS]\n"
    "\n"
    "Specializes GPU kernel templates (LLVM IR) on run-time values and emits\n"
    "PTX for NVIDIA GPUs.\n"
    "\n"
    "commands:\n"
    "  list                 the built-in templates\n"
    "  info TEMPLATE        kernels and scalar arguments (type, range, "
    "default)\n"
    "  ptx TEMPLATE [OPT]   specialize and print the PTX\n"
    "  ir TEMPLATE [OPT]    specialize and print the IR after a stage\n"
    "  explain TEMPLATE [OPT]\n"
    "                       specialize and say what every pass did or\n"
    "                       declined, and why\n"
    "  run TEMPLATE [OPT]   on a GPU: random input, run, check against a CPU\n"
    "                       reference, print the time\n"
    "  cache stats|verify|clear|path\n"
    "                       the disk cache of compiled kernels\n"
    "  prewarm FILE [-j N]  compile the requests a program recorded with\n"
    "                       KSPEC_RECORD=FILE into the disk cache\n"
    "  stats TEMPLATE [OPT] registers, spills, stack, shared and constant\n"
    "                       memory (ptxas; the driver on a GPU), occupancy\n"
    "                       and what limits it; --json for scripts\n"
    "  tune TEMPLATE --sweep NAME=V,V,...\n"
    "                       on a GPU: sweep launch bounds and values, keep\n"
    "                       the fastest beyond the noise, store it (--show)\n"
    "\n"
    "TEMPLATE is a built-in name or a .ll/.bc file of NVPTX IR.\n"
    "`kspec COMMAND --help` describes each command's options.\n";

static const char spec_opts_text[] =
    "  -D NAME=VALUE      bind a scalar argument, marked or not (repeatable);\n"
    "  -D @N=VALUE        by position, from 0; unbound ones stay arguments\n"
    "  --kernel K         the kernel (needed when the template has several):\n"
    "                     symbol, C++ name (scale<float,4>) or its prefix\n"
    "  --arch sm_XX       target (default: the GPU's, else sm_90)\n"
    "  --ptx-isa N        PTX ISA x10, e.g. 85 (default: the highest the\n"
    "                     driver accepts); 90 loads as 9.0 (--smem-spill)\n"
    "  --block X[,Y[,Z]]  fix the block size (folded, emitted as .reqntid)\n"
    "  --maxntid N        .maxntid N\n"
    "  --minctasm N       .minnctapersm N\n"
    "  --maxnreg N        .maxnreg N\n"
    "  --no-pass NAME     switch an optional pass off (repeatable):\n"
    "                     %s\n"
    "  --smem-spill       let ptxas spill registers to shared memory first\n"
    "                     (PTX ISA 9.0, CUDA 13 driver; needs --block or\n"
    "                     --maxntid, no dynamic shared memory)\n"
    "  --ftz[=true|false], --prec-div=0|1, --prec-sqrt=0|1, --fast-math\n"
    "                     floating-point modes as nvcc's (default: no\n"
    "                     flush to zero, IEEE division and sqrt): the\n"
    "                     kernel's own f32 arithmetic and libdevice's math\n"
    "  --tex ARG          every sampling of array ARG (ks_sample1d/2d/3d) by\n"
    "                     a hardware texture fetch (repeatable); the texture\n"
    "                     object made by the launch from its arguments (3-D:\n"
    "                     over a copy of the array each launch makes)\n"
    "  --bake ARG=V,V,... the contents of read-only buffer ARG are known:\n"
    "                     its loads become immediates (repeatable); launch\n"
    "                     with exactly these values in ARG. ARG may be a\n"
    "                     module global the kernel only reads (kspec info):\n"
    "                     all its values, or none (--bake ARG) to bake its\n"
    "                     initializer\n"
    "  --why-miss         (ptx, explain, run) say on stderr whether the disk\n"
    "                     cache has the kernel, and if not, how the request\n"
    "                     differs from the nearest entry\n"
    "  -h, --help         this text\n";

/* spec_opts_text with the optional passes filled in. */
static const char *spec_opts(void) {
  static char text[sizeof spec_opts_text + 256];
  char names[256] = "";
  size_t used = 0;
  for (size_t i = 0; i < ks_stage_count(); i++)
    if (ks_stage_optional(i) && used < sizeof names - 1)
      used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                               used ? ", " : "", ks_stage_name(i));
  snprintf(text, sizeof text, spec_opts_text, used ? names : "(none)");
  return text;
}

static void usage_for(const char *cmd, FILE *f) {
  if (!cmd) {
    fputs(usage_text, f);
    return;
  }
  if (strcmp(cmd, "list") == 0) {
    fputs("usage: kspec list\n\nPrints the built-in templates.\n", f);
  } else if (strcmp(cmd, "info") == 0) {
    fputs("usage: kspec info TEMPLATE\n\nPrints the kernels of TEMPLATE "
          "(C++ ones demangled, with their symbol)\nand every scalar "
          "argument: position, name, type, valid range; for those\nmarked "
          "KS_PARAM, default and launch constraints. Then its module\n"
          "globals (__constant__ and __device__ variables): type, size, "
          "whether a\nkernel writes it.\n",
          f);
  } else if (strcmp(cmd, "ptx") == 0) {
    fprintf(f,
            "usage: kspec ptx TEMPLATE [options]\n\nSpecializes and "
            "prints the PTX.\n\noptions:\n%s"
            "  -o FILE            write to FILE instead of stdout\n",
            spec_opts());
  } else if (strcmp(cmd, "explain") == 0) {
    fprintf(f,
            "usage: kspec explain TEMPLATE [options]\n\nSpecializes and "
            "prints, one line each, what every pass did (buffers\n"
            "promoted, shared memory used) or declined and why, then the "
            "static shared\nmemory and the compile time.\n\noptions:\n%s",
            spec_opts());
  } else if (strcmp(cmd, "ir") == 0) {
    fprintf(f,
            "usage: kspec ir TEMPLATE [options]\n\nSpecializes and "
            "prints the LLVM IR after a pipeline stage.\n\noptions:\n%s"
            "  --stage NAME       the stage (default: the last); one of:\n"
            "                    ",
            spec_opts());
    for (size_t i = 0; i < ks_stage_count(); i++)
      fprintf(f, " %s", ks_stage_name(i));
    fputs("\n  -o FILE            write to FILE instead of stdout\n", f);
  } else if (strcmp(cmd, "run") == 0) {
    fprintf(f,
            "usage: kspec run TEMPLATE [options]\n\nOn a GPU: fills the "
            "inputs with random data, runs the kernel (specialized\non "
            "the -D values; generic when none), checks the output against "
            "a CPU\nreference and prints the median time.\n\noptions:\n%s"
            "  --size N           problem size (elements, or matrix side)\n"
            "  --reps N           timed launches (default 20)\n"
            "  --seed S           random seed (default: from the clock)\n"
            "  --compare          also run the generic kernel\n",
            spec_opts());
  } else if (strcmp(cmd, "cache") == 0) {
    fputs("usage: kspec cache stats|verify|clear|path\n\n"
          "The disk cache of compiled kernels, shared by the processes of a "
          "user:\n$KSPEC_CACHE_DIR, else $XDG_CACHE_HOME/kspec, else "
          "~/.cache/kspec.\n\n"
          "  stats   its directory, entries, bytes and size limit\n"
          "          ($KSPEC_CACHE_MAX, default 256M)\n"
          "  verify  check every entry; remove the damaged ones\n"
          "  clear   remove every entry\n"
          "  path    print the directory\n",
          f);
  }
}

static int fail(const char *what) {
  fprintf(stderr, "kspec: %s\n", what);
  return EXIT_FAILURE;
}

/* Says what went wrong without stopping the command (a refused cache
 * directory, say), once, on stderr. */
static void warnings(const ks_ctx *ctx) {
  const char *w = ks_ctx_warning(ctx);
  if (w[0])
    fprintf(stderr, "kspec: warning: %s\n", w);
}

/* One line on stderr, the hint included, and the usage status. */
static int bad_usage(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "kspec: ");
  fprintf(stderr, fmt, arg);
  if (cmd)
    fprintf(stderr, " (try `kspec %s --help`)\n", cmd);
  else
    fprintf(stderr, " (try `kspec --help`)\n");
  return EXIT_USAGE;
}

enum {
  OPT_KERNEL = 256,
  OPT_ARCH,
  OPT_BLOCK,
  OPT_MAXNTID,
  OPT_MINCTASM,
  OPT_MAXNREG,
  OPT_STAGE,
  OPT_SIZE,
  OPT_REPS,
  OPT_SEED,
  OPT_COMPARE,
  OPT_PTXISA,
  OPT_NO_PASS,
  OPT_BAKE,
  OPT_WHY_MISS,
  OPT_SMEM_SPILL,
  OPT_FTZ,
  OPT_PREC_DIV,
  OPT_PREC_SQRT,
  OPT_FAST_MATH,
  OPT_TEX,
};

static const struct option long_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {"kernel", required_argument, NULL, OPT_KERNEL},
    {"arch", required_argument, NULL, OPT_ARCH},
    {"ptx-isa", required_argument, NULL, OPT_PTXISA},
    {"block", required_argument, NULL, OPT_BLOCK},
    {"maxntid", required_argument, NULL, OPT_MAXNTID},
    {"minctasm", required_argument, NULL, OPT_MINCTASM},
    {"maxnreg", required_argument, NULL, OPT_MAXNREG},
    {"stage", required_argument, NULL, OPT_STAGE},
    {"size", required_argument, NULL, OPT_SIZE},
    {"reps", required_argument, NULL, OPT_REPS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"compare", no_argument, NULL, OPT_COMPARE},
    {"output", required_argument, NULL, 'o'},
    {"no-pass", required_argument, NULL, OPT_NO_PASS},
    {"bake", required_argument, NULL, OPT_BAKE},
    {"why-miss", no_argument, NULL, OPT_WHY_MISS},
    {"smem-spill", no_argument, NULL, OPT_SMEM_SPILL},
    {"ftz", optional_argument, NULL, OPT_FTZ},
    {"prec-div", required_argument, NULL, OPT_PREC_DIV},
    {"prec-sqrt", required_argument, NULL, OPT_PREC_SQRT},
    {"fast-math", no_argument, NULL, OPT_FAST_MATH},
    {"use_fast_math", no_argument, NULL, OPT_FAST_MATH},
    {"tex", required_argument, NULL, OPT_TEX},
    {NULL, 0, NULL, 0},
};

/* The long name of option c, for messages. */
static const char *opt_name(int c) {
  for (const struct option *o = long_opts; o->name; o++)
    if (o->val == c)
      return o->name;
  return "?";
}

/* "ARG=V,V,..." into o->bakes; 0 on bad syntax. */
static int parse_bake(const char *text, options *o) {
  double *v = NULL;
  size_t count = 0;
  char *name = o->bake_names[o->nbakes];
  if (!ks_arg_bake(text, name, sizeof o->bake_names[0], &v, &count))
    return 0;
  o->bakes[o->nbakes++] = (ks_bake){.arg = name, .values = v, .n = count};
  return 1;
}

static void options_free(options *o) {
  for (size_t i = 0; i < o->nbakes; i++)
    free((void *)o->bakes[i].values);
  o->nbakes = 0;
}

/* One option into o; returns 0, or the exit status to stop with. */
static int take_option(const char *cmd, int c, options *o) {
  unsigned long long v = 0;
  switch (c) {
  case 'D':
    if (o->ndefs == MAX_DEFS)
      return bad_usage(cmd, "too many -D options%s", "");
    if (ks_binding_parse(optarg, &o->defs[o->ndefs], o->def_names[o->ndefs],
                         sizeof o->def_names[0]) != KS_OK)
      return bad_usage(cmd, "-D '%s': want NAME=VALUE", optarg);
    o->ndefs++;
    return 0;
  case 'o':
    o->out = optarg;
    return 0;
  case OPT_KERNEL:
    o->kernel = optarg;
    return 0;
  case OPT_ARCH:
    o->arch = optarg;
    return 0;
  case OPT_STAGE:
    o->stage = optarg;
    return 0;
  case OPT_COMPARE:
    o->compare = 1;
    return 0;
  case OPT_WHY_MISS:
    o->why_miss = 1;
    return 0;
  case OPT_SMEM_SPILL:
    o->smem_spill = 1;
    return 0;
  case OPT_FTZ:
  case OPT_PREC_DIV:
  case OPT_PREC_SQRT:
  case OPT_FAST_MATH:
    if (!ks_arg_fp(opt_name(c), optarg, &o->fp)) {
      char what[160];
      snprintf(what, sizeof what, "--%s=%.64s: want %s", opt_name(c), optarg,
               c == OPT_FTZ ? "true or false (1 or 0)"
                            : "0 or 1 (or false, true)");
      return bad_usage(cmd, "%s", what);
    }
    return 0;
  case OPT_NO_PASS:
    if (o->nno_pass == MAX_NO_PASS)
      return bad_usage(cmd, "too many --no-pass options%s", "");
    o->no_pass[o->nno_pass++] = optarg;
    return 0;
  case OPT_TEX:
    if (o->ntex == MAX_NO_PASS)
      return bad_usage(cmd, "too many --tex options%s", "");
    o->tex[o->ntex++] = optarg;
    return 0;
  case OPT_BAKE:
    if (o->nbakes == MAX_BAKES)
      return bad_usage(cmd, "too many --bake options%s", "");
    return parse_bake(optarg, o)
               ? 0
               : bad_usage(cmd, "--bake '%s': want ARG=NUMBER[,NUMBER]...",
                           optarg);
  case OPT_BLOCK:
    return ks_arg_block(optarg, o->bounds.block)
               ? 0
               : bad_usage(cmd, "--block '%s': want X[,Y[,Z]]", optarg);
  }
  int bound = c == OPT_MAXNTID || c == OPT_MINCTASM || c == OPT_MAXNREG;
  if (!ks_arg_uint(optarg, bound, UINT32_MAX, &v)) {
    char what[160];
    snprintf(what, sizeof what, "--%s '%%s': want a %s integer%s", opt_name(c),
             bound ? "positive" : "non-negative",
             bound ? " (leave the option out for no bound)" : "");
    return bad_usage(cmd, what, optarg);
  }
  switch (c) {
  case OPT_MAXNTID:
    o->bounds.maxntid = (unsigned)v;
    break;
  case OPT_MINCTASM:
    o->bounds.minctasm = (unsigned)v;
    break;
  case OPT_MAXNREG:
    o->bounds.maxnreg = (unsigned)v;
    break;
  case OPT_PTXISA:
    o->ptx_isa = (unsigned)v;
    break;
  case OPT_SIZE:
    o->size = (size_t)v;
    break;
  case OPT_REPS:
    o->reps = (unsigned)v;
    break;
  case OPT_SEED:
    o->seed = v;
    break;
  }
  return 0;
}

/* Parses argv after the command name; returns -1 to go on, else an exit
 * status. */
static int parse_args(const char *cmd, int argc, char **argv, options *o) {
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hD:o:", long_opts, NULL)) != -1) {
    if (c == 'h') {
      usage_for(cmd, stdout);
      return EXIT_SUCCESS;
    }
    if (c == '?')
      return bad_usage(cmd, "unknown option '%s'", argv[optind - 1]);
    if (c == ':')
      return bad_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
    int rc = take_option(cmd, c, o);
    if (rc)
      return rc;
  }
  int need = strcmp(cmd, "list") != 0;
  if (argc - optind != need)
    return bad_usage(
        cmd, need ? "expected one TEMPLATE%s" : "unexpected argument%s", "");
  o->tmpl = need ? argv[optind] : NULL;
  return -1;
}

static int cmd_list(void) {
  ks_ctx_opts co = {.arch = "sm_90", .no_driver = 1};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  for (size_t i = 0; i < ks_builtin_count(); i++) {
    ks_template *t = NULL;
    if (ks_template_load(ctx, ks_builtin_name(i), &t) != KS_OK) {
      int rc = fail(ks_errmsg(ctx));
      ks_ctx_destroy(ctx);
      return rc;
    }
    printf("%-16s %s\n", ks_builtin_name(i), ks_template_kernel_doc(t, 0));
    ks_template_destroy(t);
  }
  ks_ctx_destroy(ctx);
  return EXIT_SUCCESS;
}

/* "int32", "uint8", ...: the type as the range reads it. */
static void type_text(const ks_param_info *p, char *buf, size_t cap) {
  const char *t = ks_type_name(p->type);
  int u = p->is_unsigned && strncmp(t, "int", 3) == 0;
  snprintf(buf, cap, "%s%s", u ? "u" : "", t);
}

/* An unmarked parameter's range: an integer's exactly (a double rounds
 * 2^63 - 1 up), a real's to the digit. */
static const char *range_text(const ks_param_info *p, char *buf, size_t cap) {
  unsigned bits = p->type == KS_TYPE_BOOL  ? 1
                  : p->type == KS_TYPE_I8  ? 8
                  : p->type == KS_TYPE_I16 ? 16
                  : p->type == KS_TYPE_I32 ? 32
                  : p->type == KS_TYPE_I64 ? 64
                                           : 0;
  unsigned long long top = bits == 64 ? ~0ull : (1ull << bits) - 1;
  if (bits && (p->is_unsigned || bits == 1))
    snprintf(buf, cap, "[0, %llu]", top);
  else if (bits) /* of unknown signedness: either reading's values */
    snprintf(buf, cap, "[%lld, %llu]", -(long long)(top >> 1) - 1,
             p->sign_unknown ? top : top >> 1);
  else
    snprintf(buf, cap, "[%.17g, %.17g]", p->min, p->max);
  return buf;
}

static void print_param(const ks_param_info *p) {
  char ty[16], pos[16], r[96];
  type_text(p, ty, sizeof ty);
  snprintf(pos, sizeof pos, "@%u", p->arg_index);
  printf("  %-4s %-12s %-6s", pos, p->name[0] == '@' ? "-" : p->name, ty);
  if (p->marked)
    printf(" default %-6.15g range [%.15g, %.15g]%s\n", p->def, p->min, p->max,
           (p->flags & KS_PARAM_BLOCK_Y)   ? "  (fixes block x and y)"
           : (p->flags & KS_PARAM_BLOCK_X) ? "  (fixes block x)"
                                           : "");
  else
    printf(" range %s  (unmarked: no default%s)\n", range_text(p, r, sizeof r),
           p->sign_unknown ? "; signedness unknown: signed or unsigned" : "");
}

/* The kernel's name (demangled with its symbol for C++), doc and every
 * scalar argument in the order of the arguments. */
static void print_kernel(const ks_template *t, size_t k) {
  const char *sym = ks_template_kernel_name(t, k);
  const char *shown = ks_template_kernel_display(t, k);
  printf("kernel %s\n", shown);
  if (strcmp(shown, sym) != 0)
    printf("  symbol %s\n", sym);
  if (ks_template_kernel_doc(t, k)[0])
    printf("  %s\n", ks_template_kernel_doc(t, k));
  if (ks_template_kernel_cooperative(t, k))
    printf("  cooperative: synchronizes the grid; launched cooperatively, "
           "at most the blocks that can be resident at once\n");
  size_t n = ks_template_param_count(t, k);
  if (n == 0)
    printf("  no parameters (launch bounds only)\n");
  unsigned last = 0;
  for (size_t done = 0; done < n; done++) {
    ks_param_info p = {.size = sizeof p}, best = {.arg_index = ~0u};
    for (size_t i = 0; i < n; i++)
      if (ks_template_param(t, k, i, &p) == KS_OK &&
          (done == 0 || p.arg_index > last) && p.arg_index < best.arg_index)
        best = p;
    print_param(&best);
    last = best.arg_index;
  }
}

static int cmd_info(const options *o) {
  ks_ctx_opts co = {.arch = "sm_90", .no_driver = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  if (ks_template_load(ctx, o->tmpl, &t) != KS_OK) {
    int rc = fail(ks_errmsg(ctx));
    ks_ctx_destroy(ctx);
    return rc;
  }
  printf("template %s\n", ks_template_name(t));
  for (size_t k = 0; k < ks_template_kernel_count(t); k++)
    print_kernel(t, k);
  kspec_info_globals(stdout, t);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return EXIT_SUCCESS;
}

/* --why-miss: one line on stderr, before specializing (a bad request says
 * nothing here: ks_specialize then reports it). */
static void why_miss(ks_ctx *ctx, const ks_template *t,
                     const ks_spec_req *req) {
  char text[1200];
  if (ks_cache_why_miss(ctx, t, req, text, sizeof text) == KS_OK)
    fprintf(stderr, "kspec: cache: %s\n", text);
  else if (!ks_cache_dir(ctx))
    fprintf(stderr, "kspec: cache: no disk cache: %s\n", ks_errmsg(ctx));
}

static int write_text(const char *path, const char *text, size_t len) {
  FILE *f = path ? fopen(path, "w") : stdout;
  if (!f) {
    fprintf(stderr, "kspec: output: %s: %s\n", path, strerror(errno));
    return EXIT_FAILURE;
  }
  int bad = fwrite(text, 1, len, f) != len;
  bad |= path ? fclose(f) != 0 : fflush(f) != 0;
  if (bad) {
    fprintf(stderr, "kspec: output: %s: write failed\n",
            path ? path : "stdout");
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}

/* The specialization the command line asks for. */
static ks_spec_req request_of(const options *o) {
  return (ks_spec_req){.kernel = o->kernel,
                       .bindings = o->defs,
                       .nbindings = o->ndefs,
                       .bounds = o->bounds,
                       .no_pass = o->no_pass,
                       .nno_pass = o->nno_pass,
                       .bakes = o->bakes,
                       .nbakes = o->nbakes,
                       .smem_spill = o->smem_spill,
                       .fp = o->fp,
                       .tex = o->tex,
                       .ntex = o->ntex};
}

/* ptx and ir: specialize once and print. */
/* What a program that launches the PTX itself (cuLaunchKernel) must do
 * beyond the user's block and arguments; one note on stderr each. */
static void launch_notes(const ks_kernel *k) {
  ks_kernel_info in = {.size = sizeof in};
  if (ks_kernel_info_get(k, &in) != KS_OK)
    return;
  const ks_launch_plan *p = &in.plan;
  if (p->coarsen_x > 1 || p->coarsen_y > 1)
    fprintf(stderr,
            "kspec: note: launch with block %ux%ux%u (each thread runs "
            "%ux%u threads of block %ux%ux%u)\n",
            in.launch_block[0], in.launch_block[1], in.launch_block[2],
            p->coarsen_x, p->coarsen_y, in.reqntid[0], in.reqntid[1],
            in.reqntid[2]);
  if (p->grid_coarsen > 1)
    fprintf(stderr,
            "kspec: note: launch ceil(grid.x / %u) blocks along x and pass "
            "grid.x (u32) after the arguments\n",
            p->grid_coarsen);
  if (in.grid_sync)
    fprintf(stderr, "kspec: note: the kernel synchronizes the grid: launch "
                    "it cooperatively (all its blocks resident at once)\n");
  for (unsigned i = 0; i < p->const_copies; i++)
    fprintf(stderr,
            "kspec: note: before each launch copy the first %u bytes of "
            "argument %u's buffer to .const ks_cmem_%u\n",
            p->const_copy_bytes[i], p->const_copy_arg[i], p->const_copy_arg[i]);
  for (unsigned i = 0; i < p->texs; i++)
    fprintf(stderr,
            "kspec: note: pass a texture object (u64) of argument %u's array%s "
            "after the arguments%s (0: software sampling)\n",
            p->tex_arg[i],
            p->tex_dims[i] == 3 ? " (3-D: over a CUDA array into which each "
                                  "launch first copies the argument's array)"
                                : "",
            i ? ", after the previous one" : "");
}

static int cmd_emit(const options *o, int want_ir) {
  ks_ctx_opts co = {.arch = o->arch, .ptx_isa = o->ptx_isa};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  const char *text = NULL;
  size_t len = 0;
  int rc = EXIT_FAILURE;
  ks_spec_req req = request_of(o);
  if (want_ir)
    req.dump_stage = o->stage ? o->stage : ks_stage_name(ks_stage_count() - 1);
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  if (ks_template_load(ctx, o->tmpl, &t) == KS_OK && o->why_miss && !want_ir)
    why_miss(ctx, t, &req);
  if (!t || ks_specialize(ctx, t, &req, &k) != KS_OK ||
      (want_ir ? ks_kernel_ir(k, &text, &len)
               : ks_kernel_ptx(k, &text, &len)) != KS_OK)
    rc = fail(ks_errmsg(ctx));
  else
    rc = write_text(o->out, text, len);
  if (rc == EXIT_SUCCESS && !want_ir)
    launch_notes(k);
  warnings(ctx);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}

static int cmd_explain(const options *o) {
  ks_ctx_opts co = {.arch = o->arch, .ptx_isa = o->ptx_isa};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  int rc = EXIT_FAILURE;
  ks_spec_req req = request_of(o);
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  if (ks_template_load(ctx, o->tmpl, &t) == KS_OK && o->why_miss)
    why_miss(ctx, t, &req);
  if (!t || ks_specialize(ctx, t, &req, &k) != KS_OK) {
    rc = fail(ks_errmsg(ctx));
  } else {
    ks_kernel_info info = {.size = sizeof info};
    ks_kernel_info_get(k, &info);
    const char *text = ks_kernel_explain(k);
    /* the summary (whether any optional pass changed the kernel) last */
    const char *sum = strstr(text, "summary: ");
    int before = sum ? (int)(sum - text) : (int)strlen(text);
    int sumlen = sum ? (int)strcspn(sum, "\n") : 0;
    printf("%s: kernel %s on %s\n%.*s%s", ks_template_name(t),
           ks_kernel_name(k), ks_ctx_arch(ctx), before, text,
           sum ? sum + sumlen + (sum[sumlen] == '\n') : "");
    printf("static shared memory: %u bytes\ncompile: %.2f ms%s\n",
           info.smem_bytes, info.compile_ms,
           info.from_disk ? " (when compiled; from the disk cache this time)"
                          : "");
    if (sum)
      printf("%.*s\n", sumlen, sum);
    rc = EXIT_SUCCESS;
  }
  warnings(ctx);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}

/* The kernel run runs: specialized on the -D values and the workload's
 * block, or generic. Every check on values and bounds happens here, before
 * any device buffer exists (and so without a GPU). */
static int specialize_for(ks_ctx *ctx, ks_template *t, const options *o,
                          ks_wl *w, int generic, ks_kernel **k) {
  ks_spec_req req = {.kernel = o->kernel,
                     .bounds = o->bounds,
                     .no_pass = o->no_pass,
                     .nno_pass = o->nno_pass};
  if (!generic) {
    req.bindings = o->defs;
    req.nbindings = o->ndefs;
    req.tex = o->tex;
    req.ntex = o->ntex;
    ks_dim3 b = ks_wl_block(w);
    if (!req.bounds.block[0]) {
      req.bounds.block[0] = b.x;
      req.bounds.block[1] = b.y;
      req.bounds.block[2] = b.z;
    }
  }
  /* --compare's generic baseline is the kernel as the template has it */
  req.smem_spill = o->smem_spill && (!generic || !o->ndefs);
  req.fp = o->fp; /* a compile setting: the baseline's too */
  if (o->why_miss)
    why_miss(ctx, t, &req);
  return ks_specialize(ctx, t, &req, k) == KS_OK ? EXIT_SUCCESS
                                                 : fail(ks_errmsg(ctx));
}

/* A workload's error (its message names the template, not the stage). */
static int run_fail(const char *what) {
  fprintf(stderr, "kspec: run: %s\n", what);
  return EXIT_FAILURE;
}

/* Checks k against the CPU reference, times it, prints a line. */
static int run_one(const options *o, ks_wl *w, ks_kernel *k, int generic,
                   double *ms) {
  char err[512];
  if (ks_wl_check(w, k, err, sizeof err) != KS_OK ||
      ks_wl_time(w, k, o->reps ? (int)o->reps : 20, ms, err, sizeof err) !=
          KS_OK)
    return run_fail(err);
  ks_kernel_info info = {.size = sizeof info};
  ks_kernel_info_get(k, &info);
  printf("%-12s %9.4f ms  %7.1f GB/s  regs %d  compile %.2f ms  check ok%s\n",
         generic ? "generic" : "specialized", *ms, ks_wl_bytes(w) / (*ms * 1e6),
         info.regs, info.compile_ms,
         !info.plan.texs            ? ""
         : ks_kernel_launch_note(k) ? "  (textures: software)"
                                    : "  (textures: hardware)");
  if (ks_kernel_launch_note(k))
    fprintf(stderr, "kspec: note: %s\n", ks_kernel_launch_note(k));
  if (info.grid_sync) {
    ks_dim3 g = ks_wl_grid(w);
    printf("%-12s cooperative launch, grid %ux%ux%u (at most the blocks "
           "that can be resident at once)\n",
           "", g.x, g.y, g.z);
  }
  return EXIT_SUCCESS;
}

/* Specializes (both kernels with --compare), then allocates, runs, times. */
static int run_workload(ks_ctx *ctx, ks_template *t, const options *o,
                        ks_wl *w) {
  char err[512];
  ks_kernel *k = NULL, *generic = NULL;
  double ms = 0, ms_generic = 0;
  int compare = o->compare && o->ndefs;
  int rc = specialize_for(ctx, t, o, w, o->ndefs == 0, &k);
  if (rc == EXIT_SUCCESS && compare)
    rc = specialize_for(ctx, t, o, w, 1, &generic);
  /* --block X,Y,Z: the launch's block too, once the bounds are checked */
  ks_dim3 b = {o->bounds.block[0], o->bounds.block[1], o->bounds.block[2]};
  if (rc == EXIT_SUCCESS && b.x && ks_wl_set_block3(w, b, err, sizeof err))
    rc = run_fail(err);
  if (rc == EXIT_SUCCESS && ks_wl_alloc(w, err, sizeof err) != KS_OK)
    rc = run_fail(err);
  if (rc != EXIT_SUCCESS)
    return rc;
  printf("%s on %s: %s\n", o->tmpl, ks_ctx_arch(ctx), ks_wl_describe(w));
  rc = run_one(o, w, k, o->ndefs == 0, &ms);
  if (rc == EXIT_SUCCESS && compare) {
    rc = run_one(o, w, generic, 1, &ms_generic);
    if (rc == EXIT_SUCCESS)
      printf("speed-up     %.2fx\n", ms_generic / ms);
  }
  return rc;
}

static int cmd_run(const options *o) {
  ks_ctx_opts co = {.arch = o->arch, .ptx_isa = o->ptx_isa};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_wl *w = NULL;
  char err[512];
  int rc = EXIT_FAILURE;
  if (o->nbakes) {
    fprintf(stderr, "kspec: run: --bake is not supported by run (its inputs "
                    "are random); use ptx, ir or explain\n");
    return EXIT_USAGE;
  }
  if (!ks_wl_supported(o->tmpl)) {
    fprintf(stderr,
            "kspec: run: '%s' has no built-in inputs and reference "
            "(run works on the built-in templates)\n",
            o->tmpl);
    return EXIT_FAILURE;
  }
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  uint64_t seed = o->seed ? o->seed : (uint64_t)time(NULL);
  if (ks_template_load(ctx, o->tmpl, &t) != KS_OK)
    rc = fail(ks_errmsg(ctx));
  else if (ks_wl_prepare(ctx, t, o->kernel, o->size, o->defs, o->ndefs,
                         o->bounds.block[0], seed, &w, err,
                         sizeof err) != KS_OK)
    rc = run_fail(err);
  else
    rc = run_workload(ctx, t, o, w);
  warnings(ctx);
  ks_wl_destroy(w);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}

static double mib(uint64_t bytes) { return bytes / (1024.0 * 1024.0); }

/* kspec cache SUB: argv[0] is "cache". */
static int cmd_cache(int argc, char **argv) {
  static const char *const subs[] = {"stats", "verify", "clear", "path"};
  if (argc >= 2 &&
      (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    usage_for("cache", stdout);
    return EXIT_SUCCESS;
  }
  if (argc != 2)
    return bad_usage("cache",
                     argc < 2 ? "cache: missing subcommand%s"
                              : "cache: unexpected argument '%s'",
                     argc < 2 ? "" : argv[2]);
  size_t sub = 0;
  while (sub < 4 && strcmp(subs[sub], argv[1]) != 0)
    sub++;
  if (sub == 4)
    return bad_usage("cache", "cache: unknown subcommand '%s'", argv[1]);
  ks_ctx_opts co = {.arch = "sm_90", .no_driver = 1};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  ks_cache_usage u = {.size = sizeof u};
  uint64_t good = 0, removed = 0;
  int rc = EXIT_SUCCESS;
  if (sub == 0 && ks_cache_usage_get(ctx, &u) == KS_OK)
    printf("directory  %s\nentries    %llu\nbytes      %llu (%.1f MiB)\n"
           "limit      %llu (%.1f MiB)\n",
           ks_cache_dir(ctx), (unsigned long long)u.entries,
           (unsigned long long)u.bytes, mib(u.bytes),
           (unsigned long long)u.limit, mib(u.limit));
  else if (sub == 1 && ks_cache_verify(ctx, &good, &removed) == KS_OK)
    printf("%llu entries checked: %llu good, %llu damaged and removed\n",
           (unsigned long long)(good + removed), (unsigned long long)good,
           (unsigned long long)removed);
  else if (sub == 2 && ks_cache_clear(ctx, &removed) == KS_OK)
    printf("%llu entries removed from %s\n", (unsigned long long)removed,
           ks_cache_dir(ctx));
  else if (sub == 3 && ks_cache_dir(ctx))
    printf("%s\n", ks_cache_dir(ctx));
  else if (sub == 3)
    rc = fail(ks_ctx_warning(ctx)[0] ? ks_ctx_warning(ctx)
                                     : "cache: no disk cache (KSPEC_CACHE is "
                                       "off)");
  else
    rc = fail(ks_errmsg(ctx));
  ks_ctx_destroy(ctx);
  return rc;
}

int main(int argc, char **argv) {
  /* This process runs no LLVM code but kspec's: LLVM's options for faster
   * codegen may be set (KSPEC_LLVM_OPTIONS=off: as a host program gets by
   * default; include/kspec.h, ks_llvm_own_process). */
  const char *lo = getenv("KSPEC_LLVM_OPTIONS");
  if (!lo || strcmp(lo, "off") != 0)
    ks_llvm_own_process();
  if (argc < 2)
    return bad_usage(NULL, "missing command%s", "");
  const char *cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
      strcmp(cmd, "help") == 0) {
    usage_for(NULL, stdout);
    return EXIT_SUCCESS;
  }
  if (strcmp(cmd, "cache") == 0)
    return cmd_cache(argc - 1, argv + 1);
  if (strcmp(cmd, "prewarm") == 0)
    return kspec_prewarm_main(argc - 1, argv + 1); /* its own options */
  if (strcmp(cmd, "stats") == 0)
    return kspec_stats_main(argc - 1, argv + 1); /* its own options */
  if (strcmp(cmd, "tune") == 0)
    return kspec_tune_main(argc - 1, argv + 1); /* its own options */
  static const char *const cmds[] = {"list", "info", "ptx",
                                     "ir",   "run",  "explain"};
  enum { NCMDS = sizeof cmds / sizeof cmds[0] };
  size_t i = 0;
  while (i < NCMDS && strcmp(cmds[i], cmd) != 0)
    i++;
  if (i == NCMDS)
    return bad_usage(NULL, "unknown command '%s'", cmd);
  options o = {0};
  int rc = parse_args(cmd, argc - 1, argv + 1, &o);
  if (rc < 0) {
    switch (i) {
    case 0:
      rc = cmd_list();
      break;
    case 1:
      rc = cmd_info(&o);
      break;
    case 2:
      rc = cmd_emit(&o, 0);
      break;
    case 3:
      rc = cmd_emit(&o, 1);
      break;
    case 4:
      rc = cmd_run(&o);
      break;
    default:
      rc = cmd_explain(&o);
      break;
    }
  }
  options_free(&o);
  return rc;
}
