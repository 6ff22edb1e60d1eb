/*
 * launch.c - the one launch path: ks_launch is ks_launch_ex with a stream
 * and dynamic shared memory only.
 *
 * What a launch must do beyond the user's block and arguments comes from
 * the kernel's info (the passes' launch plan) and from the attributes:
 *
 *   user grid, block ──> check geometry ──> real block (coarsen_x/_y)
 *                                           real grid.x (grid_coarsen)
 *   attrs.smem > 48 KiB ──> MAX_DYNAMIC_SHARED_SIZE_BYTES, once per size
 *   attrs.cluster ──> the device takes clusters; real grid a multiple
 *   attrs.cooperative, info.grid_sync ──> real grid co-resident (driver's
 *                                         occupancy)
 *   textures ──> a texture object per texture appended (cached; 0 where
 *                none can be made: the kernel samples in software)
 *   const copies, 3-D textures' arrays ──> copied on the stream, then the
 *                launch (all under launch_lock)
 *   grid_coarsen ──> the user's grid.x appended as a hidden argument
 *
 * Everything is checked before anything reaches the device, so a refused
 * launch leaves no constant copy or attribute behind, except a raised
 * shared-memory attribute, which only permits more.
 *
 * A kernel whose PTX reads the grid workspace (info.grid_sync: a grid
 * barrier) is launched cooperatively whatever the attributes say, by
 * ks_launch too; a grid too large for that is refused, never shrunk.
 * A cooperative launch is checked on the real grid, which is what the
 * driver makes co-resident. A kernel with grid-wide sync is never grid-
 * coarsened: gcoarsen declines fences, atomics whose old value is used and
 * volatile loads, which every grid barrier needs.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

/* Blocks of a cluster the hardware guarantees to schedule (CUDA's
 * portable cluster size); more needs a non-portable opt-in kspec does not
 * make. */
enum { PORTABLE_CLUSTER = 8 };

/* The largest per-block shared memory a launch may ask for on dev. */
static unsigned smem_ceiling(const ks_device_info *dev) {
  int top = dev->max_smem_per_block_optin > dev->max_smem_per_block
                ? dev->max_smem_per_block_optin
                : dev->max_smem_per_block;
  return top > 0 ? (unsigned)top : 0;
}

/* The block against the kernel's fixed block; b gets the block to launch
 * (the real one of a coarsened kernel). */
static ks_status real_block(const ks_kernel *k, const unsigned ub[3],
                            unsigned b[3]) {
  for (int i = 0; i < 3; i++)
    if (k->info.reqntid[0] && ub[i] != k->info.reqntid[i])
      return ks_jit_fail(KS_EBOUNDS,
                         "launch: %s was specialized for block %ux%ux%u, "
                         "launched with %ux%ux%u",
                         k->name, k->info.reqntid[0], k->info.reqntid[1],
                         k->info.reqntid[2], ub[0], ub[1], ub[2]);
  memcpy(b, ub, 3 * sizeof *b);
  if (k->info.reqntid[0])
    memcpy(b, k->info.launch_block, 3 * sizeof *b);
  return KS_OK;
}

/* The launch geometry and shared memory against the kernel's bounds and
 * the device. ub is the user's block; b gets the block to launch. */
static ks_status check_launch(const ks_kernel *k, const ks_device_info *dev,
                              const unsigned g[3], const unsigned ub[3],
                              unsigned smem, unsigned b[3]) {
  ks_status s = real_block(k, ub, b);
  if (s != KS_OK)
    return s;
  unsigned long long threads = (unsigned long long)b[0] * b[1] * b[2];
  for (int i = 0; i < 3; i++) {
    if (!g[i] || !b[i])
      return ks_jit_fail(KS_EBOUNDS, "launch: %s: grid/block.%c is 0", k->name,
                         "xyz"[i]);
    if (b[i] > (unsigned)dev->max_block_dim[i] ||
        g[i] > (unsigned)dev->max_grid_dim[i])
      return ks_jit_fail(KS_EBOUNDS,
                         "launch: %s: grid.%c=%u block.%c=%u over the "
                         "device limits %d, %d",
                         k->name, "xyz"[i], g[i], "xyz"[i], b[i],
                         dev -> max_grid_dim[i], dev -> max_block_dim[i]);
  }
  if (threads > (unsigned long long)k->info.max_threads)
    return ks_jit_fail(KS_EBOUNDS,
                       "launch: %s: block of %llu threads over the kernel's "
                       "limit %d (maxntid %u, registers %d)",
                       k->name, threads, k->info.max_threads, k->info.maxntid,
                       k->info.regs);
  if (smem + (unsigned long long)k->info.static_smem > smem_ceiling(dev))
    return ks_jit_fail(KS_EBOUNDS,
                       "launch: %s: %u bytes of dynamic shared memory plus "
                       "%d static over the device's opt-in limit %u",
                       k->name, smem, k->info.static_smem, smem_ceiling(dev));
  return KS_OK;
}

