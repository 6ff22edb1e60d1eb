; codegen: llvm.frobnicate, a name in LLVM's namespace that is no intrinsic
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.frobnicate(i32)
define void @k(ptr %p, i32 %n) {
  %r = call i32 @llvm.frobnicate(i32 %n)
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
