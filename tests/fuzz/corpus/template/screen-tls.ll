target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
@g = thread_local global i32 0
define ptx_kernel void @k() {
  store i32 1, ptr @g
  ret void
}
