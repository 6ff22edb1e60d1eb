target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p, i32 %a) {
  %r = call i32 asm "// $0 $1", "={r1},{r2}"(i32 %a)
  store i32 %r, ptr %p
  ret void
}
