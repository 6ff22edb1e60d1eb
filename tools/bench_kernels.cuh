/*
 * bench_kernels.cuh - the hand-written CUDA kernels kspec-bench-cuda
 * measures the built-in templates against (included by bench_cuda.cu only).
 *
 * Each computes exactly the function of its template (templates/NAME.cu), on
 * the same buffers and argument order, with the parameter a compile-time
 * constant. Two families:
 *
 * - the best versions ("hand"): shared-memory tiles loaded with 16-byte
 *   vectors, taps in __constant__ memory, read-only loads, several outputs
 *   per thread, loops unrolled at compile time;
 * - the one-change-at-a-time versions of seed 000's tables (sections 9.1
 *   and 9.2): conv1d one output per thread with the taps in global,
 *   constant or read-only memory or the input staged in shared memory, and
 *   the histogram by global or shared-memory atomics.
 *
 * Preconditions the host code checks before launching: rows of the 2-D
 * filters are a multiple of 4 floats (16-byte aligned float4 rows), device
 * buffers come from the driver's allocator (256-byte aligned).
 */
#ifndef KS_BENCH_KERNELS_CUH
#define KS_BENCH_KERNELS_CUH

/* The taps of the current conv1d or separable filter: copied from the
 * workload's tap buffer before its runs (not timed). */
enum { KB_MAX_TAPS = 128 };
__constant__ float kb_taps[KB_MAX_TAPS];

__device__ __forceinline__ int kb_clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/* ---- conv1d: y[i] = sum_{k < FL} x[i + k] * f[k], x has n + FL - 1 ---- */

/* The best version: CONV_THREADS threads, each computing 4 consecutive
 * outputs in each of PASSES passes (4 * CONV_THREADS * PASSES outputs per
 * block). The block's input (its outputs plus FL - 1, rounded up to whole
 * float4) is staged in shared memory with float4 loads; each thread reads
 * its 4 + FL - 1 inputs as float4 (consecutive threads, consecutive 16
 * bytes: no bank conflicts) into registers and applies the constant taps,
 * fully unrolled. */
enum { CONV_THREADS = 256, CONV_PASSES = 2 };

template <int FL> struct conv_geom {
  static const int out = 4 * CONV_THREADS * CONV_PASSES; /* per block */
  static const int halo = (FL - 1 + 3) / 4 * 4;          /* float4s */
  static const int win = 4 + halo;                       /* per thread */
};

template <int FL>
__global__ void __launch_bounds__(CONV_THREADS)
    conv1d_hand(const float *__restrict__ x, float *__restrict__ y, int n) {
  typedef conv_geom<FL> g;
  __shared__ __align__(16) float s[g::out + g::halo];
  const long base = (long)blockIdx.x * g::out;
  const long xlen = (long)n + FL - 1;
  const float4 *x4 = reinterpret_cast<const float4 *>(x + base);
  for (int q = threadIdx.x; q < (g::out + g::halo) / 4; q += CONV_THREADS) {
    long i = base + 4L * q;
    float4 v;
    if (i + 3 < xlen) {
      v = __ldg(x4 + q);
    } else { /* the end of x: 0 past it (no output reads it) */
      v.x = i < xlen ? x[i] : 0.0f;
      v.y = i + 1 < xlen ? x[i + 1] : 0.0f;
      v.z = i + 2 < xlen ? x[i + 2] : 0.0f;
      v.w = i + 3 < xlen ? x[i + 3] : 0.0f;
    }
    reinterpret_cast<float4 *>(s)[q] = v;
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < CONV_PASSES; p++) {
    const int o = (p * CONV_THREADS + threadIdx.x) * 4;
    float w[g::win];
#pragma unroll
    for (int m = 0; m < g::win / 4; m++) {
      float4 v = reinterpret_cast<const float4 *>(s + o)[m];
      w[4 * m] = v.x;
      w[4 * m + 1] = v.y;
      w[4 * m + 2] = v.z;
      w[4 * m + 3] = v.w;
    }
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
#pragma unroll
    for (int k = 0; k < FL; k++) {
      const float c = kb_taps[k];
      a0 += w[k] * c;
      a1 += w[k + 1] * c;
      a2 += w[k + 2] * c;
      a3 += w[k + 3] * c;
    }
    const long i = base + o;
    if (i + 3 < n) {
      *reinterpret_cast<float4 *>(y + i) = make_float4(a0, a1, a2, a3);
    } else {
      if (i < n)
        y[i] = a0;
      if (i + 1 < n)
        y[i + 1] = a1;
      if (i + 2 < n)
        y[i + 2] = a2;
    }
  }
}

/* Seed 000 table, row 1: everything in global memory (the template with
 * FL fixed at compile time). */
