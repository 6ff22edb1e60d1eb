; codegen: va_arg of a vector (the backend cannot scalarize it)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, ptr %l) {
  %x = va_arg ptr %l, <2 x float>
  store <2 x float> %x, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
