// Kernels whose work a run-time value decides, the cases a specializer is
// for: an elementwise op picked by an op code, a polynomial whose degree is
// an argument and whose coefficients sit in __constant__ memory, a FIR
// filter with its taps in a read-only buffer, a 2x upsampling over a 3-D
// grid, and a sum whose last block to finish adds the partials (a
// __threadfence and a __device__ counter the kernel resets itself), and a
// persistent kernel drawing chunks of work from a __device__ queue counter.
//
// Written for kspec's corpus (issue 31): plain CUDA, sizes as arguments.

// ---------------------------------------------------------------------------
// out = a OP b elementwise; op codes as a framework's enum would have them.

enum BinaryOp { OP_ADD = 0, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_POW };

extern "C" __global__ void binary_op(const float *a, const float *b, float *out,
                                     int n, int op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float x = a[i], y = b[i], r;
    switch (op) {
    case OP_ADD:
      r = x + y;
      break;
    case OP_SUB:
      r = x - y;
      break;
    case OP_MUL:
      r = x * y;
      break;
    case OP_DIV:
      r = x / y;
      break;
    case OP_MAX:
      r = fmaxf(x, y);
      break;
    case OP_MIN:
      r = fminf(x, y);
      break;
    case OP_POW:
      r = powf(fabsf(x), y);
      break;
    default:
      r = 0.f;
    }
    out[i] = r;
  }
}

// ---------------------------------------------------------------------------
// y = sum_k c_poly[k] x^k for k <= degree (degree < 16), by Horner's rule.

__constant__ float c_poly[16];

extern "C" __global__ void poly_eval(const float *x, float *y, int n,
                                     int degree) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i], acc = c_poly[degree];
  for (int k = degree - 1; k >= 0; k--)
    acc = acc * v + c_poly[k];
  y[i] = acc;
}

// ---------------------------------------------------------------------------
// Direct-form FIR filter: y[i] = sum_k taps[k] * x[i - k], zero before the
// start. The taps are an ordinary read-only buffer (through the read-only
// cache), the signal is read through __restrict__ pointers.

template <typename T>
__global__ void fir_filter(const T *__restrict__ x, const T *__restrict__ taps,
                           T *__restrict__ y, int n, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T acc = 0;
  for (int k = 0; k < ntaps && k <= i; k++)
    acc += __ldg(&taps[k]) * x[i - k];
  y[i] = acc;
}

template __global__ void fir_filter<float>(const float *, const float *,
                                           float *, int, int);

// ---------------------------------------------------------------------------
// 2x upsampling of an nx x ny x nz volume by trilinear interpolation at the
// centres of the fine cells (clamped at the edges); the grid is 3-D, one
// thread per fine point.

__device__ __forceinline__ float lerp(float a, float b, float t) {
  return a + t * (b - a);
}

extern "C" __global__ void upsample2x_3d(const float *in, float *out, int nx,
                                         int ny, int nz) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  int Y = blockIdx.y * blockDim.y + threadIdx.y;
  int Z = blockIdx.z * blockDim.z + threadIdx.z;
  if (X >= 2 * nx || Y >= 2 * ny || Z >= 2 * nz)
    return;
  // Fine point X sits at coarse coordinate X / 2 - 0.25: between coarse
  // points x0 and x0 + 1 with weight 0.75 / 0.25 one way or the other.
  int x0 = (X - 1) >> 1, y0 = (Y - 1) >> 1, z0 = (Z - 1) >> 1;
  float tx = (X & 1) ? 0.25f : 0.75f, ty = (Y & 1) ? 0.25f : 0.75f,
        tz = (Z & 1) ? 0.25f : 0.75f;
  int xa = max(x0, 0), xb = min(x0 + 1, nx - 1);
  int ya = max(y0, 0), yb = min(y0 + 1, ny - 1);
  int za = max(z0, 0), zb = min(z0 + 1, nz - 1);
  auto at = [&](int x, int y, int z) {
    return in[((size_t)z * ny + y) * nx + x];
  };
  float c00 = lerp(at(xa, ya, za), at(xb, ya, za), tx);
  float c10 = lerp(at(xa, yb, za), at(xb, yb, za), tx);
  float c01 = lerp(at(xa, ya, zb), at(xb, ya, zb), tx);
  float c11 = lerp(at(xa, yb, zb), at(xb, yb, zb), tx);
  float c0 = lerp(c00, c10, ty), c1 = lerp(c01, c11, ty);
  out[((size_t)Z * 2 * ny + Y) * 2 * nx + X] = lerp(c0, c1, tz);
}

// ---------------------------------------------------------------------------
// Sum of n floats in one launch: every block stores its partial, makes it
// visible (__threadfence) and counts itself done; the block that counts
// last adds all partials in block order (so the total does not depend on
// which block that is) and resets the counter for the next launch.

__device__ unsigned g_blocks_done;

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    sum_last_block(const float *in, float *partial, float *total, int n) {
  __shared__ float red[BLOCK];
  __shared__ bool last;
  float s = 0.f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    s += in[i];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      red[threadIdx.x] += red[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = red[0];
    __threadfence();
    unsigned done = atomicInc(&g_blocks_done, gridDim.x);
    last = done == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  // Strided partial sums in a fixed order, then the tree again.
  const volatile float *vp = partial;
  s = 0.f;
  for (int b = threadIdx.x; b < (int)gridDim.x; b += BLOCK)
    s += vp[b];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      red[threadIdx.x] += red[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *total = red[0];
    g_blocks_done = 0;
  }
}

template __global__ void sum_last_block<256>(const float *, float *, float *,
                                             int);

// ---------------------------------------------------------------------------
// A persistent kernel: a grid sized to the machine pulls chunks of `chunk`
// elements from a queue (a __device__ counter) until none are left, and
// applies y = a * x + y to each. Which block does a chunk varies from run to
// run, what is done to it does not. Each block draws once past the end, so
// the block that draws the last of those knows every draw is done and sets
// the counter back to 0 for the next launch.

__device__ unsigned g_next_chunk;

extern "C" __global__ void persistent_axpy(const float *x, float *y, float a,
                                           int n, int chunk) {
  __shared__ unsigned mine;
  const unsigned nchunks = (n + chunk - 1) / chunk;
  for (;;) {
    if (threadIdx.x == 0)
      mine = atomicAdd(&g_next_chunk, 1u);
    __syncthreads();
    const unsigned c = mine;
    __syncthreads(); // everyone has read `mine` before it is drawn again
    if (c >= nchunks) {
      if (threadIdx.x == 0 && c == nchunks + gridDim.x - 1)
        g_next_chunk = 0;
      break;
    }
    int end = min((int)(c + 1) * chunk, n);
    for (int i = c * chunk + threadIdx.x; i < end; i += blockDim.x)
      y[i] = a * x[i] + y[i];
  }
}
