; Real IR: clang-19 with CUDA 12.4's headers (-O3 -Xclang -disable-llvm-passes), from
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
;     -O3 -Xclang -disable-llvm-passes -fno-discard-value-names -emit-llvm -S
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

%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_blockDim_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }
%"class.cooperative_groups::__v1::thread_block" = type { %"struct.cooperative_groups::__v1::thread_group_base", ptr }
%"struct.cooperative_groups::__v1::thread_group_base" = type { %"class.cooperative_groups::__v1::thread_group" }
%"class.cooperative_groups::__v1::thread_group" = type { %union.anon }
%union.anon = type { %"struct.cooperative_groups::__v1::thread_group::gg_data", [8 x i8] }
%"struct.cooperative_groups::__v1::thread_group::gg_data" = type { ptr }

$_ZN18cooperative_groups4__v117this_thread_blockEv = comdat any

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_ZN18cooperative_groups4__v112thread_block4syncEv = comdat any

$_Z16__shfl_down_syncjfji = comdat any

$_Z10__syncwarpj = comdat any

$_ZN18cooperative_groups4__v112thread_blockC1Ev = comdat any

$_ZN18cooperative_groups4__v112thread_blockC2Ev = comdat any

$_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev = comdat any

$_ZN18cooperative_groups4__v17details15get_scratch_ptrEPv = comdat any

$_ZN18cooperative_groups4__v112thread_groupC2Ej = comdat any

$_Z14__barrier_syncj = comdat any

@tile = dso_local addrspace(3) global [256 x float] undef, align 4
@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z8cg_scalePKfS0_Pfi(ptr noundef %x, ptr noundef %w, ptr noundef %y, i32 noundef %n) #0 {
entry:
  %x.addr = alloca ptr, align 8
  %w.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %b = alloca %"class.cooperative_groups::__v1::thread_block", align 8
  %i = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !9
  store ptr %w, ptr %w.addr, align 8, !tbaa !9
  store ptr %y, ptr %y.addr, align 8, !tbaa !9
  store i32 %n, ptr %n.addr, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 24, ptr %b) #7
  %call = call %"class.cooperative_groups::__v1::thread_block" @_ZN18cooperative_groups4__v117this_thread_blockEv() #8
  %0 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block", ptr %b, i32 0, i32 0
  %1 = extractvalue %"class.cooperative_groups::__v1::thread_block" %call, 0
  store %"struct.cooperative_groups::__v1::thread_group_base" %1, ptr %0, align 8
  %2 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block", ptr %b, i32 0, i32 1
  %3 = extractvalue %"class.cooperative_groups::__v1::thread_block" %call, 1
  store ptr %3, ptr %2, align 8
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #7
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #8
  %call2 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #8
  %mul = mul i32 %call1, %call2
  %call3 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #8
  %add = add i32 %mul, %call3
  store i32 %add, ptr %i, align 4, !tbaa !13
  %4 = load i32, ptr %i, align 4, !tbaa !13
  %5 = load i32, ptr %n.addr, align 4, !tbaa !13
  %cmp = icmp slt i32 %4, %5
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %6 = load ptr, ptr %w.addr, align 8, !tbaa !9
  %7 = load i32, ptr %i, align 4, !tbaa !13
  %idxprom = sext i32 %7 to i64
  %arrayidx = getelementptr inbounds float, ptr %6, i64 %idxprom
  %8 = load float, ptr %arrayidx, align 4, !tbaa !15
  br label %cond.end

cond.false:                                       ; preds = %entry
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi contract float [ %8, %cond.true ], [ 0.000000e+00, %cond.false ]
  %call4 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #8
  %idxprom5 = zext i32 %call4 to i64
  %arrayidx6 = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %idxprom5
  store float %cond, ptr %arrayidx6, align 4, !tbaa !15
  call void @_ZN18cooperative_groups4__v112thread_block4syncEv() #8
  %9 = load i32, ptr %i, align 4, !tbaa !13
  %10 = load i32, ptr %n.addr, align 4, !tbaa !13
  %cmp7 = icmp slt i32 %9, %10
  br i1 %cmp7, label %if.then, label %if.end

if.then:                                          ; preds = %cond.end
  %11 = load ptr, ptr %x.addr, align 8, !tbaa !9
  %12 = load i32, ptr %i, align 4, !tbaa !13
  %idxprom8 = sext i32 %12 to i64
  %arrayidx9 = getelementptr inbounds float, ptr %11, i64 %idxprom8
  %13 = load float, ptr %arrayidx9, align 4, !tbaa !15
  %call10 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #8
  %add11 = add i32 %call10, 1
  %rem = urem i32 %add11, 256
  %idxprom12 = zext i32 %rem to i64
  %arrayidx13 = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %idxprom12
  %14 = load float, ptr %arrayidx13, align 4, !tbaa !15
  %mul14 = fmul contract float %13, %14
  %15 = load ptr, ptr %y.addr, align 8, !tbaa !9
  %16 = load i32, ptr %i, align 4, !tbaa !13
  %idxprom15 = sext i32 %16 to i64
  %arrayidx16 = getelementptr inbounds float, ptr %15, i64 %idxprom15
  store float %mul14, ptr %arrayidx16, align 4, !tbaa !15
  br label %if.end

