; child codegen: an inline asm constraint NVPTX does not have
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
  %r = call i32 asm "mov.u32 $0, 1;", "=x"()
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
