; ModuleID = 'globals.cu'
source_filename = "globals.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.coeffs = type { float, i32, [4 x float] }

@taps = dso_local addrspace(4) externally_initialized global [9 x float] [float 6.250000e-02, float 1.250000e-01, float 6.250000e-02, float 1.250000e-01, float 2.500000e-01, float 1.250000e-01, float 6.250000e-02, float 1.250000e-01, float 6.250000e-02], align 4
@co = dso_local addrspace(4) externally_initialized global %struct.coeffs zeroinitializer, align 4
@counter = dso_local addrspace(1) externally_initialized global i32 0, align 4
@lut = dso_local addrspace(1) externally_initialized global [8 x i32] [i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8], align 4
@scratch = dso_local addrspace(1) externally_initialized global [32 x float] zeroinitializer, align 4
@llvm.compiler.used = appending global [5 x ptr] [ptr addrspacecast (ptr addrspace(4) @co to ptr), ptr addrspacecast (ptr addrspace(1) @counter to ptr), ptr addrspacecast (ptr addrspace(1) @lut to ptr), ptr addrspacecast (ptr addrspace(1) @scratch to ptr), ptr addrspacecast (ptr addrspace(4) @taps to ptr)], section "llvm.metadata"

; Function Attrs: mustprogress nofree norecurse nounwind memory(readwrite, inaccessiblemem: none)
define dso_local void @conv3x3(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %11 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %12 = mul nuw nsw i32 %10, %11
  %13 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %14 = add nuw nsw i32 %12, %13
  %15 = icmp sgt i32 %9, 0
  %16 = icmp ne i32 %14, 0
  %17 = and i1 %15, %16
  %18 = add nsw i32 %2, -1
  %19 = icmp slt i32 %9, %18
  %20 = select i1 %17, i1 %19, i1 false
  %21 = add nsw i32 %3, -1
  %22 = icmp slt i32 %14, %21
  %23 = select i1 %20, i1 %22, i1 false
  br i1 %23, label %24, label %65

24:                                               ; preds = %4, %45
  %25 = phi float [ %60, %45 ], [ 0.000000e+00, %4 ]
  %26 = phi i32 [ %46, %45 ], [ -1, %4 ]
  %27 = mul nsw i32 %26, 3
  %28 = add nsw i32 %27, 4
  %29 = add nsw i32 %26, %14
  %30 = mul nsw i32 %29, %2
  %31 = add nsw i32 %30, %9
  br label %48

32:                                               ; preds = %45
  %33 = load float, ptr addrspacecast (ptr addrspace(4) @co to ptr), align 4, !tbaa !7
  %34 = fmul contract float %60, %33
  %35 = and i32 %9, 3
  %36 = zext nneg i32 %35 to i64
  %37 = getelementptr inbounds [4 x float], ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @co to ptr), i64 8), i64 0, i64 %36
  %38 = load float, ptr %37, align 4, !tbaa !13
  %39 = fadd contract float %34, %38
  %40 = mul nsw i32 %14, %2
  %41 = add nsw i32 %40, %9
  %42 = sext i32 %41 to i64
  %43 = getelementptr inbounds float, ptr %1, i64 %42
  store float %39, ptr %43, align 4, !tbaa !13
  %44 = fcmp contract ogt float %39, 5.000000e-01
  br i1 %44, label %63, label %65

45:                                               ; preds = %48
  %46 = add nsw i32 %26, 1
  %47 = icmp eq i32 %46, 2
  br i1 %47, label %32, label %24, !llvm.loop !14

