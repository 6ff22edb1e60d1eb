; child codegen: inline asm 'q' (128-bit) operand needs sm_70
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
  call void asm sideeffect "// $0", "q"(i32 %n)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
