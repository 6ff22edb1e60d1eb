; child codegen: nanosleep needs sm_70
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  call void @llvm.nvvm.nanosleep(i32 %n)
  ret void
}
declare void @llvm.nvvm.nanosleep(i32)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