/* The attribute is raised under the load lock so that concurrent
 * launches never lower it. */
ks_status ks_jit_allow_dyn_smem(ks_kernel *k, unsigned smem) {
  const ks_device_info *dev = &k->ctx->dev;
  if (smem + (unsigned long long)k->info.static_smem > smem_ceiling(dev) ||
      smem + (unsigned long long)k->info.static_smem <=
          (unsigned long long)dev->max_smem_per_block)
    return KS_OK;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = KS_OK;
  pthread_mutex_lock(&k->load_lock);
  if (smem > k->dyn_smem_max) {
    s = ks_drv_func_max_dyn_smem(k->ctx->drv, k->mod.function, smem, err, cap);
    if (s == KS_OK)
      k->dyn_smem_max = smem;
  }
  pthread_mutex_unlock(&k->load_lock);
  return s;
}

/* Clusters: the device must take them and the real grid must be made of
 * whole clusters. c is the cluster, every dimension at least 1. */
static ks_status check_cluster(const ks_kernel *k, const ks_device_info *dev,
                               const unsigned g[3], const unsigned c[3]) {
  if (!dev->cluster_launch)
    return ks_jit_fail(KS_EARCH,
                       "launch: %s: thread-block clusters need sm_90 or "
                       "later; the device (%s) is sm_%d",
                       k->name, dev->name, dev->sm);
  unsigned long long n = (unsigned long long)c[0] * c[1] * c[2];
  if (n > PORTABLE_CLUSTER)
    return ks_jit_fail(KS_EBOUNDS,
                       "launch: %s: cluster %ux%ux%u of %llu blocks over the "
                       "portable limit of %d",
                       k->name, c[0], c[1], c[2], n, PORTABLE_CLUSTER);
  for (int i = 0; i < 3; i++)
    if (g[i] % c[i])
      return ks_jit_fail(KS_EBOUNDS,
                         "launch: %s: grid %ux%ux%u%s is not a multiple of "
                         "the cluster %ux%ux%u",
                         k->name, g[0], g[1], g[2],
                         k->info.plan.grid_coarsen > 1 ? " (grid-coarsened)"
                                                       : "",
                         c[0], c[1], c[2]);
  return KS_OK;
}

/* Blocks of k resident per SM with the real block b and smem bytes (the
 * attribute already allows them). */
static ks_status blocks_per_sm(ks_kernel *k, const unsigned b[3], unsigned smem,
                               int *n) {
  size_t cap = 0;
  return ks_drv_occupancy(k->ctx->drv, k->mod.function,
                          (int)(b[0] * b[1] * b[2]), smem, n,
                          ks_jit_errbuf(&cap), cap);
}

/* Said of a kernel with a grid barrier whose grid is too large. kspec does
 * not shrink the grid: only a kernel that strides over its data by the
 * grid's size would still cover all of it. */
static const char too_many_note[] =
    "; the kernel synchronizes the grid: launch at most that many blocks "
    "(ks_kernel_max_coresident_grid), each covering more of the data";

/* A cooperative launch: every block of the real grid g must be resident
 * at once, or a grid-wide barrier never opens. */
