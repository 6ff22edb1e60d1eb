// Linear algebra as inference and solver code writes it: a tensor-core GEMM
// through nvcuda::wmma, an ELLPACK sparse matrix-vector product, an int8
// matrix-vector product on __dp4a, a bfloat16 matrix-vector product with
// float accumulation, and a float4-vectorized axpby.
//
// Written for kspec's corpus (issue 31): plain CUDA, sizes as arguments.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

// ---------------------------------------------------------------------------
// C = A B with A (M x K) and B (K x N) row-major halves, C row-major floats;
// every warp computes one 16 x 16 tile of C on the tensor cores. M, N and K
// are multiples of 16. The block is (32 * WX) x WY threads: WX x WY warps.

extern "C" __global__ void wmma_gemm_f16(const __half *A, const __half *B,
                                         float *C, int M, int N, int K) {
  using namespace nvcuda;
  const int tile_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_n = blockIdx.y * blockDim.y + threadIdx.y;
  if (tile_m * 16 >= M || tile_n * 16 >= N)
    return; // whole warps leave: tile_m is the same across a warp

  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tile_m * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + (size_t)k * N + tile_n * 16, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tile_m * 16 * N + tile_n * 16, acc, N,
                          wmma::mem_row_major);
}

// ---------------------------------------------------------------------------
// y = A x for a sparse A in ELLPACK form: `width` slots per row, stored
// column-major (slot s of row r at s * rows + r) so that a warp's loads of
// one slot are contiguous. A slot whose column is negative is padding.

template <typename T>
__global__ void spmv_ell(const int *cols, const T *vals, const T *x, T *y,
                         int rows, int width) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  T sum = 0;
  for (int s = 0; s < width; s++) {
    int c = cols[(size_t)s * rows + r];
    if (c >= 0)
      sum += vals[(size_t)s * rows + r] * x[c];
  }
  y[r] = sum;
}

template __global__ void spmv_ell<float>(const int *, const float *,
                                         const float *, float *, int, int);
template __global__ void spmv_ell<double>(const int *, const double *,
                                          const double *, double *, int, int);

// ---------------------------------------------------------------------------
// Quantized matrix-vector product: int8 weights and activations packed four
// to a 32-bit word, __dp4a sums four products at a time, one warp per row
// (cols4 words per row), then the int32 sum is rescaled to float.

extern "C" __global__ void __launch_bounds__(256, 4)
    gemv_dp4a(const int *W, const int *x, float *y, int rows, int cols4,
              float scale) {
  const int lane = threadIdx.x & 31;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (row >= rows)
    return;
  const int *w = W + (size_t)row * cols4;
  int acc = 0;
  for (int c = lane; c < cols4; c += 32)
    acc = __dp4a(w[c], x[c], acc);
  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0)
    y[row] = scale * (float)acc;
}

// ---------------------------------------------------------------------------
// out = alpha * x + beta * y, four floats per load where it can (n4 = n / 4
// float4s through the vector path, the rest one at a time).

extern "C" __global__ void axpby_vec4(const float *x, const float *y,
                                      float *out, float alpha, float beta,
                                      long long n) {
  const long long n4 = n / 4;
  const long long stride = (long long)blockDim.x * gridDim.x;
  const float4 *x4 = reinterpret_cast<const float4 *>(x);
  const float4 *y4 = reinterpret_cast<const float4 *>(y);
  float4 *o4 = reinterpret_cast<float4 *>(out);
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long j = i; j < n4; j += stride) {
    float4 a = x4[j], b = y4[j];
    o4[j] = make_float4(alpha * a.x + beta * b.x, alpha * a.y + beta * b.y,
                        alpha * a.z + beta * b.z, alpha * a.w + beta * b.w);
  }
  for (long long j = n4 * 4 + i; j < n; j += stride)
    out[j] = alpha * x[j] + beta * y[j];
}

// ---------------------------------------------------------------------------
// y = W x with bfloat16 weights and activations and float accumulation (an
// LLM's output projection); one warp per row reads two values per load
// (cols even), the row sum is written as a float.

template <int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
    gemv_bf16(const __nv_bfloat16 *W, const __nv_bfloat16 *x, float *y,
              int rows, int cols) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
  if (row >= rows)
    return;
  const __nv_bfloat162 *w2 =
      reinterpret_cast<const __nv_bfloat162 *>(W + (size_t)row * cols);
  const __nv_bfloat162 *x2 = reinterpret_cast<const __nv_bfloat162 *>(x);
  float acc = 0.f;
  for (int c = lane; c < cols / 2; c += 32) {
    float2 a = __bfloat1622float2(w2[c]), b = __bfloat1622float2(x2[c]);
    acc += a.x * b.x + a.y * b.y;
  }
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    acc += __shfl_xor_sync(0xffffffffu, acc, m);
  if (lane == 0)
    y[row] = acc;
}

template __global__ void gemv_bf16<8>(const __nv_bfloat16 *,
                                      const __nv_bfloat16 *, float *, int, int);
