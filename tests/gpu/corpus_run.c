/*
 * corpus_run.c - one corpus case three ways (see corpus_run.h). All three
 * variants share the device buffers, textures and surfaces; before each
 * compared run the inputs are copied in again, outputs poisoned and
 * accumulators zeroed, so that a variant sees exactly what the others saw.
 * Globals live in each module (the nvcc module, each kspec kernel's own):
 * every variant's are set and read separately.
 */
#include "corpus_run.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *err, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return -1;
}

/* A driver call's failure as text. */
static int cu_bad(const cr_gpu *g, CUresult r, const char *what, char *err,
                  size_t cap) {
  const char *s = NULL;
  g->cu.cuGetErrorString(r, &s);
  return bad(err, cap, "%s: %s", what, s ? s : "unknown CUDA error");
}

int cr_gpu_open(cr_gpu *g, ks_ctx *ctx, char *err, size_t cap) {
  memset(g, 0, sizeof *g);
  g->ctx = ctx;
  g->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!g->lib)
    return bad(err, cap, "dlopen libcuda.so.1: %s", dlerror());
#define X(f, s)                                                                \
  if (!(*(void **)&g->cu.f = dlsym(g->lib, s)))                                \
    return bad(err, cap, "libcuda.so.1 has no %s", s);
  CR_CU_SYMBOLS
#undef X
  CUresult r = g->cu.cuInit(0);
  if (!r)
    r = g->cu.cuDeviceGet(&g->dev, 0);
  if (!r)
    r = g->cu.cuDevicePrimaryCtxRetain(&g->primary, g->dev);
  if (!r)
    r = g->cu.cuCtxSetCurrent(g->primary);
  if (!r)
    r = g->cu.cuDeviceGetAttribute(
        &g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g->dev);
  return r ? cu_bad(g, r, "the primary context", err, cap) : 0;
}

void cr_gpu_close(cr_gpu *g) {
  if (g->primary)
    g->cu.cuDevicePrimaryCtxRelease(g->dev);
  if (g->lib)
    dlclose(g->lib);
}

/* ---- host side ------------------------------------------------------------
 */

/* A seed per case and argument: the same inputs in every run. */
static uint64_t seed_of(const char *name, size_t i) {
  uint64_t h = 1469598103934665603ull;
  for (; *name; name++)
    h = (h ^ (unsigned char)*name) * 1099511628211ull;
  return h ^ (i * 0x9e3779b97f4a7c15ull);
}

int cr_host_setup(const km_case *c, cr_host *h, int dry, char *err,
                  size_t cap) {
  memset(h, 0, sizeof *h);
  for (size_t i = 0; i < c->nargs; i++) {
    const km_arg *a = &c->args[i];
    if (a->kind == KM_SCALAR)
      continue;
    if ((a->kind == KM_TEX2D || a->kind == KM_TEX1D) &&
        (a->type == KM_I64 || a->type == KM_U64 || a->type == KM_F64)) {
      cr_host_free(h);
      return bad(err, cap, "%s: no 64-bit texture formats", a->text);
    }
    h->bytes += km_arg_bytes(a);
    if (a->kind != KM_IN && a->kind != KM_IO && a->kind != KM_TEX2D &&
        a->kind != KM_TEX1D)
      continue;
    uint64_t seed = seed_of(c->name, i);
    size_t n = dry && a->n > 65536 ? 65536 : a->n;
    if (!(h->data[i] = malloc(km_arg_bytes(a)))) {
      cr_host_free(h);
      return bad(err, cap, "%s: out of host memory", a->text);
    }
    km_fill(h->data[i], a->type, n, a->ranged, a->lo, a->hi, &seed);
  }
  for (size_t i = 0; i < c->nglobals; i++) {
    const km_global *gl = &c->globals[i];
    h->bytes += gl->n * km_type_size(gl->type);
    if (!gl->set)
      continue;
    uint64_t seed = seed_of(c->name, KM_MAX_ARGS + i);
    if (!(h->gdata[i] = malloc(gl->n * km_type_size(gl->type)))) {
      cr_host_free(h);
      return bad(err, cap, "%s: out of host memory", gl->name);
    }
    km_fill(h->gdata[i], gl->type, gl->n, gl->ranged, gl->lo, gl->hi, &seed);
  }
  return 0;
}

