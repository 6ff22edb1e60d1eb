; child codegen: an i128 ldg (the backend cannot expand it)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %q = addrspacecast ptr %p to ptr addrspace(1)
  %r = call i128 @llvm.nvvm.ldg.global.i.i128.p1(ptr addrspace(1) %q, i32 16)
  store i128 %r, ptr %p
  ret void
}
declare i128 @llvm.nvvm.ldg.global.i.i128.p1(ptr addrspace(1), i32)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
