; Real IR: clang-19 with CUDA 12.4's headers (-O3 -Xclang
; -disable-llvm-passes, as the corpus's bitcode), from
;
; #include <cooperative_groups.h>
; namespace cg = cooperative_groups;
; __device__ int scan_tot(int v, int *warp_tot) {
;   cg::thread_block block = cg::this_thread_block();
;   cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
;   for (int d = 1; d < 32; d <<= 1) {
;     int up = warp.shfl_up(v, d);
;     if ((int)warp.thread_rank() >= d)
;       v += up;
;   }
;   if (warp.thread_rank() == 31)
;     warp_tot[warp.meta_group_rank()] = v;
;   block.sync();
;   int add = 0;
;   for (int w = 0; w < (int)warp.meta_group_rank(); w++)
;     add += warp_tot[w];
;   block.sync();
;   return v + add;
; }
; extern "C" __global__ void twice(const int *in, int *out, int n) {
;   __shared__ int tot[8];
;   int i = blockIdx.x * blockDim.x + threadIdx.x;
;   int a = scan_tot(i < n ? in[i] : 0, tot);
;   int b = scan_tot(a, tot);
;   if (i < n)
;     out[i] = b;
; }
;
; The helper, called twice, costs too much for the inline stage as clang
; emits it (allocas, loads and stores); simplified, at the end of the
; canonicalize stage, it is inlined, as LLVM's -O3 pipeline and nvcc do
; (the corpus's scan_coop<256> kept two calls: the shared array read
; through a generic pointer, 57 LD.E in its SASS). Inlined, the shared
; array is addressed as shared memory.
;
; RUN: ks_passes_tool --kernel twice --stage inline %s | FileCheck %s --check-prefix=INLINE
; RUN: ks_passes_tool --kernel twice --stage canonicalize %s | FileCheck %s --check-prefix=CANON
; RUN: ks_passes_tool --kernel twice %s | FileCheck %s --check-prefix=ALL
;
; INLINE-LABEL: define {{.*}}void @twice(
; INLINE: call noundef i32 @_Z8scan_totiPi(
; INLINE: call noundef i32 @_Z8scan_totiPi(
;
; CANON-LABEL: define {{.*}}void @twice(
; CANON-NOT: call {{.*}}@_Z8scan_totiPi(
; CANON: call void @llvm.nvvm.barrier.sync(i32 0)
; CANON-NOT: call {{.*}}@_Z8scan_totiPi(
; CANON: ret void
;
; ALL-LABEL: define {{.*}}void @twice(
; ALL-NOT: call {{.*}}@_Z8scan_totiPi(
; ALL: store i32 {{.*}}, ptr addrspace(3) %
; ALL: getelementptr inbounds i32, ptr addrspace(3) @_ZZ5twiceE3tot
; ALL-NOT: call {{.*}}@_Z8scan_totiPi(
; ALL: ret void

; ModuleID = 't.cu'
source_filename = "t.cu"
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
%"class.cooperative_groups::__v1::thread_block_tile" = type { %"class.cooperative_groups::__v1::details::thread_block_tile_impl" }
%"class.cooperative_groups::__v1::details::thread_block_tile_impl" = type { %"class.cooperative_groups::__v1::__single_warp_thread_block_tile" }
%"class.cooperative_groups::__v1::__single_warp_thread_block_tile" = type { %"struct.cooperative_groups::__v1::thread_group_base.0" }
%"struct.cooperative_groups::__v1::thread_group_base.0" = type { %"class.cooperative_groups::__v1::thread_group" }
%"class.cooperative_groups::__v1::thread_block_tile.1" = type { i8 }
%"struct.cooperative_groups::__v1::details::tiled_partition_impl" = type { i8 }
%"struct.cooperative_groups::__v1::thread_group::tg_data" = type { i32, i32, i32, i32 }
%struct.dim3 = type { i32, i32, i32 }

$_ZN18cooperative_groups4__v117this_thread_blockEv = comdat any

$_ZN18cooperative_groups4__v115tiled_partitionILj32ENS0_12thread_blockEEENS0_17thread_block_tileIXT_ET0_EERKS4_ = comdat any

$_ZNK18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEcvNS1_ILj32EvEEEv = comdat any

$_ZNK18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE7shfl_upIRiiEET0_OT_j = comdat any

$_ZN18cooperative_groups4__v123__static_size_tile_baseILj32EE11thread_rankEv = comdat any

$_ZNK18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvE15meta_group_rankEv = comdat any

$_ZN18cooperative_groups4__v112thread_block4syncEv = comdat any

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_ZN18cooperative_groups4__v112thread_blockC1Ev = comdat any

$_ZN18cooperative_groups4__v112thread_blockC2Ev = comdat any

$_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev = comdat any

$_ZN18cooperative_groups4__v17details15get_scratch_ptrEPv = comdat any

$_ZN18cooperative_groups4__v112thread_groupC2Ej = comdat any

$_Z14__barrier_syncj = comdat any

$_ZN18cooperative_groups4__v17details20tiled_partition_implILj32ENS0_12thread_blockEEC1ERKS3_ = comdat any

$_ZN18cooperative_groups4__v17details20tiled_partition_implILj32ENS0_12thread_blockEEC2ERKS3_ = comdat any

$_ZN18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEC2ERKS2_ = comdat any

$_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32ENS0_12thread_blockELb0EEC2ERKS3_ = comdat any

$_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj32ENS0_12thread_blockEEC2Ev = comdat any

$_ZN18cooperative_groups4__v117thread_block_tileILj32EvEC1INS0_12thread_blockEEERKNS1_ILj32ET_EE = comdat any

$_ZN18cooperative_groups4__v117thread_block_tileILj32EvEC2INS0_12thread_blockEEERKNS1_ILj32ET_EE = comdat any

$_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32EvLb0EEC2ILj32ENS0_12thread_blockELb0EEERKNS2_IXT_ET0_XT1_EEE = comdat any

$_ZN18cooperative_groups4__v138__static_parent_thread_block_tile_baseILj32ENS0_12thread_blockEE15meta_group_rankEv = comdat any

$_ZN18cooperative_groups4__v138__static_parent_thread_block_tile_baseILj32ENS0_12thread_blockEE15meta_group_sizeEv = comdat any

$_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvEC2Ejj = comdat any

$_ZN18cooperative_groups4__v112thread_block11thread_rankEv = comdat any

$_ZNK26__cuda_builtin_threadIdx_tcv4dim3Ev = comdat any

$_ZNK25__cuda_builtin_blockDim_tcv4dim3Ev = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_zEv = comdat any

$_ZN4dim3C1Ejjj = comdat any

$_ZN4dim3C2Ejjj = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_zEv = comdat any

$_ZN18cooperative_groups4__v112thread_block4sizeEv = comdat any

$_ZN18cooperative_groups4__v117thread_group_baseILj1EEC2Ev = comdat any

$_ZN18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE10build_maskEv = comdat any

$_ZN18cooperative_groups4__v17details4tile15_native_shuffle7shfl_upIiEET_S5_jjj = comdat any

$_ZN18cooperative_groups4__v17details9templates7forwardIRiEEOT_RNS2_16remove_referenceIS5_E4typeE = comdat any

$_Z14__shfl_up_syncjiji = comdat any

@_ZZ5twiceE3tot = internal addrspace(3) global [8 x i32] undef, align 4
@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1

; Function Attrs: convergent mustprogress nounwind
define dso_local noundef i32 @_Z8scan_totiPi(i32 noundef %v, ptr noundef %warp_tot) #0 {
entry:
  %v.addr = alloca i32, align 4
  %warp_tot.addr = alloca ptr, align 8
  %block = alloca %"class.cooperative_groups::__v1::thread_block", align 8
  %warp = alloca %"class.cooperative_groups::__v1::thread_block_tile", align 8
  %ref.tmp = alloca %"class.cooperative_groups::__v1::thread_block_tile.1", align 1
  %d = alloca i32, align 4
  %up = alloca i32, align 4
  %add11 = alloca i32, align 4
  %w = alloca i32, align 4
  store i32 %v, ptr %v.addr, align 4, !tbaa !8
  store ptr %warp_tot, ptr %warp_tot.addr, align 8, !tbaa !12
  call void @llvm.lifetime.start.p0(i64 24, ptr %block) #8
  %call = call %"class.cooperative_groups::__v1::thread_block" @_ZN18cooperative_groups4__v117this_thread_blockEv() #9
  %0 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block", ptr %block, i32 0, i32 0
  %1 = extractvalue %"class.cooperative_groups::__v1::thread_block" %call, 0
  store %"struct.cooperative_groups::__v1::thread_group_base" %1, ptr %0, align 8
  %2 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block", ptr %block, i32 0, i32 1
  %3 = extractvalue %"class.cooperative_groups::__v1::thread_block" %call, 1
  store ptr %3, ptr %2, align 8
  call void @llvm.lifetime.start.p0(i64 16, ptr %warp) #8
  call void @llvm.lifetime.start.p0(i64 1, ptr %ref.tmp) #8
  %call1 = call %"class.cooperative_groups::__v1::thread_block_tile.1" @_ZN18cooperative_groups4__v115tiled_partitionILj32ENS0_12thread_blockEEENS0_17thread_block_tileIXT_ET0_EERKS4_(ptr noundef nonnull align 8 dereferenceable(24) %block) #9
  %call2 = call %"class.cooperative_groups::__v1::thread_block_tile" @_ZNK18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEcvNS1_ILj32EvEEEv(ptr noundef nonnull align 1 dereferenceable(1) %ref.tmp) #9
  %4 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block_tile", ptr %warp, i32 0, i32 0
  %5 = extractvalue %"class.cooperative_groups::__v1::thread_block_tile" %call2, 0
  store %"class.cooperative_groups::__v1::details::thread_block_tile_impl" %5, ptr %4, align 8
  call void @llvm.lifetime.end.p0(i64 1, ptr %ref.tmp) #8
  call void @llvm.lifetime.start.p0(i64 4, ptr %d) #8
  store i32 1, ptr %d, align 4, !tbaa !8
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %6 = load i32, ptr %d, align 4, !tbaa !8
  %cmp = icmp slt i32 %6, 32
  br i1 %cmp, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %d) #8
  br label %for.end

for.body:                                         ; preds = %for.cond
  call void @llvm.lifetime.start.p0(i64 4, ptr %up) #8
  %7 = load i32, ptr %d, align 4, !tbaa !8
  %call3 = call noundef i32 @_ZNK18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE7shfl_upIRiiEET0_OT_j(ptr noundef nonnull align 1 dereferenceable(1) %warp, ptr noundef nonnull align 4 dereferenceable(4) %v.addr, i32 noundef %7) #9
  store i32 %call3, ptr %up, align 4, !tbaa !8
  %call4 = call noundef i32 @_ZN18cooperative_groups4__v123__static_size_tile_baseILj32EE11thread_rankEv() #9
  %8 = load i32, ptr %d, align 4, !tbaa !8
  %cmp5 = icmp sge i32 %call4, %8
  br i1 %cmp5, label %if.then, label %if.end

if.then:                                          ; preds = %for.body
  %9 = load i32, ptr %up, align 4, !tbaa !8
  %10 = load i32, ptr %v.addr, align 4, !tbaa !8
  %add = add nsw i32 %10, %9
  store i32 %add, ptr %v.addr, align 4, !tbaa !8
  br label %if.end

if.end:                                           ; preds = %if.then, %for.body
  call void @llvm.lifetime.end.p0(i64 4, ptr %up) #8
  br label %for.inc

for.inc:                                          ; preds = %if.end
  %11 = load i32, ptr %d, align 4, !tbaa !8
  %shl = shl i32 %11, 1
  store i32 %shl, ptr %d, align 4, !tbaa !8
  br label %for.cond, !llvm.loop !14

for.end:                                          ; preds = %for.cond.cleanup
  %call6 = call noundef i32 @_ZN18cooperative_groups4__v123__static_size_tile_baseILj32EE11thread_rankEv() #9
  %cmp7 = icmp eq i32 %call6, 31
  br i1 %cmp7, label %if.then8, label %if.end10

if.then8:                                         ; preds = %for.end
  %12 = load i32, ptr %v.addr, align 4, !tbaa !8
  %13 = load ptr, ptr %warp_tot.addr, align 8, !tbaa !12
  %call9 = call noundef i32 @_ZNK18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvE15meta_group_rankEv(ptr noundef nonnull align 8 dereferenceable(16) %warp) #9
  %idxprom = zext i32 %call9 to i64
  %arrayidx = getelementptr inbounds i32, ptr %13, i64 %idxprom
  store i32 %12, ptr %arrayidx, align 4, !tbaa !8
  br label %if.end10

if.end10:                                         ; preds = %if.then8, %for.end
  call void @_ZN18cooperative_groups4__v112thread_block4syncEv() #9
  call void @llvm.lifetime.start.p0(i64 4, ptr %add11) #8
  store i32 0, ptr %add11, align 4, !tbaa !8
  call void @llvm.lifetime.start.p0(i64 4, ptr %w) #8
  store i32 0, ptr %w, align 4, !tbaa !8
  br label %for.cond12

for.cond12:                                       ; preds = %for.inc20, %if.end10
  %14 = load i32, ptr %w, align 4, !tbaa !8
  %call13 = call noundef i32 @_ZNK18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvE15meta_group_rankEv(ptr noundef nonnull align 8 dereferenceable(16) %warp) #9
  %cmp14 = icmp slt i32 %14, %call13
  br i1 %cmp14, label %for.body16, label %for.cond.cleanup15

for.cond.cleanup15:                               ; preds = %for.cond12
  call void @llvm.lifetime.end.p0(i64 4, ptr %w) #8
  br label %for.end21

for.body16:                                       ; preds = %for.cond12
  %15 = load ptr, ptr %warp_tot.addr, align 8, !tbaa !12
  %16 = load i32, ptr %w, align 4, !tbaa !8
  %idxprom17 = sext i32 %16 to i64
  %arrayidx18 = getelementptr inbounds i32, ptr %15, i64 %idxprom17
  %17 = load i32, ptr %arrayidx18, align 4, !tbaa !8
  %18 = load i32, ptr %add11, align 4, !tbaa !8
  %add19 = add nsw i32 %18, %17
  store i32 %add19, ptr %add11, align 4, !tbaa !8
  br label %for.inc20

for.inc20:                                        ; preds = %for.body16
  %19 = load i32, ptr %w, align 4, !tbaa !8
  %inc = add nsw i32 %19, 1
  store i32 %inc, ptr %w, align 4, !tbaa !8
  br label %for.cond12, !llvm.loop !16

for.end21:                                        ; preds = %for.cond.cleanup15
  call void @_ZN18cooperative_groups4__v112thread_block4syncEv() #9
  %20 = load i32, ptr %v.addr, align 4, !tbaa !8
  %21 = load i32, ptr %add11, align 4, !tbaa !8
  %add22 = add nsw i32 %20, %21
  call void @llvm.lifetime.end.p0(i64 4, ptr %add11) #8
  call void @llvm.lifetime.end.p0(i64 16, ptr %warp) #8
  call void @llvm.lifetime.end.p0(i64 24, ptr %block) #8
  ret i32 %add22
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local %"class.cooperative_groups::__v1::thread_block" @_ZN18cooperative_groups4__v117this_thread_blockEv() #2 comdat {
entry:
  %retval = alloca %"class.cooperative_groups::__v1::thread_block", align 8
  call void @_ZN18cooperative_groups4__v112thread_blockC1Ev(ptr noundef nonnull align 8 dereferenceable(24) %retval) #9
  %0 = load %"class.cooperative_groups::__v1::thread_block", ptr %retval, align 8
  ret %"class.cooperative_groups::__v1::thread_block" %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local %"class.cooperative_groups::__v1::thread_block_tile.1" @_ZN18cooperative_groups4__v115tiled_partitionILj32ENS0_12thread_blockEEENS0_17thread_block_tileIXT_ET0_EERKS4_(ptr noundef nonnull align 8 dereferenceable(24) %g) #2 comdat {
entry:
  %retval = alloca %"class.cooperative_groups::__v1::thread_block_tile.1", align 1
  %g.addr = alloca ptr, align 8
  %ref.tmp = alloca %"struct.cooperative_groups::__v1::details::tiled_partition_impl", align 1
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  call void @llvm.lifetime.start.p0(i64 1, ptr %ref.tmp) #8
  %0 = load ptr, ptr %g.addr, align 8, !tbaa !12
  call void @_ZN18cooperative_groups4__v17details20tiled_partition_implILj32ENS0_12thread_blockEEC1ERKS3_(ptr noundef nonnull align 1 dereferenceable(1) %ref.tmp, ptr noundef nonnull align 8 dereferenceable(24) %0) #9
  call void @llvm.lifetime.end.p0(i64 1, ptr %ref.tmp) #8
  %1 = load %"class.cooperative_groups::__v1::thread_block_tile.1", ptr %retval, align 1
  ret %"class.cooperative_groups::__v1::thread_block_tile.1" %1
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local %"class.cooperative_groups::__v1::thread_block_tile" @_ZNK18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEcvNS1_ILj32EvEEEv(ptr noundef nonnull align 1 dereferenceable(1) %this) #2 comdat align 2 {
entry:
  %retval = alloca %"class.cooperative_groups::__v1::thread_block_tile", align 8
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v117thread_block_tileILj32EvEC1INS0_12thread_blockEEERKNS1_ILj32ET_EE(ptr noundef nonnull align 8 dereferenceable(16) %retval, ptr noundef nonnull align 1 dereferenceable(1) %this1) #9
  %0 = load %"class.cooperative_groups::__v1::thread_block_tile", ptr %retval, align 8
  ret %"class.cooperative_groups::__v1::thread_block_tile" %0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZNK18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE7shfl_upIRiiEET0_OT_j(ptr noundef nonnull align 1 dereferenceable(1) %this, ptr noundef nonnull align 4 dereferenceable(4) %elem, i32 noundef %delta) #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %elem.addr = alloca ptr, align 8
  %delta.addr = alloca i32, align 4
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %elem, ptr %elem.addr, align 8, !tbaa !12
  store i32 %delta, ptr %delta.addr, align 4, !tbaa !8
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %elem.addr, align 8, !tbaa !12
  %call = call noundef nonnull align 4 dereferenceable(4) ptr @_ZN18cooperative_groups4__v17details9templates7forwardIRiEEOT_RNS2_16remove_referenceIS5_E4typeE(ptr noundef nonnull align 4 dereferenceable(4) %0) #9
  %1 = load i32, ptr %call, align 4, !tbaa !8
  %call2 = call noundef i32 @_ZN18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE10build_maskEv() #9
  %2 = load i32, ptr %delta.addr, align 4, !tbaa !8
  %call3 = call noundef i32 @_ZN18cooperative_groups4__v17details4tile15_native_shuffle7shfl_upIiEET_S5_jjj(i32 noundef %1, i32 noundef %call2, i32 noundef %2, i32 noundef 32) #9
  ret i32 %call3
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v123__static_size_tile_baseILj32EE11thread_rankEv() #2 comdat align 2 {
entry:
  %call = call noundef i32 @_ZN18cooperative_groups4__v17details3ctaL11thread_rankEv() #9
  %and = and i32 %call, 31
  ret i32 %and
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZNK18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvE15meta_group_rankEv(ptr noundef nonnull align 8 dereferenceable(16) %this) #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %_data = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %metaGroupRank = getelementptr inbounds %"struct.cooperative_groups::__v1::thread_group::tg_data", ptr %_data, i32 0, i32 1
  %bf.load = load i32, ptr %metaGroupRank, align 4
  %bf.lshr = lshr i32 %bf.load, 16
  ret i32 %bf.lshr
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_block4syncEv() #2 comdat align 2 {
entry:
  call void @_ZN18cooperative_groups4__v17details3ctaL4syncEv() #9
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @twice(ptr noundef %in, ptr noundef %out, i32 noundef %n) #3 {
entry:
  %in.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %i = alloca i32, align 4
  %a = alloca i32, align 4
  %b = alloca i32, align 4
  store ptr %in, ptr %in.addr, align 8, !tbaa !12
  store ptr %out, ptr %out.addr, align 8, !tbaa !12
  store i32 %n, ptr %n.addr, align 4, !tbaa !8
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #8
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #9
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9
  %add = add i32 %mul, %call2
  store i32 %add, ptr %i, align 4, !tbaa !8
  call void @llvm.lifetime.start.p0(i64 4, ptr %a) #8
  %0 = load i32, ptr %i, align 4, !tbaa !8
  %1 = load i32, ptr %n.addr, align 4, !tbaa !8
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %2 = load ptr, ptr %in.addr, align 8, !tbaa !12
  %3 = load i32, ptr %i, align 4, !tbaa !8
  %idxprom = sext i32 %3 to i64
  %arrayidx = getelementptr inbounds i32, ptr %2, i64 %idxprom
  %4 = load i32, ptr %arrayidx, align 4, !tbaa !8
  br label %cond.end

cond.false:                                       ; preds = %entry
  br label %cond.end

cond.end:                                         ; preds = %cond.false, %cond.true
  %cond = phi i32 [ %4, %cond.true ], [ 0, %cond.false ]
  %call3 = call noundef i32 @_Z8scan_totiPi(i32 noundef %cond, ptr noundef addrspacecast (ptr addrspace(3) @_ZZ5twiceE3tot to ptr)) #9
  store i32 %call3, ptr %a, align 4, !tbaa !8
  call void @llvm.lifetime.start.p0(i64 4, ptr %b) #8
  %5 = load i32, ptr %a, align 4, !tbaa !8
  %call4 = call noundef i32 @_Z8scan_totiPi(i32 noundef %5, ptr noundef addrspacecast (ptr addrspace(3) @_ZZ5twiceE3tot to ptr)) #9
  store i32 %call4, ptr %b, align 4, !tbaa !8
  %6 = load i32, ptr %i, align 4, !tbaa !8
  %7 = load i32, ptr %n.addr, align 4, !tbaa !8
  %cmp5 = icmp slt i32 %6, %7
  br i1 %cmp5, label %if.then, label %if.end

if.then:                                          ; preds = %cond.end
  %8 = load i32, ptr %b, align 4, !tbaa !8
  %9 = load ptr, ptr %out.addr, align 8, !tbaa !12
  %10 = load i32, ptr %i, align 4, !tbaa !8
  %idxprom6 = sext i32 %10 to i64
  %arrayidx7 = getelementptr inbounds i32, ptr %9, i64 %idxprom6
  store i32 %8, ptr %arrayidx7, align 4, !tbaa !8
  br label %if.end

if.end:                                           ; preds = %if.then, %cond.end
  call void @llvm.lifetime.end.p0(i64 4, ptr %b) #8
  call void @llvm.lifetime.end.p0(i64 4, ptr %a) #8
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #8
  ret void
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
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_blockC1Ev(ptr noundef nonnull align 8 dereferenceable(24) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v112thread_blockC2Ev(ptr noundef nonnull align 8 dereferenceable(24) %this1) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_blockC2Ev(ptr noundef nonnull align 8 dereferenceable(24) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev(ptr noundef nonnull align 8 dereferenceable(16) %this1) #9
  %tile_memory = getelementptr inbounds %"class.cooperative_groups::__v1::thread_block", ptr %this1, i32 0, i32 1
  %call = call noundef ptr @_ZN18cooperative_groups4__v17details15get_scratch_ptrEPv(ptr noundef null) #9
  store ptr %call, ptr %tile_memory, align 8, !tbaa !17
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v117thread_group_baseILj4EEC2Ev(ptr noundef nonnull align 8 dereferenceable(16) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v112thread_groupC2Ej(ptr noundef nonnull align 8 dereferenceable(16) %this1, i32 noundef 4) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef ptr @_ZN18cooperative_groups4__v17details15get_scratch_ptrEPv(ptr noundef %user_scratch) #2 comdat {
entry:
  %user_scratch.addr = alloca ptr, align 8
  %ptr = alloca ptr, align 8
  store ptr %user_scratch, ptr %user_scratch.addr, align 8, !tbaa !12
  call void @llvm.lifetime.start.p0(i64 8, ptr %ptr) #8
  %call = call noundef ptr @_ZN18cooperative_groups4__v17detailsL19reserved_shared_ptrEv() #9
  store ptr %call, ptr %ptr, align 8, !tbaa !12
  %0 = load ptr, ptr %ptr, align 8, !tbaa !12
  call void @llvm.lifetime.end.p0(i64 8, ptr %ptr) #8
  ret ptr %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v112thread_groupC2Ej(ptr noundef nonnull align 8 dereferenceable(16) %this, i32 noundef %type) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %type.addr = alloca i32, align 4
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store i32 %type, ptr %type.addr, align 4, !tbaa !8
  %this1 = load ptr, ptr %this.addr, align 8
  %_data = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %0 = load i32, ptr %type.addr, align 4, !tbaa !8
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
  call void @llvm.lifetime.start.p0(i64 8, ptr %ptr) #8
  %0 = call ptr asm "{\0A\09 .reg .u32 start;\0A\09 .reg .u64 extended;\0A\09 mov.u32 start, %reserved_smem_offset_1;\0A\09 cvt.u64.u32 extended, start;\0A\09 cvta.shared.u64 $0, extended;\0A\09}", "=l"() #10, !srcloc !21
  store ptr %0, ptr %ptr, align 8, !tbaa !12
  %1 = load ptr, ptr %ptr, align 8, !tbaa !12
  call void @llvm.lifetime.end.p0(i64 8, ptr %ptr) #8
  ret ptr %1
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal void @_ZN18cooperative_groups4__v17details3ctaL4syncEv() #2 {
entry:
  call void @_Z14__barrier_syncj(i32 noundef 0) #9
  ret void
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local void @_Z14__barrier_syncj(i32 noundef %id) #4 comdat {
entry:
  %id.addr = alloca i32, align 4
  store i32 %id, ptr %id.addr, align 4, !tbaa !8
  %0 = load i32, ptr %id.addr, align 4, !tbaa !8
  call void @llvm.nvvm.barrier.sync(i32 %0)
  ret void
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.sync(i32) #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #6

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #6

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #6

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v17details20tiled_partition_implILj32ENS0_12thread_blockEEC1ERKS3_(ptr noundef nonnull align 1 dereferenceable(1) %this, ptr noundef nonnull align 8 dereferenceable(24) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %g.addr, align 8
  call void @_ZN18cooperative_groups4__v17details20tiled_partition_implILj32ENS0_12thread_blockEEC2ERKS3_(ptr noundef nonnull align 1 dereferenceable(1) %this1, ptr noundef nonnull align 8 dereferenceable(24) %0) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v17details20tiled_partition_implILj32ENS0_12thread_blockEEC2ERKS3_(ptr noundef nonnull align 1 dereferenceable(1) %this, ptr noundef nonnull align 8 dereferenceable(24) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %g.addr, align 8, !tbaa !12
  call void @_ZN18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEC2ERKS2_(ptr noundef nonnull align 1 dereferenceable(1) %this1, ptr noundef nonnull align 8 dereferenceable(24) %0) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v117thread_block_tileILj32ENS0_12thread_blockEEC2ERKS2_(ptr noundef nonnull align 1 dereferenceable(1) %this, ptr noundef nonnull align 8 dereferenceable(24) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %g.addr, align 8, !tbaa !12
  call void @_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32ENS0_12thread_blockELb0EEC2ERKS3_(ptr noundef nonnull align 1 dereferenceable(1) %this1, ptr noundef nonnull align 8 dereferenceable(24) %0) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32ENS0_12thread_blockELb0EEC2ERKS3_(ptr noundef nonnull align 1 dereferenceable(1) %this, ptr noundef nonnull align 8 dereferenceable(24) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj32ENS0_12thread_blockEEC2Ev(ptr noundef nonnull align 1 dereferenceable(1) %this1) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj32ENS0_12thread_blockEEC2Ev(ptr noundef nonnull align 1 dereferenceable(1) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v117thread_block_tileILj32EvEC1INS0_12thread_blockEEERKNS1_ILj32ET_EE(ptr noundef nonnull align 8 dereferenceable(16) %this, ptr noundef nonnull align 1 dereferenceable(1) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %g.addr, align 8
  call void @_ZN18cooperative_groups4__v117thread_block_tileILj32EvEC2INS0_12thread_blockEEERKNS1_ILj32ET_EE(ptr noundef nonnull align 8 dereferenceable(16) %this1, ptr noundef nonnull align 1 dereferenceable(1) %0) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v117thread_block_tileILj32EvEC2INS0_12thread_blockEEERKNS1_ILj32ET_EE(ptr noundef nonnull align 8 dereferenceable(16) %this, ptr noundef nonnull align 1 dereferenceable(1) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %g.addr, align 8, !tbaa !12
  call void @_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32EvLb0EEC2ILj32ENS0_12thread_blockELb0EEERKNS2_IXT_ET0_XT1_EEE(ptr noundef nonnull align 8 dereferenceable(16) %this1, ptr noundef nonnull align 1 dereferenceable(1) %0) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v17details22thread_block_tile_implILj32EvLb0EEC2ILj32ENS0_12thread_blockELb0EEERKNS2_IXT_ET0_XT1_EEE(ptr noundef nonnull align 8 dereferenceable(16) %this, ptr noundef nonnull align 1 dereferenceable(1) %g) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %g.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store ptr %g, ptr %g.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %g.addr, align 8, !tbaa !12
  %call = call noundef i32 @_ZN18cooperative_groups4__v138__static_parent_thread_block_tile_baseILj32ENS0_12thread_blockEE15meta_group_rankEv() #9
  %1 = load ptr, ptr %g.addr, align 8, !tbaa !12
  %call2 = call noundef i32 @_ZN18cooperative_groups4__v138__static_parent_thread_block_tile_baseILj32ENS0_12thread_blockEE15meta_group_sizeEv() #9
  call void @_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvEC2Ejj(ptr noundef nonnull align 8 dereferenceable(16) %this1, i32 noundef %call, i32 noundef %call2) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v138__static_parent_thread_block_tile_baseILj32ENS0_12thread_blockEE15meta_group_rankEv() #2 comdat align 2 {
entry:
  %call = call noundef i32 @_ZN18cooperative_groups4__v112thread_block11thread_rankEv() #9
  %div = udiv i32 %call, 32
  ret i32 %div
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v138__static_parent_thread_block_tile_baseILj32ENS0_12thread_blockEE15meta_group_sizeEv() #2 comdat align 2 {
entry:
  %call = call noundef i32 @_ZN18cooperative_groups4__v112thread_block4sizeEv() #9
  %add = add i32 %call, 32
  %sub = sub i32 %add, 1
  %div = udiv i32 %sub, 32
  ret i32 %div
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v131__single_warp_thread_block_tileILj32EvEC2Ejj(ptr noundef nonnull align 8 dereferenceable(16) %this, i32 noundef %meta_group_rank, i32 noundef %meta_group_size) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %meta_group_rank.addr = alloca i32, align 4
  %meta_group_size.addr = alloca i32, align 4
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store i32 %meta_group_rank, ptr %meta_group_rank.addr, align 4, !tbaa !8
  store i32 %meta_group_size, ptr %meta_group_size.addr, align 4, !tbaa !8
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v117thread_group_baseILj1EEC2Ev(ptr noundef nonnull align 8 dereferenceable(16) %this1) #9
  %call = call noundef i32 @_ZN18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE10build_maskEv() #9
  %_data = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %mask = getelementptr inbounds %"struct.cooperative_groups::__v1::thread_group::tg_data", ptr %_data, i32 0, i32 2
  store i32 %call, ptr %mask, align 8, !tbaa !22
  %_data2 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %bf.load = load i32, ptr %_data2, align 8
  %bf.clear = and i32 %bf.load, 255
  %bf.set = or i32 %bf.clear, 8192
  store i32 %bf.set, ptr %_data2, align 8
  %0 = load i32, ptr %meta_group_rank.addr, align 4, !tbaa !8
  %_data3 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %metaGroupRank = getelementptr inbounds %"struct.cooperative_groups::__v1::thread_group::tg_data", ptr %_data3, i32 0, i32 1
  %bf.load4 = load i32, ptr %metaGroupRank, align 4
  %bf.value = and i32 %0, 65535
  %bf.shl = shl i32 %bf.value, 16
  %bf.clear5 = and i32 %bf.load4, 65535
  %bf.set6 = or i32 %bf.clear5, %bf.shl
  store i32 %bf.set6, ptr %metaGroupRank, align 4
  %1 = load i32, ptr %meta_group_size.addr, align 4, !tbaa !8
  %_data7 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %metaGroupSize = getelementptr inbounds %"struct.cooperative_groups::__v1::thread_group::tg_data", ptr %_data7, i32 0, i32 1
  %bf.load8 = load i32, ptr %metaGroupSize, align 4
  %bf.value9 = and i32 %1, 65535
  %bf.clear10 = and i32 %bf.load8, -65536
  %bf.set11 = or i32 %bf.clear10, %bf.value9
  store i32 %bf.set11, ptr %metaGroupSize, align 4
  %_data12 = getelementptr inbounds %"class.cooperative_groups::__v1::thread_group", ptr %this1, i32 0, i32 0
  %bf.load13 = load i32, ptr %_data12, align 8
  %bf.clear14 = and i32 %bf.load13, -2
  %bf.set15 = or i32 %bf.clear14, 1
  store i32 %bf.set15, ptr %_data12, align 8
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v112thread_block11thread_rankEv() #2 comdat align 2 {
entry:
  %call = call noundef i32 @_ZN18cooperative_groups4__v17details3ctaL11thread_rankEv() #9
  ret i32 %call
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef i32 @_ZN18cooperative_groups4__v17details3ctaL11thread_rankEv() #2 {
entry:
  %agg.tmp = alloca %struct.dim3, align 4
  %agg.tmp1 = alloca %struct.dim3, align 4
  %call = call %struct.dim3 @_ZNK26__cuda_builtin_threadIdx_tcv4dim3Ev(ptr noundef nonnull align 1 dereferenceable(1) addrspacecast (ptr addrspace(1) @threadIdx to ptr)) #9
  %0 = getelementptr inbounds %struct.dim3, ptr %agg.tmp, i32 0, i32 0
  %1 = extractvalue %struct.dim3 %call, 0
  store i32 %1, ptr %0, align 4
  %2 = getelementptr inbounds %struct.dim3, ptr %agg.tmp, i32 0, i32 1
  %3 = extractvalue %struct.dim3 %call, 1
  store i32 %3, ptr %2, align 4
  %4 = getelementptr inbounds %struct.dim3, ptr %agg.tmp, i32 0, i32 2
  %5 = extractvalue %struct.dim3 %call, 2
  store i32 %5, ptr %4, align 4
  %call2 = call %struct.dim3 @_ZNK25__cuda_builtin_blockDim_tcv4dim3Ev(ptr noundef nonnull align 1 dereferenceable(1) addrspacecast (ptr addrspace(1) @blockDim to ptr)) #9
  %6 = getelementptr inbounds %struct.dim3, ptr %agg.tmp1, i32 0, i32 0
  %7 = extractvalue %struct.dim3 %call2, 0
  store i32 %7, ptr %6, align 4
  %8 = getelementptr inbounds %struct.dim3, ptr %agg.tmp1, i32 0, i32 1
  %9 = extractvalue %struct.dim3 %call2, 1
  store i32 %9, ptr %8, align 4
  %10 = getelementptr inbounds %struct.dim3, ptr %agg.tmp1, i32 0, i32 2
  %11 = extractvalue %struct.dim3 %call2, 2
  store i32 %11, ptr %10, align 4
  %call3 = call noundef i32 @_ZN18cooperative_groups4__v17detailsL14vec3_to_linearIjEET_4dim3S4_(ptr noundef byval(%struct.dim3) align 4 %agg.tmp, ptr noundef byval(%struct.dim3) align 4 %agg.tmp1) #9
  ret i32 %call3
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef i32 @_ZN18cooperative_groups4__v17detailsL14vec3_to_linearIjEET_4dim3S4_(ptr noundef byval(%struct.dim3) align 4 %index, ptr noundef byval(%struct.dim3) align 4 %nIndex) #2 {
entry:
  %z = getelementptr inbounds %struct.dim3, ptr %index, i32 0, i32 2
  %0 = load i32, ptr %z, align 4, !tbaa !23
  %y = getelementptr inbounds %struct.dim3, ptr %nIndex, i32 0, i32 1
  %1 = load i32, ptr %y, align 4, !tbaa !25
  %mul = mul i32 %0, %1
  %x = getelementptr inbounds %struct.dim3, ptr %nIndex, i32 0, i32 0
  %2 = load i32, ptr %x, align 4, !tbaa !26
  %mul1 = mul i32 %mul, %2
  %y2 = getelementptr inbounds %struct.dim3, ptr %index, i32 0, i32 1
  %3 = load i32, ptr %y2, align 4, !tbaa !25
  %x3 = getelementptr inbounds %struct.dim3, ptr %nIndex, i32 0, i32 0
  %4 = load i32, ptr %x3, align 4, !tbaa !26
  %mul4 = mul i32 %3, %4
  %add = add i32 %mul1, %mul4
  %x5 = getelementptr inbounds %struct.dim3, ptr %index, i32 0, i32 0
  %5 = load i32, ptr %x5, align 4, !tbaa !26
  %add6 = add i32 %add, %5
  ret i32 %add6
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local %struct.dim3 @_ZNK26__cuda_builtin_threadIdx_tcv4dim3Ev(ptr noundef nonnull align 1 dereferenceable(1) %this) #4 comdat align 2 {
entry:
  %retval = alloca %struct.dim3, align 4
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #9
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #9
  %call3 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_zEv() #9
  call void @_ZN4dim3C1Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %retval, i32 noundef %call, i32 noundef %call2, i32 noundef %call3) #9
  %0 = load %struct.dim3, ptr %retval, align 4
  ret %struct.dim3 %0
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local %struct.dim3 @_ZNK25__cuda_builtin_blockDim_tcv4dim3Ev(ptr noundef nonnull align 1 dereferenceable(1) %this) #4 comdat align 2 {
entry:
  %retval = alloca %struct.dim3, align 4
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  %call = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9
  %call2 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #9
  %call3 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_zEv() #9
  call void @_ZN4dim3C1Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %retval, i32 noundef %call, i32 noundef %call2, i32 noundef %call3) #9
  %0 = load %struct.dim3, ptr %retval, align 4
  ret %struct.dim3 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_zEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
  ret i32 %0
}

; Function Attrs: convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN4dim3C1Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %this, i32 noundef %vx, i32 noundef %vy, i32 noundef %vz) unnamed_addr #0 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %vx.addr = alloca i32, align 4
  %vy.addr = alloca i32, align 4
  %vz.addr = alloca i32, align 4
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store i32 %vx, ptr %vx.addr, align 4, !tbaa !8
  store i32 %vy, ptr %vy.addr, align 4, !tbaa !8
  store i32 %vz, ptr %vz.addr, align 4, !tbaa !8
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load i32, ptr %vx.addr, align 4, !tbaa !8
  %1 = load i32, ptr %vy.addr, align 4, !tbaa !8
  %2 = load i32, ptr %vz.addr, align 4, !tbaa !8
  call void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %this1, i32 noundef %0, i32 noundef %1, i32 noundef %2) #9
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #6

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.z() #6

; Function Attrs: convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN4dim3C2Ejjj(ptr noundef nonnull align 4 dereferenceable(12) %this, i32 noundef %vx, i32 noundef %vy, i32 noundef %vz) unnamed_addr #0 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %vx.addr = alloca i32, align 4
  %vy.addr = alloca i32, align 4
  %vz.addr = alloca i32, align 4
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  store i32 %vx, ptr %vx.addr, align 4, !tbaa !8
  store i32 %vy, ptr %vy.addr, align 4, !tbaa !8
  store i32 %vz, ptr %vz.addr, align 4, !tbaa !8
  %this1 = load ptr, ptr %this.addr, align 8
  %x = getelementptr inbounds %struct.dim3, ptr %this1, i32 0, i32 0
  %0 = load i32, ptr %vx.addr, align 4, !tbaa !8
  store i32 %0, ptr %x, align 4, !tbaa !26
  %y = getelementptr inbounds %struct.dim3, ptr %this1, i32 0, i32 1
  %1 = load i32, ptr %vy.addr, align 4, !tbaa !8
  store i32 %1, ptr %y, align 4, !tbaa !25
  %z = getelementptr inbounds %struct.dim3, ptr %this1, i32 0, i32 2
  %2 = load i32, ptr %vz.addr, align 4, !tbaa !8
  store i32 %2, ptr %z, align 4, !tbaa !23
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_zEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  ret i32 %0
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #6

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.z() #6

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v112thread_block4sizeEv() #2 comdat align 2 {
entry:
  %call = call noundef i32 @_ZN18cooperative_groups4__v17details3ctaL4sizeEv() #9
  ret i32 %call
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef i32 @_ZN18cooperative_groups4__v17details3ctaL4sizeEv() #2 {
entry:
  %call = call noundef i32 @_ZN18cooperative_groups4__v17details3ctaL11num_threadsEv() #9
  ret i32 %call
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef i32 @_ZN18cooperative_groups4__v17details3ctaL11num_threadsEv() #2 {
entry:
  %call = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #9
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #9
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_zEv() #9
  %mul3 = mul i32 %mul, %call2
  ret i32 %mul3
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local void @_ZN18cooperative_groups4__v117thread_group_baseILj1EEC2Ev(ptr noundef nonnull align 8 dereferenceable(16) %this) unnamed_addr #2 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !12
  %this1 = load ptr, ptr %this.addr, align 8
  call void @_ZN18cooperative_groups4__v112thread_groupC2Ej(ptr noundef nonnull align 8 dereferenceable(16) %this1, i32 noundef 1) #9
  ret void
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v136__static_size_thread_block_tile_baseILj32EE10build_maskEv() #2 comdat align 2 {
entry:
  %mask = alloca i32, align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %mask) #8
  store i32 -1, ptr %mask, align 4, !tbaa !8
  %0 = load i32, ptr %mask, align 4, !tbaa !8
  call void @llvm.lifetime.end.p0(i64 4, ptr %mask) #8
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN18cooperative_groups4__v17details4tile15_native_shuffle7shfl_upIiEET_S5_jjj(i32 noundef %elem, i32 noundef %gMask, i32 noundef %delta, i32 noundef %threads) #2 comdat align 2 {
entry:
  %elem.addr = alloca i32, align 4
  %gMask.addr = alloca i32, align 4
  %delta.addr = alloca i32, align 4
  %threads.addr = alloca i32, align 4
  store i32 %elem, ptr %elem.addr, align 4, !tbaa !8
  store i32 %gMask, ptr %gMask.addr, align 4, !tbaa !8
  store i32 %delta, ptr %delta.addr, align 4, !tbaa !8
  store i32 %threads, ptr %threads.addr, align 4, !tbaa !8
  %0 = load i32, ptr %gMask.addr, align 4, !tbaa !8
  %1 = load i32, ptr %elem.addr, align 4, !tbaa !8
  %2 = load i32, ptr %delta.addr, align 4, !tbaa !8
  %3 = load i32, ptr %threads.addr, align 4, !tbaa !8
  %call = call noundef i32 @_Z14__shfl_up_syncjiji(i32 noundef %0, i32 noundef %1, i32 noundef %2, i32 noundef %3) #9
  ret i32 %call
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef nonnull align 4 dereferenceable(4) ptr @_ZN18cooperative_groups4__v17details9templates7forwardIRiEEOT_RNS2_16remove_referenceIS5_E4typeE(ptr noundef nonnull align 4 dereferenceable(4) %t) #2 comdat {
entry:
  %t.addr = alloca ptr, align 8
  store ptr %t, ptr %t.addr, align 8, !tbaa !12
  %0 = load ptr, ptr %t.addr, align 8, !tbaa !12
  ret ptr %0
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_Z14__shfl_up_syncjiji(i32 noundef %__mask, i32 noundef %__val, i32 noundef %__offset, i32 noundef %__width) #4 comdat {
entry:
  %__mask.addr = alloca i32, align 4
  %__val.addr = alloca i32, align 4
  %__offset.addr = alloca i32, align 4
  %__width.addr = alloca i32, align 4
  store i32 %__mask, ptr %__mask.addr, align 4, !tbaa !8
  store i32 %__val, ptr %__val.addr, align 4, !tbaa !8
  store i32 %__offset, ptr %__offset.addr, align 4, !tbaa !8
  store i32 %__width, ptr %__width.addr, align 4, !tbaa !8
  %0 = load i32, ptr %__mask.addr, align 4, !tbaa !8
  %1 = load i32, ptr %__val.addr, align 4, !tbaa !8
  %2 = load i32, ptr %__offset.addr, align 4, !tbaa !8
  %3 = load i32, ptr %__width.addr, align 4, !tbaa !8
  %sub = sub nsw i32 32, %3
  %shl = shl i32 %sub, 8
  %or = or i32 %shl, 0
  %4 = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 %0, i32 %1, i32 %2, i32 %or)
  ret i32 %4
}

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32) #7

attributes #0 = { convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #3 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #4 = { convergent inlinehint mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #5 = { convergent nocallback nounwind }
attributes #6 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #7 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #8 = { nounwind }
attributes #9 = { convergent nounwind }
attributes #10 = { convergent nounwind memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!4}
!llvm.ident = !{!5, !6}
!nvvmir.version = !{!7}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{ptr @twice, !"kernel", i32 1}
!5 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!6 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!7 = !{i32 2, i32 0}
!8 = !{!9, !9, i64 0}
!9 = !{!"int", !10, i64 0}
!10 = !{!"omnipotent char", !11, i64 0}
!11 = !{!"Simple C++ TBAA"}
!12 = !{!13, !13, i64 0}
!13 = !{!"any pointer", !10, i64 0}
!14 = distinct !{!14, !15}
!15 = !{!"llvm.loop.mustprogress"}
!16 = distinct !{!16, !15}
!17 = !{!18, !13, i64 16}
!18 = !{!"_ZTSN18cooperative_groups4__v112thread_blockE", !19, i64 0, !13, i64 16}
!19 = !{!"_ZTSN18cooperative_groups4__v117thread_group_baseILj4EEE", !20, i64 0}
!20 = !{!"_ZTSN18cooperative_groups4__v112thread_groupE", !10, i64 0}
!21 = !{i64 6187621, i64 6187625, i64 6187662, i64 6187702, i64 6187763, i64 6187812, i64 6187862}
!22 = !{!10, !10, i64 0}
!23 = !{!24, !9, i64 8}
!24 = !{!"_ZTS4dim3", !9, i64 0, !9, i64 4, !9, i64 8}
!25 = !{!24, !9, i64 4}
!26 = !{!24, !9, i64 0}