void cr_host_free(cr_host *h) {
  for (size_t i = 0; i < KM_MAX_ARGS; i++)
    free(h->data[i]);
  for (size_t i = 0; i < KM_MAX_GLOBALS; i++)
    free(h->gdata[i]);
  memset(h, 0, sizeof *h);
}

/* ---- device side ------------------------------------------------------------
 */

static CUarray_format format_of(km_type t) {
  static const CUarray_format f[] = {
      CU_AD_FORMAT_SIGNED_INT8,  CU_AD_FORMAT_UNSIGNED_INT8,
      CU_AD_FORMAT_SIGNED_INT16, CU_AD_FORMAT_UNSIGNED_INT16,
      CU_AD_FORMAT_SIGNED_INT32, CU_AD_FORMAT_UNSIGNED_INT32,
      CU_AD_FORMAT_SIGNED_INT32, CU_AD_FORMAT_UNSIGNED_INT32, /* no 64 */
      CU_AD_FORMAT_HALF,         CU_AD_FORMAT_FLOAT,
      CU_AD_FORMAT_FLOAT};
  return f[t];
}

/* Host <-> array copy of a W x H image. */
static CUresult copy_image(cr_run *x, size_t i, void *host, int to_array) {
  const km_arg *a = &x->c->args[i];
  size_t row = (size_t)a->w * km_type_size(a->type);
  CUDA_MEMCPY2D m = {.WidthInBytes = row, .Height = a->h};
  if (to_array) {
    m.srcMemoryType = CU_MEMORYTYPE_HOST, m.srcHost = host, m.srcPitch = row;
    m.dstMemoryType = CU_MEMORYTYPE_ARRAY, m.dstArray = x->arr[i];
  } else {
    m.srcMemoryType = CU_MEMORYTYPE_ARRAY, m.srcArray = x->arr[i];
    m.dstMemoryType = CU_MEMORYTYPE_HOST, m.dstHost = host, m.dstPitch = row;
  }
  return x->g->cu.cuMemcpy2D(&m);
}

/* An array with a texture object (point, clamp, unnormalized, element
 * values) or a surface object over it. */
static CUresult make_image(cr_run *x, size_t i) {
  const km_arg *a = &x->c->args[i];
  CUDA_ARRAY3D_DESCRIPTOR ad = {.Width = a->w,
                                .Height = a->h,
                                .Format = format_of(a->type),
                                .NumChannels = 1};
  if (a->kind == KM_SURF2D)
    ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CUresult r = x->g->cu.cuArray3DCreate(&x->arr[i], &ad);
  if (r)
    return r;
  CUDA_RESOURCE_DESC rd = {.resType = CU_RESOURCE_TYPE_ARRAY};
  rd.res.array.hArray = x->arr[i];
  if (a->kind == KM_SURF2D)
    return x->g->cu.cuSurfObjectCreate(&x->obj[i], &rd);
  if ((r = copy_image(x, i, x->h.data[i], 1)))
    return r;
  CUDA_TEXTURE_DESC td = {.filterMode = CU_TR_FILTER_MODE_POINT};
  td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
  if (!km_type_float(a->type))
    td.flags = CU_TRSF_READ_AS_INTEGER;
  return x->g->cu.cuTexObjectCreate(&x->obj[i], &rd, &td, NULL);
}

/* A texture object over buffer i (tex1Dfetch: element values, no
 * filtering), its data copied in once: the kernel only reads it. */
static CUresult make_linear_tex(cr_run *x, size_t i) {
  const km_arg *a = &x->c->args[i];
  if (ks_memcpy_htod(x->g->ctx, x->buf[i], x->h.data[i], km_arg_bytes(a)) !=
      KS_OK)
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_RESOURCE_DESC rd = {.resType = CU_RESOURCE_TYPE_LINEAR};
  rd.res.linear.devPtr = x->buf[i];
  rd.res.linear.format = format_of(a->type);
  rd.res.linear.numChannels = 1;
  rd.res.linear.sizeInBytes = km_arg_bytes(a);
  CUDA_TEXTURE_DESC td = {.filterMode = CU_TR_FILTER_MODE_POINT};
  if (!km_type_float(a->type))
    td.flags = CU_TRSF_READ_AS_INTEGER;
  return x->g->cu.cuTexObjectCreate(&x->obj[i], &rd, &td, NULL);
}

