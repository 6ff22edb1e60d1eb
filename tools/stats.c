/*
 * stats.c - `kspec stats`: what a specialization really needs and how many
 * of its blocks fit on an SM.
 *
 *   kspec stats TEMPLATE [-D NAME=VALUE]... [--kernel K] [--arch sm_XX]
 *               [--block X[,Y[,Z]]] [--maxntid N] [--minctasm N]
 *               [--maxnreg N] [--no-pass NAME]... [--smem N] [--no-driver]
 *               [--json]
 *
 * Figures come from ptxas (no GPU needed) and, where a driver and a device
 * are present, from the driver as well; occupancy from the offline
 * calculator and, with a device, from the driver, side by side. The
 * occupancy is given at the block the kernel was specialized for, else at
 * 128, 256, 512 and 1024 threads (those within its maxntid). Last, the
 * largest grid a cooperative launch takes (ks_kernel_max_coresident_grid)
 * at the kernel's block, else at the best one: the driver's; without a
 * driver, the calculator's blocks per SM times the SMs of a usual part of
 * the architecture, labelled as an estimate.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "json.h"
#include "kspec.h"
#include "stats.h"

enum { EXIT_USAGE = 2, MAX_DEFS = 64, MAX_NO_PASS = 16, MAX_BLOCKS = 4 };

typedef struct stats_opts {
  const char *tmpl, *kernel, *arch;
  ks_binding defs[MAX_DEFS];
  char def_names[MAX_DEFS][64];
  size_t ndefs;
  ks_launch_bounds bounds;
  const char *no_pass[MAX_NO_PASS];
  size_t nno_pass;
  unsigned ptx_isa, smem;
  int json, no_driver, smem_spill;
} stats_opts;

/* Everything measured, for either printer. */
typedef struct figures {
  const ks_template *t;
  ks_kernel *k;
  const char *arch;
  ks_kernel_info info;
  ks_kernel_resources ptxas, driver;
  int have_ptxas, have_driver;
  char ptxas_err[1024], driver_err[1024];
  unsigned blocks[MAX_BLOCKS];
  size_t nblocks;
  ks_occupancy calc[MAX_BLOCKS], drv[MAX_BLOCKS];
  unsigned best_calc, best_drv;
  int grid_calc, grid_drv, have_best_drv;
  int sms; /* the device's, with a driver */
  /* The largest co-resident grid at co_block; co_part NULL: the driver's,
   * else the part whose SMs the estimate assumes; co_block 0: none. */
  unsigned co_block, co_grid, co_sms;
  int co_per_sm;
  const char *co_part;
} figures;

static const char usage_text[] =
    "usage: kspec stats TEMPLATE [options]\n"
    "\n"
    "Specializes and prints what the kernel really needs: registers, spills,\n"
    "stack frame, static shared and constant memory (from ptxas -v, and from\n"
    "the driver where there is a GPU), and its occupancy: resident blocks\n"
    "and warps per SM and the resource that limits them, at the block it was\n"
    "specialized for, else at 128, 256, 512 and 1024 threads; then the\n"
    "largest grid whose blocks are all resident at once (what a cooperative\n"
    "launch takes): the driver's, else an estimate for a usual part.\n"
    "\n"
    "options:\n"
    "  -D NAME=VALUE      bind a parameter (repeatable)\n"
    "  --kernel K         the kernel (needed when the template has several)\n"
    "  --arch sm_XX       target (default: the GPU's, else sm_90); works\n"
    "                     without a GPU\n"
    "  --ptx-isa N        PTX ISA x10, e.g. 85\n"
    "  --block X[,Y[,Z]]  fix the block size (folded, emitted as .reqntid)\n"
    "  --maxntid N        .maxntid N\n"
    "  --minctasm N       .minnctapersm N\n"
    "  --maxnreg N        .maxnreg N\n"
    "  --smem-spill       let ptxas spill registers to shared memory first\n"
    "                     (PTX ISA 9.0; see `kspec ptx --help`)\n"
    "  --no-pass NAME     switch an optional pass off (repeatable)\n"
    "  --smem N           dynamic shared memory per block, bytes (default 0;\n"
    "                     over 48 KiB as ks_launch allows it)\n"
    "  --no-driver        never open the CUDA driver (ptxas only)\n"
    "  --json             one JSON object on stdout\n"
    "  -h, --help         this text\n"
    "\n"
    "ptxas is $KSPEC_PTXAS, else ptxas on PATH, else\n"
    "/usr/local/cuda/bin/ptxas.\n";

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "kspec: stats: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (try `kspec stats --help`)\n");
  return EXIT_USAGE;
}

