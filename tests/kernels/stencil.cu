// Stencils and filters: a 2-D 5-point stencil (naive, and staged in a shared
// tile with a halo), a separable convolution with its taps in __constant__
// memory (a row pass and a column pass), and a 3x3 box blur on 8-bit images.
//
// Written for kspec's corpus (issue 31). Images are row-major, `w` columns
// by `h` rows; sizes and coefficients are arguments.

// ---------------------------------------------------------------------------
// 5-point stencil: out = c_center * in + c_side * (north + south + east +
// west) inside the image; the border is copied.

__device__ __forceinline__ float five_point(float c, float n, float s, float e,
                                            float w, float c_center,
                                            float c_side) {
  return c_center * c + c_side * (n + s + e + w);
}

extern "C" __global__ void stencil5_naive(const float *in, float *out, int w,
                                          int h, float c_center, float c_side) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = five_point(in[i], in[i - w], in[i + w], in[i + 1], in[i - 1],
                      c_center, c_side);
}

// The same stencil with the block's (blockDim.x + 2) x (blockDim.y + 2)
// neighbourhood staged in dynamic shared memory first. Every thread helps
// load the halo; positions outside the image are clamped (only the border,
// which is copied, would read them).
extern "C" __global__ void stencil5_tiled(const float *in, float *out, int w,
                                          int h, float c_center, float c_side) {
  extern __shared__ float halo_tile[];
  const int bx = blockDim.x, by = blockDim.y;
  const int tw = bx + 2, th = by + 2;
  const int x0 = blockIdx.x * bx - 1, y0 = blockIdx.y * by - 1;
  const int tid = threadIdx.y * bx + threadIdx.x;

  for (int t = tid; t < tw * th; t += bx * by) {
    int gx = min(max(x0 + t % tw, 0), w - 1);
    int gy = min(max(y0 + t / tw, 0), h - 1);
    halo_tile[t] = in[gy * w + gx];
  }
  __syncthreads();

  int x = x0 + 1 + threadIdx.x, y = y0 + 1 + threadIdx.y;
  if (x >= w || y >= h)
    return;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  float c = halo_tile[ty * tw + tx];
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[y * w + x] = c;
    return;
  }
  out[y * w + x] =
      five_point(c, halo_tile[(ty - 1) * tw + tx],
                 halo_tile[(ty + 1) * tw + tx], halo_tile[ty * tw + tx + 1],
                 halo_tile[ty * tw + tx - 1], c_center, c_side);
}

// ---------------------------------------------------------------------------
// Separable convolution, clamp-to-edge. The taps of the 1-D filter sit in
// constant memory (the host copies them in); `radius` taps on each side, so
// 2 * radius + 1 of them are used, radius <= CONV_RMAX.

#define CONV_RMAX 16
__constant__ float c_taps[2 * CONV_RMAX + 1];

// Row pass: a BX x BY block stages BY rows of BX + 2 * radius pixels in a
// static tile sized for the largest radius.
template <int BX, int BY>
__global__ void __launch_bounds__(BX *BY)
    conv_rows(const float *src, float *dst, int w, int h, int radius) {
  __shared__ float row_tile[BY][BX + 2 * CONV_RMAX];
  const int x0 = blockIdx.x * BX - radius;
  const int y = blockIdx.y * BY + threadIdx.y;
  const int yc = min(y, h - 1);

  for (int t = threadIdx.x; t < BX + 2 * radius; t += BX) {
    int gx = min(max(x0 + t, 0), w - 1);
    row_tile[threadIdx.y][t] = src[yc * w + gx];
  }
  __syncthreads();

  int x = blockIdx.x * BX + threadIdx.x;
  if (x >= w || y >= h)
    return;
  float acc = 0.f;
  for (int k = -radius; k <= radius; k++)
    acc += c_taps[radius - k] * row_tile[threadIdx.y][threadIdx.x + radius + k];
  dst[y * w + x] = acc;
}

template __global__ void conv_rows<32, 8>(const float *, float *, int, int,
                                          int);
template __global__ void conv_rows<64, 4>(const float *, float *, int, int,
                                          int);

// Column pass: the tile is blockDim.x columns by blockDim.y + 2 * radius
// rows of dynamic shared memory (the launch gives its size).
extern "C" __global__ void conv_cols(const float *src, float *dst, int w, int h,
                                     int radius) {
  extern __shared__ float col_tile[];
  const int bx = blockDim.x, by = blockDim.y;
  const int x = blockIdx.x * bx + threadIdx.x;
  const int xc = min(x, w - 1);
  const int y0 = blockIdx.y * by - radius;

  for (int t = threadIdx.y; t < by + 2 * radius; t += by) {
    int gy = min(max(y0 + t, 0), h - 1);
    col_tile[t * bx + threadIdx.x] = src[gy * w + xc];
  }
  __syncthreads();

  int y = blockIdx.y * by + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float acc = 0.f;
  for (int k = -radius; k <= radius; k++)
    acc += c_taps[radius - k] *
           col_tile[(threadIdx.y + radius + k) * bx + threadIdx.x];
  dst[y * w + x] = acc;
}

// ---------------------------------------------------------------------------
// 3x3 box blur of an 8-bit grey image with a row pitch in bytes (pitch >=
// w); clamp-to-edge, the mean rounded to nearest.

extern "C" __global__ void box3x3_u8(const unsigned char *in,
                                     unsigned char *out, int w, int h,
                                     int pitch) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  unsigned sum = 0;
#pragma unroll
  for (int dy = -1; dy <= 1; dy++) {
    const unsigned char *row = in + min(max(y + dy, 0), h - 1) * pitch;
#pragma unroll
    for (int dx = -1; dx <= 1; dx++)
      sum += row[min(max(x + dx, 0), w - 1)];
  }
  out[y * pitch + x] = (unsigned char)((sum + 4) / 9);
}
