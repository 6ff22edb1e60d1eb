target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p) {
  %r = call i128 asm "mov.b32 $0, 1;", "=q"()
  store i128 %r, ptr %p
  ret void
}

;ks: --arch sm_60 --ptx-isa 78