if.end:                                           ; preds = %if.then, %cond.end
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #7
  call void @llvm.lifetime.end.p0(i64 24, ptr %b) #7
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local %"class.cooperative_groups::__v1::thread_block" @_ZN18cooperative_groups4__v117this_thread_blockEv() #2 comdat {
entry:
  %retval = alloca %"class.cooperative_groups::__v1::thread_block", align 8
  call void @_ZN18cooperative_groups4__v112thread_blockC1Ev(ptr noundef nonnull align 8 dereferenceable(24) %retval) #8
  %0 = load %"class.cooperative_groups::__v1::thread_block", ptr %retval, align 8
  ret %"class.cooperative_groups::__v1::thread_block" %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_block4syncEv() #2 comdat align 2 {
entry:
  call void @_ZN18cooperative_groups4__v17details3ctaL4syncEv() #8
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z8warp_sumPKfPfi(ptr noundef %x, ptr noundef %y, i32 noundef %n) #0 {
entry:
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  %v = alloca float, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !9
  store ptr %y, ptr %y.addr, align 8, !tbaa !9
  store i32 %n, ptr %n.addr, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #7
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #8
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #8
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #8
  %add = add i32 %mul, %call2
  store i32 %add, ptr %i, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %v) #7
  %0 = load i32, ptr %i, align 4, !tbaa !13
  %1 = load i32, ptr %n.addr, align 4, !tbaa !13
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %2 = load ptr, ptr %x.addr, align 8, !tbaa !9
  %3 = load i32, ptr %i, align 4, !tbaa !13
  %idxprom = sext i32 %3 to i64
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom
  %4 = load float, ptr %arrayidx, align 4, !tbaa !15
  br label %cond.end

cond.false:                                       ; preds = %entry
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi contract float [ %4, %cond.true ], [ 0.000000e+00, %cond.false ]
  store float %cond, ptr %v, align 4, !tbaa !15
  %5 = load float, ptr %v, align 4, !tbaa !15
  %call3 = call contract noundef float @_Z16__shfl_down_syncjfji(i32 noundef -1, float noundef %5, i32 noundef 1, i32 noundef 32) #8
  %6 = load float, ptr %v, align 4, !tbaa !15
  %add4 = fadd contract float %6, %call3
  store float %add4, ptr %v, align 4, !tbaa !15
  call void @_Z10__syncwarpj(i32 noundef -1) #8
  %7 = load i32, ptr %i, align 4, !tbaa !13
  %8 = load i32, ptr %n.addr, align 4, !tbaa !13
  %cmp5 = icmp slt i32 %7, %8
  br i1 %cmp5, label %if.then, label %if.end

if.then:                                          ; preds = %cond.end
  %9 = load float, ptr %v, align 4, !tbaa !15
  %10 = load ptr, ptr %y.addr, align 8, !tbaa !9
  %11 = load i32, ptr %i, align 4, !tbaa !13
  %idxprom6 = sext i32 %11 to i64
  %arrayidx7 = getelementptr inbounds float, ptr %10, i64 %idxprom6
  store float %9, ptr %arrayidx7, align 4, !tbaa !15
  br label %if.end

