; codegen screen: a variable of type fp128 (crashes the initializer printer)
target triple = "nvptx64-nvidia-cuda"
@g = addrspace(1) global fp128 0xL00000000000000000000000000000001
define void @k(ptr %p, i32 %n) {
entry:
  %v = load volatile i32, ptr addrspace(1) @g
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
