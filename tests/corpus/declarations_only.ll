; template: nothing but declarations
target triple = "nvptx64-nvidia-cuda"
declare void @k(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
