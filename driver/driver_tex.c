/*
 * driver_tex.c - texture objects through the CUDA Driver API: over
 * pitch-linear memory (1-D and 2-D) and over CUDA 3-D arrays, which
 * ks_launch fills from the sampled argument before every launch.
 */
#include <stdint.h>
#include <string.h>

#include "driver_int.h"

/* ---- texture objects ------------------------------------------------------
 */

ks_status ks_drv_tex_limits(ks_drv *d, ks_drv_tex_limits_t *out, char *err,
                            size_t cap) {
  static const struct {
    CUdevice_attribute a;
    size_t off;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT,
       offsetof(ks_drv_tex_limits_t, align)},
      {CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
       offsetof(ks_drv_tex_limits_t, pitch_align)},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
       offsetof(ks_drv_tex_limits_t, max_width)},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
       offsetof(ks_drv_tex_limits_t, max_height)},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
       offsetof(ks_drv_tex_limits_t, max_pitch)},
  };
  ks_status st = ks_drv_bind(d, err, cap);

  for (size_t i = 0; !st && i < sizeof attrs / sizeof *attrs; i++) {
    int v = 0;
    st = ks_drv_check(d, d->cu.cuDeviceGetAttribute(&v, attrs[i].a, d->dev),
                      "cuDeviceGetAttribute", KS_EDRIVER, err, cap);
    memcpy((char *)out + attrs[i].off, &v, sizeof v);
  }
  return st;
}

/* KS_TEX_* (kspec.h) to the driver's formats. */
static CUarray_format tex_format(unsigned f) {
  static const CUarray_format fm[] = {
      CU_AD_FORMAT_FLOAT,          CU_AD_FORMAT_HALF,
      CU_AD_FORMAT_UNSIGNED_INT8,  CU_AD_FORMAT_SIGNED_INT8,
      CU_AD_FORMAT_UNSIGNED_INT16, CU_AD_FORMAT_SIGNED_INT16};
  return fm[f < sizeof fm / sizeof *fm ? f : 0];
}

ks_status ks_drv_tex_create(ks_drv *d, const ks_drv_tex *t, uint64_t *obj,
                            char *err, size_t cap) {
  static const CUaddress_mode modes[] = {
      CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_WRAP,
      CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};
  CUDA_RESOURCE_DESC res;
  CUDA_TEXTURE_DESC td;
  CUtexObject o = 0;
  ks_status st = ks_drv_bind(d, err, cap);

  *obj = 0;
  if (st)
    return st;
  memset(&res, 0, sizeof res);
  memset(&td, 0, sizeof td);
  res.resType = CU_RESOURCE_TYPE_PITCH2D;
  res.res.pitch2D.devPtr = (CUdeviceptr)t->ptr;
  res.res.pitch2D.format = tex_format(t->format);
  res.res.pitch2D.numChannels = 1;
  res.res.pitch2D.width = t->width;
  res.res.pitch2D.height = t->height;
  res.res.pitch2D.pitchInBytes = t->pitch_bytes;
  for (int i = 0; i < 3; i++)
    td.addressMode[i] = modes[t->mode & 3];
  td.filterMode =
      t->linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
  td.flags = (t->read_integers ? CU_TRSF_READ_AS_INTEGER : 0) |
             (t->normalized_coords ? CU_TRSF_NORMALIZED_COORDINATES : 0);
  st = ks_drv_check(d, d->cu.cuTexObjectCreate(&o, &res, &td, NULL),
                    "cuTexObjectCreate", KS_EDRIVER, err, cap);
  *obj = st ? 0 : (uint64_t)o;
  return st;
}

void ks_drv_tex_destroy(ks_drv *d, uint64_t obj) {
  if (d && obj && d->cu.cuCtxSetCurrent(d->ctx) == CUDA_SUCCESS)
    d->cu.cuTexObjectDestroy((CUtexObject)obj);
}

/* ---- 3-D textures: objects over CUDA arrays ------------------------------
 * The hardware samples 3-D textures only from CUDA arrays (a layout of
 * its own), so the data is copied into one (ks_drv_tex3d_copy) before the
 * kernel reads it. */

