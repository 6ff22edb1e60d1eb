; codegen screen: a module-scope local (addrspace 5) variable
target triple = "nvptx64-nvidia-cuda"
@l = internal addrspace(5) global i32 0
define void @k(ptr %p) {
  %v = load i32, ptr addrspace(5) @l
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
