; almost IR: %x is never defined
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  store i32 %x, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
