target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p, <4 x i128> %a) {
  %r = add <4 x i128> %a, %a
  store <4 x i128> %r, ptr %p
  ret void
}
