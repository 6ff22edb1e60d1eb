; codegen screen: a kernel argument of type fp128 (crashes argument lowering)
target triple = "nvptx64-nvidia-cuda"
define void @k(fp128 %x, ptr %p) {
  store fp128 %x, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
