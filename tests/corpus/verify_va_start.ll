; verifier: va_start in a function without variable arguments
target triple = "nvptx64-nvidia-cuda"
declare void @llvm.va_start.p0(ptr)
define void @k(ptr %p) {
  %l = alloca ptr
  call void @llvm.va_start.p0(ptr %l)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
