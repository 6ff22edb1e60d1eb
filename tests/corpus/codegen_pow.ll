; codegen: llvm.pow.v2f64 (libdevice has scalar pow only; the scalar form
; is linked from libdevice)
target triple = "nvptx64-nvidia-cuda"
declare <2 x double> @llvm.pow.v2f64(<2 x double>, <2 x double>)
define void @k(ptr %p) {
  %v = load <2 x double>, ptr %p
  %r = call <2 x double> @llvm.pow.v2f64(<2 x double> %v, <2 x double> %v)
  store <2 x double> %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
