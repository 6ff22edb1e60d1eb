target triple = "nvptx64-nvidia-cuda"
@g = global i32 0
@h = global i64 sub (i64 ptrtoint (ptr @g to i64), i64 ptrtoint (ptr @g to i64))
define ptx_kernel void @k() {
  ret void
}
