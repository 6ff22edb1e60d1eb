// Image and volume kernels: a 3x3 median filter (a sorting network in
// registers), a 3-D 7-point stencil marching along z with the current plane
// in shared memory (2.5-D blocking), and texture / surface object kernels.
//
// Written for kspec's corpus (issue 31): plain CUDA, sizes as arguments.

// ---------------------------------------------------------------------------
// 3x3 median of a float image, clamp-to-edge. The nine samples are sorted by
// unrolled insertion, which leaves every index a constant: the array lives in
// registers.

extern "C" __global__ void median3x3(const float *in, float *out, int w,
                                     int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float v[9];
#pragma unroll
  for (int dy = -1; dy <= 1; dy++)
#pragma unroll
    for (int dx = -1; dx <= 1; dx++) {
      int yy = min(max(y + dy, 0), h - 1), xx = min(max(x + dx, 0), w - 1);
      v[(dy + 1) * 3 + dx + 1] = in[yy * w + xx];
    }
#pragma unroll
  for (int i = 1; i < 9; i++)
#pragma unroll
    for (int j = i; j > 0; j--) {
      float a = v[j - 1], b = v[j];
      v[j - 1] = fminf(a, b);
      v[j] = fmaxf(a, b);
    }
  out[y * w + x] = v[4];
}

// ---------------------------------------------------------------------------
// 7-point stencil on an nx x ny x nz volume (x fastest): out = c0 * centre +
// c1 * (sum of the six neighbours) inside, the boundary copied. Each block
// owns a column of the volume and walks it in z, keeping the points below
// and above in registers and the current plane, with a one-point halo, in
// dynamic shared memory ((blockDim.x + 2) * (blockDim.y + 2) floats).

extern "C" __global__ void stencil7_3d(const float *in, float *out, int nx,
                                       int ny, int nz, float c0, float c1) {
  extern __shared__ float plane[];
  const int bx = blockDim.x, by = blockDim.y, pw = bx + 2;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * bx + tx, y = blockIdx.y * by + ty;
  const bool inside = x < nx && y < ny;
  const size_t slice = (size_t)nx * ny;
  const size_t col = (size_t)min(y, ny - 1) * nx + min(x, nx - 1);

  float below = 0.f, cur = in[col];
  float above = nz > 1 ? in[slice + col] : 0.f;
  for (int z = 0; z < nz; z++) {
    __syncthreads(); // the previous plane's readers are done
    for (int t = ty * bx + tx; t < pw * (by + 2); t += bx * by) {
      int gx = min(max((int)(blockIdx.x * bx) - 1 + t % pw, 0), nx - 1);
      int gy = min(max((int)(blockIdx.y * by) - 1 + t / pw, 0), ny - 1);
      plane[t] = in[z * slice + (size_t)gy * nx + gx];
    }
    __syncthreads();
    if (inside) {
      float r = cur;
      if (x > 0 && y > 0 && z > 0 && x < nx - 1 && y < ny - 1 && z < nz - 1) {
        const float *p = plane + (ty + 1) * pw + tx + 1;
        r = c0 * cur + c1 * (p[-1] + p[1] + p[-pw] + p[pw] + below + above);
      }
      out[z * slice + col] = r;
    }
    below = cur;
    cur = above;
    above = z + 2 < nz ? in[(z + 2) * slice + col] : 0.f;
  }
}

// ---------------------------------------------------------------------------
// Texture and surface objects (point filtering, clamped, unnormalized
// coordinates: texel (i, j) is read at i + 0.5, j + 0.5).

// Mirror the image left to right and shift it down by `dy` rows (rows pulled
// from outside the image repeat the edge, through the texture's clamp).
extern "C" __global__ void mirror_shift_tex(cudaTextureObject_t tex, float *out,
                                            int w, int h, int dy) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] =
        tex2D<float>(tex, (float)(w - 1 - x) + 0.5f, (float)(y - dy) + 0.5f);
}

// Gradient magnitude by central differences, read through a texture and
// written through a surface (surface x coordinates are in bytes). clang 19's
// CUDA wrapper declares no surface functions (its texture intrinsics cover
// tex* alone), so code built by both compilers writes the store in PTX.
__device__ __forceinline__ void store_surf_f32(float v, cudaSurfaceObject_t s,
                                               int xbytes, int y) {
#ifdef __clang__
  asm volatile("sust.b.2d.b32.trap [%0, {%1, %2}], {%3};"
               :
               : "l"(s), "r"(xbytes), "r"(y), "r"(__float_as_uint(v))
               : "memory");
#else
  surf2Dwrite(v, s, xbytes, y);
#endif
}

extern "C" __global__ void
gradient_surf(cudaTextureObject_t tex, cudaSurfaceObject_t surf, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float u = x + 0.5f, v = y + 0.5f;
  float gx = tex2D<float>(tex, u + 1.f, v) - tex2D<float>(tex, u - 1.f, v);
  float gy = tex2D<float>(tex, u, v + 1.f) - tex2D<float>(tex, u, v - 1.f);
  store_surf_f32(sqrtf(gx * gx + gy * gy) * 0.5f, surf, x * (int)sizeof(float),
                 y);
}
