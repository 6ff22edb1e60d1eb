; almost IR: a return without the function's result type
target triple = "nvptx64-nvidia-cuda"
define internal i32 @h() {
  ret void
}
define void @k(ptr %p) {
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
