; codegen: seq_cst atomic load and store of i128
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  %v = load atomic i128, ptr %p seq_cst, align 16
  store atomic i128 %v, ptr %p seq_cst, align 16
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