48:                                               ; preds = %24, %48
  %49 = phi float [ %25, %24 ], [ %60, %48 ]
  %50 = phi i32 [ -1, %24 ], [ %61, %48 ]
  %51 = add nsw i32 %28, %50
  %52 = sext i32 %51 to i64
  %53 = getelementptr inbounds [9 x float], ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 0, i64 %52
  %54 = load float, ptr %53, align 4, !tbaa !13
  %55 = add nsw i32 %31, %50
  %56 = sext i32 %55 to i64
  %57 = getelementptr inbounds float, ptr %0, i64 %56
  %58 = load float, ptr %57, align 4, !tbaa !13
  %59 = fmul contract float %54, %58
  %60 = fadd contract float %49, %59
  %61 = add nsw i32 %50, 1
  %62 = icmp eq i32 %61, 2
  br i1 %62, label %45, label %48, !llvm.loop !17

63:                                               ; preds = %32
  %64 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @counter to ptr), i32 1 monotonic, align 4
  br label %65

65:                                               ; preds = %32, %63, %4
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none)
define dso_local void @_Z4noteif(i32 noundef %0, float noundef %1) local_unnamed_addr #1 {
  %3 = and i32 %0, 31
  %4 = zext nneg i32 %3 to i64
  %5 = getelementptr inbounds [32 x float], ptr addrspacecast (ptr addrspace(1) @scratch to ptr), i64 0, i64 %4
  store float %1, ptr %5, align 4, !tbaa !13
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, inaccessiblemem: none)
define dso_local void @lookup(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2) local_unnamed_addr #2 {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %24

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds i32, ptr %0, i64 %11
  %13 = load i32, ptr %12, align 4, !tbaa !18
  %14 = and i32 %13, 7
  %15 = zext nneg i32 %14 to i64
  %16 = getelementptr inbounds [8 x i32], ptr addrspacecast (ptr addrspace(1) @lut to ptr), i64 0, i64 %15
  %17 = load i32, ptr %16, align 4, !tbaa !18
  %18 = load i32, ptr addrspacecast (ptr addrspace(1) @lut to ptr), align 4, !tbaa !18
  %19 = add nsw i32 %18, %17
  %20 = load i32, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(1) @lut to ptr), i64 28), align 4, !tbaa !18
  %21 = add nsw i32 %19, %20
  %22 = getelementptr inbounds i32, ptr %1, i64 %11
  store i32 %21, ptr %22, align 4, !tbaa !18
  %23 = sitofp i32 %21 to float
  tail call void @_Z4noteif(i32 noundef %8, float noundef %23) #5
  br label %24

24:                                               ; preds = %10, %3
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none)
define dso_local void @reset(i32 noundef %0) local_unnamed_addr #3 {
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = and i32 %2, 7
  %4 = zext nneg i32 %3 to i64
  %5 = getelementptr inbounds [8 x i32], ptr addrspacecast (ptr addrspace(1) @lut to ptr), i64 0, i64 %4
  store i32 %0, ptr %5, align 4, !tbaa !18
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #4

attributes #0 = { mustprogress nofree norecurse nounwind memory(readwrite, inaccessiblemem: none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind willreturn memory(readwrite, inaccessiblemem: none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { mustprogress nofree norecurse nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #4 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nounwind }

!nvvm.annotations = !{!0, !1, !2}
!llvm.module.flags = !{!3, !4, !5}
!llvm.ident = !{!6}

!0 = !{ptr @conv3x3, !"kernel", i32 1}
!1 = !{ptr @lookup, !"kernel", i32 1}
!2 = !{ptr @reset, !"kernel", i32 1}
!3 = !{i32 1, !"wchar_size", i32 4}
!4 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!7 = !{!8, !9, i64 0}
!8 = !{!"_ZTS6coeffs", !9, i64 0, !12, i64 4, !10, i64 8}
!9 = !{!"float", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = !{!"int", !10, i64 0}
!13 = !{!9, !9, i64 0}
!14 = distinct !{!14, !15, !16}
!15 = !{!"llvm.loop.mustprogress"}
!16 = !{!"llvm.loop.unroll.disable"}
!17 = distinct !{!17, !15, !16}
!18 = !{!12, !12, i64 0}