static int fail(const char *what) {
  fprintf(stderr, "kspec: %s\n", what);
  return EXIT_FAILURE;
}

enum {
  OPT_KERNEL = 256,
  OPT_ARCH,
  OPT_PTXISA,
  OPT_BLOCK,
  OPT_MAXNTID,
  OPT_MINCTASM,
  OPT_MAXNREG,
  OPT_NO_PASS,
  OPT_SMEM,
  OPT_NO_DRIVER,
  OPT_JSON,
  OPT_SMEM_SPILL,
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
    {"no-pass", required_argument, NULL, OPT_NO_PASS},
    {"smem", required_argument, NULL, OPT_SMEM},
    {"no-driver", no_argument, NULL, OPT_NO_DRIVER},
    {"json", no_argument, NULL, OPT_JSON},
    {"smem-spill", no_argument, NULL, OPT_SMEM_SPILL},
    {NULL, 0, NULL, 0},
};

/* An option with a numeric value into o; 0 on a bad value. */
static int take_number(int c, const char *arg, stats_opts *o) {
  unsigned *dst = c == OPT_MAXNTID    ? &o->bounds.maxntid
                  : c == OPT_MINCTASM ? &o->bounds.minctasm
                  : c == OPT_MAXNREG  ? &o->bounds.maxnreg
                  : c == OPT_PTXISA   ? &o->ptx_isa
                                      : &o->smem;
  int bound = c == OPT_MAXNTID || c == OPT_MINCTASM || c == OPT_MAXNREG;
  unsigned long long v;
  if (!ks_arg_uint(arg, bound, UINT32_MAX, &v)) /* bounds: 1 at least */
    return 0;
  *dst = (unsigned)v;
  return 1;
}

/* One option into o; 0 to go on, else the exit status. */
static int take_option(int c, stats_opts *o) {
  switch (c) {
  case 'D':
    if (o->ndefs == MAX_DEFS)
      return bad_usage("too many -D options%s", "");
    if (ks_binding_parse(optarg, &o->defs[o->ndefs], o->def_names[o->ndefs],
                         sizeof o->def_names[0]) != KS_OK)
      return bad_usage("-D '%s': want NAME=VALUE", optarg);
    o->ndefs++;
    return 0;
  case OPT_KERNEL:
    o->kernel = optarg;
    return 0;
  case OPT_ARCH:
    o->arch = optarg;
    return 0;
  case OPT_NO_PASS:
    if (o->nno_pass == MAX_NO_PASS)
      return bad_usage("too many --no-pass options%s", "");
    o->no_pass[o->nno_pass++] = optarg;
    return 0;
  case OPT_BLOCK:
    return ks_arg_block(optarg, o->bounds.block)
               ? 0
               : bad_usage("--block '%s': want X[,Y[,Z]]", optarg);
  case OPT_NO_DRIVER:
    o->no_driver = 1;
    return 0;
  case OPT_SMEM_SPILL:
    o->smem_spill = 1;
    return 0;
  case OPT_JSON:
    o->json = 1;
    return 0;
  }
  if (take_number(c, optarg, o))
    return 0;
  int bound = c == OPT_MAXNTID || c == OPT_MINCTASM || c == OPT_MAXNREG;
  const char *name = "?";
  for (const struct option *l = long_opts; l->name; l++)
    if (l->val == c)
      name = l->name;
  char what[160];
  snprintf(what, sizeof what, "--%s '%%s': want a %s integer%s", name,
           bound ? "positive" : "non-negative",
           bound ? " (leave the option out for no bound)" : "");
  return bad_usage(what, optarg);
}

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, stats_opts *o) {
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hD:", long_opts, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage_text, stdout);
      return EXIT_SUCCESS;
    }
    if (c == '?')
      return bad_usage("unknown option '%s'", argv[optind - 1]);
    if (c == ':')
      return bad_usage("option '%s' needs a value", argv[optind - 1]);
    int rc = take_option(c, o);
    if (rc)
      return rc;
  }
  if (argc - optind != 1)
    return bad_usage("expected one TEMPLATE%s", "");
  o->tmpl = argv[optind];
  return -1;
}

