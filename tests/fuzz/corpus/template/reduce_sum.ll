; ModuleID = '/work/wt-fuzz/build/templates/reduce_sum.bc'
source_filename = "/work/wt-fuzz/templates/reduce_sum.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_threadIdx_t = type { i8 }
%struct.__cuda_builtin_blockIdx_t = type { i8 }

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

@_ZZ10reduce_sumE2sh = internal addrspace(3) global [1024 x float] undef, align 4
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@.str = private unnamed_addr constant [37 x i8] c"kspec.param BLOCK 256 1 1024 block_x\00", section "llvm.metadata"
@.str1 = private unnamed_addr constant [38 x i8] c"/work/wt-fuzz/templates/reduce_sum.cu\00", section "llvm.metadata"
@.str2 = private unnamed_addr constant [75 x i8] c"kspec.doc *out += sum of n floats; shared-memory tree, blockDim.x == BLOCK\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @reduce_sum, ptr @.str, ptr @.str1, i32 13, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @reduce_sum, ptr @.str2, ptr @.str1, i32 13, ptr null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @reduce_sum(ptr noundef %x, ptr noundef %out, i32 noundef %n, i32 noundef %BLOCK) #0 {
entry:
  %x.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %BLOCK.addr = alloca i32, align 4
  %tid = alloca i32, align 4
  %i = alloca i32, align 4
  %half = alloca i32, align 4
  %s = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !5
  store ptr %out, ptr %out.addr, align 8, !tbaa !5
  store i32 %n, ptr %n.addr, align 4, !tbaa !9
  store i32 %BLOCK, ptr %BLOCK.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %tid) #5
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #6
  store i32 %call, ptr %tid, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #6
  %0 = load i32, ptr %BLOCK.addr, align 4, !tbaa !9
  %mul = mul i32 %call1, %0
  %1 = load i32, ptr %tid, align 4, !tbaa !9
  %add = add i32 %mul, %1
  store i32 %add, ptr %i, align 4, !tbaa !9
  %2 = load i32, ptr %i, align 4, !tbaa !9
  %3 = load i32, ptr %n.addr, align 4, !tbaa !9
  %cmp = icmp slt i32 %2, %3
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %4 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %5 = load i32, ptr %i, align 4, !tbaa !9
  %idxprom = sext i32 %5 to i64
  %arrayidx = getelementptr inbounds float, ptr %4, i64 %idxprom
  %6 = load float, ptr %arrayidx, align 4, !tbaa !11
  br label %cond.end

cond.false:                                       ; preds = %entry
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi contract float [ %6, %cond.true ], [ 0.000000e+00, %cond.false ]
  %7 = load i32, ptr %tid, align 4, !tbaa !9
  %idxprom2 = sext i32 %7 to i64
  %arrayidx3 = getelementptr inbounds [1024 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ10reduce_sumE2sh to ptr), i64 0, i64 %idxprom2
  store float %cond, ptr %arrayidx3, align 4, !tbaa !11
  call void @_ZL16__syncthreads_ksv() #6
  call void @llvm.lifetime.start.p0(i64 4, ptr %half) #5
  store i32 1, ptr %half, align 4, !tbaa !9
  br label %while.cond

while.cond:                                       ; preds = %while.body, %cond.end
  %8 = load i32, ptr %half, align 4, !tbaa !9
  %9 = load i32, ptr %BLOCK.addr, align 4, !tbaa !9
  %cmp4 = icmp slt i32 %8, %9
  br i1 %cmp4, label %while.body, label %while.end

while.body:                                       ; preds = %while.cond
  %10 = load i32, ptr %half, align 4, !tbaa !9
  %shl = shl i32 %10, 1
  store i32 %shl, ptr %half, align 4, !tbaa !9
  br label %while.cond, !llvm.loop !13

while.end:                                        ; preds = %while.cond
  call void @llvm.lifetime.start.p0(i64 4, ptr %s) #5
  %11 = load i32, ptr %half, align 4, !tbaa !9
  %div = sdiv i32 %11, 2
  store i32 %div, ptr %s, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %while.end
  %12 = load i32, ptr %s, align 4, !tbaa !9
  %cmp5 = icmp sgt i32 %12, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %s) #5
  br label %for.end

