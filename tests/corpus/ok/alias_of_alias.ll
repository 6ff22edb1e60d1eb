; accepted: an alias of an alias of a device function (PTX ISA 6.3 and later)
target triple = "nvptx64-nvidia-cuda"
@a = alias void (ptr), ptr @b
@b = alias void (ptr), ptr @h
define void @h(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k(ptr %p) {
  call void @a(ptr %p)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
