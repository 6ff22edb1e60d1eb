; codegen: llvm.call.preallocated.setup
target triple = "nvptx64-nvidia-cuda"
declare token @llvm.call.preallocated.setup(i32)
define void @k(ptr %p) {
  %t = call token @llvm.call.preallocated.setup(i32 0)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
