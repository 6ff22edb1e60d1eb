; ModuleID = 'byval.cu'
source_filename = "byval.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.taps = type { [8 x float], float, i32 }
%struct.span = type { ptr, ptr, i32, float }

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @taps_read(ptr nocapture noundef readonly byval(%struct.taps) align 4 %0, ptr nocapture noundef readonly %1, ptr nocapture noundef writeonly %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %26

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds float, ptr %1, i64 %12
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = getelementptr inbounds i8, ptr %0, i64 36
  %16 = load i32, ptr %15, align 4, !tbaa !12
  %17 = and i32 %16, %9
  %18 = sext i32 %17 to i64
  %19 = getelementptr inbounds [8 x float], ptr %0, i64 0, i64 %18
  %20 = load float, ptr %19, align 4, !tbaa !8
  %21 = fmul contract float %14, %20
  %22 = getelementptr inbounds i8, ptr %0, i64 32
  %23 = load float, ptr %22, align 4, !tbaa !15
  %24 = fadd contract float %21, %23
  %25 = getelementptr inbounds float, ptr %2, i64 %12
  store float %24, ptr %25, align 4, !tbaa !8
  br label %26

26:                                               ; preds = %11, %4
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @taps_written(ptr nocapture noundef byval(%struct.taps) align 4 %0, ptr nocapture noundef readonly %1, ptr nocapture noundef writeonly %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %55

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds float, ptr %1, i64 %12
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = getelementptr inbounds i8, ptr %0, i64 36
  %16 = load i32, ptr %15, align 4, !tbaa !12
  %17 = and i32 %16, %9
  %18 = sext i32 %17 to i64
  %19 = getelementptr inbounds [8 x float], ptr %0, i64 0, i64 %18
  %20 = load float, ptr %19, align 4, !tbaa !8
  %21 = fadd contract float %14, %20
  store float %21, ptr %19, align 4, !tbaa !8
  %22 = getelementptr inbounds i8, ptr %0, i64 32
  %23 = load float, ptr %22, align 4, !tbaa !15
  %24 = load float, ptr %0, align 4, !tbaa !8
  %25 = fadd contract float %23, %24
  %26 = getelementptr inbounds i8, ptr %0, i64 4
  %27 = load float, ptr %26, align 4, !tbaa !8
  %28 = fmul contract float %27, 2.000000e+00
  %29 = fadd contract float %25, %28
  %30 = getelementptr inbounds i8, ptr %0, i64 8
  %31 = load float, ptr %30, align 4, !tbaa !8
  %32 = fmul contract float %31, 3.000000e+00
  %33 = fadd contract float %29, %32
  %34 = getelementptr inbounds i8, ptr %0, i64 12
  %35 = load float, ptr %34, align 4, !tbaa !8
  %36 = fmul contract float %35, 4.000000e+00
  %37 = fadd contract float %33, %36
  %38 = getelementptr inbounds i8, ptr %0, i64 16
  %39 = load float, ptr %38, align 4, !tbaa !8
  %40 = fmul contract float %39, 5.000000e+00
  %41 = fadd contract float %37, %40
  %42 = getelementptr inbounds i8, ptr %0, i64 20
  %43 = load float, ptr %42, align 4, !tbaa !8
  %44 = fmul contract float %43, 6.000000e+00
  %45 = fadd contract float %41, %44
  %46 = getelementptr inbounds i8, ptr %0, i64 24
  %47 = load float, ptr %46, align 4, !tbaa !8
  %48 = fmul contract float %47, 7.000000e+00
  %49 = fadd contract float %45, %48
  %50 = getelementptr inbounds i8, ptr %0, i64 28
  %51 = load float, ptr %50, align 4, !tbaa !8
  %52 = fmul contract float %51, 8.000000e+00
  %53 = fadd contract float %49, %52
  %54 = getelementptr inbounds float, ptr %2, i64 %12
  store float %53, ptr %54, align 4, !tbaa !8
  br label %55

55:                                               ; preds = %4, %11
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, inaccessiblemem: none)
define dso_local void @span_scale(ptr nocapture noundef readonly byval(%struct.span) align 8 %0) local_unnamed_addr #1 {
  %2 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %3 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %4 = mul i32 %2, %3
  %5 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %6 = add i32 %4, %5
  %7 = getelementptr inbounds i8, ptr %0, i64 16
  %8 = load i32, ptr %7, align 8, !tbaa !16
  %9 = icmp slt i32 %6, %8
  br i1 %9, label %10, label %21

10:                                               ; preds = %1
  %11 = load ptr, ptr %0, align 8, !tbaa !19
  %12 = sext i32 %6 to i64
  %13 = getelementptr inbounds float, ptr %11, i64 %12
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = getelementptr inbounds i8, ptr %0, i64 20
  %16 = load float, ptr %15, align 4, !tbaa !20
  %17 = fmul contract float %14, %16
  %18 = getelementptr inbounds i8, ptr %0, i64 8
  %19 = load ptr, ptr %18, align 8, !tbaa !21
  %20 = getelementptr inbounds float, ptr %19, i64 %12
  store float %17, ptr %20, align 4, !tbaa !8
  br label %21

21:                                               ; preds = %10, %1
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local noundef float @_Z3tap4tapsi(ptr nocapture noundef byval(%struct.taps) align 4 %0, i32 noundef %1) local_unnamed_addr #2 {
  %3 = and i32 %1, 7
  %4 = zext nneg i32 %3 to i64
  %5 = getelementptr inbounds [8 x float], ptr %0, i64 0, i64 %4
  %6 = load float, ptr %5, align 4, !tbaa !8
  %7 = fmul contract float %6, 2.000000e+00
  store float %7, ptr %5, align 4, !tbaa !8
  %8 = add nsw i32 %1, 1
  %9 = getelementptr inbounds i8, ptr %0, i64 36
  %10 = load i32, ptr %9, align 4, !tbaa !12
  %11 = and i32 %10, %8
  %12 = sext i32 %11 to i64
  %13 = getelementptr inbounds [8 x float], ptr %0, i64 0, i64 %12
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = fadd contract float %7, %14
  ret float %15
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @taps_call(ptr nocapture noundef readonly byval(%struct.taps) align 4 %0, ptr nocapture noundef readonly %1, ptr nocapture noundef writeonly %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %18

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds float, ptr %1, i64 %12
  %14 = load float, ptr %13, align 4, !tbaa !8
  %15 = tail call contract noundef float @_Z3tap4tapsi(ptr noundef nonnull byval(%struct.taps) align 4 %0, i32 noundef %9) #4
  %16 = fadd contract float %14, %15
  %17 = getelementptr inbounds float, ptr %2, i64 %12
  store float %16, ptr %17, align 4, !tbaa !8
  br label %18

18:                                               ; preds = %11, %4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, inaccessiblemem: none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind }

!nvvm.annotations = !{!0, !1, !2, !3}
!llvm.module.flags = !{!4, !5, !6}
!llvm.ident = !{!7}

!0 = !{ptr @taps_read, !"kernel", i32 1}
!1 = !{ptr @taps_written, !"kernel", i32 1}
!2 = !{ptr @span_scale, !"kernel", i32 1}
!3 = !{ptr @taps_call, !"kernel", i32 1}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!8 = !{!9, !9, i64 0}
!9 = !{!"float", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = !{!13, !14, i64 36}
!13 = !{!"_ZTS4taps", !10, i64 0, !9, i64 32, !14, i64 36}
!14 = !{!"int", !10, i64 0}
!15 = !{!13, !9, i64 32}
!16 = !{!17, !14, i64 16}
!17 = !{!"_ZTS4span", !18, i64 0, !18, i64 8, !14, i64 16, !9, i64 20}
!18 = !{!"any pointer", !10, i64 0}
!19 = !{!17, !18, i64 0}
!20 = !{!17, !9, i64 20}
!21 = !{!17, !18, i64 8}
