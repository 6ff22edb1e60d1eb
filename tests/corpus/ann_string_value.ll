; template: an nvvm.annotations value that is a string
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k, !"maxnreg", !"many"}
