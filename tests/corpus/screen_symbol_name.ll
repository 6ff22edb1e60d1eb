; codegen screen: a symbol name that is not a PTX identifier
target triple = "nvptx64-nvidia-cuda"
@"a b\01\22c" = addrspace(1) global i32 0
@g = addrspace(1) global i32 0
define void @k(ptr %p, i32 %n) {
entry:
  %v = load volatile i32, ptr addrspace(1) @"a b\01\22c"
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
