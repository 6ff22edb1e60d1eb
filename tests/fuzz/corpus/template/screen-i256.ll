target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p, i256 %a, i256 %b) {
  %r = add i256 %a, %b
  store i256 %r, ptr %p
  ret void
}
