; accepted: a shared variable initialized to zero (the backend drops it, as clang's undef)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load volatile i32, ptr addrspace(3) @s
  store i32 %v, ptr %p
  ret void
}
@s = internal addrspace(3) global i32 0
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
