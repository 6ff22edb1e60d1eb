; The optimize stage runs LLVM's load/store vectorizer where two loads or
; stores of a block are adjacent and aligned for a vector
; (passes/vectorize.c), rather than codegen running it on every kernel.
; Where it runs, it merges as it did in codegen.
; RUN: ks_passes_tool --stage all --kernel quad %s | FileCheck %s --check-prefix=QUAD
; RUN: ks_passes_tool --stage all --kernel pairs %s | FileCheck %s --check-prefix=PAIRS
; RUN: ks_passes_tool --stage all --kernel wrap %s | FileCheck %s --check-prefix=WRAP

; A float4 read as four floats: one vector load.
; QUAD-NOT: vectorizer not run
; QUAD-LABEL: define void @quad(
; QUAD: load <4 x float>, ptr
; QUAD-NOT: load float
; QUAD: ret void

; p[2i] and p[2i+1], the second index an `or` with 1, at 8 bytes'
; alignment: one vector load.
; PAIRS-NOT: vectorizer not run
; PAIRS-LABEL: define void @pairs(
; PAIRS: load <2 x float>
; PAIRS-NOT: load float
; PAIRS: ret void

; Constant offsets past 2^63 bytes wrap (no overflow in the screen, which
; the sanitizer build checks): 4 * 2^62 is 0 and 4 * (2^63 - 1) is -4, so
; the two loads are adjacent, as their addresses are.
; WRAP-LABEL: define void @wrap(
; WRAP: ret void

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%float4 = type { float, float, float, float }

define void @quad(ptr noalias readonly align 16 %in, ptr noalias %out, i32 %n) {
entry:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %d = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bd = mul i32 %b, %d
  %i = add i32 %bd, %t
  %in.range = icmp slt i32 %i, %n
  br i1 %in.range, label %body, label %done
body:
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds %float4, ptr %in, i64 %i64
  %x = load float, ptr %p, align 16
  %py = getelementptr inbounds %float4, ptr %p, i64 0, i32 1
  %y = load float, ptr %py, align 4
  %pz = getelementptr inbounds %float4, ptr %p, i64 0, i32 2
  %z = load float, ptr %pz, align 8
  %pw = getelementptr inbounds %float4, ptr %p, i64 0, i32 3
  %w = load float, ptr %pw, align 4
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %z
  %s3 = fadd float %s2, %w
  %q = getelementptr inbounds float, ptr %out, i64 %i64
  store float %s3, ptr %q, align 4
  br label %done
done:
  ret void
}

define void @pairs(ptr noalias readonly align 8 %in, ptr noalias %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in.range = icmp slt i32 %t, %n
  br i1 %in.range, label %body, label %done
body:
  %k = shl nuw nsw i32 %t, 1
  %k1 = or disjoint i32 %k, 1
  %k64 = zext i32 %k to i64
  %k164 = zext i32 %k1 to i64
  %pa = getelementptr inbounds float, ptr %in, i64 %k64
  %pb = getelementptr inbounds float, ptr %in, i64 %k164
  %a = load float, ptr %pa, align 8
  %b = load float, ptr %pb, align 4
  %s = fadd float %a, %b
  %t64 = zext i32 %t to i64
  %q = getelementptr inbounds float, ptr %out, i64 %t64
  store float %s, ptr %q, align 4
  br label %done
done:
  ret void
}

define void @wrap(ptr noalias readonly %in, ptr noalias %out) {
entry:
  %pa = getelementptr float, ptr %in, i64 4611686018427387904
  %pb = getelementptr float, ptr %in, i64 9223372036854775807
  %a = load float, ptr %pa, align 4
  %b = load float, ptr %pb, align 4
  %s = fadd float %a, %b
  store float %s, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @quad, !"kernel", i32 1}
!1 = !{ptr @pairs, !"kernel", i32 1}
!2 = !{ptr @wrap, !"kernel", i32 1}
