; codegen: a call to an external function nothing defines
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load float, ptr %p
  %r = call float @foo(float %v)
  store float %r, ptr %p
  ret void
}
declare float @foo(float)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
