; codegen screen: a shared array with initial values (silently dropped by the backend)
target triple = "nvptx64-nvidia-cuda"
@s = internal addrspace(3) global [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@g = addrspace(1) global i32 0
define void @k(ptr %p, i32 %n) {
entry:
  %v = load volatile i32, ptr addrspace(3) @s
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
