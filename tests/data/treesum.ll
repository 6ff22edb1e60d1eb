; ModuleID = 'treesum.cu'
source_filename = "treesum.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ8tree_f32E2sh = internal unnamed_addr addrspace(3) global [1024 x float] undef, align 4
@_ZZ8tree_i32E2sh = internal unnamed_addr addrspace(3) global [1024 x i32] undef, align 4
@_ZZ8tail_f32E2sh = internal addrspace(3) global [1024 x float] undef, align 4
@_ZZ8tail_i32E2sh = internal addrspace(3) global [1024 x i32] undef, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @tree_f32(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2) local_unnamed_addr #0 {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %14

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %0, i64 %11
  %13 = load float, ptr %12, align 4, !tbaa !8
  br label %14

14:                                               ; preds = %10, %3
  %15 = phi contract float [ %13, %10 ], [ 0.000000e+00, %3 ]
  %16 = zext nneg i32 %7 to i64
  %17 = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tree_f32E2sh to ptr), i64 %16
  store float %15, ptr %17, align 4, !tbaa !8
  tail call void @llvm.nvvm.barrier0()
  %18 = icmp ult i32 %5, 2
  br i1 %18, label %19, label %21

19:                                               ; preds = %32, %14
  %20 = icmp eq i32 %7, 0
  br i1 %20, label %34, label %38

21:                                               ; preds = %14, %32
  %22 = phi i32 [ %23, %32 ], [ %5, %14 ]
  %23 = lshr i32 %22, 1
  %24 = icmp ult i32 %7, %23
  br i1 %24, label %25, label %32

25:                                               ; preds = %21
  %26 = add nuw nsw i32 %23, %7
  %27 = zext nneg i32 %26 to i64
  %28 = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tree_f32E2sh to ptr), i64 %27
  %29 = load float, ptr %28, align 4, !tbaa !8
  %30 = load float, ptr %17, align 4, !tbaa !8
  %31 = fadd contract float %29, %30
  store float %31, ptr %17, align 4, !tbaa !8
  br label %32

32:                                               ; preds = %25, %21
  tail call void @llvm.nvvm.barrier0()
  %33 = icmp ult i32 %22, 4
  br i1 %33, label %19, label %21, !llvm.loop !12

34:                                               ; preds = %19
  %35 = zext nneg i32 %4 to i64
  %36 = getelementptr inbounds float, ptr %1, i64 %35
  %37 = load float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tree_f32E2sh to ptr), align 4, !tbaa !8
  store float %37, ptr %36, align 4, !tbaa !8
  br label %38

38:                                               ; preds = %19, %34
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @tree_i32(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2) local_unnamed_addr #0 {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %14

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds i32, ptr %0, i64 %11
  %13 = load i32, ptr %12, align 4, !tbaa !14
  br label %14

14:                                               ; preds = %10, %3
  %15 = phi i32 [ %13, %10 ], [ 0, %3 ]
  %16 = zext nneg i32 %7 to i64
  %17 = getelementptr inbounds i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tree_i32E2sh to ptr), i64 %16
  store i32 %15, ptr %17, align 4, !tbaa !14
  tail call void @llvm.nvvm.barrier0()
  %18 = icmp ult i32 %5, 2
  br i1 %18, label %19, label %21

19:                                               ; preds = %32, %14
  %20 = icmp eq i32 %7, 0
  br i1 %20, label %34, label %38

21:                                               ; preds = %14, %32
  %22 = phi i32 [ %23, %32 ], [ %5, %14 ]
  %23 = lshr i32 %22, 1
  %24 = icmp ult i32 %7, %23
  br i1 %24, label %25, label %32

25:                                               ; preds = %21
  %26 = add nuw nsw i32 %23, %7
  %27 = zext nneg i32 %26 to i64
  %28 = getelementptr inbounds i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tree_i32E2sh to ptr), i64 %27
  %29 = load i32, ptr %28, align 4, !tbaa !14
  %30 = load i32, ptr %17, align 4, !tbaa !14
  %31 = add nsw i32 %30, %29
  store i32 %31, ptr %17, align 4, !tbaa !14
  br label %32

32:                                               ; preds = %25, %21
  tail call void @llvm.nvvm.barrier0()
  %33 = icmp ult i32 %22, 4
  br i1 %33, label %19, label %21, !llvm.loop !16

34:                                               ; preds = %19
  %35 = zext nneg i32 %4 to i64
  %36 = getelementptr inbounds i32, ptr %1, i64 %35
  %37 = load i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tree_i32E2sh to ptr), align 4, !tbaa !14
  store i32 %37, ptr %36, align 4, !tbaa !14
  br label %38

38:                                               ; preds = %19, %34
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @tail_f32(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2) local_unnamed_addr #0 {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %14

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds float, ptr %0, i64 %11
  %13 = load float, ptr %12, align 4, !tbaa !8
  br label %14

