; codegen screen: addrspacecast to address space 7
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %q = addrspacecast ptr %p to ptr addrspace(7)
  store i32 1, ptr addrspace(7) %q
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
