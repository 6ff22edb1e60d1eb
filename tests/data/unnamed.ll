; clang -O2 output for `y[t] = (double)x[t] * x[t + 1]`, t = threadIdx.x:
; at -O1 and above clang names no argument. With a fixed block, window
; staging puts x in shared memory; its tile is named after the argument
; (tests/tool_test.sh, tests/ir/symbols.ll).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define dso_local void @pair(ptr nocapture noundef writeonly %0, ptr nocapture noundef readonly %1) local_unnamed_addr #0 {
  %3 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = zext nneg i32 %3 to i64
  %5 = getelementptr inbounds i64, ptr %1, i64 %4
  %6 = load i64, ptr %5, align 8
  %7 = uitofp i64 %6 to double
  %8 = getelementptr inbounds i8, ptr %5, i64 8
  %9 = load i64, ptr %8, align 8
  %10 = uitofp i64 %9 to double
  %11 = fmul contract double %7, %10
  %12 = getelementptr inbounds double, ptr %0, i64 %4
  store double %11, ptr %12, align 8
  ret void
}

declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0}
!0 = !{ptr @pair, !"kernel", i32 1}
