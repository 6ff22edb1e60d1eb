; codegen: llvm.pow.f64
target triple = "nvptx64-nvidia-cuda"
declare double @llvm.pow.f64(double, double)
define void @k(ptr %p) {
  %v = load double, ptr %p
  %r = call double @llvm.pow.f64(double %v, double %v)
  store double %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
