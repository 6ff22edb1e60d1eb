; codegen: printf (variable arguments; the device has vprintf only)
target triple = "nvptx64-nvidia-cuda"
@.fmt = private unnamed_addr constant [4 x i8] c"%d\0A\00"
declare i32 @printf(ptr, ...)
define void @k(ptr %p, i32 %n) {
  %r = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %n)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