/* ---- measuring ---------------------------------------------------------- */

/* The block sizes to report: the fixed one, else the usual ones within
 * maxntid (maxntid itself when none is). */
static void choose_blocks(figures *f) {
  static const unsigned usual[MAX_BLOCKS] = {128, 256, 512, 1024};
  const unsigned *r = f->info.reqntid;
  f->nblocks = 0;
  if (r[0]) {
    f->blocks[f->nblocks++] = r[0] * r[1] * r[2];
    return;
  }
  for (size_t i = 0; i < MAX_BLOCKS; i++)
    if (!f->info.maxntid || usual[i] <= f->info.maxntid)
      f->blocks[f->nblocks++] = usual[i];
  if (!f->nblocks)
    f->blocks[f->nblocks++] = f->info.maxntid;
}

/* The driver's figures, when there is a device and we may use it. */
static void measure_driver(figures *f, ks_ctx *ctx, const stats_opts *o) {
  ks_device_info dev = {.size = sizeof dev};
  if (o->no_driver) {
    snprintf(f->driver_err, sizeof f->driver_err, "not asked (--no-driver)");
    return;
  }
  if (ks_device_query(ctx, &dev) != KS_OK ||
      ks_kernel_resources_get(f->k, KS_RES_DRIVER, &f->driver) != KS_OK) {
    snprintf(f->driver_err, sizeof f->driver_err, "%s", ks_errmsg(ctx));
    return;
  }
  f->have_driver = 1;
  f->sms = dev.multiprocessors;
}

/* Occupancy at every block; the calculator works from ptxas's figures
 * when there are some, else from the driver's. */
static int measure_occupancy(figures *f, ks_ctx *ctx, const stats_opts *o) {
  ks_res_source calc_src = f->have_ptxas ? KS_RES_PTXAS : KS_RES_ANY;
  for (size_t i = 0; i < f->nblocks; i++) {
    f->calc[i].size = sizeof f->calc[i];
    f->drv[i].size = sizeof f->drv[i];
    if (ks_kernel_occupancy(f->k, f->blocks[i], o->smem, calc_src,
                            &f->calc[i]) != KS_OK)
      return fail(ks_errmsg(ctx));
    if (f->have_driver &&
        ks_kernel_occupancy(f->k, f->blocks[i], o->smem, KS_RES_DRIVER,
                            &f->drv[i]) != KS_OK)
      return fail(ks_errmsg(ctx));
  }
  if (ks_kernel_best_block(f->k, o->smem, calc_src, &f->best_calc,
                           &f->grid_calc) != KS_OK)
    f->best_calc = 0; /* nothing fits: the table says why */
  f->have_best_drv = f->have_driver &&
                     ks_kernel_best_block(f->k, o->smem, KS_RES_DRIVER,
                                          &f->best_drv, &f->grid_drv) == KS_OK;
  return EXIT_SUCCESS;
}

/* SMs of a usual part of each architecture: for the co-resident grid
 * without a device, an estimate only (parts of one architecture differ). */
static const struct {
  const char *arch, *part;
  unsigned sms;
} usual_parts[] = {
    {"sm_60", "a Tesla P100", 56},  {"sm_61", "a Tesla P40", 30},
    {"sm_70", "a Tesla V100", 80},  {"sm_72", "a Jetson Xavier", 8},
    {"sm_75", "a Tesla T4", 40},    {"sm_80", "an A100", 108},
    {"sm_86", "an A40", 84},        {"sm_87", "a Jetson AGX Orin", 16},
    {"sm_89", "an L4", 58},         {"sm_90", "an H100 SXM", 132},
    {"sm_90a", "an H100 SXM", 132},
};

