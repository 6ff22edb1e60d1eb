; codegen screen: a kernel whose prefix data is the kernel itself (found by
; flipping a bit of conv1d.bc: the AsmPrinter recursed until the stack ran out)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) prefix ptr @k {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
