; Hand-written: a kernel with a signed and an unsigned 64-bit argument (marked
; signext and zeroext as a frontend may), for the edges of their
; ranges when a double is bound to them.
source_filename = "bind_wide.ll"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @wide(i64 noundef signext %s, i64 noundef zeroext %u, ptr nocapture noundef writeonly %out) #0 {
entry:
  store i64 %s, ptr %out, align 8
  %p = getelementptr inbounds i8, ptr %out, i64 8
  store i64 %u, ptr %p, align 8
  ret void
}

attributes #0 = { nounwind "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }

!nvvm.annotations = !{!0}
!0 = !{ptr @wide, !"kernel", i32 1}
