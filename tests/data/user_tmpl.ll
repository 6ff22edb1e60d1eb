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
  %12 = load float, ptr %11, align 4, !tbaa !7
  br label %14

13:                                               ; preds = %14
  store float %19, ptr %11, align 4, !tbaa !7
  br label %22

14:                                               ; preds = %9, %14
  %15 = phi i32 [ 0, %9 ], [ %20, %14 ]
  %16 = phi float [ %12, %9 ], [ %19, %14 ]
  %17 = fmul contract float %16, 3.000000e+00
  %18 = uitofp nneg i32 %15 to float
  %19 = fadd contract float %17, %18
  %20 = add nuw nsw i32 %15, 1
  %21 = icmp eq i32 %20, 4
  br i1 %21, label %13, label %14, !llvm.loop !11

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
  %12 = load i32, ptr %11, align 4, !tbaa !14
  br label %14

13:                                               ; preds = %14
  store i32 %18, ptr %11, align 4, !tbaa !14
  br label %21

14:                                               ; preds = %9, %14
  %15 = phi i32 [ 0, %9 ], [ %19, %14 ]
  %16 = phi i32 [ %12, %9 ], [ %18, %14 ]
  %17 = mul nsw i32 %16, 3
  %18 = add nsw i32 %17, %15
  %19 = add nuw nsw i32 %15, 1
  %20 = icmp eq i32 %19, 4
  br i1 %20, label %13, label %14, !llvm.loop !16

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
  %12 = load float, ptr %11, align 4, !tbaa !7
  %13 = fmul contract float %12, 2.560000e+02
  %14 = getelementptr inbounds float, ptr %1, i64 %10
  store float %13, ptr %14, align 4, !tbaa !7
  br label %15

15:                                               ; preds = %9, %3
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0, !1, !2}
!llvm.module.flags = !{!3, !4, !5}
!llvm.ident = !{!6}

!0 = !{ptr @_Z5scaleIfLi4EEvPT_i, !"kernel", i32 1}
!1 = !{ptr @_Z5scaleIiLi4EEvPT_i, !"kernel", i32 1}
!2 = !{ptr @_Z10blockscaleILi256EEvPKfPfj, !"kernel", i32 1}
!3 = !{i32 1, !"wchar_size", i32 4}
!4 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!5 = !{i32 7, !"frame-pointer", i32 2}
!6 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!7 = !{!8, !8, i64 0}
!8 = !{!"float", !9, i64 0}
!9 = !{!"omnipotent char", !10, i64 0}
!10 = !{!"Simple C++ TBAA"}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
!14 = !{!15, !15, i64 0}
!15 = !{!"int", !9, i64 0}
!16 = distinct !{!16, !12, !13}
