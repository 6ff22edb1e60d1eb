target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k({} %a, [0 x i32] %b) {
  ret void
}
