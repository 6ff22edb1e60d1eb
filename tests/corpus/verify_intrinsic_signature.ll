; verifier: llvm.bswap on a type that is not a whole number of bytes
target triple = "nvptx64-nvidia-cuda"
declare i24 @llvm.bswap.i24(i24)
define void @k(ptr %p) {
  %v = load i24, ptr %p
  %r = call i24 @llvm.bswap.i24(i24 %v)
  store i24 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
