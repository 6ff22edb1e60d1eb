; codegen screen: a static initializer PTX cannot write (sub of two addresses)
target triple = "nvptx64-nvidia-cuda"
@h = addrspace(1) global [4 x i32] zeroinitializer
@g = addrspace(1) global i64 sub (i64 ptrtoint (ptr addrspace(1) @h to i64), i64 ptrtoint (ptr @k to i64))
define void @k(ptr %p, i32 %n) {
entry:
  %v = load volatile i32, ptr addrspace(1) @g
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
