; child codegen: llvm.nvvm.atomic.inc on 64 bits (only 32-bit atom.inc exists)
; ModuleID = 'm'
source_filename = "m"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i64 @llvm.nvvm.atomic.inc.gen.i.cta.i64.p0(ptr nocapture, i64) #0

define void @k(ptr %0) {
e:
  %1 = call i64 @llvm.nvvm.atomic.inc.gen.i.cta.i64.p0(ptr %0, i64 1)
  store i64 %1, ptr %0, align 4
  ret void
}

attributes #0 = { nocallback nounwind memory(argmem: readwrite) }
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
