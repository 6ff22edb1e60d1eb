target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(3) %s, ptr %p) {
  %g = addrspacecast ptr addrspace(3) %s to ptr addrspace(1)
  store i32 1, ptr addrspace(1) %g
  ret void
}
