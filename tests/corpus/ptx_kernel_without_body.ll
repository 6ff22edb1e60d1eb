; template: a declaration with the PTX kernel calling convention
target triple = "nvptx64-nvidia-cuda"
declare ptx_kernel void @k(ptr)
define void @helper(ptr %p) {
  ret void
}