static ks_status check_cooperative(ks_kernel *k, const ks_device_info *dev,
                                   const unsigned g[3], const unsigned b[3],
                                   unsigned smem) {
  if (!dev->cooperative_launch)
    return ks_jit_fail(KS_EARCH,
                       "launch: %s: the device (%s) takes no cooperative "
                       "launch",
                       k->name, dev->name);
  int per_sm = 0;
  ks_status s = blocks_per_sm(k, b, smem, &per_sm);
  if (s != KS_OK)
    return s;
  unsigned long long grid = (unsigned long long)g[0] * g[1] * g[2];
  unsigned long long most = (unsigned long long)per_sm * dev->multiprocessors;
  if (grid > most)
    return ks_jit_fail(KS_EBOUNDS,
                       "launch: %s: cooperative launch: grid of %llu blocks "
                       "over the %llu that can be resident (%d per SM x %d "
                       "SMs)%s%s",
                       k->name, grid, most, per_sm, dev->multiprocessors,
                       k->info.plan.grid_coarsen > 1 ? " (grid-coarsened)" : "",
                       k->info.grid_sync ? too_many_note : "");
  return KS_OK;
}

/* ---- hardware textures ---------------------------------------------------
 * A texture object over the launch's own array, made once per (texture,
 * pointer, width, height, depth, pitch) and kept until the kernel goes or
 * the memory is freed through ks_mem_free; the format, filter and mode
 * are the kernel's. A 3-D texture is an object over a CUDA 3-D array
 * (the only memory the hardware samples in 3-D), kept with it, into which
 * every launch copies the pointer's array first. Where the device cannot
 * sample the array (alignment, limits) or the driver refuses, the kernel
 * gets 0 and samples in software, and ks_kernel_launch_note says why. */

struct ks_tex_obj {
  unsigned tex;
  uint64_t ptr;
  unsigned w, h, d;
  size_t pitch;
  uint64_t obj;   /* 0: none could be made */
  uint64_t array; /* a 3-D texture's CUDA array, else 0 */
};

/* What a launch copies into a 3-D texture's array before the kernel. */
typedef struct tex_copy {
  uint64_t array; /* 0: nothing to copy */
  ks_drv_tex src;
  unsigned depth;
} tex_copy;

static const unsigned tex_elem_bytes[] = {4, 2, 1, 1, 2, 2}; /* KS_TEX_* */

/* Size j of the plan's textures, from the launch's arguments. */
static long tex_size(const ks_launch_plan *p, unsigned j, void **args) {
  int32_t v = 0;
  if (!p->tex_size_arg[j])
    return p->tex_size_value[j];
  memcpy(&v, args[p->tex_size_arg[j] - 1], sizeof v);
  return v;
}

static void tex_obj_destroy(ks_drv *drv, const struct ks_tex_obj *o) {
  if (o->array)
    ks_drv_tex3d_destroy(drv, o->array, o->obj);
  else
    ks_drv_tex_destroy(drv, o->obj);
}

void ks_jit_tex_free(ks_kernel *k, ks_drv *drv) {
  for (size_t i = 0; i < k->ntexobjs; i++)
    if (drv)
      tex_obj_destroy(drv, &k->texobjs[i]);
  free(k->texobjs);
  free(k->tex_note);
  k->texobjs = NULL;
  k->ntexobjs = k->texobj_cap = 0;
  k->tex_note = NULL;
}

size_t ks_jit_tex_forget(ks_kernel *k, ks_drv *drv, uint64_t base,
                         size_t bytes) {
  size_t gone = 0, kept = 0;
  pthread_mutex_lock(&k->launch_lock);
  for (size_t i = 0; i < k->ntexobjs; i++) {
    const struct ks_tex_obj *o = &k->texobjs[i];
    if (o->ptr >= base && o->ptr - base < (bytes ? bytes : 1)) {
      tex_obj_destroy(drv, o);
      gone++;
    } else {
      k->texobjs[kept++] = *o;
    }
  }
  k->ntexobjs = kept;
  pthread_mutex_unlock(&k->launch_lock);
  return gone;
}

const char *ks_kernel_launch_note(ks_kernel *k) {
  if (!k)
    return NULL;
  pthread_mutex_lock(&k->launch_lock);
  const char *n = k->tex_note;
  pthread_mutex_unlock(&k->launch_lock);
  return n;
}