if.end:                                           ; preds = %if.then, %cond.end
  call void @llvm.lifetime.end.p0(i64 4, ptr %v) #7
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #7
  ret void
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local noundef float @_Z16__shfl_down_syncjfji(i32 noundef %__mask, float noundef %__val, i32 noundef %__offset, i32 noundef %__width) #3 comdat {
entry:
  %__mask.addr = alloca i32, align 4
  %__val.addr = alloca float, align 4
  %__offset.addr = alloca i32, align 4
  %__width.addr = alloca i32, align 4
  store i32 %__mask, ptr %__mask.addr, align 4, !tbaa !13
  store float %__val, ptr %__val.addr, align 4, !tbaa !15
  store i32 %__offset, ptr %__offset.addr, align 4, !tbaa !13
  store i32 %__width, ptr %__width.addr, align 4, !tbaa !13
  %0 = load i32, ptr %__mask.addr, align 4, !tbaa !13
  %1 = load float, ptr %__val.addr, align 4, !tbaa !15
  %2 = load i32, ptr %__offset.addr, align 4, !tbaa !13
  %3 = load i32, ptr %__width.addr, align 4, !tbaa !13
  %sub = sub nsw i32 32, %3
  %shl = shl i32 %sub, 8
  %or = or i32 %shl, 31
  %4 = call contract float @llvm.nvvm.shfl.sync.down.f32(i32 %0, float %1, i32 %2, i32 %or)
  ret float %4
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local void @_Z10__syncwarpj(i32 noundef %mask) #3 comdat {
entry:
  %mask.addr = alloca i32, align 4
  store i32 %mask, ptr %mask.addr, align 4, !tbaa !13
  %0 = load i32, ptr %mask.addr, align 4, !tbaa !13
  call void @llvm.nvvm.bar.warp.sync(i32 %0)
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_blockC1Ev(ptr noundef nonnull align 8 dereferenceable(24) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !9
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v112thread_blockC2Ev(ptr noundef nonnull align 8 dereferenceable(24) %this1) #8
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_blockC2Ev(ptr noundef nonnull align 8 dereferenceable(24) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !9
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev(ptr noundef nonnull align 8 dereferenceable(16) %this1) #8
  %tile_memory = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block", ptr %this1, i32 0, i32 1
  %call = call noundef ptr @_ZN18cooperative_groups4__v17details15get_scratch_ptrEPv(ptr noundef null) #8
  store ptr %call, ptr %tile_memory, align 8, !tbaa !17
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev(ptr noundef nonnull align 8 dereferenceable(16) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !9
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v112thread_groupC2Ej(ptr noundef nonnull align 8 dereferenceable(16) %this1, i32 noundef 4) #8
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef ptr @_ZN18cooperative_groups4__v17details15get_scratch_ptrEPv(ptr noundef %user_scratch) #2 comdat {
entry:
  %user_scratch.addr = alloca ptr, align 8
  %ptr = alloca ptr, align 8
  store ptr %user_scratch, ptr %user_scratch.addr, align 8, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 8, ptr %ptr) #7
  %call = call noundef ptr @_ZN18cooperative_groups4__v17detailsL19reserved_shared_ptrEv() #8
  store ptr %call, ptr %ptr, align 8, !tbaa !9
  %0 = load ptr, ptr %ptr, align 8, !tbaa !9
  call void @llvm.lifetime.end.p0(i64 8, ptr %ptr) #7
  ret ptr %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_groupC2Ej(ptr noundef nonnull align 8 dereferenceable(16) %this, i32 noundef %type) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %type.addr = alloca i32, align 4
  store ptr %this, ptr %this.addr, align 8, !tbaa !9
  store i32 %type, ptr %type.addr, align 4, !tbaa !13
  %this1 = load ptr, ptr %this.addr, align 8
  %_data = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %0 = load i32, ptr %type.addr, align 4, !tbaa !13
  %_data2 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %1 = trunc i32 %0 to i8
  %bf.load = load i8, ptr %_data2, align 8
  %bf.value = and i8 %1, 127
  %bf.shl = shl i8 %bf.value, 1
  %bf.clear = and i8 %bf.load, 1
  %bf.set = or i8 %bf.clear, %bf.shl
  store i8 %bf.set, ptr %_data2, align 8
  %_data3 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %bf.load4 = load i8, ptr %_data3, align 8
  %bf.clear5 = and i8 %bf.load4, -2
  %bf.set6 = or i8 %bf.clear5, 0
  store i8 %bf.set6, ptr %_data3, align 8
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef ptr @_ZN18cooperative_groups4__v17detailsL19reserved_shared_ptrEv() #2 {
entry:
  %ptr = alloca ptr, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %ptr) #7
  %0 = call ptr asm "{\0A\09 .reg .u32 start;\0A\09 .reg .u64 extended;\0A\09 mov.u32 start, %reserved_smem_offset_1;\0A\09 cvt.u64.u32 extended, start;\0A\09 cvta.shared.u64 $0, extended;\0A\09}", "=l"() #9, !srcloc !21
  store ptr %0, ptr %ptr, align 8, !tbaa !9
  %1 = load ptr, ptr %ptr, align 8, !tbaa !9
  call void @llvm.lifetime.end.p0(i64 8, ptr %ptr) #7
  ret ptr %1
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #4

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal void @_ZN18cooperative_groups4__v17details3ctaL4syncEv() #2 {
entry:
  call void @_Z14__barrier_syncj(i32 noundef 0) #8
  ret void
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local void @_Z14__barrier_syncj(i32 noundef %id) #3 comdat {
entry:
  %id.addr = alloca i32, align 4
  store i32 %id, ptr %id.addr, align 4, !tbaa !13
  %0 = load i32, ptr %id.addr, align 4, !tbaa !13
  call void @llvm.nvvm.barrier.sync(i32 %0)
  ret void
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.sync(i32) #5

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32) #6

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.bar.warp.sync(i32) #5

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #3 = { convergent inlinehint mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #4 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { convergent nocallback nounwind }
attributes #6 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #7 = { nounwind }
attributes #8 = { convergent nounwind }
attributes #9 = { convergent nounwind memory(none) }

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
!9 = !{!10, !10, i64 0}
!10 = !{!"any pointer", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"int", !11, i64 0}
!15 = !{!16, !16, i64 0}
!16 = !{!"float", !11, i64 0}
!17 = !{!18, !10, i64 16}
!18 = !{!"_ZTSN18cooperative_groups4__v112thread_blockE", !19, i64 0, !10, i64 16}
!19 = !{!"_ZTSN18cooperative_groups4__v117thread_group_baseILj4EEE", !20, i64 0}
!20 = !{!"_ZTSN18cooperative_groups4__v112thread_groupE", !11, i64 0}
!21 = !{i64 6187739, i64 6187743, i64 6187780, i64 6187820, i64 6187881, i64 6187930, i64 6187980}
