; Thread coarsening merges the loads its analysis proved shared between
; neighbouring virtual threads itself, rather than leave it to CSE after
; instcombine: stencil_const (tests/kernels/stencil_const.cu) as clang
; emits it, radius 8 bound, block 256: by the time tcoarsen runs,
; instcombine has moved each tap's offset out of its clamp
; (min(max(i - 8, 0), n - 1) is smax(i, 8) - 8 ...), the lanes' copies of a
; load differ in form, and CSE merged none of them: 4 x 17 loads for 4
; outputs, no fewer than the generic kernel's. Merged by address (window
; expressions, lane l reading with %tid + l): 4 + 16.
;
; RUN: ks_passes_tool --stage all --kernel stencil_const --block 256 --bind 2=16777216 --bind 3=8 %s | FileCheck %s

; CHECK: ; explain: tcoarsen: coarsened x by 4: real block 64x1x1 runs the 256 threads of the launch; 16 of 17 loads along tid.x shared with a neighbouring thread
; CHECK-LABEL: define {{.*}}void @stencil_const(
; CHECK-LABEL: ks.tc.lock2:
; CHECK-COUNT-20: load float, ptr addrspace(1)
; CHECK-NOT: load float, ptr addrspace(1)
; CHECK: common.ret:

source_filename = "stencil_const.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

@c_coef = external dso_local addrspace(4) externally_initialized global [33 x float], align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @stencil_const(ptr noundef %in, ptr noundef %out, i32 noundef %n, i32 noundef %radius) #0 {
entry:
  %in.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %radius.addr = alloca i32, align 4
  %i = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %acc = alloca float, align 4
  %k = alloca i32, align 4
  %j = alloca i32, align 4
  store ptr %in, ptr %in.addr, align 8, !tbaa !8
  store ptr %out, ptr %out.addr, align 8, !tbaa !8
  store i32 %n, ptr %n.addr, align 4, !tbaa !12
  store i32 %radius, ptr %radius.addr, align 4, !tbaa !12
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #5
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #6
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #6
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #6
  %add = add i32 %mul, %call2
  store i32 %add, ptr %i, align 4, !tbaa !12
  %0 = load i32, ptr %i, align 4, !tbaa !12
  %1 = load i32, ptr %n.addr, align 4, !tbaa !12
  %cmp = icmp sge i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %entry
  call void @llvm.lifetime.start.p0(i64 4, ptr %acc) #5
  store float 0.000000e+00, ptr %acc, align 4, !tbaa !14
  call void @llvm.lifetime.start.p0(i64 4, ptr %k) #5
  %2 = load i32, ptr %radius.addr, align 4, !tbaa !12
  %sub = sub nsw i32 0, %2
  store i32 %sub, ptr %k, align 4, !tbaa !12
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %if.end
  %3 = load i32, ptr %k, align 4, !tbaa !12
  %4 = load i32, ptr %radius.addr, align 4, !tbaa !12
  %cmp3 = icmp sle i32 %3, %4
  br i1 %cmp3, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  store i32 2, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %k) #5
  br label %for.end

for.body:                                         ; preds = %for.cond
  call void @llvm.lifetime.start.p0(i64 4, ptr %j) #5
  %5 = load i32, ptr %i, align 4, !tbaa !12
  %6 = load i32, ptr %k, align 4, !tbaa !12
  %add4 = add nsw i32 %5, %6
  %call5 = call noundef i32 @_ZL3maxii(i32 noundef %add4, i32 noundef 0) #6
  %7 = load i32, ptr %n.addr, align 4, !tbaa !12
  %sub6 = sub nsw i32 %7, 1
  %call7 = call noundef i32 @_ZL3minii(i32 noundef %call5, i32 noundef %sub6) #6
  store i32 %call7, ptr %j, align 4, !tbaa !12
  %8 = load i32, ptr %k, align 4, !tbaa !12
  %add8 = add nsw i32 16, %8
  %idxprom = sext i32 %add8 to i64
  %arrayidx = getelementptr inbounds [33 x float], ptr addrspacecast (ptr addrspace(4) @c_coef to ptr), i64 0, i64 %idxprom
  %9 = load float, ptr %arrayidx, align 4, !tbaa !14
  %10 = load ptr, ptr %in.addr, align 8, !tbaa !8
  %11 = load i32, ptr %j, align 4, !tbaa !12
  %idxprom9 = sext i32 %11 to i64
  %arrayidx10 = getelementptr inbounds float, ptr %10, i64 %idxprom9
  %12 = load float, ptr %arrayidx10, align 4, !tbaa !14
  %mul11 = fmul contract float %9, %12
  %13 = load float, ptr %acc, align 4, !tbaa !14
  %add12 = fadd contract float %13, %mul11
  store float %add12, ptr %acc, align 4, !tbaa !14
  call void @llvm.lifetime.end.p0(i64 4, ptr %j) #5
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %14 = load i32, ptr %k, align 4, !tbaa !12
  %inc = add nsw i32 %14, 1
  store i32 %inc, ptr %k, align 4, !tbaa !12
  br label %for.cond, !llvm.loop !16

