; A loop whose body touches no memory and uses its counter only to count
; (mc_call's random walk: `for (p = 0; p < paths; p++)` over registers)
; gets no request to unroll in full: the copies would fold nothing and
; overlap no load, and cost the instruction cache (mc_call<128> with paths
; bound to 256: 25,000 SASS instructions). LLVM's own limits decide, as for
; the generic kernel: the loop stays. @indexed reads in[p]: its counter is an
; index, and it is unrolled in full as before.
;
; RUN: ks_passes_tool --stage all --kernel walk --block 128 --bind 2=256 %s | FileCheck %s --check-prefix=WALK
; RUN: ks_passes_tool --stage all --kernel indexed --block 128 --bind 2=256 %s | FileCheck %s --check-prefix=INDEXED

target triple = "nvptx64-nvidia-cuda"

; WALK: ; explain: loops: loop head left to LLVM's own unrolling limits: its {{[0-9]+}} instructions touch no memory and use its counter only to count
; WALK-LABEL: define void @walk(
; WALK: phi i32
; WALK: br i1 %{{.*}}, label %{{.*}}, label %{{.*}}

; INDEXED-NOT: left to LLVM's own unrolling limits
; INDEXED-LABEL: define void @indexed(
; INDEXED-NOT: phi i32
; INDEXED-COUNT-256: load float
; INDEXED: ret void

define void @walk(ptr noalias %out, ptr noalias %in, i32 %paths, i32 %seed) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %st0 = xor i32 %seed, %tid
  br label %head

head:
  %p = phi i32 [ 0, %entry ], [ %p.next, %body ]
  %st = phi i32 [ %st0, %entry ], [ %st.next, %body ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %body ]
  %more = icmp slt i32 %p, %paths
  br i1 %more, label %body, label %done

body:
  %s1 = shl i32 %st, 13
  %s2 = xor i32 %st, %s1
  %s3 = lshr i32 %s2, 17
  %s4 = xor i32 %s2, %s3
  %s5 = shl i32 %s4, 5
  %st.next = xor i32 %s4, %s5
  %u = uitofp i32 %st.next to float
  %m0 = fmul contract float %u, 0x3E80000000000000
  %a0 = fadd contract float %m0, 1.000000e+00
  %m1 = fmul contract float %a0, 0x3E80000000000000
  %a1 = fadd contract float %m1, 1.000000e+00
  %m2 = fmul contract float %a1, 0x3E80000000000000
  %a2 = fadd contract float %m2, 1.000000e+00
  %m3 = fmul contract float %a2, 0x3E80000000000000
  %a3 = fadd contract float %m3, 1.000000e+00
  %m4 = fmul contract float %a3, 0x3E80000000000000
  %a4 = fadd contract float %m4, 1.000000e+00
  %m5 = fmul contract float %a4, 0x3E80000000000000
  %a5 = fadd contract float %m5, 1.000000e+00
  %m6 = fmul contract float %a5, 0x3E80000000000000
  %a6 = fadd contract float %m6, 1.000000e+00
  %m7 = fmul contract float %a6, 0x3E80000000000000
  %a7 = fadd contract float %m7, 1.000000e+00
  %m8 = fmul contract float %a7, 0x3E80000000000000
  %a8 = fadd contract float %m8, 1.000000e+00
  %m9 = fmul contract float %a8, 0x3E80000000000000
  %a9 = fadd contract float %m9, 1.000000e+00
  %m10 = fmul contract float %a9, 0x3E80000000000000
  %a10 = fadd contract float %m10, 1.000000e+00
  %m11 = fmul contract float %a10, 0x3E80000000000000
  %a11 = fadd contract float %m11, 1.000000e+00
  %m12 = fmul contract float %a11, 0x3E80000000000000
  %a12 = fadd contract float %m12, 1.000000e+00
  %m13 = fmul contract float %a12, 0x3E80000000000000
  %a13 = fadd contract float %m13, 1.000000e+00
  %m14 = fmul contract float %a13, 0x3E80000000000000
  %a14 = fadd contract float %m14, 1.000000e+00
  %m15 = fmul contract float %a14, 0x3E80000000000000
  %a15 = fadd contract float %m15, 1.000000e+00
  %acc.next = fadd contract float %acc, %a15

  %p.next = add nsw i32 %p, 1
  br label %head, !llvm.loop !0

done:
  %te = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr %out, i64 %te
  store float %acc, ptr %po, align 4
  ret void
}

define void @indexed(ptr noalias %out, ptr noalias %in, i32 %paths, i32 %seed) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %st0 = xor i32 %seed, %tid
  br label %head

head:
  %p = phi i32 [ 0, %entry ], [ %p.next, %body ]
  %st = phi i32 [ %st0, %entry ], [ %st.next, %body ]
  %acc = phi float [ 0.0, %entry ], [ %acc.x, %body ]
  %more = icmp slt i32 %p, %paths
  br i1 %more, label %body, label %done

body:
  %s1 = shl i32 %st, 13
  %s2 = xor i32 %st, %s1
  %s3 = lshr i32 %s2, 17
  %s4 = xor i32 %s2, %s3
  %s5 = shl i32 %s4, 5
  %st.next = xor i32 %s4, %s5
  %u = uitofp i32 %st.next to float
  %m0 = fmul contract float %u, 0x3E80000000000000
  %a0 = fadd contract float %m0, 1.000000e+00
  %m1 = fmul contract float %a0, 0x3E80000000000000
  %a1 = fadd contract float %m1, 1.000000e+00
  %m2 = fmul contract float %a1, 0x3E80000000000000
  %a2 = fadd contract float %m2, 1.000000e+00
  %m3 = fmul contract float %a2, 0x3E80000000000000
  %a3 = fadd contract float %m3, 1.000000e+00
  %m4 = fmul contract float %a3, 0x3E80000000000000
  %a4 = fadd contract float %m4, 1.000000e+00
  %m5 = fmul contract float %a4, 0x3E80000000000000
  %a5 = fadd contract float %m5, 1.000000e+00
  %m6 = fmul contract float %a5, 0x3E80000000000000
  %a6 = fadd contract float %m6, 1.000000e+00
  %m7 = fmul contract float %a6, 0x3E80000000000000
  %a7 = fadd contract float %m7, 1.000000e+00
  %m8 = fmul contract float %a7, 0x3E80000000000000
  %a8 = fadd contract float %m8, 1.000000e+00
  %m9 = fmul contract float %a8, 0x3E80000000000000
  %a9 = fadd contract float %m9, 1.000000e+00
  %m10 = fmul contract float %a9, 0x3E80000000000000
  %a10 = fadd contract float %m10, 1.000000e+00
  %m11 = fmul contract float %a10, 0x3E80000000000000
  %a11 = fadd contract float %m11, 1.000000e+00
  %m12 = fmul contract float %a11, 0x3E80000000000000
  %a12 = fadd contract float %m12, 1.000000e+00
  %m13 = fmul contract float %a12, 0x3E80000000000000
  %a13 = fadd contract float %m13, 1.000000e+00
  %m14 = fmul contract float %a13, 0x3E80000000000000
  %a14 = fadd contract float %m14, 1.000000e+00
  %m15 = fmul contract float %a14, 0x3E80000000000000
  %a15 = fadd contract float %m15, 1.000000e+00
  %acc.next = fadd contract float %acc, %a15
  %pe = zext i32 %p to i64
  %pi = getelementptr inbounds float, ptr %in, i64 %pe
  %vi = load float, ptr %pi, align 4
  %acc.x = fadd contract float %acc.next, %vi
  %p.next = add nsw i32 %p, 1
  br label %head, !llvm.loop !0

done:
  %te = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr %out, i64 %te
  store float %acc, ptr %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
