; accepted: a call to a device function with variable arguments
target triple = "nvptx64-nvidia-cuda"
define void @vf(i32 %a, ...) {
  ret void
}
define void @k(ptr %p, i32 %n) {
  call void (i32, ...) @vf(i32 %n, i32 1, double 2.0)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
