; ModuleID = 'user_tmpl.cu'
source_filename = "user_tmpl.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

$_Z5scaleIfLi4EEvPT_i = comdat any

$_Z5scaleIiLi4EEvPT_i = comdat any

$_Z10blockscaleILi256EEvPKfPfj = comdat any

; Function Attrs: mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @_Z5scaleIfLi4EEvPT_i(ptr nocapture noundef %0, i32 noundef %1) local_unnamed_addr #0 comdat {
  %3 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %5 = mul i32 %3, %4
  %6 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %7 = add i32 %5, %6
  %8 = icmp slt i32 %7, %1
  br i1 %8, label %9, label %22

9:                                                ; preds = %2
  %10 = sext i32 %7 to i64
  %11 = getelementptr inbounds float, ptr %0, i64 %10
  %12 = load float, ptr %11, align 4, !tbaa !8
  br label %14

13:                                               ; preds = %14
  store float %19, ptr %11, align 4, !tbaa !8
  br label %22

14:                                               ; preds = %9, %14
  %15 = phi i32 [ 0, %9 ], [ %20, %14 ]
  %16 = phi float [ %12, %9 ], [ %19, %14 ]
  %17 = fmul contract float %16, 3.000000e+00
  %18 = uitofp nneg i32 %15 to float
  %19 = fadd contract float %17, %18
  %20 = add nuw nsw i32 %15, 1
  %21 = icmp eq i32 %20, 4
  br i1 %21, label %13, label %14, !llvm.loop !12

22:                                               ; preds = %2, %13
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @_Z5scaleIiLi4EEvPT_i(ptr nocapture noundef %0, i32 noundef %1) local_unnamed_addr #0 comdat {
  %3 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %5 = mul i32 %3, %4
  %6 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %7 = add i32 %5, %6
  %8 = icmp slt i32 %7, %1
  br i1 %8, label %9, label %21

9:                                                ; preds = %2
  %10 = sext i32 %7 to i64
  %11 = getelementptr inbounds i32, ptr %0, i64 %10
  %12 = load i32, ptr %11, align 4, !tbaa !15
  br label %14

13:                                               ; preds = %14
  store i32 %18, ptr %11, align 4, !tbaa !15
  br label %21

14:                                               ; preds = %9, %14
  %15 = phi i32 [ 0, %9 ], [ %19, %14 ]
  %16 = phi i32 [ %12, %9 ], [ %18, %14 ]
  %17 = mul nsw i32 %16, 3
  %18 = add nsw i32 %17, %15
  %19 = add nuw nsw i32 %15, 1
  %20 = icmp eq i32 %19, 4
  br i1 %20, label %13, label %14, !llvm.loop !17

21:                                               ; preds = %2, %13
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @_Z10blockscaleILi256EEvPKfPfj(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2) local_unnamed_addr #1 comdat {
  %4 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = shl i32 %4, 8
  %6 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %7 = add i32 %5, %6
  %8 = icmp ult i32 %7, %2
  br i1 %8, label %9, label %15

9:                                                ; preds = %3
  %10 = zext i32 %7 to i64
  %11 = getelementptr inbounds float, ptr %0, i64 %10
  %12 = load float, ptr %11, align 4, !tbaa !8
  %13 = fmul contract float %12, 2.560000e+02
  %14 = getelementptr inbounds float, ptr %1, i64 %10
  store float %13, ptr %14, align 4, !tbaa !8
  br label %15

15:                                               ; preds = %9, %3
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local void @_Z5sizesjyxiPf(i32 noundef %0, i64 noundef %1, i64 noundef %2, i32 noundef %3, ptr nocapture noundef writeonly %4) local_unnamed_addr #2 {
  %6 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %8 = mul i32 %6, %7
  %9 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %10 = add i32 %8, %9
  %11 = icmp ult i32 %10, %0
  br i1 %11, label %12, label %22

12:                                               ; preds = %5
  %13 = zext i32 %10 to i64
  %14 = add nuw nsw i64 %13, 1
  %15 = udiv i64 %1, %14
  %16 = uitofp i64 %15 to float
  %17 = sext i32 %3 to i64
  %18 = add nsw i64 %17, %2
  %19 = sitofp i64 %18 to float
  %20 = fadd contract float %19, %16
  %21 = getelementptr inbounds float, ptr %4, i64 %13
  store float %20, ptr %21, align 4, !tbaa !8
  br label %22

22:                                               ; preds = %5, %12
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0, !1, !2, !3}
!llvm.module.flags = !{!4, !5, !6}
!llvm.ident = !{!7}

!0 = !{ptr @_Z5scaleIfLi4EEvPT_i, !"kernel", i32 1}
!1 = !{ptr @_Z5scaleIiLi4EEvPT_i, !"kernel", i32 1}
!2 = !{ptr @_Z10blockscaleILi256EEvPKfPfj, !"kernel", i32 1}
!3 = !{ptr @_Z5sizesjyxiPf, !"kernel", i32 1}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!8 = !{!9, !9, i64 0}
!9 = !{!"float", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = distinct !{!12, !13, !14}
!13 = !{!"llvm.loop.mustprogress"}
!14 = !{!"llvm.loop.unroll.disable"}
!15 = !{!16, !16, i64 0}
!16 = !{!"int", !10, i64 0}
!17 = distinct !{!17, !13, !14}
