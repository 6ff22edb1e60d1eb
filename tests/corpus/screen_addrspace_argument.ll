; codegen screen: a kernel argument pointing into address space 7
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr addrspace(7) %p) {
  %v = load i32, ptr addrspace(7) %p
  store i32 %v, ptr addrspace(7) %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
