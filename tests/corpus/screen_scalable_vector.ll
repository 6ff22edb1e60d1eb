; codegen screen: scalable vectors
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  %v = load <vscale x 4 x i32>, ptr %p
  %r = add <vscale x 4 x i32> %v, %v
  store <vscale x 4 x i32> %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