14:                                               ; preds = %10, %3
  %15 = phi contract float [ %13, %10 ], [ 0.000000e+00, %3 ]
  %16 = zext nneg i32 %7 to i64
  %17 = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_f32E2sh to ptr), i64 %16
  store float %15, ptr %17, align 4, !tbaa !8
  tail call void @llvm.nvvm.barrier0()
  %18 = icmp ugt i32 %5, 65
  br i1 %18, label %21, label %19

19:                                               ; preds = %32, %14
  %20 = icmp ult i32 %7, 32
  br i1 %20, label %34, label %64

21:                                               ; preds = %14, %32
  %22 = phi i32 [ %23, %32 ], [ %5, %14 ]
  %23 = lshr i32 %22, 1
  %24 = icmp ult i32 %7, %23
  br i1 %24, label %25, label %32

25:                                               ; preds = %21
  %26 = add nuw nsw i32 %23, %7
  %27 = zext nneg i32 %26 to i64
  %28 = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_f32E2sh to ptr), i64 %27
  %29 = load float, ptr %28, align 4, !tbaa !8
  %30 = load float, ptr %17, align 4, !tbaa !8
  %31 = fadd contract float %29, %30
  store float %31, ptr %17, align 4, !tbaa !8
  br label %32

32:                                               ; preds = %25, %21
  tail call void @llvm.nvvm.barrier0()
  %33 = icmp ugt i32 %22, 131
  br i1 %33, label %21, label %19, !llvm.loop !17

34:                                               ; preds = %19
  %35 = icmp ugt i32 %5, 63
  br i1 %35, label %36, label %43

36:                                               ; preds = %34
  %37 = or disjoint i32 %7, 32
  %38 = zext nneg i32 %37 to i64
  %39 = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_f32E2sh to ptr), i64 %38
  %40 = load volatile float, ptr %39, align 4, !tbaa !8
  %41 = load volatile float, ptr %17, align 4, !tbaa !8
  %42 = fadd contract float %40, %41
  store volatile float %42, ptr %17, align 4, !tbaa !8
  br label %43

43:                                               ; preds = %36, %34
  %44 = getelementptr inbounds i8, ptr %17, i64 64
  %45 = load volatile float, ptr %44, align 4, !tbaa !8
  %46 = load volatile float, ptr %17, align 4, !tbaa !8
  %47 = fadd contract float %45, %46
  store volatile float %47, ptr %17, align 4, !tbaa !8
  %48 = getelementptr inbounds i8, ptr %17, i64 32
  %49 = load volatile float, ptr %48, align 4, !tbaa !8
  %50 = load volatile float, ptr %17, align 4, !tbaa !8
  %51 = fadd contract float %49, %50
  store volatile float %51, ptr %17, align 4, !tbaa !8
  %52 = getelementptr inbounds i8, ptr %17, i64 16
  %53 = load volatile float, ptr %52, align 4, !tbaa !8
  %54 = load volatile float, ptr %17, align 4, !tbaa !8
  %55 = fadd contract float %53, %54
  store volatile float %55, ptr %17, align 4, !tbaa !8
  %56 = getelementptr inbounds i8, ptr %17, i64 8
  %57 = load volatile float, ptr %56, align 4, !tbaa !8
  %58 = load volatile float, ptr %17, align 4, !tbaa !8
  %59 = fadd contract float %57, %58
  store volatile float %59, ptr %17, align 4, !tbaa !8
  %60 = getelementptr inbounds i8, ptr %17, i64 4
  %61 = load volatile float, ptr %60, align 4, !tbaa !8
  %62 = load volatile float, ptr %17, align 4, !tbaa !8
  %63 = fadd contract float %61, %62
  store volatile float %63, ptr %17, align 4, !tbaa !8
  br label %64

64:                                               ; preds = %43, %19
  %65 = icmp eq i32 %7, 0
  br i1 %65, label %66, label %70

66:                                               ; preds = %64
  %67 = zext nneg i32 %4 to i64
  %68 = getelementptr inbounds float, ptr %1, i64 %67
  %69 = load float, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_f32E2sh to ptr), align 4, !tbaa !8
  store float %69, ptr %68, align 4, !tbaa !8
  br label %70

70:                                               ; preds = %64, %66
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @tail_i32(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2) local_unnamed_addr #0 {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %6 = mul i32 %4, %5
  %7 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = add i32 %6, %7
  %9 = icmp slt i32 %8, %2
  br i1 %9, label %10, label %14

10:                                               ; preds = %3
  %11 = sext i32 %8 to i64
  %12 = getelementptr inbounds i32, ptr %0, i64 %11
  %13 = load i32, ptr %12, align 4, !tbaa !14
  br label %14

14:                                               ; preds = %10, %3
  %15 = phi i32 [ %13, %10 ], [ 0, %3 ]
  %16 = zext nneg i32 %7 to i64
  %17 = getelementptr inbounds i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_i32E2sh to ptr), i64 %16
  store i32 %15, ptr %17, align 4, !tbaa !14
  tail call void @llvm.nvvm.barrier0()
  %18 = icmp ugt i32 %5, 65
  br i1 %18, label %21, label %19

