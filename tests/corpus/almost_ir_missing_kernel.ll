; almost IR: a kernel whose metadata names a missing function
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @nope, !"kernel", i32 1}
