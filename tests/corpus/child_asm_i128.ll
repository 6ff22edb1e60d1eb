; child codegen: inline asm 'r' with an i128 operand
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
  %v = load i128, ptr %p
  %r = call i128 asm "mov.b128 $0, $1;", "=r,r"(i128 %v)
  store i128 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
