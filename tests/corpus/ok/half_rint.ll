; accepted: llvm.rint.f16
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load half, ptr %p
  %r = call half @llvm.rint.f16(half %v)
  store half %r, ptr %p
  ret void
}
declare half @llvm.rint.f16(half)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
