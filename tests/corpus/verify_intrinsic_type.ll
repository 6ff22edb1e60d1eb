; verifier: an intrinsic declared with the wrong argument type
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.ctpop.i32(i64)
define void @k(ptr %p) {
  %v = load i64, ptr %p
  %r = call i32 @llvm.ctpop.i32(i64 %v)
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
