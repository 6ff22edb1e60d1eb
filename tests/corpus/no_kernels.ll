; template: a device function only, no kernel
target triple = "nvptx64-nvidia-cuda"
define void @helper(ptr %p) {
  store i32 1, ptr %p
  ret void
}