/* The largest co-resident grid: the driver's, else the calculator's
 * blocks per SM at the same block times a usual part's SMs. */
static void measure_coresident(figures *f, const stats_opts *o) {
  ks_res_source calc_src = f->have_ptxas ? KS_RES_PTXAS : KS_RES_ANY;
  unsigned gc = f->info.plan.grid_coarsen > 1 ? f->info.plan.grid_coarsen : 1;
  ks_occupancy occ = {.size = sizeof occ};
  f->co_block = f->info.reqntid[0] ? f->blocks[0]
                : f->have_best_drv ? f->best_drv
                                   : f->best_calc;
  if (!f->co_block)
    return;
  if (f->have_driver &&
      ks_kernel_max_active_blocks(f->k, f->co_block, o->smem, &f->co_per_sm) ==
          KS_OK &&
      ks_kernel_max_coresident_grid(f->k, f->co_block, o->smem, &f->co_grid) ==
          KS_OK) {
    f->co_sms = (unsigned)f->sms;
    return;
  }
  for (size_t i = 0; i < sizeof usual_parts / sizeof usual_parts[0]; i++)
    if (!strcmp(f->arch, usual_parts[i].arch) &&
        ks_kernel_occupancy(f->k, f->co_block, o->smem, calc_src, &occ) ==
            KS_OK) {
      f->co_part = usual_parts[i].part;
      f->co_sms = usual_parts[i].sms;
      f->co_per_sm = occ.blocks_per_sm;
      f->co_grid = (unsigned)occ.blocks_per_sm * f->co_sms * gc;
      return;
    }
  f->co_block = 0;
}

static int measure(figures *f, ks_ctx *ctx, const stats_opts *o) {
  f->info.size = sizeof f->info;
  f->ptxas.size = sizeof f->ptxas;
  f->driver.size = sizeof f->driver;
  ks_kernel_info_get(f->k, &f->info);
  if (ks_kernel_resources_get(f->k, KS_RES_PTXAS, &f->ptxas) == KS_OK)
    f->have_ptxas = 1;
  else
    snprintf(f->ptxas_err, sizeof f->ptxas_err, "%s", ks_errmsg(ctx));
  measure_driver(f, ctx, o);
  if (!f->have_ptxas && !f->have_driver) {
    char msg[2200];
    snprintf(msg, sizeof msg, "stats: %s; and no driver: %s", f->ptxas_err,
             f->driver_err);
    return fail(msg);
  }
  choose_blocks(f);
  int rc = measure_occupancy(f, ctx, o);
  if (rc == EXIT_SUCCESS)
    measure_coresident(f, o);
  return rc;
}

/* ---- text --------------------------------------------------------------- */

/* The resources of KS_LIMIT_* bit i, in text and as JSON names. */
static const char *const limiter_names[] = {"threads", "registers",
                                            "shared memory", "blocks"};
static const char *const limiter_keys[] = {"threads", "registers",
                                           "shared_memory", "blocks"};

static void limiters_text(unsigned bits, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (unsigned i = 0; i < 4; i++)
    if (bits & (1u << i) && used < cap)
      used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "",
                               limiter_names[i]);
}

/* "31" or "-" for a figure the source does not report. */
static const char *num(int v, const char *unit, char *buf, size_t cap) {
  if (v < 0)
    return "-";
  snprintf(buf, cap, "%d%s", v, unit);
  return buf;
}

/* A line of the figures table; the driver's column only when there is
 * one. */
static void row(const char *name, const char *ptxas, const char *driver) {
  if (driver)
    printf("%-15s %-16s %s\n", name, ptxas, driver);
  else
    printf("%-15s %s\n", name, ptxas);
}

