; codegen: double to i65
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load double, ptr %p
  %r = fptoui double %v to i65
  store i65 %r, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