ks_status ks_drv_tex3d_limits(ks_drv *d, int max[3], char *err, size_t cap) {
  static const CUdevice_attribute a[3] = {
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
      CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH};
  ks_status st = ks_drv_bind(d, err, cap);

  for (int i = 0; !st && i < 3; i++)
    st = ks_drv_check(d, d->cu.cuDeviceGetAttribute(&max[i], a[i], d->dev),
                      "cuDeviceGetAttribute", KS_EDRIVER, err, cap);
  return st;
}

/* The sampling of t: filter, address mode, what integers read as. */
static void tex3d_desc(const ks_drv_tex *t, CUDA_TEXTURE_DESC *td) {
  static const CUaddress_mode modes[] = {
      CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_WRAP,
      CU_TR_ADDRESS_MODE_MIRROR, CU_TR_ADDRESS_MODE_BORDER};

  memset(td, 0, sizeof *td);
  for (int i = 0; i < 3; i++)
    td->addressMode[i] = modes[t->mode & 3];
  td->filterMode =
      t->linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
  td->flags = (t->read_integers ? CU_TRSF_READ_AS_INTEGER : 0) |
              (t->normalized_coords ? CU_TRSF_NORMALIZED_COORDINATES : 0);
}

ks_status ks_drv_tex3d_create(ks_drv *d, const ks_drv_tex *t, unsigned depth,
                              uint64_t *array, uint64_t *obj, char *err,
                              size_t cap) {
  CUDA_ARRAY3D_DESCRIPTOR ad;
  CUDA_RESOURCE_DESC res;
  CUDA_TEXTURE_DESC td;
  CUarray a = NULL;
  CUtexObject o = 0;
  ks_status st = ks_drv_bind(d, err, cap);

  *array = *obj = 0;
  if (st)
    return st;
  memset(&ad, 0, sizeof ad);
  ad.Width = t->width;
  ad.Height = t->height;
  ad.Depth = depth;
  ad.Format = tex_format(t->format);
  ad.NumChannels = 1;
  st = ks_drv_check(d, d->cu.cuArray3DCreate(&a, &ad), "cuArray3DCreate",
                    KS_EDRIVER, err, cap);
  if (st)
    return st;
  memset(&res, 0, sizeof res);
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = a;
  tex3d_desc(t, &td);
  st = ks_drv_check(d, d->cu.cuTexObjectCreate(&o, &res, &td, NULL),
                    "cuTexObjectCreate", KS_EDRIVER, err, cap);
  if (st) {
    d->cu.cuArrayDestroy(a);
    return st;
  }
  *array = (uint64_t)(uintptr_t)a;
  *obj = (uint64_t)o;
  return KS_OK;
}

ks_status ks_drv_tex3d_copy(ks_drv *d, uint64_t array, const ks_drv_tex *t,
                            unsigned depth, void *stream, char *err,
                            size_t cap) {
  static const unsigned elem[] = {4, 2, 1, 1, 2, 2}; /* KS_TEX_* */
  CUDA_MEMCPY3D c;
  ks_status st = ks_drv_bind(d, err, cap);

  if (st)
    return st;
  memset(&c, 0, sizeof c);
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = (CUdeviceptr)t->ptr;
  c.srcPitch = t->pitch_bytes;
  c.srcHeight = t->height;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstArray = (CUarray)(uintptr_t)array;
  c.WidthInBytes = (size_t)t->width * elem[t->format < 6 ? t->format : 0];
  c.Height = t->height;
  c.Depth = depth;
  return ks_drv_check(d, d->cu.cuMemcpy3DAsync(&c, (CUstream)stream),
                      "cuMemcpy3DAsync", KS_ELAUNCH, err, cap);
}

void ks_drv_tex3d_destroy(ks_drv *d, uint64_t array, uint64_t obj) {
  if (!d || d->cu.cuCtxSetCurrent(d->ctx) != CUDA_SUCCESS)
    return;
  if (obj)
    d->cu.cuTexObjectDestroy((CUtexObject)obj);
  if (array)
    d->cu.cuArrayDestroy((CUarray)(uintptr_t)array);
}
