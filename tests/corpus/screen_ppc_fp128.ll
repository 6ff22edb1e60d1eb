; codegen screen: ppc_fp128
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  %v = load ppc_fp128, ptr %p
  %r = fmul ppc_fp128 %v, %v
  store ppc_fp128 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
