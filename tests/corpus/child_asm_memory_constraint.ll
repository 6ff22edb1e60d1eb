; child codegen: inline asm 'm' constraint (the backend crashes)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
  %r = call i32 asm "mov.u32 $0, 1;", "=m"()
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
