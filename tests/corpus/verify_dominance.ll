; verifier: %a is used before it is defined
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
entry:
  %b = add i32 %a, 1
  %a = add i32 %b, 1
  store i32 %a, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