/* Keeps the first reason a launch sampled in software. */
static void tex_note(ks_kernel *k, unsigned i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void tex_note(ks_kernel *k, unsigned i, const char *fmt, ...) {
  if (k->tex_note)
    return;
  char why[400], *n = malloc(512);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (n)
    snprintf(n, 512,
             "launch: %s: texture of argument %u sampled in software: %s",
             k->name, k->info.plan.tex_arg[i], why);
  k->tex_note = n;
}

/* Can texture i of k be made over d (else the note says why)? */
static int tex_fits(ks_kernel *k, unsigned i, const ks_drv_tex *d) {
  ks_drv_tex_limits_t lim = {0};
  size_t cap = 0;
  if (ks_drv_tex_limits(k->ctx->drv, &lim, ks_jit_errbuf(&cap), cap) != KS_OK)
    return tex_note(k, i, "the device's texture limits are unknown"), 0;
  if (!d->ptr || !d->width || !d->height)
    return tex_note(k, i, "an empty or NULL array"), 0;
  if (lim.pitch_align > 0 && (d->pitch_bytes % (unsigned)lim.pitch_align ||
                              d->ptr % (unsigned)lim.pitch_align))
    return tex_note(k, i,
                    "its pitch (%zu bytes) or address (0x%llx) is not a "
                    "multiple of the device's texture pitch alignment, %d "
                    "bytes",
                    d->pitch_bytes, (unsigned long long)d->ptr,
                    lim.pitch_align),
           0;
  if ((lim.max_width > 0 && d->width > (unsigned)lim.max_width) ||
      (lim.max_height > 0 && d->height > (unsigned)lim.max_height) ||
      (lim.max_pitch > 0 && d->pitch_bytes > (size_t)lim.max_pitch))
    return tex_note(k, i,
                    "%ux%u texels, %zu bytes a row, over the device's "
                    "limits for a texture over linear memory (%dx%d, %d)",
                    d->width, d->height, d->pitch_bytes, lim.max_width,
                    lim.max_height, lim.max_pitch),
           0;
  return 1;
}

/* The same for a 3-D texture: a CUDA array of the device's 3-D limits
 * (the copy takes any pitch). */
static int tex3d_fits(ks_kernel *k, unsigned i, const ks_drv_tex *d,
                      unsigned depth) {
  int max[3] = {0, 0, 0};
  size_t cap = 0;
  if (ks_drv_tex3d_limits(k->ctx->drv, max, ks_jit_errbuf(&cap), cap) != KS_OK)
    return tex_note(k, i, "the device's 3-D texture limits are unknown"), 0;
  if (!d->ptr)
    return tex_note(k, i, "a NULL array"), 0;
  if (d->width > (unsigned)max[0] || d->height > (unsigned)max[1] ||
      depth > (unsigned)max[2])
    return tex_note(k, i,
                    "%ux%ux%u texels, over the device's limits for a 3-D "
                    "texture (%dx%dx%d)",
                    d->width, d->height, depth, max[0], max[1], max[2]),
           0;
  return 1;
}

/* Texture i's object made over d (and depth): 0 where none can be. */
static uint64_t tex_make(ks_kernel *k, unsigned i, const ks_drv_tex *d,
                         unsigned depth, uint64_t *array) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  uint64_t obj = 0;
  *array = 0;
  if (k->info.plan.tex_dims[i] == 3) {
    if (tex3d_fits(k, i, d, depth) &&
        ks_drv_tex3d_create(k->ctx->drv, d, depth, array, &obj, err, cap) !=
            KS_OK)
      tex_note(k, i, "%s", err);
  } else if (tex_fits(k, i, d) &&
             ks_drv_tex_create(k->ctx->drv, d, &obj, err, cap) != KS_OK) {
    tex_note(k, i, "%s", err);
  }
  return obj;
}

/* The texture object of texture i for this launch (0: none), and what the
 * launch copies first (c->array 0: nothing); under launch_lock.
 * KS_ENOMEM only: what the device refuses is software. */
