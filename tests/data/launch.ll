; ModuleID = 'tests/data/launch.cu'
source_filename = "tests/data/launch.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ12gridsync_sumE1s = internal unnamed_addr addrspace(3) global [1024 x i32] undef, align 4
@buf = external dso_local local_unnamed_addr addrspace(3) global [0 x i32], align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @gridsync_sum(ptr nocapture noundef readonly %x, i32 noundef %n, ptr noundef %partial, ptr noundef %bar, ptr nocapture noundef writeonly %out) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %0, %1
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %2
  %cmp64 = icmp slt i32 %add, %n
  br i1 %cmp64, label %for.body.lr.ph, label %for.cond.cleanup

for.body.lr.ph:                                   ; preds = %entry
  %3 = tail call noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %mul6 = mul i32 %3, %1
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  %sum.0.lcssa = phi i32 [ 0, %entry ], [ %add3, %for.body ]
  %idxprom9 = zext nneg i32 %2 to i64
  %arrayidx10 = getelementptr inbounds [1024 x i32], ptr addrspacecast (ptr addrspace(3) @_ZZ12gridsync_sumE1s to ptr), i64 0, i64 %idxprom9
  store i32 %sum.0.lcssa, ptr %arrayidx10, align 4, !tbaa !6
  tail call void @llvm.nvvm.bar.sync(i32 0)
  %cmp13.not68 = icmp ult i32 %1, 2
  br i1 %cmp13.not68, label %for.cond.cleanup14, label %for.body15

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %i.066 = phi i32 [ %add, %for.body.lr.ph ], [ %add7, %for.body ]
  %sum.065 = phi i32 [ 0, %for.body.lr.ph ], [ %add3, %for.body ]
  %idxprom = sext i32 %i.066 to i64
  %arrayidx = getelementptr inbounds i32, ptr %x, i64 %idxprom
  %4 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %add3 = add nsw i32 %4, %sum.065
  %add7 = add i32 %i.066, %mul6
  %cmp = icmp slt i32 %add7, %n
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !llvm.loop !10

for.cond.cleanup14:                               ; preds = %if.end, %for.cond.cleanup
  %cmp30.not = icmp eq i32 %2, 0
  br i1 %cmp30.not, label %if.then31, label %if.end35

for.body15:                                       ; preds = %for.cond.cleanup, %if.end
  %w.069.in = phi i32 [ %w.069, %if.end ], [ %1, %for.cond.cleanup ]
  %w.069 = lshr i32 %w.069.in, 1
  %cmp17 = icmp ult i32 %2, %w.069
  br i1 %cmp17, label %if.then, label %if.end

if.then:                                          ; preds = %for.body15
  %add19 = add nuw nsw i32 %w.069, %2
  %idxprom20 = zext nneg i32 %add19 to i64
  %arrayidx21 = getelementptr inbounds [1024 x i32], ptr addrspacecast (ptr addrspace(3) @_ZZ12gridsync_sumE1s to ptr), i64 0, i64 %idxprom20
  %5 = load i32, ptr %arrayidx21, align 4, !tbaa !6
  %6 = load i32, ptr %arrayidx10, align 4, !tbaa !6
  %add25 = add nsw i32 %6, %5
  store i32 %add25, ptr %arrayidx10, align 4, !tbaa !6
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body15
  tail call void @llvm.nvvm.bar.sync(i32 0)
  %cmp13.not = icmp ult i32 %w.069.in, 4
  br i1 %cmp13.not, label %for.cond.cleanup14, label %for.body15, !llvm.loop !13

if.then31:                                        ; preds = %for.cond.cleanup14
  %7 = load i32, ptr addrspacecast (ptr addrspace(3) @_ZZ12gridsync_sumE1s to ptr), align 4, !tbaa !6
  %idxprom33 = zext nneg i32 %0 to i64
  %arrayidx34 = getelementptr inbounds i32, ptr %partial, i64 %idxprom33
  store i32 %7, ptr %arrayidx34, align 4, !tbaa !6
  br label %if.end35

if.end35:                                         ; preds = %if.then31, %for.cond.cleanup14
  %8 = tail call noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %9 = tail call noundef range(i32 1, 65536) i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %mul.i = mul i32 %8, %9
  %10 = tail call noundef range(i32 1, 65536) i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
  %mul3.i = mul i32 %mul.i, %10
  tail call void @llvm.nvvm.bar.sync(i32 0)
  br i1 %cmp30.not, label %if.then.i, label %_ZL12grid_barrierPj.exit

if.then.i:                                        ; preds = %if.end35
  tail call void @llvm.nvvm.membar.gl()
  %11 = atomicrmw add ptr %bar, i32 1 seq_cst, align 4
  br label %while.cond.i

while.cond.i:                                     ; preds = %while.cond.i, %if.then.i
  %12 = load volatile i32, ptr %bar, align 4, !tbaa !6
  %cmp6.i = icmp ult i32 %12, %mul3.i
  br i1 %cmp6.i, label %while.cond.i, label %while.end.i, !llvm.loop !14

while.end.i:                                      ; preds = %while.cond.i
  tail call void @llvm.nvvm.membar.gl()
  br label %_ZL12grid_barrierPj.exit

_ZL12grid_barrierPj.exit:                         ; preds = %if.end35, %while.end.i
  tail call void @llvm.nvvm.bar.sync(i32 0)
  %13 = or i32 %0, %2
  %brmerge.not = icmp eq i32 %13, 0
  br i1 %brmerge.not, label %for.body45, label %if.end51

