; specialize: two kernels and no --kernel
target triple = "nvptx64-nvidia-cuda"
define void @k1(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k2(ptr %p) {
  store i32 2, ptr %p
  ret void
}
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k1, !"kernel", i32 1}
!1 = !{ptr @k2, !"kernel", i32 1}
