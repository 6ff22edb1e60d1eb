target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %p) {
  call void asm "st.u32 [$0], 1;", "=*m"(ptr elementtype(i32) %p)
  ret void
}
