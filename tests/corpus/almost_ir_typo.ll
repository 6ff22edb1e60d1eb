; almost IR: a typo in a type
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret voi
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