template <int FL>
__global__ void conv1d_global(const float *x, const float *f, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < FL; k++)
    s += x[i + k] * f[k];
  y[i] = s;
}

/* Row 2: the taps in constant memory. */
template <int FL>
__global__ void conv1d_const(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < FL; k++)
    s += x[i + k] * kb_taps[k];
  y[i] = s;
}

/* Row 3: x and f through the read-only (non-coherent) path. */
template <int FL>
__global__ void conv1d_ldg(const float *__restrict__ x,
                           const float *__restrict__ f, float *__restrict__ y,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < FL; k++)
    s += __ldg(x + i + k) * __ldg(f + k);
  y[i] = s;
}

/* Row 4: the block's input staged in shared memory, taps constant; one
 * output per thread, blockDim.x == CONV_THREADS. */
template <int FL>
__global__ void __launch_bounds__(CONV_THREADS)
    conv1d_shared(const float *__restrict__ x, float *__restrict__ y, int n) {
  __shared__ float s[CONV_THREADS + FL - 1];
  const long base = (long)blockIdx.x * CONV_THREADS;
  const long xlen = (long)n + FL - 1;
  for (int j = threadIdx.x; j < CONV_THREADS + FL - 1; j += CONV_THREADS)
    s[j] = base + j < xlen ? x[base + j] : 0.0f;
  __syncthreads();
  const long i = base + threadIdx.x;
  if (i >= n)
    return;
  float a = 0.0f;
#pragma unroll
  for (int k = 0; k < FL; k++)
    a += s[threadIdx.x + k] * kb_taps[k];
  y[i] = a;
}

/* ---- sepfilter_rows: out[y][x] = sum_k in[y][clamp(x+k)] * c[k+R] ----- */

/* Block 64 x 4; each thread computes 4 consecutive outputs of its row, so a
 * block covers 256 columns x 4 rows. The tile row plus RP (R rounded up to
 * whole float4) clamped columns each side sits in shared memory; a thread
 * reads its 4 + 2 RP inputs as float4. */
enum { ROWS_BX = 64, ROWS_BY = 4, ROWS_TILE = 4 * ROWS_BX };

template <int R>
__global__ void __launch_bounds__(ROWS_BX *ROWS_BY)
    sep_rows_hand(const float *__restrict__ in, float *__restrict__ out, int w,
                  int h) {
  const int RP = (R + 3) / 4 * 4;
  __shared__ __align__(16) float s[ROWS_BY][ROWS_TILE + 2 * RP];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * ROWS_TILE, y = blockIdx.y * ROWS_BY + ty;
  const bool live = y < h;
  const float *row = in + (long)(live ? y : 0) * w;
  if (live) {
    const int x = x0 + 4 * tx;
    float4 v;
    if (x + 3 < w) {
      v = __ldg(reinterpret_cast<const float4 *>(row + x));
    } else { /* past the right edge: clamped, as the template reads */
      v.x = row[kb_clamp(x, 0, w - 1)];
      v.y = row[kb_clamp(x + 1, 0, w - 1)];
      v.z = row[kb_clamp(x + 2, 0, w - 1)];
      v.w = row[kb_clamp(x + 3, 0, w - 1)];
    }
    *reinterpret_cast<float4 *>(&s[ty][RP + 4 * tx]) = v;
    if (tx < 2 * RP) { /* the halo: RP columns left, RP right */
      int j = tx < RP ? tx : ROWS_TILE + tx;
      s[ty][j] = __ldg(row + kb_clamp(x0 - RP + j, 0, w - 1));
    }
  }
  __syncthreads();
  const int x = x0 + 4 * tx;
  if (!live || x >= w)
    return;
  float v[4 + 2 * RP];
#pragma unroll
  for (int m = 0; m < (4 + 2 * RP) / 4; m++) {
    float4 q = *reinterpret_cast<const float4 *>(&s[ty][4 * tx + 4 * m]);
    v[4 * m] = q.x;
    v[4 * m + 1] = q.y;
    v[4 * m + 2] = q.z;
    v[4 * m + 3] = q.w;
  }
  float a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int k = -R; k <= R; k++) {
    const float c = kb_taps[k + R];
#pragma unroll
    for (int j = 0; j < 4; j++)
      a[j] += v[RP + j + k] * c;
  }
  float *o = out + (long)y * w + x;
  /* w is a multiple of 4 (checked by the host): x < w means x + 3 < w */
  *reinterpret_cast<float4 *>(o) = make_float4(a[0], a[1], a[2], a[3]);
}

/* ---- sepfilter_cols: out[y][x] = sum_k in[clamp(y+k)][x] * c[k+R] ----- */

