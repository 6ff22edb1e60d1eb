; codegen: float to i256
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load float, ptr %p
  %r = fptosi float %v to i256
  store i256 %r, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
