; codegen: va_arg of a struct (the backend crashed on it)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, ptr %l) {
  %x = va_arg ptr %l, {i32, i32}
  store {i32, i32} %x, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
