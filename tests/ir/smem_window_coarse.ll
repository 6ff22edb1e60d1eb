target triple = "nvptx64-nvidia-cuda"
; Window staging after tcoarsen: real thread t runs virtual threads 4t+j,
; its window is x[256*ctaid + 4t + e], e = 0..D (D = 3 + taps-1). The tile
; holds 4*63+D+1 elements (rows of whole <4 x float> groups), staged by
; real thread t at elements t, t+64, ... from x + 4*(256*ctaid + E), each
; guarded by "some real thread in [lo, hi] has all four virtual threads
; below n": with v = 256*ctaid + 4*t + 3 stepping by 4, the wrap test uses
; the extremes = 3 (mod 4), INT_MIN+3 and INT_MAX. Reads are <4 x float>.
;
; RUN: ks_passes_tool --stage smem_promote --kernel conv --block 256 --bind 4=8 %s | FileCheck %s --check-prefix=STAGE
; RUN: ks_passes_tool --stage all --kernel conv --block 256 --bind 4=8 %s | FileCheck %s --check-prefix=O3
; Four taps: 7 window loads against 4 tile reads + 5 staging loads: declined.
; RUN: ks_passes_tool --stage smem_promote --kernel conv --block 256 --bind 4=4 %s | FileCheck %s --check-prefix=WEIGH
; Without tcoarsen the 8-tap window along x is weighed as before (declined).
; RUN: ks_passes_tool --stage smem_promote --kernel conv --block 256 --bind 4=8 --no-pass tcoarsen %s | FileCheck %s --check-prefix=PLAIN

; STAGE: ; explain: tcoarsen: coarsened x by 4: real block 64x1x1
; STAGE: ; explain: smem_promote: declined x: index not understood: index depends on a phi
; STAGE: ; explain: smem_promote: staged x: coarsened by 4, tile 4*63+11 floats x 1 rows = 1056 B of shared memory, staged in 5 loads per thread; 11 loads now read shared memory as 5 reads
; STAGE: @ks_window_x = internal addrspace(3) global [264 x float] undef, align 16
; STAGE-LABEL: define void @conv(
; STAGE-NEXT: ks.window:
; STAGE-NEXT: %[[TID:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; STAGE: %[[P0:[0-9]+]] = getelementptr float, ptr %x, i64
; lo = max(0, ceil((j - 10)/4)), hi = min(63, j/4)
; STAGE: sub i32 %{{[0-9]+}}, 10
; STAGE: lshr i32 %{{[0-9]+}}, 2
; STAGE: icmp ult i32 %{{[0-9]+}}, 63
; STAGE: icmp slt i32 -2147483645, %n
; STAGE: icmp slt i32 2147483647, %n
; STAGE: br i1 %{{[0-9]+}}, label %ks.window.load, label %ks.window.next
; STAGE: ks.window.load:
; STAGE: getelementptr i8, ptr %[[P0]], i64
; STAGE: store float %{{[0-9]+}}, ptr addrspace(3)
; the fifth step is the last: j < 4*63+11
; STAGE: icmp ult i32 %{{[0-9]+}}, 263
; STAGE: call void @llvm.nvvm.barrier0()
; STAGE-NEXT: mul i32 %[[TID]], 4
; STAGE: ks.tc.lock2:
; STAGE-NOT: load float, ptr %{{[0-9]+}}
; STAGE: load <4 x float>, ptr addrspace(3) %{{[0-9]+}}, align 16
; STAGE: load <4 x float>, ptr addrspace(3) %{{[0-9]+}}, align 16
; STAGE: ks.tc.lock3:
; the serial copy keeps its global loads
; STAGE: ks.tc.serial2:
; STAGE: load float, ptr %{{[0-9]+}}, align 4

; O3: @ks_window_x = internal addrspace(3) global [264 x float] undef, align 16
; O3: load <4 x float>, ptr addrspace(3)
; O3: load <4 x float>, ptr addrspace(3)

; WEIGH: ; explain: smem_promote: declined x: coarsened by 4: 7 window loads per thread would become 4 tile reads and 5 staging loads, with 4 other global loads remaining: not fewer loads issued
; WEIGH-NOT: addrspace(3)

; PLAIN-NOT: tcoarsen: coarsened
; PLAIN: ; explain: smem_promote: declined x: along x the warp's 8 loads already share L1 lines
; PLAIN-NOT: addrspace(3)

define void @conv(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

!nvvm.annotations = !{!10}
!10 = !{ptr @conv, !"kernel", i32 1}
!1 = distinct !{!1}
