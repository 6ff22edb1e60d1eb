; accepted: va_start, va_arg and va_end in a device function
target triple = "nvptx64-nvidia-cuda"
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
define internal i32 @vf(i32 %a, ...) {
  %l = alloca ptr
  call void @llvm.va_start.p0(ptr %l)
  %x = va_arg ptr %l, i32
  call void @llvm.va_end.p0(ptr %l)
  ret i32 %x
}
define void @k(ptr %p, i32 %n) {
  %r = call i32 (i32, ...) @vf(i32 %n, i32 7)
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