for.body:                                         ; preds = %for.cond
  %13 = load i32, ptr %tid, align 4, !tbaa !9
  %14 = load i32, ptr %s, align 4, !tbaa !9
  %cmp6 = icmp slt i32 %13, %14
  br i1 %cmp6, label %land.lhs.true, label %if.end

land.lhs.true:                                    ; preds = %for.body
  %15 = load i32, ptr %tid, align 4, !tbaa !9
  %16 = load i32, ptr %s, align 4, !tbaa !9
  %add7 = add nsw i32 %15, %16
  %17 = load i32, ptr %BLOCK.addr, align 4, !tbaa !9
  %cmp8 = icmp slt i32 %add7, %17
  br i1 %cmp8, label %if.then, label %if.end

if.then:                                          ; preds = %land.lhs.true
  %18 = load i32, ptr %tid, align 4, !tbaa !9
  %19 = load i32, ptr %s, align 4, !tbaa !9
  %add9 = add nsw i32 %18, %19
  %idxprom10 = sext i32 %add9 to i64
  %arrayidx11 = getelementptr inbounds [1024 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ10reduce_sumE2sh to ptr), i64 0, i64 %idxprom10
  %20 = load float, ptr %arrayidx11, align 4, !tbaa !11
  %21 = load i32, ptr %tid, align 4, !tbaa !9
  %idxprom12 = sext i32 %21 to i64
  %arrayidx13 = getelementptr inbounds [1024 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ10reduce_sumE2sh to ptr), i64 0, i64 %idxprom12
  %22 = load float, ptr %arrayidx13, align 4, !tbaa !11
  %add14 = fadd contract float %22, %20
  store float %add14, ptr %arrayidx13, align 4, !tbaa !11
  br label %if.end

if.end:                                           ; preds = %if.then, %land.lhs.true, %for.body
  call void @_ZL16__syncthreads_ksv() #6
  br label %for.inc

for.inc:                                          ; preds = %if.end
  %23 = load i32, ptr %s, align 4, !tbaa !9
  %shr = ashr i32 %23, 1
  store i32 %shr, ptr %s, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !15

for.end:                                          ; preds = %for.cond.cleanup
  %24 = load i32, ptr %tid, align 4, !tbaa !9
  %cmp15 = icmp eq i32 %24, 0
  br i1 %cmp15, label %if.then16, label %if.end18

if.then16:                                        ; preds = %for.end
  %25 = load ptr, ptr %out.addr, align 8, !tbaa !5
  %26 = load float, ptr addrspacecast (ptr addrspace(3) @_ZZ10reduce_sumE2sh to ptr), align 4, !tbaa !11
  %call17 = call contract noundef float @_ZL9atomicAddPff(ptr noundef %25, float noundef %26) #6
  br label %if.end18

if.end18:                                         ; preds = %if.then16, %for.end
  call void @llvm.lifetime.end.p0(i64 4, ptr %half) #5
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #5
  call void @llvm.lifetime.end.p0(i64 4, ptr %tid) #5
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal void @_ZL16__syncthreads_ksv() #2 {
entry:
  call void @llvm.nvvm.bar.sync(i32 0)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef float @_ZL9atomicAddPff(ptr noundef %p, float noundef %v) #2 {
entry:
  %p.addr = alloca ptr, align 8
  %v.addr = alloca float, align 4
  store ptr %p, ptr %p.addr, align 8, !tbaa !5
  store float %v, ptr %v.addr, align 4, !tbaa !11
  %0 = load ptr, ptr %p.addr, align 8, !tbaa !5
  %1 = load float, ptr %v.addr, align 4, !tbaa !11
  %2 = atomicrmw fadd ptr %0, float %1 seq_cst, align 4
  ret float %2
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.bar.sync(i32) #4

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { convergent nocallback nounwind }
attributes #5 = { nounwind }
attributes #6 = { convergent nounwind }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2, !3}
!llvm.ident = !{!4}

!0 = !{ptr @reduce_sum, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"any pointer", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !7, i64 0}
!11 = !{!12, !12, i64 0}
!12 = !{!"float", !7, i64 0}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.mustprogress"}
!15 = distinct !{!15, !14}
