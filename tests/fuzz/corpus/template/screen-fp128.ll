target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p, fp128 %a, fp128 %b) {
  %r = fadd fp128 %a, %b
  store fp128 %r, ptr %p
  ret void
}
