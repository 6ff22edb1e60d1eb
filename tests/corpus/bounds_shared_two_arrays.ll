; bounds: two shared arrays of 32 KiB, each within the limit, 64 KiB together
target triple = "nvptx64-nvidia-cuda"
@a = internal addrspace(3) global [8192 x float] undef, align 4
@b = internal addrspace(3) global [8192 x float] undef, align 4
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
define void @k(ptr %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pa = getelementptr [8192 x float], ptr addrspace(3) @a, i32 0, i32 %t
  %pb = getelementptr [8192 x float], ptr addrspace(3) @b, i32 0, i32 %t
  %va = load volatile float, ptr addrspace(3) %pa
  %vb = load volatile float, ptr addrspace(3) %pb
  %s = fadd float %va, %vb
  %o = getelementptr float, ptr %out, i32 %t
  store float %s, ptr %o
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
