; codegen: the address of a block, stored
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  store ptr blockaddress(@k, %a), ptr %p
  br label %a
a:
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