/* Row i of the figures table. */
static int field(const ks_kernel_resources *r, int i) {
  switch (i) {
  case 0:
    return r->regs;
  case 1:
    return r->spill_stores;
  case 2:
    return r->spill_loads;
  case 3:
    return r->stack_frame;
  case 4:
    return r->static_smem;
  default:
    return r->const_bytes;
  }
}

static void print_figures(const figures *f) {
  static const char *const rows[] = {"registers",   "spill stores",
                                     "spill loads", "stack frame",
                                     "static smem", "user constant"};
  const ks_kernel_resources *src[2] = {f->have_ptxas ? &f->ptxas : NULL,
                                       f->have_driver ? &f->driver : NULL};
  char cell[2][48];
  for (int s = 0; s < 2; s++)
    snprintf(cell[s], sizeof cell[s], "%s (%s)", s ? "driver" : "ptxas",
             src[s] ? src[s]->arch : "-");
  row("", src[0] ? cell[0] : "", src[1] ? cell[1] : NULL);
  for (int i = 0; i < 6; i++) {
    for (int s = 0; s < 2; s++) {
      char tmp[32];
      snprintf(cell[s], sizeof cell[s], "%s",
               src[s] ? num(field(src[s], i), i ? " B" : "", tmp, sizeof tmp)
                      : "");
    }
    row(rows[i], cell[0], src[1] ? cell[1] : NULL);
  }
  if (!f->have_ptxas)
    printf("no ptxas figures: %s\n", f->ptxas_err);
  if (!f->have_driver)
    printf("no driver figures: %s\n", f->driver_err);
}

static void print_occupancy(const figures *f, const stats_opts *o) {
  char lim[64], by[96];
  printf("\noccupancy (%u bytes of dynamic shared memory; calculator over "
         "%s's figures%s):\n",
         o->smem, f->have_ptxas ? "ptxas" : "the driver",
         f->have_driver ? ", and the driver's own" : "");
  printf("  %5s %10s %9s %10s  %s\n", "block", "blocks/SM", "warps/SM",
         "occupancy",
         f->have_driver ? "limited by                driver blocks/SM"
                        : "limited by");
  for (size_t i = 0; i < f->nblocks; i++) {
    const ks_occupancy *c = &f->calc[i];
    limiters_text(c->limiters, lim, sizeof lim);
    if (f->have_driver)
      snprintf(by, sizeof by, "%-25s %d", lim, f->drv[i].blocks_per_sm);
    printf("  %5u %10d %9d %9.1f%%  %s\n", f->blocks[i], c->blocks_per_sm,
           c->warps_per_sm, 100.0 * c->occupancy, f->have_driver ? by : lim);
  }
  if (f->best_calc)
    printf("best block: %u (calculator)", f->best_calc);
  else
    printf("best block: none fits (calculator)");
  if (f->have_best_drv)
    printf(", %u (driver; grid of %d fills the GPU)", f->best_drv, f->grid_drv);
  printf("\n");
  if (!f->co_block)
    return;
  char gc[48] = "";
  if (f->info.plan.grid_coarsen > 1)
    snprintf(gc, sizeof gc, " x %u (grid-coarsened)",
             f->info.plan.grid_coarsen);
  if (f->co_part)
    printf("co-resident grid: %u blocks of %u threads (calculator: %d per SM "
           "x %u SMs%s, those of %s, %s's usual part; no driver)\n",
           f->co_grid, f->co_block, f->co_per_sm, f->co_sms, gc, f->co_part,
           f->arch);
  else
    printf("co-resident grid: %u blocks of %u threads (driver: %d per SM x "
           "%u SMs%s)\n",
           f->co_grid, f->co_block, f->co_per_sm, f->co_sms, gc);
}