for.cond.cleanup44:                               ; preds = %for.body45
  store i64 %add48, ptr %out, align 8, !tbaa !15
  br label %if.end51

for.body45:                                       ; preds = %_ZL12grid_barrierPj.exit, %for.body45
  %b.071 = phi i32 [ %inc, %for.body45 ], [ 0, %_ZL12grid_barrierPj.exit ]
  %total.070 = phi i64 [ %add48, %for.body45 ], [ 0, %_ZL12grid_barrierPj.exit ]
  %idxprom46 = zext nneg i32 %b.071 to i64
  %arrayidx47 = getelementptr inbounds i32, ptr %partial, i64 %idxprom46
  %14 = load volatile i32, ptr %arrayidx47, align 4, !tbaa !6
  %conv = sext i32 %14 to i64
  %add48 = add nsw i64 %total.070, %conv
  %inc = add nuw nsw i32 %b.071, 1
  %exitcond.not = icmp eq i32 %inc, %8
  br i1 %exitcond.not, label %for.cond.cleanup44, label %for.body45, !llvm.loop !17

if.end51:                                         ; preds = %_ZL12grid_barrierPj.exit, %for.cond.cleanup44
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @smem_reverse(ptr nocapture noundef readonly %x, ptr nocapture noundef writeonly %out, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %conv = zext nneg i32 %0 to i64
  %conv1 = sext i32 %n to i64
  %mul = mul nsw i64 %conv1, %conv
  %add.ptr = getelementptr inbounds i32, ptr %x, i64 %mul
  %1 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cmp40 = icmp slt i32 %1, %n
  br i1 %cmp40, label %for.body.lr.ph, label %for.cond.cleanup

for.body.lr.ph:                                   ; preds = %entry
  %2 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  tail call void @llvm.nvvm.bar.sync(i32 0)
  %cmp942 = icmp slt i32 %1, %n
  br i1 %cmp942, label %for.body11.lr.ph, label %for.cond.cleanup10

for.body11.lr.ph:                                 ; preds = %for.cond.cleanup
  %3 = getelementptr i32, ptr %out, i64 %mul
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  br label %for.body11

for.body:                                         ; preds = %for.body.lr.ph, %for.body
  %i.041 = phi i32 [ %1, %for.body.lr.ph ], [ %add, %for.body ]
  %idxprom = sext i32 %i.041 to i64
  %arrayidx = getelementptr inbounds i32, ptr %add.ptr, i64 %idxprom
  %5 = load i32, ptr %arrayidx, align 4, !tbaa !6
  %arrayidx4 = getelementptr inbounds [0 x i32], ptr addrspacecast (ptr addrspace(3) @buf to ptr), i64 0, i64 %idxprom
  store i32 %5, ptr %arrayidx4, align 4, !tbaa !6
  %add = add i32 %i.041, %2
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !llvm.loop !18

for.cond.cleanup10:                               ; preds = %for.body11, %for.cond.cleanup
  ret void

for.body11:                                       ; preds = %for.body11.lr.ph, %for.body11
  %i6.043 = phi i32 [ %1, %for.body11.lr.ph ], [ %add27, %for.body11 ]
  %idxprom12 = sext i32 %i6.043 to i64
  %arrayidx13 = getelementptr inbounds [0 x i32], ptr addrspacecast (ptr addrspace(3) @buf to ptr), i64 0, i64 %idxprom12
  %6 = load i32, ptr %arrayidx13, align 4, !tbaa !6
  %7 = xor i32 %i6.043, -1
  %sub14 = add i32 %7, %n
  %idxprom15 = sext i32 %sub14 to i64
  %arrayidx16 = getelementptr inbounds [0 x i32], ptr addrspacecast (ptr addrspace(3) @buf to ptr), i64 0, i64 %idxprom15
  %8 = load i32, ptr %arrayidx16, align 4, !tbaa !6
  %add17 = add nsw i32 %8, %6
  %arrayidx24 = getelementptr i32, ptr %3, i64 %idxprom12
  store i32 %add17, ptr %arrayidx24, align 4, !tbaa !6
  %add27 = add i32 %i6.043, %4
  %cmp9 = icmp slt i32 %add27, %n
  br i1 %cmp9, label %for.body11, label %for.cond.cleanup10, !llvm.loop !19
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.bar.sync(i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.z() #1

; Function Attrs: nocallback nounwind
declare void @llvm.nvvm.membar.gl() #3

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind }
attributes #3 = { nocallback nounwind }

!nvvm.annotations = !{!0, !1}
!llvm.module.flags = !{!2, !3, !4}
!llvm.ident = !{!5}

!0 = !{ptr @gridsync_sum, !"kernel", i32 1}
!1 = !{ptr @smem_reverse, !"kernel", i32 1}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!4 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = !{!7, !7, i64 0}
!7 = !{!"int", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C++ TBAA"}
!10 = distinct !{!10, !11, !12}
!11 = !{!"llvm.loop.mustprogress"}
!12 = !{!"llvm.loop.unroll.disable"}
!13 = distinct !{!13, !11, !12}
!14 = distinct !{!14, !11, !12}
!15 = !{!16, !16, i64 0}
!16 = !{!"long long", !8, i64 0}
!17 = distinct !{!17, !11, !12}
!18 = distinct !{!18, !11, !12}
!19 = distinct !{!19, !11, !12}
