; almost IR: the entry block falls off its end (no terminator)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
entry:
  store i32 1, ptr %p
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
