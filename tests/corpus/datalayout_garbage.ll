; almost IR: a bad datalayout
target datalayout = "zzz-what"
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
