/*
 * ks_passes_tool.c - runs kspec's passes on a .ll file and prints the IR,
 * for the FileCheck tests in tests/ir/:
 *
 *   ks_passes_tool [--kernel K] [--bind IDX=VALUE]... [--block X[,Y[,Z]]]
 *                  [--maxntid N] [--minctasm N] [--maxnreg N]
 *                  [--cpu sm_90] [--ptx 85] [--features F]
 *                  [--stage bind-only|minmax-only|all|STAGE]
 *                  [--expect-fail]
 *                  [--no-pass STAGE]... [--bake IDX=V,V,...]...
 *                  [--fp BITS] [--libdevice FILE.bc] FILE.ll
 *
 * --stage bind-only runs ks_pass_bind alone, minmax-only ks_pass_minmax
 * alone (on the IR as written, which the optimize stage would change); all
 * (the default) runs the whole pipeline and prints the result; a pipeline
 * stage name runs the pipeline and prints the IR kept after that stage. The
 * type of a bound value is the argument's. With --expect-fail, a failing pass
 * prints "error: STATUS: message" on stdout and exits 0, and success exits 1.
 * What the passes explained comes first, as "; explain: pass: text" lines.
 * --fp gives the request's floating-point modes (kspec.h's KS_FP_* bits);
 * --libdevice the device library (as $KSPEC_LIBDEVICE, which it sets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"
#include "jit/ks_jit.h"
#include "passes/ks_passes.h"
#include "test_util.h"

enum { MAX_VALUES = 16, MAX_BAKES = 8, MAX_BAKE_VALUES = 1024 };

typedef struct options {
  ks_spec spec;
  ks_spec_value values[MAX_VALUES];
  /* The text of each --bind value; typed once the module is read. */
  const char *bind_text[MAX_VALUES];
  ks_spec_bake bakes[MAX_BAKES];
  double bake_values[MAX_BAKES][MAX_BAKE_VALUES];
  const char *stage;
  const char *file;
  unsigned ptx;
  int expect_fail;
} options;

static int usage(const char *why) {
  fprintf(stderr, "ks_passes_tool: %s\n", why);
  return 2;
}

static int parse_block(const char *s, unsigned block[3]) {
  char *end = NULL;
  for (int i = 0; i < 3; i++) {
    block[i] = (unsigned)strtoul(s, &end, 10);
    if (end == s)
      return 0;
    if (*end == '\0')
      return 1;
    if (*end != ',')
      return 0;
    s = end + 1;
  }
  return 0;
}

/* One option with its value; returns 0 or an exit status. */
static int take(options *o, const char *opt, const char *val) {
  ks_spec *s = &o->spec;
  if (strcmp(opt, "--kernel") == 0) {
    s->kernel = val;
  } else if (strcmp(opt, "--bind") == 0) {
    char *end = NULL;
    unsigned long idx = strtoul(val, &end, 10);
    if (end == val || *end != '=' || s->nvalues == MAX_VALUES)
      return usage("--bind wants IDX=VALUE");
    o->values[s->nvalues].arg_index = (unsigned)idx;
    o->bind_text[s->nvalues++] = end + 1;
  } else if (strcmp(opt, "--block") == 0) {
    if (!parse_block(val, s->block))
      return usage("--block wants X[,Y[,Z]]");
  } else if (strcmp(opt, "--maxntid") == 0) {
    s->maxntid = (unsigned)strtoul(val, NULL, 10);
  } else if (strcmp(opt, "--minctasm") == 0) {
    s->minctasm = (unsigned)strtoul(val, NULL, 10);
  } else if (strcmp(opt, "--maxnreg") == 0) {
    s->maxnreg = (unsigned)strtoul(val, NULL, 10);
  } else if (strcmp(opt, "--cpu") == 0) {
    s->cpu = val;
  } else if (strcmp(opt, "--features") == 0) {
    s->features = val;
  } else if (strcmp(opt, "--ptx") == 0) {
    o->ptx = (unsigned)strtoul(val, NULL, 10);
  } else if (strcmp(opt, "--fp") == 0) {
    s->fp = (unsigned)strtoul(val, NULL, 0);
  } else if (strcmp(opt, "--libdevice") == 0) {
    setenv("KSPEC_LIBDEVICE", val, 1);
  } else if (strcmp(opt, "--stage") == 0) {
    o->stage = val;
  } else if (strcmp(opt, "--no-pass") == 0) {
    size_t i = 0;
    while (i < ks_pipeline_stage_count() &&
           strcmp(ks_pipeline_stage_name(i), val) != 0)
      i++;
    if (!ks_pipeline_stage_optional(i))
      return usage("--no-pass wants an optional stage");
    s->disabled |= 1u << i;
  } else if (strcmp(opt, "--bake") == 0) {
    char *end = NULL;
    unsigned long idx = strtoul(val, &end, 10);
    if (end == val || *end != '=' || s->nbakes == MAX_BAKES)
      return usage("--bake wants IDX=V,V,...");
    ks_spec_bake *b = &o->bakes[s->nbakes];
    double *v = o->bake_values[s->nbakes++];
    *b = (ks_spec_bake){.arg_index = (unsigned)idx, .values = v};
    do {
      const char *p = end + 1;
      if (b->n == MAX_BAKE_VALUES)
        return usage("--bake: too many values");
      v[b->n++] = strtod(p, &end);
      if (end == p)
        return usage("--bake wants IDX=V,V,...");
    } while (*end == ',');
  } else {
    return usage("unknown option");
  }
  return 0;
}