/* Device buffers, images and the argument array. */
static int make_args(cr_run *x, char *err, size_t cap) {
  const km_case *c = x->c;
  for (size_t i = 0; i < c->nargs; i++) {
    const km_arg *a = &c->args[i];
    x->args[i] = x->val[i];
    if (a->kind == KM_SCALAR) {
      km_scalar_bytes(a, x->val[i]);
      continue;
    }
    if (a->kind == KM_TEX2D || a->kind == KM_SURF2D) {
      CUresult r = make_image(x, i);
      if (r)
        return cu_bad(x->g, r, a->text, err, cap);
      memcpy(x->val[i], &x->obj[i], sizeof x->obj[i]);
      continue;
    }
    if (ks_mem_alloc(x->g->ctx, km_arg_bytes(a), &x->buf[i]) != KS_OK)
      return bad(err, cap, "%s: %s", a->text, ks_errmsg(x->g->ctx));
    if (a->kind == KM_TEX1D) {
      CUresult r = make_linear_tex(x, i);
      if (r)
        return cu_bad(x->g, r, a->text, err, cap);
      memcpy(x->val[i], &x->obj[i], sizeof x->obj[i]);
      continue;
    }
    memcpy(x->val[i], &x->buf[i], sizeof x->buf[i]);
  }
  for (int v = 0; v < CR_VARIANTS; v++)
    for (size_t i = 0; i < c->nargs + c->nglobals; i++) {
      size_t b = i < c->nargs ? km_arg_bytes(&c->args[i])
                              : c->globals[i - c->nargs].n *
                                    km_type_size(c->globals[i - c->nargs].type);
      if (!(x->out[v][i] = malloc(b ? b : 1)))
        return bad(err, cap, "out of host memory");
    }
  return 0;
}

#ifdef KS_HAVE_BIND_ARG
/* c's bound scalars by position; wrap: see km_wrap_signed. */
static size_t bindings(const km_case *c, int wrap, ks_binding *b) {
  size_t n = 0;
  for (size_t i = 0; i < c->nargs; i++)
    if (km_binds(c, i, NULL)) {
      const km_arg *a = &c->args[i];
      b[n] = (ks_binding){.arg = (int)i};
      b[n].kind = km_type_float(a->type) ? KS_VALUE_REAL : KS_VALUE_INT;
      if (b[n].kind == KS_VALUE_REAL)
        b[n].v.f = a->f;
      else if (!wrap || !km_wrap_signed(a, &b[n].v.i))
        b[n].v.i = a->i;
      n++;
    }
  return n;
}
#endif

/* The generic and specialized kernels, the nvcc module and function. */
static int make_kernels(cr_run *x, const char *dir, char *err, size_t cap) {
  const km_case *c = x->c;
  char path[4096], why[512];
  int stem = (int)strcspn(c->file, ".");
  snprintf(path, sizeof path, "%s/%.*s.bc", dir, stem, c->file);
  if (ks_template_load(x->g->ctx, path, &x->t) != KS_OK)
    return bad(err, cap, "load: %s", ks_errmsg(x->g->ctx));
  ks_spec_req req = {.kernel =
                         km_kernel_symbol(x->t, c->kernel, why, sizeof why)};
  if (!req.kernel)
    return bad(err, cap, "%s", why);
  if (ks_specialize(x->g->ctx, x->t, &req, &x->k[CR_GENERIC]) != KS_OK)
    return bad(err, cap, "generic: %s", ks_errmsg(x->g->ctx));
  memcpy(req.bounds.block, c->block, sizeof c->block);
#ifdef KS_HAVE_BIND_ARG
  ks_binding b[KM_MAX_ARGS];
  req.bindings = b;
  req.nbindings = bindings(c, 0, b);
#endif
  ks_status s = ks_specialize(x->g->ctx, x->t, &req, &x->k[CR_SPEC]);
#ifdef KS_HAVE_BIND_ARG
  if (s == KS_ERANGE) { /* an unsigned int the IR calls signed: its bits */
    bindings(c, 1, b);
    s = ks_specialize(x->g->ctx, x->t, &req, &x->k[CR_SPEC]);
  }
#endif
  if (s != KS_OK)
    return bad(err, cap, "specialized: %s", ks_errmsg(x->g->ctx));
  snprintf(path, sizeof path, "%s/%.*s.cubin", dir, stem, c->file);
  CUresult r = x->g->cu.cuModuleLoad(&x->mod, path);
  if (!r)
    r = x->g->cu.cuModuleGetFunction(&x->fn, x->mod,
                                     ks_kernel_name(x->k[CR_GENERIC]));
  if (!r && c->smem > 48 * 1024)
    r = x->g->cu.cuFuncSetAttribute(
        x->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)c->smem);
  return r ? cu_bad(x->g, r, path, err, cap) : 0;
}

