; codegen screen: a shared variable with an initial value
target triple = "nvptx64-nvidia-cuda"
@s = internal addrspace(3) global i32 42
define void @k(ptr %p) {
  %v = load i32, ptr addrspace(3) @s
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
