; accepted: callbr with an empty asm
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  callbr void asm "", "!i"() to label %a [label %b]
a:
  store i32 1, ptr %p
  ret void
b:
  store i32 2, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