/* grid=coresident: the smallest of the three variants' co-resident grids,
 * so that all three run the same grid. */
static int coresident(cr_run *x, char *err, size_t cap) {
  unsigned threads = x->block.x * x->block.y * x->block.z, g = 0;
  int per_sm = 0;
  CUresult r = x->g->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, x->fn, (int)threads, x->c->smem);
  if (r)
    return cu_bad(x->g, r, "occupancy of the nvcc kernel", err, cap);
  unsigned best = (unsigned)(per_sm * x->g->sms);
#ifdef KS_HAVE_LAUNCH_EX
  for (int v = CR_GENERIC; v <= CR_SPEC; v++) {
    if (ks_kernel_max_coresident_grid(x->k[v], threads, x->c->smem, &g) !=
        KS_OK)
      return bad(err, cap, "co-resident grid: %s", ks_errmsg(x->g->ctx));
    best = g < best ? g : best;
  }
#endif
  (void)g;
  x->grid = (ks_dim3){best, 1, 1};
  return best ? 0 : bad(err, cap, "no co-resident grid");
}

int cr_setup(cr_gpu *g, const char *dir, const km_case *c, cr_run *x, char *err,
             size_t cap) {
  memset(x, 0, sizeof *x);
  x->g = g;
  x->c = c;
  x->grid = (ks_dim3){c->grid[0], c->grid[1], c->grid[2]};
  x->block = (ks_dim3){c->block[0], c->block[1], c->block[2]};
  err[0] = 0;
#ifndef KS_HAVE_LAUNCH_EX
  if (c->coop)
    return snprintf(err, cap, "cooperative launch: not in this kspec"), 1;
#endif
#ifndef KS_HAVE_GLOBALS
  if (c->nglobals)
    return snprintf(err, cap, "module globals: not in this kspec"), 1;
#endif
  if (cr_host_setup(c, &x->h, 0, err, cap) || make_kernels(x, dir, err, cap) ||
      (c->grid_coresident && coresident(x, err, cap)))
    return -1;
  return make_args(x, err, cap);
}

void cr_teardown(cr_run *x) {
  if (!x->g)
    return;
  for (size_t i = 0; i < KM_MAX_ARGS; i++) {
    if (x->obj[i] &&
        (x->c->args[i].kind == KM_TEX2D || x->c->args[i].kind == KM_TEX1D))
      x->g->cu.cuTexObjectDestroy(x->obj[i]);
    else if (x->obj[i])
      x->g->cu.cuSurfObjectDestroy(x->obj[i]);
    if (x->buf[i]) /* after the texture object over it */
      ks_mem_free(x->g->ctx, x->buf[i]);
    if (x->arr[i])
      x->g->cu.cuArrayDestroy(x->arr[i]);
  }
  for (int v = 0; v < CR_VARIANTS; v++)
    for (size_t i = 0; i < KM_MAX_ARGS + KM_MAX_GLOBALS; i++)
      free(x->out[v][i]);
  if (x->mod)
    x->g->cu.cuModuleUnload(x->mod);
  ks_template_destroy(x->t); /* kernels belong to the context */
  cr_host_free(&x->h);
  memset(x, 0, sizeof *x);
}

/* ---- running and comparing ------------------------------------------------
 */

/* Global i of the case in the nvcc module: its device address. (kspec's
 * kernels' globals go through ks_kernel_global_write/read, as a user's.) */