static int parse_args(int argc, char **argv, options *o) {
  static char features[64];
  memset(o, 0, sizeof *o);
  o->spec.kernel = "k";
  o->spec.cpu = "sm_90";
  o->ptx = 85;
  o->stage = "all";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--expect-fail") == 0) {
      o->expect_fail = 1;
    } else if (strncmp(argv[i], "--", 2) == 0) {
      if (i + 1 == argc)
        return usage("option without a value");
      int rc = take(o, argv[i], argv[i + 1]);
      if (rc)
        return rc;
      i++;
    } else if (!o->file) {
      o->file = argv[i];
    } else {
      return usage("more than one input file");
    }
  }
  if (!o->file)
    return usage("no input file");
  if (!o->spec.features) {
    snprintf(features, sizeof features, "+ptx%u,+%s", o->ptx, o->spec.cpu);
    o->spec.features = features;
  }
  o->spec.values = o->values;
  o->spec.bakes = o->bakes;
  o->spec.devlib = &ks_jit_devlib;
  return 0;
}

/* Types each bound value by its argument in the kernel. */
static int type_values(LLVMModuleRef m, options *o) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, o->spec.kernel);
  for (size_t i = 0; i < o->spec.nvalues; i++) {
    ks_spec_value *v = &o->values[i];
    v->type = KS_TYPE_I32;
    v->i = strtoll(o->bind_text[i], NULL, 10);
    v->f = strtod(o->bind_text[i], NULL);
    if (!fn || v->arg_index >= LLVMCountParams(fn))
      continue; /* the pass reports it */
    LLVMTypeRef ty = LLVMTypeOf(LLVMGetParam(fn, v->arg_index));
    if (LLVMGetTypeKind(ty) == LLVMFloatTypeKind)
      v->type = KS_TYPE_F32;
    else if (LLVMGetTypeKind(ty) == LLVMDoubleTypeKind)
      v->type = KS_TYPE_F64;
    else if (LLVMGetTypeKind(ty) == LLVMIntegerTypeKind &&
             LLVMGetIntTypeWidth(ty) == 64)
      v->type = KS_TYPE_I64;
  }
  return 0;
}

/* Runs what o->stage asks on *mp (which the pipeline may replace); 0 with the
 * IR text in *out, or 1. */
static int run(LLVMModuleRef *mp, options *o, ks_diag *d, char **out) {
  LLVMModuleRef m = *mp;
  if (strcmp(o->stage, "bind-only") == 0 ||
      strcmp(o->stage, "minmax-only") == 0) {
    if (o->stage[0] == 'b' ? ks_pass_bind(m, &o->spec, d)
                           : ks_pass_minmax(m, &o->spec, d))
      return 1;
    *out = ks_ir_print(m);
    return 0;
  }
  const ks_arch *a = ks_jit_arch_find(o->spec.cpu);
  LLVMTargetMachineRef tm = a ? ks_jit_target_machine(a, o->ptx) : NULL;
  if (!tm)
    return ks_diag_fail(d, KS_EARCH, "no target machine for %s", o->spec.cpu);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  /* all: the IR after the last stage (the pipeline's result); asking for a
   * dump also keeps every stage's value names */
  o->spec.dump_stage =
      strcmp(o->stage, "all") == 0
          ? ks_pipeline_stage_name(ks_pipeline_stage_count() - 1)
          : o->stage;
  int bad = ks_pipeline_run(mp, tm, &o->spec, d);
  LLVMDisposeTargetMachine(tm);
  if (bad)
    return 1;
  if (!d->dump)
    return ks_diag_fail(d, KS_EINVAL, "no stage '%s'", o->stage);
  *out = d->dump;
  d->dump = NULL;
  return 0;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc)
    return rc;
  /* the lower stage is tested as it runs where LLVM's options are set
   * (expand-variadics told to lower, jit/codegen/target.c) */
  ks_llvm_own_process();
  size_t len = 0;
  unsigned char *text = tu_read_file(o.file, &len);
  if (!text) {
    fprintf(stderr, "ks_passes_tool: cannot read %s\n", o.file);
    return 1;
  }
  char sink[KS_IR_DIAG_CAP], err[1024];
  LLVMContextRef c = ks_ir_context_create(sink);
  LLVMModuleRef m = NULL;
  ks_diag d = {0};
  char *ir = NULL;
  rc = 1;
  if (ks_ir_parse(c, text, len, o.file, &m, err, sizeof err) != KS_OK) {
    fprintf(stderr, "ks_passes_tool: %s\n", err);
  } else if (type_values(m, &o), run(&m, &o, &d, &ir)) {
    if (o.expect_fail)
      printf("error: %s: %s\n", ks_status_name(d.status), d.msg);
    else
      fprintf(stderr, "ks_passes_tool: %s: %s\n", ks_status_name(d.status),
              d.msg);
    rc = o.expect_fail ? 0 : 1;
  } else {
    for (const char *p = d.explain; p && *p;) {
      size_t n = strcspn(p, "\n");
      printf("; explain: %.*s\n", (int)n, p);
      p += n + (p[n] == '\n');
    }
    fputs(ir, stdout);
    rc = o.expect_fail ? 1 : 0;
  }
  free(ir);
  free(d.dump);
  free(d.explain);
  free(text);
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return rc;
}
