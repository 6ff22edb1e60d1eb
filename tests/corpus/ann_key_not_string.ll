; template: an nvvm.annotations key that is not a string
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k, i32 5, i32 2}
