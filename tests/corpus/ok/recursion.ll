; accepted: a recursive device function
target triple = "nvptx64-nvidia-cuda"
define internal i32 @f(i32 %n) {
  %c = icmp eq i32 %n, 0
  br i1 %c, label %z, label %r
z:
  ret i32 0
r:
  %m = sub i32 %n, 1
  %v = call i32 @f(i32 %m)
  %a = add i32 %v, %n
  ret i32 %a
}
define void @k(ptr %p, i32 %n) {
  %r = call i32 @f(i32 %n)
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
