; codegen: llvm.nvvm.bogus.thing, no intrinsic at all
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %r = call i32 @llvm.nvvm.bogus.thing(i32 %n)
  store i32 %r, ptr %p
  ret void
}
declare i32 @llvm.nvvm.bogus.thing(i32)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
