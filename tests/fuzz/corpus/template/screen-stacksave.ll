target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%j, %loop]
  %s = call ptr @llvm.stacksave.p0()
  %a = alloca i32, i32 %n
  store volatile i32 %i, ptr %a
  call void @use(ptr %a)
  call void @llvm.stackrestore.p0(ptr %s)
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  br i1 %c, label %loop, label %out
out:
  ret void
}
define void @use(ptr %a) noinline {
  store volatile i32 2, ptr %a
  ret void
}
declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)