static void print_text(const figures *f, const stats_opts *o) {
  printf("%s: kernel %s on %s", ks_template_name(f->t), ks_kernel_name(f->k),
         f->arch);
  for (size_t i = 0; i < o->ndefs; i++)
    printf("%s%s=%s", i ? " " : ", ", o->defs[i].name, o->defs[i].v.s);
  if (f->info.reqntid[0])
    printf(", block %ux%ux%u", f->info.reqntid[0], f->info.reqntid[1],
           f->info.reqntid[2]);
  printf("\n");
  if (f->info.est_regs > 0)
    printf("predicted       %d registers (regpressure, from the IR)\n",
           f->info.est_regs);
  else
    printf("predicted       - (regpressure switched off)\n");
  print_figures(f);
  print_occupancy(f, o);
}

/* ---- JSON -----------------------------------------------------------------
 */

static void json_opt_int(ks_json *j, const char *key, long long v, int have) {
  ks_json_key(j, key);
  if (have)
    ks_json_int(j, v);
  else
    ks_json_null(j);
}

/* A figure the source does not report (-1) is null. */
static void json_figure(ks_json *j, const char *key, int v) {
  json_opt_int(j, key, v, v >= 0);
}

static void json_resources(ks_json *j, const char *key,
                           const ks_kernel_resources *r, const char *err) {
  ks_json_key(j, key);
  if (!r) {
    ks_json_object(j);
    ks_json_key(j, "error");
    ks_json_string(j, err);
    ks_json_end(j);
    return;
  }
  ks_json_object(j);
  ks_json_key(j, "arch");
  ks_json_string(j, r->arch);
  json_figure(j, "regs", r->regs);
  json_figure(j, "spill_stores", r->spill_stores);
  json_figure(j, "spill_loads", r->spill_loads);
  json_figure(j, "stack_frame", r->stack_frame);
  json_figure(j, "static_smem", r->static_smem);
  json_figure(j, "const_bytes", r->const_bytes);
  ks_json_end(j);
}

/* Blocks a resource allows: null when it sets no limit. */
static void json_by(ks_json *j, const ks_occupancy *c) {
  const int v[4] = {c->by_warps, c->by_regs, c->by_smem, c->by_blocks};
  ks_json_key(j, "blocks_allowed_by");
  ks_json_object(j);
  for (int i = 0; i < 4; i++)
    json_opt_int(j, limiter_keys[i], v[i], v[i] != INT_MAX);
  ks_json_end(j);
}

static void json_occupancy(ks_json *j, const figures *f, size_t i) {
  const ks_occupancy *c = &f->calc[i];
  ks_json_object(j);
  json_opt_int(j, "block", f->blocks[i], 1);
  json_opt_int(j, "blocks_per_sm", c->blocks_per_sm, 1);
  json_opt_int(j, "warps_per_sm", c->warps_per_sm, 1);
  json_opt_int(j, "max_warps_per_sm", c->max_warps_sm, 1);
  ks_json_key(j, "occupancy");
  ks_json_double(j, c->occupancy);
  ks_json_key(j, "limited_by");
  ks_json_array(j);
  for (unsigned b = 0; b < 4; b++)
    if (c->limiters & (1u << b))
      ks_json_string(j, limiter_keys[b]);
  ks_json_end(j);
  json_by(j, c);
  json_opt_int(j, "regs_per_block", c->regs_per_block, 1);
  json_opt_int(j, "smem_per_block", c->smem_per_block, 1);
  json_opt_int(j, "driver_blocks_per_sm", f->drv[i].blocks_per_sm,
               f->have_driver);
  ks_json_end(j);
}

static void json_head(ks_json *j, const figures *f, const stats_opts *o) {
  ks_json_key(j, "template");
  ks_json_string(j, ks_template_name(f->t));
  ks_json_key(j, "kernel");
  ks_json_string(j, ks_kernel_name(f->k));
  ks_json_key(j, "arch");
  ks_json_string(j, f->arch);
  ks_json_key(j, "bindings");
  ks_json_object(j);
  for (size_t i = 0; i < o->ndefs; i++) {
    ks_json_key(j, o->defs[i].name);
    ks_json_string(j, o->defs[i].v.s);
  }
  ks_json_end(j);
  ks_json_key(j, "reqntid");
  if (f->info.reqntid[0]) {
    ks_json_array(j);
    for (int i = 0; i < 3; i++)
      ks_json_int(j, f->info.reqntid[i]);
    ks_json_end(j);
  } else {
    ks_json_null(j);
  }
  json_opt_int(j, "maxntid", f->info.maxntid, f->info.maxntid != 0);
  json_opt_int(j, "minctasm", f->info.minctasm, f->info.minctasm != 0);
  json_opt_int(j, "maxnreg", f->info.maxnreg, f->info.maxnreg != 0);
  json_opt_int(j, "dynamic_smem", o->smem, 1);
  /* the regpressure pass's estimate, null when it was switched off */
  json_opt_int(j, "predicted_regs", f->info.est_regs, f->info.est_regs > 0);
}