19:                                               ; preds = %32, %14
  %20 = icmp ult i32 %7, 32
  br i1 %20, label %34, label %64

21:                                               ; preds = %14, %32
  %22 = phi i32 [ %23, %32 ], [ %5, %14 ]
  %23 = lshr i32 %22, 1
  %24 = icmp ult i32 %7, %23
  br i1 %24, label %25, label %32

25:                                               ; preds = %21
  %26 = add nuw nsw i32 %23, %7
  %27 = zext nneg i32 %26 to i64
  %28 = getelementptr inbounds i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_i32E2sh to ptr), i64 %27
  %29 = load i32, ptr %28, align 4, !tbaa !14
  %30 = load i32, ptr %17, align 4, !tbaa !14
  %31 = add nsw i32 %30, %29
  store i32 %31, ptr %17, align 4, !tbaa !14
  br label %32

32:                                               ; preds = %25, %21
  tail call void @llvm.nvvm.barrier0()
  %33 = icmp ugt i32 %22, 131
  br i1 %33, label %21, label %19, !llvm.loop !18

34:                                               ; preds = %19
  %35 = icmp ugt i32 %5, 63
  br i1 %35, label %36, label %43

36:                                               ; preds = %34
  %37 = or disjoint i32 %7, 32
  %38 = zext nneg i32 %37 to i64
  %39 = getelementptr inbounds i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_i32E2sh to ptr), i64 %38
  %40 = load volatile i32, ptr %39, align 4, !tbaa !14
  %41 = load volatile i32, ptr %17, align 4, !tbaa !14
  %42 = add nsw i32 %41, %40
  store volatile i32 %42, ptr %17, align 4, !tbaa !14
  br label %43

43:                                               ; preds = %36, %34
  %44 = getelementptr inbounds i8, ptr %17, i64 64
  %45 = load volatile i32, ptr %44, align 4, !tbaa !14
  %46 = load volatile i32, ptr %17, align 4, !tbaa !14
  %47 = add nsw i32 %46, %45
  store volatile i32 %47, ptr %17, align 4, !tbaa !14
  %48 = getelementptr inbounds i8, ptr %17, i64 32
  %49 = load volatile i32, ptr %48, align 4, !tbaa !14
  %50 = load volatile i32, ptr %17, align 4, !tbaa !14
  %51 = add nsw i32 %50, %49
  store volatile i32 %51, ptr %17, align 4, !tbaa !14
  %52 = getelementptr inbounds i8, ptr %17, i64 16
  %53 = load volatile i32, ptr %52, align 4, !tbaa !14
  %54 = load volatile i32, ptr %17, align 4, !tbaa !14
  %55 = add nsw i32 %54, %53
  store volatile i32 %55, ptr %17, align 4, !tbaa !14
  %56 = getelementptr inbounds i8, ptr %17, i64 8
  %57 = load volatile i32, ptr %56, align 4, !tbaa !14
  %58 = load volatile i32, ptr %17, align 4, !tbaa !14
  %59 = add nsw i32 %58, %57
  store volatile i32 %59, ptr %17, align 4, !tbaa !14
  %60 = getelementptr inbounds i8, ptr %17, i64 4
  %61 = load volatile i32, ptr %60, align 4, !tbaa !14
  %62 = load volatile i32, ptr %17, align 4, !tbaa !14
  %63 = add nsw i32 %62, %61
  store volatile i32 %63, ptr %17, align 4, !tbaa !14
  br label %64

64:                                               ; preds = %43, %19
  %65 = icmp eq i32 %7, 0
  br i1 %65, label %66, label %70

66:                                               ; preds = %64
  %67 = zext nneg i32 %4 to i64
  %68 = getelementptr inbounds i32, ptr %1, i64 %67
  %69 = load i32, ptr addrspacecast (ptr addrspace(3) @_ZZ8tail_i32E2sh to ptr), align 4, !tbaa !14
  store i32 %69, ptr %68, align 4, !tbaa !14
  br label %70

70:                                               ; preds = %64, %66
  ret void
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0, !1, !2, !3}
!llvm.module.flags = !{!4, !5, !6}
!llvm.ident = !{!7}

!0 = !{ptr @tree_f32, !"kernel", i32 1}
!1 = !{ptr @tree_i32, !"kernel", i32 1}
!2 = !{ptr @tail_f32, !"kernel", i32 1}
!3 = !{ptr @tail_i32, !"kernel", i32 1}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!8 = !{!9, !9, i64 0}
!9 = !{!"float", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = distinct !{!12, !13}
!13 = !{!"llvm.loop.mustprogress"}
!14 = !{!15, !15, i64 0}
!15 = !{!"int", !10, i64 0}
!16 = distinct !{!16, !13}
!17 = distinct !{!17, !13}
!18 = distinct !{!18, !13}
