/*
 * nvrtc_kernels.h - the built-in templates as CUDA C++ templates, for
 * NVRTC in kspec-bench's latency table (included by kspec_bench.c only).
 *
 * Each body is its template's (templates/NAME.cu) word for word; the
 * kspec parameter becomes the C++ template's argument, which kspec-bench
 * instantiates at the parameter's default ("NAME<DEFAULT>"), the value
 * kspec binds in the same table. ks_clamp is kspec_device.h's.
 */
#ifndef KSPEC_NVRTC_KERNELS_H
#define KSPEC_NVRTC_KERNELS_H

typedef struct nvrtc_kernel {
  const char *name; /* the built-in template's */
  const char *src;
} nvrtc_kernel;

#define NVRTC_CLAMP                                                            \
  "__device__ __forceinline__ int ks_clamp(int v, int lo, int hi) {\n"         \
  "  return v < lo ? lo : (v > hi ? hi : v);\n"                                \
  "}\n"

static const nvrtc_kernel nvrtc_kernels[] = {
    {"conv1d",
     "template <int FILTER_LEN>\n"
     "__global__ void conv1d(const float *x, const float *f, float *y, int n) "
     "{\n"
     "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "  if (i >= n)\n"
     "    return;\n"
     "  float s = 0.0f;\n"
     "  for (int k = 0; k < FILTER_LEN; k++)\n"
     "    s += x[i + k] * f[k];\n"
     "  y[i] = s;\n"
     "}\n"},
    {"sepfilter_rows", NVRTC_CLAMP
     "template <int RADIUS>\n"
     "__global__ void sepfilter_rows(const float *in, const float *c, float "
     "*out,\n"
     "                               int w, int h) {\n"
     "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
     "  if (x >= w || y >= h)\n"
     "    return;\n"
     "  const float *row = in + (long)y * w;\n"
     "  float s = 0.0f;\n"
     "  for (int k = -RADIUS; k <= RADIUS; k++)\n"
     "    s += row[ks_clamp(x + k, 0, w - 1)] * c[k + RADIUS];\n"
     "  out[(long)y * w + x] = s;\n"
     "}\n"},
    {"sepfilter_cols", NVRTC_CLAMP
     "template <int RADIUS>\n"
     "__global__ void sepfilter_cols(const float *in, const float *c, float "
     "*out,\n"
     "                               int w, int h) {\n"
     "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
     "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
     "  if (x >= w || y >= h)\n"
     "    return;\n"
     "  float s = 0.0f;\n"
     "  for (int k = -RADIUS; k <= RADIUS; k++)\n"
     "    s += in[(long)ks_clamp(y + k, 0, h - 1) * w + x] * c[k + RADIUS];\n"
     "  out[(long)y * w + x] = s;\n"
     "}\n"},
    {"histogram",
     "template <int BINS>\n"
     "__global__ void histogram(const unsigned char *__restrict__ data,\n"
     "                          unsigned *__restrict__ hist, int n) {\n"
     "  int stride = gridDim.x * blockDim.x;\n"
     "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
     "stride) {\n"
     "    int bin = ((int)data[i] * BINS) / 256;\n"
     "    atomicAdd(&hist[bin], 1u);\n"
     "  }\n"
     "}\n"},
    {"reduce_sum",
     "template <int BLOCK>\n"
     "__global__ void reduce_sum(const float *x, float *out, int n) {\n"
     "  __shared__ float sh[1024];\n"
     "  int tid = threadIdx.x;\n"
     "  int i = blockIdx.x * BLOCK + tid;\n"
     "  sh[tid] = i < n ? x[i] : 0.0f;\n"
     "  __syncthreads();\n"
     "  int half = 1;\n"
     "  while (half < BLOCK)\n"
     "    half <<= 1;\n"
     "  for (int s = half / 2; s > 0; s >>= 1) {\n"
     "    if (tid < s && tid + s < BLOCK)\n"
     "      sh[tid] += sh[tid + s];\n"
     "    __syncthreads();\n"
     "  }\n"
     "  if (tid == 0)\n"
     "    atomicAdd(out, sh[0]);\n"
     "}\n"},
    {"transpose",
     "template <int TILE>\n"
     "__global__ void transpose(const float *in, float *out, int rows, int "
     "cols) {\n"
     "  int x = blockIdx.x * TILE + threadIdx.x;\n"
     "  int y = blockIdx.y * TILE + threadIdx.y;\n"
     "  if (x < cols && y < rows)\n"
     "    out[(long)x * rows + y] = in[(long)y * cols + x];\n"
     "}\n"},
};

#endif /* KSPEC_NVRTC_KERNELS_H */