static int global_of(cr_run *x, size_t i, ks_devptr *p, char *err, size_t cap) {
  const km_global *gl = &x->c->globals[i];
  size_t want = gl->n * km_type_size(gl->type), have = 0;
  CUdeviceptr d = 0;
  CUresult r = x->g->cu.cuModuleGetGlobal(&d, &have, x->mod, gl->name);
  if (r)
    return cu_bad(x->g, r, gl->name, err, cap);
  *p = d;
  if (have < want)
    return bad(err, cap, "%s: %zu bytes, MANIFEST says %zu", gl->name, have,
               want);
  return 0;
}

/* Fresh inputs, poisoned outputs, zeroed accumulators; the variant's
 * globals set (gset) or zeroed (gget). */
static int reset(cr_run *x, int v, char *err, size_t cap) {
  const km_case *c = x->c;
  ks_ctx *ctx = x->g->ctx;
  for (size_t i = 0; i < c->nargs; i++) {
    const km_arg *a = &c->args[i];
    size_t b = km_arg_bytes(a);
    ks_status s = KS_OK;
    if (a->kind == KM_IN || a->kind == KM_IO)
      s = ks_memcpy_htod(ctx, x->buf[i], x->h.data[i], b);
    else if (a->kind == KM_OUT || a->kind == KM_ZERO)
      s = ks_memset8(ctx, x->buf[i], a->kind == KM_OUT ? 0xff : 0, b);
    else if (a->kind == KM_SURF2D) {
      memset(x->out[v][i], 0xff, b);
      if (copy_image(x, i, x->out[v][i], 1))
        return bad(err, cap, "%s: poisoning the surface", a->text);
    }
    if (s != KS_OK)
      return bad(err, cap, "%s: %s", a->text, ks_errmsg(ctx));
  }
  for (size_t i = 0; i < c->nglobals; i++) {
    const km_global *gl = &c->globals[i];
    size_t b = gl->n * km_type_size(gl->type);
    ks_devptr p = 0;
    if (v != CR_NVCC) { /* the API, as a user would */
#ifdef KS_HAVE_GLOBALS
      void *zero = calloc(1, b);
      ks_status s = ks_kernel_global_write(
          x->k[v], gl->name, 0, gl->set ? x->h.gdata[i] : zero, b, NULL);
      free(zero);
      if (s != KS_OK)
        return bad(err, cap, "%s: %s", gl->name, ks_errmsg(ctx));
#endif
      continue;
    }
    if (global_of(x, i, &p, err, cap))
      return -1;
    ks_status s = gl->set ? ks_memcpy_htod(ctx, p, x->h.gdata[i], b)
                          : ks_memset8(ctx, p, 0, b);
    if (s != KS_OK)
      return bad(err, cap, "%s: %s", gl->name, ks_errmsg(ctx));
  }
  return ks_synchronize(ctx) == KS_OK
             ? 0
             : bad(err, cap, "reset: %s", ks_errmsg(ctx));
}

/* One launch of variant v on the default stream. */
static int launch(cr_run *x, int v, char *err, size_t cap) {
  const km_case *c = x->c;
  if (v == CR_NVCC) {
    CUresult r =
        c->coop
            ? x->g->cu.cuLaunchCooperativeKernel(
                  x->fn, x->grid.x, x->grid.y, x->grid.z, x->block.x,
                  x->block.y, x->block.z, c->smem, NULL, x->args)
            : x->g->cu.cuLaunchKernel(x->fn, x->grid.x, x->grid.y, x->grid.z,
                                      x->block.x, x->block.y, x->block.z,
                                      c->smem, NULL, x->args, NULL);
    return r ? cu_bad(x->g, r, "nvcc launch", err, cap) : 0;
  }
  ks_status s;
#ifdef KS_HAVE_LAUNCH_EX
  ks_launch_attrs at = {.smem = c->smem, .cooperative = c->coop};
  s = ks_launch_ex(x->k[v], x->grid, x->block, &at, x->args);
#else
  s = ks_launch(x->k[v], x->grid, x->block, c->smem, NULL, x->args);
#endif
  if (s != KS_OK)
    return bad(err, cap, "%s launch: %s",
               v == CR_SPEC ? "specialized" : "generic", ks_errmsg(x->g->ctx));
  return 0;
}

