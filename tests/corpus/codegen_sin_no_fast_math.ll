; codegen: llvm.sin.f32 without fast-math flags (the backend cannot select it)
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load float, ptr %p
  %r = call float @llvm.sin.f32(float %v)
  store float %r, ptr %p
  ret void
}
declare float @llvm.sin.f32(float)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
