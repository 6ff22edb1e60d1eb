; The regpressure estimate on a straight-line kernel, counted by hand:
; x and y are 64-bit pointers (2 registers each), the loads are floats (1),
; the GEPs with constant offsets fold into the loads' addresses (0). Most
; live: before the third load, {x, a, b, y} = 2 + 1 + 1 + 2 = 6. The
; estimate is 6 * 115% (6, rounded down) + 2 = 8; 3 loads in the block add
; 3/4 = 0. The budget follows the launch bounds.
;
; RUN: ks_passes_tool --stage all %s | FileCheck %s
; RUN: ks_passes_tool --stage all --block 1024,1,1 %s | FileCheck %s --check-prefix=B1024
; RUN: ks_passes_tool --stage all --no-pass regpressure %s | FileCheck %s --check-prefix=OFF

target triple = "nvptx64-nvidia-cuda"

; CHECK: ; explain: regpressure: estimated 8 registers per thread; budget 255 (from no launch bounds)
; B1024: ; explain: regpressure: estimated 8 registers per thread; budget 64 (from block of 1024 threads, minctasm 1)
; OFF: ; explain: regpressure: switched off
; OFF-NOT: estimated

define void @k(ptr %x, ptr %y) {
  %a = load float, ptr %x, align 4
  %p1 = getelementptr inbounds float, ptr %x, i64 1
  %b = load float, ptr %p1, align 4
  %p2 = getelementptr inbounds float, ptr %x, i64 2
  %c = load float, ptr %p2, align 4
  %s = fadd float %a, %b
  %t = fadd float %s, %c
  store float %t, ptr %y, align 4
  ret void
}