/* The variant's outputs and globals into x->out[v]. */
static int read_back(cr_run *x, int v, char *err, size_t cap) {
  const km_case *c = x->c;
  for (size_t i = 0; i < c->nargs; i++) {
    const km_arg *a = &c->args[i];
    if (a->kind == KM_SURF2D && copy_image(x, i, x->out[v][i], 0))
      return bad(err, cap, "%s: reading the surface", a->text);
    if ((a->kind == KM_OUT || a->kind == KM_IO || a->kind == KM_ZERO) &&
        ks_memcpy_dtoh(x->g->ctx, x->out[v][i], x->buf[i], km_arg_bytes(a)) !=
            KS_OK)
      return bad(err, cap, "%s: %s", a->text, ks_errmsg(x->g->ctx));
  }
  for (size_t i = 0; i < c->nglobals; i++) {
    const km_global *gl = &c->globals[i];
    size_t b = gl->n * km_type_size(gl->type);
    void *dst = x->out[v][c->nargs + i];
    ks_devptr p = 0;
    if (gl->set)
      continue;
    if (v != CR_NVCC) {
#ifdef KS_HAVE_GLOBALS
      if (ks_kernel_global_read(x->k[v], gl->name, 0, dst, b, NULL) != KS_OK)
        return bad(err, cap, "%s: %s", gl->name, ks_errmsg(x->g->ctx));
#endif
      continue;
    }
    if (global_of(x, i, &p, err, cap) ||
        ks_memcpy_dtoh(x->g->ctx, dst, p, b) != KS_OK)
      return err[0] ? -1
                    : bad(err, cap, "%s: %s", gl->name, ks_errmsg(x->g->ctx));
  }
  return 0;
}

/* Variant v's results against nvcc's. */
static int compare_variant(cr_run *x, int v, char *err, size_t cap) {
  const km_case *c = x->c;
  static const char *const names[] = {"nvcc", "generic", "specialized"};
  for (size_t i = 0; i < c->nargs + c->nglobals; i++) {
    km_type t;
    size_t n;
    const char *what;
    if (i < c->nargs) {
      const km_arg *a = &c->args[i];
      if (a->kind != KM_OUT && a->kind != KM_IO && a->kind != KM_ZERO &&
          a->kind != KM_SURF2D)
        continue;
      t = a->type, n = a->n, what = a->text;
    } else {
      const km_global *gl = &c->globals[i - c->nargs];
      if (gl->set)
        continue;
      t = gl->type, n = gl->n, what = gl->name;
    }
    size_t first = 0, nbad;
    char diff[128];
    nbad = km_compare(x->out[CR_NVCC][i], x->out[v][i], t, n, c->tol, &first,
                      diff, sizeof diff);
    if (nbad)
      return bad(err, cap,
                 "%s: argument %zu (%s): %zu of %zu differ from nvcc, "
                 "first [%zu]: %s",
                 names[v], i, what, nbad, n, first, diff);
  }
  return 0;
}

int cr_compare(cr_run *x, char *err, size_t cap) {
  for (int v = 0; v < CR_VARIANTS; v++)
    if (reset(x, v, err, cap) || launch(x, v, err, cap))
      return -1;
    else if (ks_synchronize(x->g->ctx) != KS_OK)
      return bad(err, cap, "variant %d ran into: %s", v, ks_errmsg(x->g->ctx));
    else if (read_back(x, v, err, cap))
      return -1;
  for (int v = CR_GENERIC; v < CR_VARIANTS; v++)
    if (compare_variant(x, v, err, cap))
      return -1;
  return 0;
}

int cr_launch_timed(cr_run *x, int v, float *ms) {
  char err[256];
  if (ks_timer_start(x->g->ctx) != KS_OK || launch(x, v, err, sizeof err) ||
      ks_timer_stop(x->g->ctx, ms) != KS_OK)
    return -1;
  return 0;
}

void cr_fired(const cr_run *x, char *buf, size_t cap) {
  /* the explanation's summary names the optional passes that changed the
   * kernel ("summary: changed by coarsen, smem_promote") */
  static const char key[] = "summary: changed by ";
  const char *e = ks_kernel_explain(x->k[CR_SPEC]);
  const char *s = e ? strstr(e, key) : NULL;
  if (s)
    snprintf(buf, cap, "%.*s", (int)strcspn(s + sizeof key - 1, "\n"),
             s + sizeof key - 1);
  else
    snprintf(buf, cap, "-");
}
