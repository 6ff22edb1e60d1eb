; codegen screen: a variable in address space 7
target triple = "nvptx64-nvidia-cuda"
@g = addrspace(7) global i32 0
define void @k(ptr %p) {
  %v = load i32, ptr addrspace(7) @g
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
