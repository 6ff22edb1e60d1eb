/*
 * gpu_open.h - how the GPU tests open the GPU.
 *
 * Each test program includes this once. A test with no driver or no
 * device reports itself skipped (CTest's SKIP_RETURN_CODE, 77) rather
 * than failed.
 */
#ifndef KS_TEST_GPU_OPEN_H
#define KS_TEST_GPU_OPEN_H

#include <stdio.h>

#include "kspec.h"

enum { KS_TEST_SKIP = 77 };

/* Creates *ctx with o (NULL: defaults) and queries its device into *dev;
 * *s is the status. Without a driver or a device, prints "skipped: why",
 * destroys the context and returns 1: the test exits KS_TEST_SKIP. Else
 * returns 0 and leaves a failure (*s not KS_OK) to the caller, *ctx kept
 * for ks_errmsg. */
static int gpu_open(const ks_ctx_opts *o, ks_ctx **ctx, ks_device_info *dev,
                    ks_status *s) {
  *ctx = NULL;
  *s = ks_ctx_create(o, ctx);
  dev->size = sizeof *dev;
  if (*s == KS_OK)
    *s = ks_device_query(*ctx, dev);
  if (*s != KS_ENODRIVER && *s != KS_ENODEVICE)
    return 0;
  printf("skipped: %s\n", ks_errmsg(*ctx));
  ks_ctx_destroy(*ctx);
  *ctx = NULL;
  return 1;
}

#endif
