; accepted: a weak 16-bit cmpxchg (expanded to a 32-bit loop)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %r = cmpxchg weak ptr %p, i16 1, i16 2 acquire monotonic
  %v = extractvalue { i16, i1 } %r, 0
  store i16 %v, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
