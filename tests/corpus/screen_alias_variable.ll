; codegen screen: an alias of a variable
target triple = "nvptx64-nvidia-cuda"
@g = addrspace(1) global i32 0
@a = alias i32, ptr addrspace(1) @g
define void @k(ptr %p) {
  %v = load i32, ptr addrspace(1) @a
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
