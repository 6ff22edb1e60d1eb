; Real IR: clang-19 with CUDA 12.4's headers (-O2), from
;
; // clang-19 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 with CUDA 12.4's
; // headers: cooperative groups' this_thread_block() leaves a dead inline asm
; // (reserved_shared_ptr), b.sync() is llvm.nvvm.barrier.sync, the tile is
; // stored through a constant-expression addrspacecast, __syncwarp() is
; // llvm.nvvm.bar.warp.sync.
; #include <cooperative_groups.h>
; namespace cg = cooperative_groups;
; __shared__ float tile[256];
; __global__ void cg_scale(const float *x, const float *w, float *y, int n) {
;   cg::thread_block b = cg::this_thread_block();
;   int i = blockIdx.x * blockDim.x + threadIdx.x;
;   tile[threadIdx.x] = i < n ? w[i] : 0.0f;
;   b.sync();
;   if (i < n)
;     y[i] = x[i] * tile[(threadIdx.x + 1) % 256];
; }
; __global__ void warp_sum(const float *x, float *y, int n) {
;   int i = blockIdx.x * blockDim.x + threadIdx.x;
;   float v = i < n ? x[i] : 0.0f;
;   v += __shfl_down_sync(0xffffffff, v, 1);
;   __syncwarp();
;   if (i < n)
;     y[i] = v;
; }
;
; compiled with
;   clang-19 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 \
;     --cuda-path=.dev/cuda-12.4 -isystem .dev/cuda-12.4/include \
;     -O2 -fno-discard-value-names -emit-llvm -S
;
; The canonicalize stage deletes the dead asm of this_thread_block();
; const_promote then takes barrier.sync and bar.warp.sync for barriers
; that no global write reaches (the tile's store goes through a constant
; addrspacecast to shared memory) and the shuffle for no synchronization:
; x's loads take the read-only path in both kernels.
;
; RUN: ks_passes_tool --kernel _Z8cg_scalePKfS0_Pfi --block 256 --stage canonicalize %s | FileCheck %s --check-prefix=CANON
; RUN: ks_passes_tool --kernel _Z8cg_scalePKfS0_Pfi --block 256 --stage const_promote %s | FileCheck %s --check-prefix=CG
; RUN: ks_passes_tool --kernel _Z8warp_sumPKfPfi --block 256 --stage const_promote %s | FileCheck %s --check-prefix=WARP
; RUN: ks_passes_tool --kernel _Z8warp_sumPKfPfi --block 256 --no-pass const_promote %s | FileCheck %s --check-prefix=OFF

