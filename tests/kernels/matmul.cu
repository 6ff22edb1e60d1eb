// matmul.cu - C (M x N) = A (M x K) * B (K x N), row-major floats. The
// naive form has each thread walk a row of A and a column of B in global
// memory; the tiled form (a TILE x TILE block) stages one tile of each in
// shared memory per step of K, zero-padded at the edges.
extern "C" __global__ void matmul_naive(const float *A, const float *B,
                                        float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++)
    acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
  C[(size_t)row * N + col] = acc;
}

template <int TILE>
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M,
                             int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = row < M && k0 + tx < K ? A[(size_t)row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = k0 + ty < K && col < N ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[(size_t)row * N + col] = acc;
}

template __global__ void matmul_tiled<16>(const float *, const float *,
                                          float *, int, int, int);
template __global__ void matmul_tiled<32>(const float *, const float *,
                                          float *, int, int, int);
