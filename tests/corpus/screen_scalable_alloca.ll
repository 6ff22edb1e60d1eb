; codegen screen: an alloca of a scalable vector
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  %a = alloca <vscale x 4 x i32>
  store volatile <vscale x 4 x i32> zeroinitializer, ptr %a
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
