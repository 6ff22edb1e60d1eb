; Where no two loads or stores of a block are adjacent and aligned for a
; vector, the optimize stage does not run LLVM's load/store vectorizer
; (passes/vectorize.c), and says so. The screen looks at every function
; of the module: none of these kernels has such a pair.
; RUN: ks_passes_tool --stage all --kernel clamped %s | FileCheck %s --check-prefix=CLAMPED
; RUN: ks_passes_tool --stage all --kernel wide %s | FileCheck %s --check-prefix=WIDE
; RUN: ks_passes_tool --stage all --kernel taps %s | FileCheck %s --check-prefix=TAPS
; RUN: ks_passes_tool --stage all --kernel unaligned %s | FileCheck %s --check-prefix=UNALIGNED

; Clamped neighbours share no index.
; CLAMPED: ; explain: optimize: load/store vectorizer not run: no two loads or stores of a block are adjacent and aligned for a vector
; CLAMPED-LABEL: define void @clamped(
; CLAMPED-COUNT-3: load float
; CLAMPED-NOT: load <
; CLAMPED: ret void

; Two adjacent 16-byte loads: no vector access is wider.
; WIDE: ; explain: optimize: load/store vectorizer not run
; WIDE-LABEL: define void @wide(
; WIDE-COUNT-2: load <4 x float>

; Adjacent constant addresses in constant memory: ptxas makes each an
; operand of its multiply, vector load or not.
; TAPS: ; explain: optimize: load/store vectorizer not run
; TAPS-LABEL: define void @taps(
; TAPS-COUNT-2: load float, ptr addrspace(4)

; x[i] and x[i + 1] touch, but a pointer argument's floats are aligned
; to 4 only, and NVPTX's vector accesses must be aligned to their size
; (conv1d's x[i + k]).
; UNALIGNED: ; explain: optimize: load/store vectorizer not run
; UNALIGNED-LABEL: define void @unaligned(
; UNALIGNED-COUNT-2: load float

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@taps_k = addrspace(4) externally_initialized global [2 x float] zeroinitializer, align 16

define void @clamped(ptr noalias readonly %in, ptr noalias %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in.range = icmp slt i32 %t, %n
  br i1 %in.range, label %body, label %done
body:
  %last = add nsw i32 %n, -1
  %l = add nsw i32 %t, -1
  %l0 = call i32 @llvm.smax.i32(i32 %l, i32 0)
  %r = add nsw i32 %t, 1
  %r0 = call i32 @llvm.smin.i32(i32 %r, i32 %last)
  %l64 = zext i32 %l0 to i64
  %r64 = zext i32 %r0 to i64
  %t64 = zext i32 %t to i64
  %pl = getelementptr inbounds float, ptr %in, i64 %l64
  %pc = getelementptr inbounds float, ptr %in, i64 %t64
  %pr = getelementptr inbounds float, ptr %in, i64 %r64
  %a = load float, ptr %pl, align 4
  %b = load float, ptr %pc, align 4
  %c = load float, ptr %pr, align 4
  %s1 = fadd float %a, %b
  %s2 = fadd float %s1, %c
  %q = getelementptr inbounds float, ptr %out, i64 %t64
  store float %s2, ptr %q, align 4
  br label %done
done:
  ret void
}


define void @wide(ptr noalias readonly align 16 %in, ptr noalias %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %k = shl nuw nsw i64 %t64, 1
  %pa = getelementptr inbounds <4 x float>, ptr %in, i64 %k
  %pb = getelementptr inbounds <4 x float>, ptr %pa, i64 1
  %a = load <4 x float>, ptr %pa, align 16
  %b = load <4 x float>, ptr %pb, align 16
  %s = fadd <4 x float> %a, %b
  %q = getelementptr inbounds <4 x float>, ptr %out, i64 %t64
  store <4 x float> %s, ptr %q, align 16
  ret void
}


define void @taps(ptr noalias readonly %in, ptr noalias %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %p = getelementptr inbounds float, ptr %in, i64 %t64
  %x = load float, ptr %p, align 4
  %k0 = load float, ptr addrspace(4) @taps_k, align 16
  %k1 = load float, ptr addrspace(4) getelementptr inbounds ([2 x float], ptr addrspace(4) @taps_k, i64 0, i64 1), align 4
  %a = fmul float %x, %k0
  %b = fmul float %a, %k1
  %q = getelementptr inbounds float, ptr %out, i64 %t64
  store float %b, ptr %q, align 4
  ret void
}

define void @unaligned(ptr noalias readonly %x, ptr noalias %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t1 = add nuw nsw i32 %t, 1
  %i0 = zext i32 %t to i64
  %i1 = zext i32 %t1 to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %i0
  %p1 = getelementptr inbounds float, ptr %x, i64 %i1
  %a = load float, ptr %p0, align 4
  %b = load float, ptr %p1, align 4
  %s = fadd float %a, %b
  %q = getelementptr inbounds float, ptr %out, i64 %i0
  store float %s, ptr %q, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @clamped, !"kernel", i32 1}
!1 = !{ptr @wide, !"kernel", i32 1}
!2 = !{ptr @taps, !"kernel", i32 1}
!3 = !{ptr @unaligned, !"kernel", i32 1}
