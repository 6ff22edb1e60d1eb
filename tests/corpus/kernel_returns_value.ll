; template: a kernel that returns a value
target triple = "nvptx64-nvidia-cuda"
define i32 @k(ptr %p) {
  ret i32 1
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
