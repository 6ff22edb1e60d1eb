; accepted: atomicrmw fadd on <2 x half>
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %r = atomicrmw fadd ptr %p, <2 x half> <half 1.0, half 1.0> monotonic
  store <2 x half> %r, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
