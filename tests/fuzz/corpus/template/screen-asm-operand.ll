target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(i32 %a) {
  call void asm sideeffect "// $5 ${0:x}", "r"(i32 %a)
  ret void
}
