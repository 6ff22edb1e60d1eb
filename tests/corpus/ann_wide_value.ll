; template: an nvvm.annotations value wider than 64 bits
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @k, !"minctasm", i128 1}
