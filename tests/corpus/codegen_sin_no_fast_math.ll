; codegen: llvm.sin.v2f32 (the backend cannot select it; libdevice has the
; scalar sinf only, which the scalar form is linked to)
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load <2 x float>, ptr %p
  %r = call <2 x float> @llvm.sin.v2f32(<2 x float> %v)
  store <2 x float> %r, ptr %p
  ret void
}
declare <2 x float> @llvm.sin.v2f32(<2 x float>)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