static ks_status tex_object(ks_kernel *k, unsigned i, void **args,
                            uint64_t *obj, tex_copy *c) {
  const ks_launch_plan *p = &k->info.plan;
  unsigned fmt = p->tex_format[i] < 6 ? p->tex_format[i] : 0;
  long w = tex_size(p, 4 * i, args), h = tex_size(p, 4 * i + 1, args);
  long dd = tex_size(p, 4 * i + 2, args), pitch = tex_size(p, 4 * i + 3, args);
  ks_drv_tex d = {.format = fmt,
                  .mode = p->tex_mode[i],
                  .linear = (p->tex_filter[i] & 1) != 0,
                  .read_integers = fmt >= 2 && !(p->tex_filter[i] & 2),
                  .normalized_coords =
                      p->tex_mode[i] == 1 || p->tex_mode[i] == 2};
  memcpy(&d.ptr, args[p->tex_arg[i]], sizeof d.ptr);
  *obj = 0;
  c->array = 0;
  if (w <= 0 || h <= 0 || dd <= 0 || pitch < w)
    return tex_note(k, i, "width %ld, height %ld, depth %ld, pitch %ld", w, h,
                    dd, pitch),
           KS_OK;
  d.width = (unsigned)w;
  d.height = (unsigned)h;
  d.pitch_bytes = (size_t)pitch * tex_elem_bytes[fmt];
  if (p->tex_dims[i] == 1) /* one row: any pitch the device takes */
    d.pitch_bytes = ((size_t)w * tex_elem_bytes[fmt] + 511) / 512 * 512;
  c->src = d;
  c->depth = (unsigned)dd;
  for (size_t j = 0; j < k->ntexobjs; j++) {
    const struct ks_tex_obj *o = &k->texobjs[j];
    if (o->tex == i && o->ptr == d.ptr && o->w == d.width && o->h == d.height &&
        o->d == c->depth && o->pitch == d.pitch_bytes) {
      *obj = o->obj;
      c->array = o->array;
      return KS_OK;
    }
  }
  if (k->ntexobjs == k->texobj_cap) {
    size_t n = k->texobj_cap ? 2 * k->texobj_cap : 8;
    struct ks_tex_obj *t = realloc(k->texobjs, n * sizeof *t);
    if (!t)
      return ks_jit_fail(KS_ENOMEM, "launch: out of memory");
    k->texobjs = t;
    k->texobj_cap = n;
  }
  *obj = tex_make(k, i, &d, c->depth, &c->array);
  k->texobjs[k->ntexobjs++] = (struct ks_tex_obj){
      i, d.ptr, d.width, d.height, c->depth, d.pitch_bytes, *obj, c->array};
  atomic_store(&k->ctx->tex_made, 1);
  return KS_OK;
}

/* The texture objects of this launch into tex, and the arrays to fill
 * into copies (KS_TEX_MAX each); *ncopies counts those. Under
 * launch_lock. */
static ks_status tex_objects(ks_kernel *k, void **args, uint64_t *tex,
                             tex_copy *copies, unsigned *ncopies) {
  const ks_launch_plan *p = &k->info.plan;
  ks_status s = KS_OK;
  *ncopies = 0;
  for (unsigned i = 0; s == KS_OK && i < p->texs; i++) {
    s = tex_object(k, i, args, &tex[i], &copies[i]);
    *ncopies += copies[i].array != 0;
  }
  return s;
}

/* The launch's pointer arguments that textures and constant copies read
 * must be there. */
static ks_status check_inputs(const ks_kernel *k, void **args) {
  const ks_launch_plan *p = &k->info.plan;
  if (!args)
    return ks_jit_fail(KS_EINVAL, "launch: %s: NULL arguments", k->name);
  for (unsigned i = 0; i < p->const_copies; i++)
    if (!args[p->const_copy_arg[i]])
      return ks_jit_fail(KS_EINVAL, "launch: %s: NULL pointer to argument %u",
                         k->name, p->const_copy_arg[i]);
  for (unsigned i = 0; i < p->texs; i++)
    if (!args[p->tex_arg[i]])
      return ks_jit_fail(KS_EINVAL, "launch: %s: NULL pointer to argument %u",
                         k->name, p->tex_arg[i]);
  return KS_OK;
}

/* The driver's launch, with the hidden arguments after args' own: a
 * texture object per texture (tex), then the user's grid.x for a
 * grid-coarsened kernel. */
static ks_status launch_args(ks_kernel *k, const ks_drv_launch_cfg *c,
                             unsigned user_x, const uint64_t *tex, void **args,
                             char *err, size_t cap) {
  const ks_launch_plan *p = &k->info.plan;
  unsigned hidden = p->texs + (p->grid_coarsen > 1);
  if (!hidden)
    return ks_drv_launch_ex(k->ctx->drv, k->mod.function, c, args, err, cap);
  void *small[32], **all = small;
  if (k->nargs && !args)
    return ks_jit_fail(KS_EINVAL, "launch: %s: NULL arguments", k->name);
  if (k->nargs + hidden > sizeof small / sizeof *small &&
      !(all = malloc((k->nargs + hidden) * sizeof *all)))
    return ks_jit_fail(KS_ENOMEM, "launch: out of memory");
  ks_status s = KS_OK;
  if (k->nargs)
    memcpy(all, args, k->nargs * sizeof *all);
  for (unsigned i = 0; i < p->texs; i++)
    all[k->nargs + i] = (void *)&tex[i];
  if (p->grid_coarsen > 1)
    all[k->nargs + p->texs] = &user_x;
  if (s == KS_OK)
    s = ks_drv_launch_ex(k->ctx->drv, k->mod.function, c, all, err, cap);
  if (all != small)
    free(all);
  return s;
}

