; codegen: llvm.fptosi.sat
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load float, ptr %p
  %r = call i32 @llvm.fptosi.sat.i32.f32(float %v)
  store i32 %r, ptr %p
  ret void
}
declare i32 @llvm.fptosi.sat.i32.f32(float)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