/* "coresident_grid": null, or its figures and where they come from. */
static void json_coresident(ks_json *j, const figures *f) {
  ks_json_key(j, "coresident_grid");
  if (!f->co_block) {
    ks_json_null(j);
    return;
  }
  ks_json_object(j);
  json_opt_int(j, "blocks", f->co_grid, 1);
  json_opt_int(j, "block", f->co_block, 1);
  json_opt_int(j, "per_sm", f->co_per_sm, 1);
  json_opt_int(j, "sms", f->co_sms, 1);
  ks_json_key(j, "source");
  ks_json_string(j, f->co_part ? "calculator" : "driver");
  ks_json_key(j, "part");
  if (f->co_part)
    ks_json_string(j, f->co_part);
  else
    ks_json_null(j);
  ks_json_end(j);
}

static void print_json(const figures *f, const stats_opts *o) {
  ks_json j;
  ks_json_init(&j, stdout);
  ks_json_object(&j);
  json_head(&j, f, o);
  json_resources(&j, "ptxas", f->have_ptxas ? &f->ptxas : NULL, f->ptxas_err);
  json_resources(&j, "driver", f->have_driver ? &f->driver : NULL,
                 f->driver_err);
  ks_json_key(&j, "occupancy_source");
  ks_json_string(&j, f->have_ptxas ? "ptxas" : "driver");
  ks_json_key(&j, "occupancy");
  ks_json_array(&j);
  for (size_t i = 0; i < f->nblocks; i++)
    json_occupancy(&j, f, i);
  ks_json_end(&j);
  ks_json_key(&j, "best_block");
  ks_json_object(&j);
  json_opt_int(&j, "calculator", f->best_calc, f->best_calc != 0);
  json_opt_int(&j, "driver", f->best_drv, f->have_best_drv);
  json_opt_int(&j, "driver_min_grid", f->grid_drv, f->have_best_drv);
  ks_json_end(&j);
  json_coresident(&j, f);
  ks_json_end(&j);
}

/* ---- the command ----------------------------------------------------------
 */

int kspec_stats_main(int argc, char **argv) {
  stats_opts o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0)
    return rc;
  ks_ctx_opts co = {
      .arch = o.arch, .ptx_isa = o.ptx_isa, .no_driver = o.no_driver};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  static figures f; /* large; one per process */
  ks_spec_req req = {.kernel = o.kernel,
                     .bindings = o.defs,
                     .nbindings = o.ndefs,
                     .bounds = o.bounds,
                     .no_pass = o.no_pass,
                     .nno_pass = o.nno_pass,
                     .smem_spill = o.smem_spill};
  if (ks_ctx_create(&co, &ctx) != KS_OK)
    return fail(ks_errmsg(NULL));
  if (ks_template_load(ctx, o.tmpl, &t) != KS_OK ||
      ks_specialize(ctx, t, &req, &f.k) != KS_OK) {
    rc = fail(ks_errmsg(ctx));
  } else {
    f.t = t;
    f.arch = ks_ctx_arch(ctx);
    rc = measure(&f, ctx, &o);
    if (rc == EXIT_SUCCESS && o.json)
      print_json(&f, &o);
    else if (rc == EXIT_SUCCESS)
      print_text(&f, &o);
    if (rc == EXIT_SUCCESS && fflush(stdout) != 0)
      rc = fail("stats: output: write failed");
  }
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return rc;
}
