; template: an empty nvvm.annotations entry (crashes the NVPTX backend)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{}