; CANON: ; explain: canonicalize: 1 dead call without effects removed
; CANON-LABEL: define {{.*}} @_Z8cg_scalePKfS0_Pfi(
; CANON-NOT: reserved_smem_offset
; CANON: call void @llvm.nvvm.barrier.sync(i32 0)
; CANON: ret void

; CG-NOT: declined ld.global.nc
; CG: ; explain: const_promote: x: 1 loads read-only, marked for ld.global.nc
; CG: ; explain: const_promote: w: 1 loads kept coherent: a later write does not use their value
; CG: ; explain: summary: changed by const_promote
; CG-LABEL: define {{.*}} @_Z8cg_scalePKfS0_Pfi(
; CG: load float, ptr %{{.*}}, !invariant.load

; WARP-NOT: declined ld.global.nc
; WARP: ; explain: const_promote: x: 1 loads read-only, marked for ld.global.nc
; WARP: ; explain: summary: changed by const_promote
; WARP-LABEL: define {{.*}} @_Z8warp_sumPKfPfi(
; WARP: load float, ptr %{{.*}}, !invariant.load
; WARP: call void @llvm.nvvm.bar.warp.sync(i32 -1)

; OFF: ; explain: const_promote: switched off
; OFF: ; explain: summary: no optional pass changed the kernel

source_filename = "cg.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = dso_local local_unnamed_addr addrspace(3) global [256 x float] undef, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z8cg_scalePKfS0_Pfi(ptr nocapture noundef readonly %x, ptr nocapture noundef readonly %w, ptr nocapture noundef writeonly %y, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef ptr asm "{\0A\09 .reg .u32 start;\0A\09 .reg .u64 extended;\0A\09 mov.u32 start, %reserved_smem_offset_1;\0A\09 cvt.u64.u32 extended, start;\0A\09 cvta.shared.u64 $0, extended;\0A\09}", "=l"() #4, !srcloc !9
  %1 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %2 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %1, %2
  %3 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %3
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %cond.true, label %cond.end

cond.true:                                        ; preds = %entry
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr %w, i64 %idxprom
  %4 = load float, ptr %arrayidx, align 4, !tbaa !10
  br label %cond.end

cond.end:                                         ; preds = %entry, %cond.true
  %cond = phi contract float [ %4, %cond.true ], [ 0.000000e+00, %entry ]
  %idxprom5 = zext nneg i32 %3 to i64
  %arrayidx6 = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %idxprom5
  store float %cond, ptr %arrayidx6, align 4, !tbaa !10
  tail call void @llvm.nvvm.barrier.sync(i32 0)
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %cond.end
  %idxprom8 = sext i32 %add to i64
  %arrayidx16 = getelementptr inbounds float, ptr %y, i64 %idxprom8
  %add11 = add nuw nsw i32 %3, 1
  %rem = and i32 %add11, 255
  %idxprom12 = zext nneg i32 %rem to i64
  %arrayidx13 = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %idxprom12
  %arrayidx9 = getelementptr inbounds float, ptr %x, i64 %idxprom8
  %5 = load float, ptr %arrayidx9, align 4, !tbaa !10
  %6 = load float, ptr %arrayidx13, align 4, !tbaa !10
  %mul14 = fmul contract float %5, %6
  store float %mul14, ptr %arrayidx16, align 4, !tbaa !10
  br label %if.end

if.end:                                           ; preds = %if.then, %cond.end
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z8warp_sumPKfPfi(ptr nocapture noundef readonly %x, ptr nocapture noundef writeonly %y, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %0, %1
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %2
  %cmp = icmp slt i32 %add, %n
  br i1 %cmp, label %cond.true, label %cond.end

cond.true:                                        ; preds = %entry
  %idxprom = sext i32 %add to i64
  %arrayidx = getelementptr inbounds float, ptr %x, i64 %idxprom
  %3 = load float, ptr %arrayidx, align 4, !tbaa !10
  br label %cond.end

cond.end:                                         ; preds = %entry, %cond.true
  %cond = phi contract float [ %3, %cond.true ], [ 0.000000e+00, %entry ]
  %4 = tail call contract noundef float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %cond, i32 1, i32 31)
  tail call void @llvm.nvvm.bar.warp.sync(i32 -1)
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %cond.end
  %idxprom6 = sext i32 %add to i64
  %arrayidx7 = getelementptr inbounds float, ptr %y, i64 %idxprom6
  %add4 = fadd contract float %cond, %4
  store float %add4, ptr %arrayidx7, align 4, !tbaa !10
  br label %if.end

if.end:                                           ; preds = %if.then, %cond.end
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.sync(i32) #2

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32) #3

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.bar.warp.sync(i32) #2

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind }
attributes #3 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #4 = { convergent nounwind memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!4, !5}
!llvm.ident = !{!6, !7}
!nvvmir.version = !{!8}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{ptr @_Z8cg_scalePKfS0_Pfi, !"kernel", i32 1}
!5 = !{ptr @_Z8warp_sumPKfPfi, !"kernel", i32 1}
!6 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!7 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!8 = !{i32 2, i32 0}
!9 = !{i64 6187739, i64 6187743, i64 6187780, i64 6187820, i64 6187881, i64 6187930, i64 6187980}
!10 = !{!11, !11, i64 0}
!11 = !{!"float", !12, i64 0}
!12 = !{!"omnipotent char", !13, i64 0}
!13 = !{!"Simple C++ TBAA"}
