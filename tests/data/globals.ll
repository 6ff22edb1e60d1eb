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

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(readwrite, inaccessiblemem: none)
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
  br i1 %23, label %24, label %104

24:                                               ; preds = %4
  %25 = add nsw i32 %14, -1
  %26 = mul nsw i32 %25, %2
  %27 = add nsw i32 %26, %9
  %28 = load float, ptr addrspacecast (ptr addrspace(4) @taps to ptr), align 4, !tbaa !7
  %29 = sext i32 %27 to i64
  %30 = getelementptr float, ptr %0, i64 %29
  %31 = getelementptr i8, ptr %30, i64 -4
  %32 = load float, ptr %31, align 4, !tbaa !7
  %33 = fmul contract float %28, %32
  %34 = fadd contract float %33, 0.000000e+00
  %35 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 4), align 4, !tbaa !7
  %36 = sext i32 %27 to i64
  %37 = getelementptr inbounds float, ptr %0, i64 %36
  %38 = load float, ptr %37, align 4, !tbaa !7
  %39 = fmul contract float %35, %38
  %40 = fadd contract float %34, %39
  %41 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 8), align 4, !tbaa !7
  %42 = sext i32 %27 to i64
  %43 = getelementptr float, ptr %0, i64 %42
  %44 = getelementptr i8, ptr %43, i64 4
  %45 = load float, ptr %44, align 4, !tbaa !7
  %46 = fmul contract float %41, %45
  %47 = fadd contract float %40, %46
  %48 = mul nsw i32 %14, %2
  %49 = add nsw i32 %48, %9
  %50 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 12), align 4, !tbaa !7
  %51 = sext i32 %49 to i64
  %52 = getelementptr float, ptr %0, i64 %51
  %53 = getelementptr i8, ptr %52, i64 -4
  %54 = load float, ptr %53, align 4, !tbaa !7
  %55 = fmul contract float %50, %54
  %56 = fadd contract float %47, %55
  %57 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 16), align 4, !tbaa !7
  %58 = sext i32 %49 to i64
  %59 = getelementptr inbounds float, ptr %0, i64 %58
  %60 = load float, ptr %59, align 4, !tbaa !7
  %61 = fmul contract float %57, %60
  %62 = fadd contract float %56, %61
  %63 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 20), align 4, !tbaa !7
  %64 = sext i32 %49 to i64
  %65 = getelementptr float, ptr %0, i64 %64
  %66 = getelementptr i8, ptr %65, i64 4
  %67 = load float, ptr %66, align 4, !tbaa !7
  %68 = fmul contract float %63, %67
  %69 = fadd contract float %62, %68
  %70 = add nuw nsw i32 %14, 1
  %71 = mul nsw i32 %70, %2
  %72 = add nsw i32 %71, %9
  %73 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 24), align 4, !tbaa !7
  %74 = sext i32 %72 to i64
  %75 = getelementptr float, ptr %0, i64 %74
  %76 = getelementptr i8, ptr %75, i64 -4
  %77 = load float, ptr %76, align 4, !tbaa !7
  %78 = fmul contract float %73, %77
  %79 = fadd contract float %69, %78
  %80 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 28), align 4, !tbaa !7
  %81 = sext i32 %72 to i64
  %82 = getelementptr inbounds float, ptr %0, i64 %81
  %83 = load float, ptr %82, align 4, !tbaa !7
  %84 = fmul contract float %80, %83
  %85 = fadd contract float %79, %84
  %86 = load float, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @taps to ptr), i64 32), align 4, !tbaa !7
  %87 = sext i32 %72 to i64
  %88 = getelementptr float, ptr %0, i64 %87
  %89 = getelementptr i8, ptr %88, i64 4
  %90 = load float, ptr %89, align 4, !tbaa !7
  %91 = fmul contract float %86, %90
  %92 = fadd contract float %85, %91
  %93 = load float, ptr addrspacecast (ptr addrspace(4) @co to ptr), align 4, !tbaa !11
  %94 = fmul contract float %92, %93
  %95 = and i32 %9, 3
  %96 = zext nneg i32 %95 to i64
  %97 = getelementptr inbounds [4 x float], ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(4) @co to ptr), i64 8), i64 0, i64 %96
  %98 = load float, ptr %97, align 4, !tbaa !7
  %99 = fadd contract float %94, %98
  %100 = getelementptr inbounds float, ptr %1, i64 %58
  store float %99, ptr %100, align 4, !tbaa !7
  %101 = fcmp contract ogt float %99, 5.000000e-01
  br i1 %101, label %102, label %104

102:                                              ; preds = %24
  %103 = atomicrmw add ptr addrspacecast (ptr addrspace(1) @counter to ptr), i32 1 monotonic, align 4
  br label %104

104:                                              ; preds = %24, %102, %4
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(write, argmem: none, inaccessiblemem: none)
define dso_local void @_Z4noteif(i32 noundef %0, float noundef %1) local_unnamed_addr #1 {
  %3 = and i32 %0, 31
  %4 = zext nneg i32 %3 to i64
  %5 = getelementptr inbounds [32 x float], ptr addrspacecast (ptr addrspace(1) @scratch to ptr), i64 0, i64 %4
  store float %1, ptr %5, align 4, !tbaa !7
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
  %13 = load i32, ptr %12, align 4, !tbaa !14
  %14 = and i32 %13, 7
  %15 = zext nneg i32 %14 to i64
  %16 = getelementptr inbounds [8 x i32], ptr addrspacecast (ptr addrspace(1) @lut to ptr), i64 0, i64 %15
  %17 = load i32, ptr %16, align 4, !tbaa !14
  %18 = load i32, ptr addrspacecast (ptr addrspace(1) @lut to ptr), align 4, !tbaa !14
  %19 = add nsw i32 %18, %17
  %20 = load i32, ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(1) @lut to ptr), i64 28), align 4, !tbaa !14
  %21 = add nsw i32 %19, %20
  %22 = getelementptr inbounds i32, ptr %1, i64 %11
  store i32 %21, ptr %22, align 4, !tbaa !14
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
  store i32 %0, ptr %5, align 4, !tbaa !14
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

attributes #0 = { mustprogress nofree norecurse nounwind willreturn memory(readwrite, inaccessiblemem: none) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
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
!7 = !{!8, !8, i64 0}
!8 = !{!"float", !9, i64 0}
!9 = !{!"omnipotent char", !10, i64 0}
!10 = !{!"Simple C++ TBAA"}
!11 = !{!12, !8, i64 0}
!12 = !{!"_ZTS6coeffs", !8, i64 0, !13, i64 4, !9, i64 8}
!13 = !{!"int", !9, i64 0}
!14 = !{!13, !13, i64 0}
