; child codegen: %clusterid needs sm_90
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %r = call i32 @llvm.nvvm.read.ptx.sreg.clusterid.x()
  store i32 %r, ptr %p
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.clusterid.x()
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