for.end:                                          ; preds = %for.cond.cleanup
  %15 = load float, ptr %acc, align 4, !tbaa !14
  %16 = load ptr, ptr %out.addr, align 8, !tbaa !8
  %17 = load i32, ptr %i, align 4, !tbaa !12
  %idxprom13 = sext i32 %17 to i64
  %arrayidx14 = getelementptr inbounds float, ptr %16, i64 %idxprom13
  store float %15, ptr %arrayidx14, align 4, !tbaa !14
  call void @llvm.lifetime.end.p0(i64 4, ptr %acc) #5
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %for.end, %if.then
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #5
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

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define hidden noundef i32 @_ZL3minii(i32 noundef %__a, i32 noundef %__b) #2 {
entry:
  %__a.addr = alloca i32, align 4
  %__b.addr = alloca i32, align 4
  store i32 %__a, ptr %__a.addr, align 4, !tbaa !12
  store i32 %__b, ptr %__b.addr, align 4, !tbaa !12
  %0 = load i32, ptr %__a.addr, align 4, !tbaa !12
  %1 = load i32, ptr %__b.addr, align 4, !tbaa !12
  %call = call i32 @__nv_min(i32 noundef %0, i32 noundef %1) #6
  ret i32 %call
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define hidden noundef i32 @_ZL3maxii(i32 noundef %__a, i32 noundef %__b) #2 {
entry:
  %__a.addr = alloca i32, align 4
  %__b.addr = alloca i32, align 4
  store i32 %__a, ptr %__a.addr, align 4, !tbaa !12
  store i32 %__b, ptr %__b.addr, align 4, !tbaa !12
  %0 = load i32, ptr %__a.addr, align 4, !tbaa !12
  %1 = load i32, ptr %__b.addr, align 4, !tbaa !12
  %call = call i32 @__nv_max(i32 noundef %0, i32 noundef %1) #6
  ret i32 %call
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

; Function Attrs: alwaysinline convergent nounwind
define hidden i32 @__nv_min(i32 %x, i32 %y) #4 {
  %min.cond = icmp sle i32 %x, %y
  %min = select i1 %min.cond, i32 %x, i32 %y
  ret i32 %min
}

; Function Attrs: alwaysinline convergent nounwind
define hidden i32 @__nv_max(i32 %x, i32 %y) #4 {
  %max.cond = icmp sge i32 %x, %y
  %max = select i1 %max.cond, i32 %x, i32 %y
  ret i32 %max
}

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { alwaysinline convergent nounwind "disable-tail-calls"="false" "frame-pointer"="all" "less-precise-fpmad"="false" "no-infs-fp-math"="false" "no-nans-fp-math"="false" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "unsafe-fp-math"="false" "use-soft-float"="false" }
attributes #5 = { nounwind }
attributes #6 = { convergent nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!4}
!llvm.ident = !{!5, !6}
!nvvmir.version = !{!7}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{ptr @stencil_const, !"kernel", i32 1}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!7 = !{i32 2, i32 0}
!8 = !{!9, !9, i64 0}
!9 = !{!"any pointer", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = !{!13, !13, i64 0}
!13 = !{!"int", !10, i64 0}
!14 = !{!15, !15, i64 0}
!15 = !{!"float", !10, i64 0}
!16 = distinct !{!16, !17}
!17 = !{!"llvm.loop.mustprogress"}
