; The loops stage asks for full unrolling; a loop whose trip count binding
; made bounded but not constant is not unrolled in full, and LLVM's
; loop-unroll leaves it rolled where SCEV calls the trip count too dear to
; compute. fir_filter<float> (tests/kernels/ops.cu) as clang emits it at -O3
; -Xclang -disable-llvm-passes: `for (k = 0; k < ntaps && k <= i; k++)`,
; with ntaps bound to 63 and block 256 the trip count is
; umin(62, smax(0, 256 * ctaid + tid)) + 1. kspec has it unrolled by 4 at
; run time (its taps' and samples' loads four at a time, as LLVM unrolls
; the generic kernel's loop, ntaps free); the generic kernel is LLVM's own.
;
; RUN: ks_passes_tool --stage all --kernel _Z10fir_filterIfEvPKT_S2_PS0_ii --block 256 --bind 3=4194304 --bind 4=63 %s | FileCheck %s --check-prefix=FIR
; RUN: ks_passes_tool --stage all --kernel _Z10fir_filterIfEvPKT_S2_PS0_ii %s | FileCheck %s --check-prefix=GEN
; RUN: ks_passes_tool --stage optimize --kernel _Z10fir_filterIfEvPKT_S2_PS0_ii --block 256 --bind 3=4194304 --bind 4=63 --no-pass regpressure %s | FileCheck %s --check-prefix=FIR

; FIR: ; explain: optimize: loop for.body: its trip count bounded but not constant, LLVM left it rolled: unrolled by 4 at run time
; FIR-LABEL: define {{.*}}@_Z10fir_filterIfEvPKT_S2_PS0_ii(
; FIR-COUNT-4: @llvm.nvvm.ldg.global.f.f32.p0(
; FIR: br i1 %{{[a-z0-9.]+}}, label %{{.*}}, label %for.body{{.*}}, !llvm.loop
; FIR: @llvm.nvvm.ldg.global.f.f32.p0(
; FIR: !"llvm.loop.unroll.disable"

; GEN-NOT: unrolled by 4 at run time
; GEN-LABEL: define {{.*}}@_Z10fir_filterIfEvPKT_S2_PS0_ii(
; GEN-COUNT-4: @llvm.nvvm.ldg.global.f.f32.p0(

source_filename = "ops.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_Z10fir_filterIfEvPKT_S2_PS0_ii = comdat any

$_Z5__ldgPKf = comdat any

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #0

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #1 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #1 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #1 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #0

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z10fir_filterIfEvPKT_S2_PS0_ii(ptr noalias noundef %x, ptr noalias noundef %taps, ptr noalias noundef %y, i32 noundef %n, i32 noundef %ntaps) #2 comdat {
entry:
  %x.addr = alloca ptr, align 8
  %taps.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %ntaps.addr = alloca i32, align 4
  %i = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %acc = alloca float, align 4
  %k = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !14
  store ptr %taps, ptr %taps.addr, align 8, !tbaa !14
  store ptr %y, ptr %y.addr, align 8, !tbaa !14
  store i32 %n, ptr %n.addr, align 4, !tbaa !18
  store i32 %ntaps, ptr %ntaps.addr, align 4, !tbaa !18
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #6
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #7
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #7
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #7
  %add = add i32 %mul, %call2
  store i32 %add, ptr %i, align 4, !tbaa !18
  %0 = load i32, ptr %i, align 4, !tbaa !18
  %1 = load i32, ptr %n.addr, align 4, !tbaa !18
  %cmp = icmp sge i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %entry
  call void @llvm.lifetime.start.p0(i64 4, ptr %acc) #6
  store float 0.000000e+00, ptr %acc, align 4, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 4, ptr %k) #6
  store i32 0, ptr %k, align 4, !tbaa !18
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %if.end
  %2 = load i32, ptr %k, align 4, !tbaa !18
  %3 = load i32, ptr %ntaps.addr, align 4, !tbaa !18
  %cmp3 = icmp slt i32 %2, %3
  br i1 %cmp3, label %land.rhs, label %land.end

land.rhs:                                         ; preds = %for.cond
  %4 = load i32, ptr %k, align 4, !tbaa !18
  %5 = load i32, ptr %i, align 4, !tbaa !18
  %cmp4 = icmp sle i32 %4, %5
  br label %land.end

land.end:                                         ; preds = %land.rhs, %for.cond
  %6 = phi i1 [ false, %for.cond ], [ %cmp4, %land.rhs ]
  br i1 %6, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %land.end
  store i32 2, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %k) #6
  br label %for.end

for.body:                                         ; preds = %land.end
  %7 = load ptr, ptr %taps.addr, align 8, !tbaa !14
  %8 = load i32, ptr %k, align 4, !tbaa !18
  %idxprom = sext i32 %8 to i64
  %arrayidx = getelementptr inbounds float, ptr %7, i64 %idxprom
  %call5 = call contract noundef float @_Z5__ldgPKf(ptr noundef %arrayidx) #7
  %9 = load ptr, ptr %x.addr, align 8, !tbaa !14
  %10 = load i32, ptr %i, align 4, !tbaa !18
  %11 = load i32, ptr %k, align 4, !tbaa !18
  %sub = sub nsw i32 %10, %11
  %idxprom6 = sext i32 %sub to i64
  %arrayidx7 = getelementptr inbounds float, ptr %9, i64 %idxprom6
  %12 = load float, ptr %arrayidx7, align 4, !tbaa !20
  %mul8 = fmul contract float %call5, %12
  %13 = load float, ptr %acc, align 4, !tbaa !20
  %add9 = fadd contract float %13, %mul8
  store float %add9, ptr %acc, align 4, !tbaa !20
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %14 = load i32, ptr %k, align 4, !tbaa !18
  %inc = add nsw i32 %14, 1
  store i32 %inc, ptr %k, align 4, !tbaa !18
  br label %for.cond, !llvm.loop !22

for.end:                                          ; preds = %for.cond.cleanup
  %15 = load float, ptr %acc, align 4, !tbaa !20
  %16 = load ptr, ptr %y.addr, align 8, !tbaa !14
  %17 = load i32, ptr %i, align 4, !tbaa !18
  %idxprom10 = sext i32 %17 to i64
  %arrayidx11 = getelementptr inbounds float, ptr %16, i64 %idxprom10
  store float %15, ptr %arrayidx11, align 4, !tbaa !20
  call void @llvm.lifetime.end.p0(i64 4, ptr %acc) #6
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %for.end, %if.then
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #6
  %cleanup.dest = load i32, ptr %cleanup.dest.slot, align 4
  switch i32 %cleanup.dest, label %unreachable [
    i32 0, label %cleanup.cont
    i32 1, label %cleanup.cont
  ]

cleanup.cont:                                     ; preds = %cleanup, %cleanup
  ret void

unreachable:                                      ; preds = %cleanup
  unreachable
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define weak_odr dso_local noundef float @_Z5__ldgPKf(ptr noundef %ptr) #3 comdat {
entry:
  %ptr.addr = alloca ptr, align 8
  store ptr %ptr, ptr %ptr.addr, align 8, !tbaa !14
  %0 = load ptr, ptr %ptr.addr, align 8, !tbaa !14
  %1 = call contract float @llvm.nvvm.ldg.global.f.f32.p0(ptr %0, i32 4)
  ret float %1
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #4

; Function Attrs: nocallback nounwind memory(argmem: read)
declare float @llvm.nvvm.ldg.global.f.f32.p0(ptr nocapture, i32) #5

attributes #0 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #1 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #2 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { convergent inlinehint mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #4 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nocallback nounwind memory(argmem: read) }
attributes #6 = { nounwind }
attributes #7 = { convergent nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!4, !5, !6, !7, !8, !9, !10}
!llvm.ident = !{!11, !12}
!nvvmir.version = !{!13}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = distinct !{null, !"kernel", i32 1}
!5 = distinct !{null, !"kernel", i32 1}
!6 = !{ptr @_Z10fir_filterIfEvPKT_S2_PS0_ii, !"kernel", i32 1}
!7 = distinct !{null, !"kernel", i32 1}
!8 = distinct !{null, !"kernel", i32 1}
!9 = distinct !{null, !"maxntidx", i32 256}
!10 = distinct !{null, !"kernel", i32 1}
!11 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!12 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!13 = !{i32 2, i32 0}
!14 = !{!15, !15, i64 0}
!15 = !{!"any pointer", !16, i64 0}
!16 = !{!"omnipotent char", !17, i64 0}
!17 = !{!"Simple C++ TBAA"}
!18 = !{!19, !19, i64 0}
!19 = !{!"int", !16, i64 0}
!20 = !{!21, !21, i64 0}
!21 = !{!"float", !16, i64 0}
!22 = distinct !{!22, !23}
!23 = !{!"llvm.loop.mustprogress"}