/* A failed copy, said with the argument it copied from (a buffer too small
 * is the usual cause). */
static ks_status copy_failed(ks_kernel *k, ks_status s, const char *what,
                             unsigned arg, unsigned bytes, const char *err) {
  char why[512], first[48] = "";
  snprintf(why, sizeof why, "%s", err);
  if (bytes)
    snprintf(first, sizeof first, " (its first %u bytes)", bytes);
  return ks_jit_fail(s, "launch: %s: the %s of argument %u%s: %s", k->name,
                     what, arg, first, why);
}

/* A kernel with copies (constant copies, 3-D textures' arrays): on the
 * launch's stream, after the kernel's previous launch (on whichever
 * stream) has finished, each buffer's first bytes go to its .const
 * symbol and each 3-D texture's array is filled from its pointer, then
 * the kernel runs. A NULL buffer is not copied: no thread of a correct
 * launch reads it. */
static ks_status copy_inputs(ks_kernel *k, void *stream, void **args,
                             const tex_copy *copies, char *err, size_t cap) {
  ks_drv *drv = k->ctx->drv;
  const ks_launch_plan *p = &k->info.plan;
  ks_status s = KS_OK;
  if (!k->cmem_event)
    s = ks_drv_event_create(drv, &k->cmem_event, err, cap);
  if (s == KS_OK && k->cmem_launched && k->cmem_stream != stream)
    s = ks_drv_stream_wait(drv, stream, k->cmem_event, err, cap);
  for (unsigned i = 0; s == KS_OK && i < p->const_copies; i++) {
    uint64_t src = 0;
    memcpy(&src, args[p->const_copy_arg[i]], sizeof src);
    if (src &&
        (s = ks_drv_dtod_async(drv, k->cmem_ptr[i], src, p->const_copy_bytes[i],
                               stream, err, cap)) != KS_OK)
      s = copy_failed(k, s, "constant copy", p->const_copy_arg[i],
                      p->const_copy_bytes[i], err);
  }
  for (unsigned i = 0; s == KS_OK && i < p->texs; i++)
    if (copies[i].array &&
        (s = ks_drv_tex3d_copy(drv, copies[i].array, &copies[i].src,
                               copies[i].depth, stream, err, cap)) != KS_OK)
      s = copy_failed(k, s, "copy into the 3-D texture's array", p->tex_arg[i],
                      0, err);
  return s;
}

/* A kernel with textures or constant copies: the objects, the copies and
 * the launch under launch_lock, so that another launch's copies never
 * come between. */
static ks_status launch_with_inputs(ks_kernel *k, const ks_drv_launch_cfg *c,
                                    unsigned user_x, void **args, char *err,
                                    size_t cap) {
  ks_status s = check_inputs(k, args);
  if (s != KS_OK)
    return s;
  uint64_t tex[KS_TEX_MAX] = {0};
  tex_copy copies[KS_TEX_MAX];
  unsigned ncopies = 0;
  pthread_mutex_lock(&k->launch_lock);
  s = tex_objects(k, args, tex, copies, &ncopies);
  int copying = k->info.plan.const_copies || ncopies;
  if (s == KS_OK && copying)
    s = copy_inputs(k, c->stream, args, copies, err, cap);
  if (s == KS_OK)
    s = launch_args(k, c, user_x, tex, args, err, cap);
  if (s == KS_OK && copying)
    s = ks_drv_event_record(k->ctx->drv, k->cmem_event, c->stream, err, cap);
  if (s == KS_OK && copying) {
    k->cmem_stream = c->stream;
    k->cmem_launched = 1;
  }
  pthread_mutex_unlock(&k->launch_lock);
  return s; /* the message is in err, the thread's error buffer */
}

/* The driver's launch configuration for the user's grid, block and
 * attributes, everything checked. */
