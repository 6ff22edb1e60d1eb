; tiled_sync.ll - tests/kernels/matmul.cu's matmul_tiled<16> as clang-19
; emits it (-O3 -Xclang -disable-llvm-passes, then always-inline, sroa,
; instcombine and simplifycfg, and llvm-extract), renamed matmul_tiled16:
; the K loop stages a 16x16 tile of A and B in shared memory between two
; barriers. With K bound to 900 and the block to 16x16, its 57 iterations
; unrolled in full spill ptxas's registers (the never-slower guard's case:
; test_specialize's guard_* tests).
source_filename = "matmul.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@As = internal addrspace(3) global [16 x [16 x float]] undef, align 4
@Bs = internal addrspace(3) global [16 x [16 x float]] undef, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @matmul_tiled16(ptr noundef %A, ptr noundef %B, ptr noundef %C, i32 noundef %M, i32 noundef %N, i32 noundef %K) #0 {
entry:
  %0 = call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %1 = call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %2 = call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %mul = shl i32 %2, 4
  %add = add i32 %mul, %1
  %3 = call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %mul4 = shl i32 %3, 4
  %add5 = add i32 %mul4, %0
  br label %for.cond

for.cond:                                         ; preds = %for.end, %entry
  %acc.0 = phi float [ 0.000000e+00, %entry ], [ %acc.1, %for.end ]
  %k0.0 = phi i32 [ 0, %entry ], [ %add52, %for.end ]
  %cmp = icmp slt i32 %k0.0, %K
  br i1 %cmp, label %for.body, label %for.end53

for.body:                                         ; preds = %for.cond
  %cmp6 = icmp slt i32 %add, %M
  %add7 = add nsw i32 %k0.0, %0
  %cmp8 = icmp slt i32 %add7, %K
  %or.cond = select i1 %cmp6, i1 %cmp8, i1 false
  br i1 %or.cond, label %cond.true, label %cond.end

cond.true:                                        ; preds = %for.body
  %conv = sext i32 %add to i64
  %conv9 = sext i32 %K to i64
  %mul10 = mul nsw i64 %conv, %conv9
  %conv11 = zext nneg i32 %k0.0 to i64
  %conv13 = sext i32 %0 to i64
  %4 = getelementptr float, ptr %A, i64 %mul10
  %5 = getelementptr float, ptr %4, i64 %conv11
  %arrayidx = getelementptr float, ptr %5, i64 %conv13
  %6 = load float, ptr %arrayidx, align 4, !tbaa !10
  br label %cond.end

cond.end:                                         ; preds = %for.body, %cond.true
  %cond = phi contract float [ %6, %cond.true ], [ 0.000000e+00, %for.body ]
  %idxprom = sext i32 %1 to i64
  %idxprom16 = sext i32 %0 to i64
  %arrayidx17 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @As to ptr), i64 0, i64 %idxprom, i64 %idxprom16
  store float %cond, ptr %arrayidx17, align 4, !tbaa !10
  %add18 = add nsw i32 %k0.0, %1
  %cmp19 = icmp slt i32 %add18, %K
  %cmp21 = icmp slt i32 %add5, %N
  %or.cond33 = and i1 %cmp19, %cmp21
  br i1 %or.cond33, label %cond.true22, label %cond.end31

cond.true22:                                      ; preds = %cond.end
  %add23 = add nsw i32 %k0.0, %1
  %conv24 = sext i32 %add23 to i64
  %conv25 = sext i32 %N to i64
  %mul26 = mul nsw i64 %conv24, %conv25
  %conv27 = sext i32 %add5 to i64
  %7 = getelementptr float, ptr %B, i64 %mul26
  %arrayidx29 = getelementptr float, ptr %7, i64 %conv27
  %8 = load float, ptr %arrayidx29, align 4, !tbaa !10
  br label %cond.end31

cond.end31:                                       ; preds = %cond.end, %cond.true22
  %cond32 = phi contract float [ %8, %cond.true22 ], [ 0.000000e+00, %cond.end ]
  %idxprom33 = sext i32 %1 to i64
  %idxprom35 = sext i32 %0 to i64
  %arrayidx36 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @Bs to ptr), i64 0, i64 %idxprom33, i64 %idxprom35
  store float %cond32, ptr %arrayidx36, align 4, !tbaa !10
  call void @llvm.nvvm.barrier0()
  br label %for.cond37

for.cond37:                                       ; preds = %for.inc, %cond.end31
  %acc.1 = phi float [ %acc.0, %cond.end31 ], [ %add50, %for.inc ]
  %k.0 = phi i32 [ 0, %cond.end31 ], [ %inc, %for.inc ]
  %cmp38 = icmp ult i32 %k.0, 16
  br i1 %cmp38, label %for.inc, label %for.end

for.inc:                                          ; preds = %for.cond37
  %idxprom41 = sext i32 %1 to i64
  %idxprom43 = zext nneg i32 %k.0 to i64
  %arrayidx44 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @As to ptr), i64 0, i64 %idxprom41, i64 %idxprom43
  %9 = load float, ptr %arrayidx44, align 4, !tbaa !10
  %idxprom45 = zext nneg i32 %k.0 to i64
  %idxprom47 = sext i32 %0 to i64
  %arrayidx48 = getelementptr inbounds [16 x [16 x float]], ptr addrspacecast (ptr addrspace(3) @Bs to ptr), i64 0, i64 %idxprom45, i64 %idxprom47
  %10 = load float, ptr %arrayidx48, align 4, !tbaa !10
  %mul49 = fmul contract float %9, %10
  %add50 = fadd contract float %acc.1, %mul49
  %inc = add nuw nsw i32 %k.0, 1
  br label %for.cond37, !llvm.loop !14

for.end:                                          ; preds = %for.cond37
  call void @llvm.nvvm.barrier0()
  %add52 = add nuw nsw i32 %k0.0, 16
  br label %for.cond, !llvm.loop !17

for.end53:                                        ; preds = %for.cond
  %cmp54 = icmp slt i32 %add, %M
  %cmp56 = icmp slt i32 %add5, %N
  %or.cond34 = and i1 %cmp54, %cmp56
  br i1 %or.cond34, label %if.then, label %if.end

if.then:                                          ; preds = %for.end53
  %conv57 = sext i32 %add to i64
  %conv58 = sext i32 %N to i64
  %mul59 = mul nsw i64 %conv57, %conv58
  %conv60 = sext i32 %add5 to i64
  %11 = getelementptr float, ptr %C, i64 %mul59
  %arrayidx62 = getelementptr float, ptr %11, i64 %conv60
  store float %acc.0, ptr %arrayidx62, align 4, !tbaa !10
  br label %if.end

if.end:                                           ; preds = %if.then, %for.end53
  ret void
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier0() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #2

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!5}
!nvvmir.version = !{!9}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{ptr @matmul_tiled16, !"kernel", i32 1}
!9 = !{i32 2, i32 0}
!10 = !{!11, !11, i64 0}
!11 = !{!"float", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C++ TBAA"}
!14 = distinct !{!14, !15, !16}
!15 = !{!"llvm.loop.mustprogress"}
!16 = !{!"llvm.loop.unroll.enable"}
!17 = distinct !{!17, !15}
