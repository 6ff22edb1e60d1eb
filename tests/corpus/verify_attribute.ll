; verifier: byval on an argument that is not a pointer
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 byval(i32) %x) {
  store i32 %x, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
