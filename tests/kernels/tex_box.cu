// tex_box.cu - a (2r+1) x (2r+1) box filter over a 2-D texture object
// (point filtering, clamped addresses, unnormalized coordinates: texel
// (x, y) is read at its center x + 0.5, y + 0.5).
extern "C" __global__ void box_filter_tex(cudaTextureObject_t tex, float *out,
                                          int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float sum = 0.0f;
  for (int dy = -r; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      sum += tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
  out[(size_t)y * w + x] = sum / (float)((2 * r + 1) * (2 * r + 1));
}

// gather_tex1d - out[i] = scale * t[idx[i]], the table read through a
// texture object over linear memory (tex1Dfetch), as code written for the
// texture cache reads a read-only lookup table.
extern "C" __global__ void gather_tex1d(cudaTextureObject_t t, const int *idx,
                                        float *out, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale * tex1Dfetch<float>(t, idx[i]);
}
