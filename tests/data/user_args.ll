; ModuleID = 'user_args.cu'
source_filename = "user_args.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @scaled_sum(i32 noundef %n, i32 noundef %taps, float noundef %a, ptr nocapture noundef readonly %x, ptr nocapture noundef writeonly %y) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %0, %1
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %2
  %cmp.not = icmp slt i32 %add, %n
  br i1 %cmp.not, label %for.cond.preheader, label %cleanup

for.cond.preheader:                               ; preds = %entry
  %cmp314 = icmp sgt i32 %taps, 0
  br i1 %cmp314, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %for.cond.preheader
  %s.0.lcssa = phi float [ 0.000000e+00, %for.cond.preheader ], [ %add5, %for.body ]
  %mul6 = fmul contract float %s.0.lcssa, %a
  %idxprom7 = sext i32 %add to i64
  %arrayidx8 = getelementptr inbounds float, ptr %y, i64 %idxprom7
  store float %mul6, ptr %arrayidx8, align 4, !tbaa !6
  br label %cleanup

for.body:                                         ; preds = %for.cond.preheader, %for.body
  %k.016 = phi i32 [ %inc, %for.body ], [ 0, %for.cond.preheader ]
  %s.015 = phi float [ %add5, %for.body ], [ 0.000000e+00, %for.cond.preheader ]
  %add4 = add nsw i32 %k.016, %add
  %idxprom = sext i32 %add4 to i64
  %arrayidx = getelementptr inbounds float, ptr %x, i64 %idxprom
  %3 = load float, ptr %arrayidx, align 4, !tbaa !6
  %add5 = fadd contract float %s.015, %3
  %inc = add nuw nsw i32 %k.016, 1
  %exitcond.not = icmp eq i32 %inc, %taps
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !10

cleanup:                                          ; preds = %entry, %for.cond.cleanup
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local void @kinds(i8 noundef signext %c, i16 noundef zeroext %us, i1 noundef zeroext %flag, half noundef %h, i8 noundef zeroext %uc, i64 noundef %big, i64 noundef %ubig, double noundef %d, ptr nocapture noundef writeonly %out) local_unnamed_addr #1 {
entry:
  %conv = sitofp i8 %c to float
  store float %conv, ptr %out, align 4, !tbaa !6
  %conv1 = uitofp i16 %us to float
  %arrayidx2 = getelementptr inbounds i8, ptr %out, i64 4
  store float %conv1, ptr %arrayidx2, align 4, !tbaa !6
  %cond = select contract i1 %flag, float 1.000000e+00, float 2.000000e+00
  %arrayidx3 = getelementptr inbounds i8, ptr %out, i64 8
  store float %cond, ptr %arrayidx3, align 4, !tbaa !6
  %conv4 = fpext half %h to float
  %arrayidx5 = getelementptr inbounds i8, ptr %out, i64 12
  store float %conv4, ptr %arrayidx5, align 4, !tbaa !6
  %conv6 = uitofp i8 %uc to float
  %arrayidx7 = getelementptr inbounds i8, ptr %out, i64 16
  store float %conv6, ptr %arrayidx7, align 4, !tbaa !6
  %conv8 = sitofp i64 %big to float
  %arrayidx9 = getelementptr inbounds i8, ptr %out, i64 20
  store float %conv8, ptr %arrayidx9, align 4, !tbaa !6
  %conv10 = uitofp i64 %ubig to float
  %arrayidx11 = getelementptr inbounds i8, ptr %out, i64 24
  store float %conv10, ptr %arrayidx11, align 4, !tbaa !6
  %conv12 = fptrunc double %d to float
  %arrayidx13 = getelementptr inbounds i8, ptr %out, i64 28
  store float %conv12, ptr %arrayidx13, align 4, !tbaa !6
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: write) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0, !1}
!llvm.module.flags = !{!2, !3, !4}
!llvm.ident = !{!5}

!0 = !{ptr @scaled_sum, !"kernel", i32 1}
!1 = !{ptr @kinds, !"kernel", i32 1}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = !{!7, !7, i64 0}
!7 = !{!"float", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C++ TBAA"}
!10 = distinct !{!10, !11, !12}
!11 = !{!"llvm.loop.mustprogress"}
!12 = !{!"llvm.loop.unroll.disable"}
