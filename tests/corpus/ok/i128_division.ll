; accepted: i128 division of two run-time values (expanded inline)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load i128, ptr %p
  %q = getelementptr i128, ptr %p, i64 1
  %w = load i128, ptr %q
  %r = sdiv i128 %v, %w
  store i128 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