/* Block 32 x 8; each thread computes 4 adjacent columns (a float4) of
 * COLS_RPT consecutive rows, so a block covers 128 columns x 64 rows. The
 * tile plus R clamped rows above and below is staged in shared memory;
 * each thread slides down its 4 columns, every staged value feeding up to
 * 2R + 1 accumulators held in registers. */
enum { COLS_BX = 32, COLS_BY = 8, COLS_RPT = 8 };
enum { COLS_W = 4 * COLS_BX, COLS_H = COLS_BY * COLS_RPT };

template <int R>
__global__ void __launch_bounds__(COLS_BX *COLS_BY)
    sep_cols_hand(const float *__restrict__ in, float *__restrict__ out, int w,
                  int h) {
  __shared__ __align__(16) float4 s[COLS_H + 2 * R][COLS_BX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * COLS_W + 4 * tx, y0 = blockIdx.y * COLS_H;
  if (x < w) /* w is a multiple of 4: the whole float4 is inside */
    for (int r = ty; r < COLS_H + 2 * R; r += COLS_BY) {
      int gy = kb_clamp(y0 - R + r, 0, h - 1);
      s[r][tx] = __ldg(reinterpret_cast<const float4 *>(in + (long)gy * w + x));
    }
  __syncthreads();
  if (x >= w)
    return;
  float4 a[COLS_RPT];
#pragma unroll
  for (int j = 0; j < COLS_RPT; j++)
    a[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const int r0 = ty * COLS_RPT;
#pragma unroll
  for (int m = 0; m < COLS_RPT + 2 * R; m++) {
    const float4 v = s[r0 + m][tx];
#pragma unroll
    for (int j = 0; j < COLS_RPT; j++) {
      const int k = m - j; /* tap index k - R relative to output row j */
      if (k >= 0 && k <= 2 * R) {
        const float c = kb_taps[k];
        a[j].x += v.x * c;
        a[j].y += v.y * c;
        a[j].z += v.z * c;
        a[j].w += v.w * c;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < COLS_RPT; j++) {
    const int y = y0 + r0 + j;
    if (y < h)
      *reinterpret_cast<float4 *>(out + (long)y * w + x) = a[j];
  }
}

/* ---- histogram: hist[data[i] * BINS / 256] += 1 ------------------------ */

template <int BINS> __device__ __forceinline__ unsigned hist_bin(unsigned v) {
  return v * BINS / 256;
}

/* The best version: a grid of a few resident blocks per SM, each with one
 * shared histogram per warp (less contention on a bin), 16 samples per
 * 16-byte load, two loads in flight per thread; the block's copies are
 * summed and added to the global histogram once per bin. */
enum { HIST_THREADS = 256, HIST_COPIES = HIST_THREADS / 32 };

template <int BINS>
__device__ __forceinline__ void hist_word(unsigned *h, unsigned word) {
  atomicAdd(&h[hist_bin<BINS>(word & 0xFFu)], 1u);
  atomicAdd(&h[hist_bin<BINS>((word >> 8) & 0xFFu)], 1u);
  atomicAdd(&h[hist_bin<BINS>((word >> 16) & 0xFFu)], 1u);
  atomicAdd(&h[hist_bin<BINS>(word >> 24)], 1u);
}

template <int BINS>
__device__ __forceinline__ void hist_vec(unsigned *h, uint4 v) {
  hist_word<BINS>(h, v.x);
  hist_word<BINS>(h, v.y);
  hist_word<BINS>(h, v.z);
  hist_word<BINS>(h, v.w);
}

template <int BINS>
__global__ void __launch_bounds__(HIST_THREADS)
    histogram_hand(const unsigned char *__restrict__ data,
                   unsigned *__restrict__ hist, int n) {
  __shared__ unsigned sh[HIST_COPIES * BINS];
  for (int i = threadIdx.x; i < HIST_COPIES * BINS; i += HIST_THREADS)
    sh[i] = 0;
  __syncthreads();
  unsigned *mine = sh + (threadIdx.x / 32) * BINS;
  const uint4 *d4 = reinterpret_cast<const uint4 *>(data);
  const long n16 = n / 16, stride = (long)gridDim.x * HIST_THREADS;
  long q = (long)blockIdx.x * HIST_THREADS + threadIdx.x;
  for (; q + stride < n16; q += 2 * stride) {
    uint4 a = __ldg(d4 + q), b = __ldg(d4 + q + stride);
    hist_vec<BINS>(mine, a);
    hist_vec<BINS>(mine, b);
  }
  if (q < n16)
    hist_vec<BINS>(mine, __ldg(d4 + q));
  for (long i = n16 * 16 + (long)blockIdx.x * HIST_THREADS + threadIdx.x; i < n;
       i += stride)
    atomicAdd(&mine[hist_bin<BINS>(data[i])], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += HIST_THREADS) {
    unsigned sum = 0;
#pragma unroll
    for (int c = 0; c < HIST_COPIES; c++)
      sum += sh[c * BINS + b];
    if (sum)
      atomicAdd(&hist[b], sum);
  }
}

/* Seed 000 table, row 1: global atomics, a grid-stride loop (the template
 * with BINS fixed at compile time). */
template <int BINS>
__global__ void histogram_global(const unsigned char *data, unsigned *hist,
                                 int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&hist[hist_bin<BINS>(data[i])], 1u);
}

/* Row 2: the same loop into one shared histogram per block (seed 000's
 * hist_kernel), added to the global one at the end. */
template <int BINS>
__global__ void histogram_shared(const unsigned char *data, unsigned *hist,
                                 int n) {
  __shared__ unsigned sh[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    sh[b] = 0;
  __syncthreads();
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&sh[hist_bin<BINS>(data[i])], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (sh[b])
      atomicAdd(&hist[b], sh[b]);
}

/* hist[b] += part[b]: turns CUB's histogram (written, not accumulated)
 * into the template's accumulate semantics for the check. */
__global__ void histogram_accumulate(unsigned *hist, const unsigned *part,
                                     int bins) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < bins;
       b += gridDim.x * blockDim.x)
    hist[b] += part[b];
}

/* ---- reduce_sum: *out += sum x[i] ------------------------------------- */

/* A grid of resident blocks; each thread sums float4s in a grid-stride loop
 * with four loads in flight, then warp shuffles, the block's warps through
 * shared memory, and one atomic per block. */
enum { RED_THREADS = 256 };

__device__ __forceinline__ float sum4(float4 v) {
  return (v.x + v.y) + (v.z + v.w);
}

__global__ void __launch_bounds__(RED_THREADS)
    reduce_sum_hand(const float *__restrict__ x, float *out, int n) {
  __shared__ float part[RED_THREADS / 32];
  const float4 *x4 = reinterpret_cast<const float4 *>(x);
  const long n4 = n / 4, stride = (long)gridDim.x * RED_THREADS;
  long q = (long)blockIdx.x * RED_THREADS + threadIdx.x;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  for (; q + 3 * stride < n4; q += 4 * stride) {
    float4 a = __ldg(x4 + q), b = __ldg(x4 + q + stride);
    float4 c = __ldg(x4 + q + 2 * stride), d = __ldg(x4 + q + 3 * stride);
    s0 += sum4(a);
    s1 += sum4(b);
    s2 += sum4(c);
    s3 += sum4(d);
  }
  for (; q < n4; q += stride)
    s0 += sum4(__ldg(x4 + q));
  for (long i = n4 * 4 + (long)blockIdx.x * RED_THREADS + threadIdx.x; i < n;
       i += stride)
    s1 += x[i];
  float s = (s0 + s1) + (s2 + s3);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    s += __shfl_down_sync(0xFFFFFFFFu, s, o);
  if (threadIdx.x % 32 == 0)
    part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < RED_THREADS / 32 ? part[threadIdx.x] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
      s += __shfl_down_sync(0xFFFFFFFFu, s, o);
    if (threadIdx.x == 0)
      atomicAdd(out, s);
  }
}

/* ---- transpose: out[x][y] = in[y][x], in is rows x cols --------------- */

/* 32 x 32 tiles through shared memory (padded a column: no bank conflicts
 * on the transposed read), blocks of 32 x 8, four elements per thread, both
 * global sides coalesced. */
enum { TR_TILE = 32, TR_BY = 8 };

__global__ void __launch_bounds__(TR_TILE *TR_BY)
    transpose_hand(const float *__restrict__ in, float *__restrict__ out,
                   int rows, int cols) {
  __shared__ float t[TR_TILE][TR_TILE + 1];
  int x = blockIdx.x * TR_TILE + threadIdx.x;
  int y = blockIdx.y * TR_TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TR_TILE; j += TR_BY)
    if (x < cols && y + j < rows)
      t[threadIdx.y + j][threadIdx.x] = __ldg(in + (long)(y + j) * cols + x);
  __syncthreads();
  x = blockIdx.y * TR_TILE + threadIdx.x; /* a row of in: out's column */
  y = blockIdx.x * TR_TILE + threadIdx.y; /* a column of in: out's row */
#pragma unroll
  for (int j = 0; j < TR_TILE; j += TR_BY)
    if (x < rows && y + j < cols)
      out[(long)(y + j) * rows + x] = t[threadIdx.x][threadIdx.y + j];
}

#endif /* KS_BENCH_KERNELS_CUH */
