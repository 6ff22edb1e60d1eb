; an x86 module, not NVPTX
target triple = "x86_64-unknown-linux-gnu"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