static ks_status plan_launch(ks_kernel *k, ks_dim3 grid, ks_dim3 block,
                             const ks_launch_attrs *a, ks_drv_launch_cfg *c) {
  const ks_device_info *dev = &k->ctx->dev;
  const unsigned ub[3] = {block.x, block.y, block.z};
  /* a kernel with a grid barrier is launched cooperatively, asked or not:
   * any other launch would hang at the barrier */
  *c = (ks_drv_launch_cfg){.grid = {grid.x, grid.y, grid.z},
                           .smem = a->smem,
                           .stream = a->stream,
                           .cooperative =
                               a->cooperative != 0 || k->info.grid_sync};
  ks_status s = check_launch(k, dev, c->grid, ub, a->smem, c->block);
  if (s != KS_OK)
    return s;
  unsigned gc = k->info.plan.grid_coarsen;
  if (gc > 1)
    c->grid[0] = grid.x / gc + (grid.x % gc != 0);
  if (a->cluster[0] || a->cluster[1] || a->cluster[2]) {
    for (int i = 0; i < 3; i++)
      c->cluster[i] = a->cluster[i] ? a->cluster[i] : 1;
    s = check_cluster(k, dev, c->grid, c->cluster);
  }
  if (s == KS_OK)
    s = ks_jit_allow_dyn_smem(k, a->smem);
  if (s == KS_OK && c->cooperative)
    s = check_cooperative(k, dev, c->grid, c->block, a->smem);
  return s;
}

ks_status ks_launch_ex(ks_kernel *k, ks_dim3 grid, ks_dim3 block,
                       const ks_launch_attrs *a, void **args) {
  static const ks_launch_attrs none;
  ks_status s = ks_kernel_load(k);
  if (s != KS_OK)
    return s;
  ks_drv_launch_cfg c;
  s = plan_launch(k, grid, block, a ? a : &none, &c);
  if (s != KS_OK)
    return s;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  if (k->info.plan.const_copies || k->info.plan.texs)
    return launch_with_inputs(k, &c, grid.x, args, err, cap);
  return launch_args(k, &c, grid.x, NULL, args, err, cap);
}

ks_status ks_launch(ks_kernel *k, ks_dim3 grid, ks_dim3 block, unsigned smem,
                    void *stream, void **args) {
  const ks_launch_attrs a = {.smem = smem, .stream = stream};
  return ks_launch_ex(k, grid, block, &a, args);
}

/* ---- co-residency -------------------------------------------------------- */

ks_status ks_kernel_max_active_blocks(ks_kernel *k, unsigned block,
                                      unsigned dyn_smem, int *blocks_per_sm) {
  ks_jit_clear();
  if (!k || !blocks_per_sm)
    return ks_jit_fail(KS_EINVAL, "occupancy: NULL argument");
  *blocks_per_sm = 0;
  ks_status s = ks_kernel_load(k);
  if (s != KS_OK)
    return s;
  const ks_device_info *dev = &k->ctx->dev;
  if (dyn_smem + (unsigned long long)k->info.static_smem > smem_ceiling(dev))
    return ks_jit_fail(KS_EBOUNDS,
                       "occupancy: %s: %u bytes of dynamic shared memory plus "
                       "%d static over the device's opt-in limit %u",
                       k->name, dyn_smem, k->info.static_smem,
                       smem_ceiling(dev));
  ks_occupancy o = {.size = sizeof o};
  s = ks_kernel_occupancy(k, block, dyn_smem, KS_RES_DRIVER, &o);
  if (s == KS_OK)
    *blocks_per_sm = o.blocks_per_sm;
  return s;
}

ks_status ks_kernel_max_coresident_grid(ks_kernel *k, unsigned block,
                                        unsigned dyn_smem, unsigned *blocks) {
  if (!blocks)
    return ks_jit_fail(KS_EINVAL, "occupancy: NULL argument");
  *blocks = 0;
  int per_sm = 0;
  ks_status s = ks_kernel_max_active_blocks(k, block, dyn_smem, &per_sm);
  if (s != KS_OK)
    return s;
  unsigned long long n = (unsigned long long)per_sm *
                         (unsigned)k->ctx->dev.multiprocessors *
                         k->info.plan.grid_coarsen; /* 1: none */
  *blocks = n > 0xffffffffull ? 0xffffffffu : (unsigned)n;
  return KS_OK;
}
