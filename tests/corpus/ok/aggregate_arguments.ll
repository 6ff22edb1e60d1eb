; accepted: struct, array, vector and i128 kernel arguments
target triple = "nvptx64-nvidia-cuda"
define void @k({i32, float} %s, [4 x i8] %a, <3 x i64> %v, i128 %w, ptr %p) {
  %x = extractvalue {i32, float} %s, 0
  store i32 %x, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
