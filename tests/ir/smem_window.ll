; Window staging (smem_promote): loads of a read-only buffer at offsets
; 0..D along tid.x (or tid.y) go through a shared tile with its halo,
; filled once per block by guarded, coalesced loads before a barrier.
;
; RUN: ks_passes_tool --stage smem_promote --kernel conv --block 128 --bind 4=4 --bake 1=1,1,1,1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=CONV
; RUN: ks_passes_tool --stage all --kernel conv --block 128 --bind 4=4 --bake 1=1,1,1,1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=CONVO3
; RUN: ks_passes_tool --stage all --kernel conv --block 128 --bind 4=4 --bake 1=1,1,1,1 --no-pass smem_promote --no-pass tcoarsen %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage smem_promote --kernel rows --block 32,4 --bind 5=2 --bake 1=1,1,1,1,1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=ROWS
; RUN: ks_passes_tool --stage smem_promote --kernel rows --block 16,4 --bind 5=2 --bake 1=1,1,1,1,1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=PAD
; With the taps in memory, as many tap loads as window loads remain: along
; x that is declined (the cost rule), along y it is not.
; RUN: ks_passes_tool --stage smem_promote --kernel conv --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=WEIGH
; RUN: ks_passes_tool --stage smem_promote --kernel cols --block 16,8 --bind 5=1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=COLS

; WEIGH: ; explain: smem_promote: declined x: along x the warp's 4 loads already share L1 lines, and 4 other global loads per thread remain
; WEIGH-NOT: addrspace(3)

target triple = "nvptx64-nvidia-cuda"

; 1-D convolution: y[i] = sum_k x[i+k] * f[k], i = ctaid.x*ntid.x + tid.x.
; Tile element j holds x[ctaid.x*128 + j], j < 128+3; thread t reads
; elements t..t+3. The staging loads are guarded by i < n for the threads
; that read them, and the original loads of x are gone.
; CONV: ; explain: smem_promote: staged x: tile 128+3 floats x 1 rows = 524 B of shared memory, 4 loads now read shared memory
; CONV: @ks_window_x = internal addrspace(3) global [131 x float] undef, align 16
; CONV-LABEL: define void @conv(
; CONV-NEXT: ks.window:
; CONV-NEXT: %[[TID:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CONV: icmp slt i32 %{{[0-9]+}}, %n
; CONV: br i1 %{{[0-9]+}}, label %ks.window.load, label %ks.window.next
; CONV: ks.window.load:
; CONV: %[[A:[0-9]+]] = getelementptr float, ptr %x, i64
; CONV-NEXT: %[[V:[0-9]+]] = load float, ptr %[[A]], align 4
; CONV: store float %[[V]], ptr addrspace(3)
; CONV: ks.window.next:
; CONV-NEXT: %[[J:[0-9]+]] = add i32 %[[TID]], 128
; CONV-NEXT: icmp ult i32 %[[J]], 131
; CONV: ks.window.load{{[0-9]+}}:
; CONV: getelementptr float, ptr %x, i64
; CONV: store float %{{[0-9]+}}, ptr addrspace(3)
; CONV: call void @llvm.nvvm.barrier0()
; CONV-NEXT: %[[OWN:[0-9]+]] = add i32 0, %[[TID]]
; CONV-NEXT: br label %entry
; CONV: entry:
; CONV-NOT: barrier0
; CONV: add i32 %[[OWN]], 0
; CONV: load float, ptr addrspace(3)
; CONV: add i32 %[[OWN]], 1
; CONV: load float, ptr addrspace(3)
; CONV: add i32 %[[OWN]], 2
; CONV: load float, ptr addrspace(3)
; CONV: add i32 %[[OWN]], 3
; CONV: load float, ptr addrspace(3)
; CONV-NOT: load float, ptr %px
; CONV: ret void

; After default<O3>: two guarded loads of x per thread, one barrier, the four
; reads from the tile.
; CONVO3-LABEL: define void @conv(
; CONVO3: ks.window.load:
; CONVO3: load float, ptr addrspace(1) %
; CONVO3: ks.window.load{{[0-9]+}}:
; CONVO3: load float, ptr addrspace(1) %
; CONVO3-NOT: = load
; CONVO3: {{(tail )?}}call void @llvm.nvvm.barrier0()
; CONVO3-COUNT-4: load float, ptr addrspace(3)
; CONVO3-NOT: barrier0
; CONVO3: ret void

; OFF: ; explain: smem_promote: switched off
; OFF-NOT: addrspace(3)
; OFF-NOT: barrier0

; Row pass of a separable filter, clamped edges, a 2-D block: one tile row
; per tid.y, each staging load clamped as the original.
; ROWS: ; explain: smem_promote: staged in: tile 32+4 floats x 4 rows = 576 B of shared memory, 5 loads now read shared memory
; ROWS: @ks_window_in = internal addrspace(3) global [144 x float] undef
; ROWS-LABEL: define void @rows(
; ROWS: ks.window:
; ROWS: call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; ROWS: icmp slt i32 %{{[0-9]+}}, %h
; ROWS: ks.window.load:
; ROWS: getelementptr float, ptr %in
; ROWS: call i32 @llvm.smin.i32(
; ROWS: select i1
; ROWS: store float %{{[0-9]+}}, ptr addrspace(3)
; ROWS: ks.window.load{{[0-9]+}}:
; ROWS: call void @llvm.nvvm.barrier0()
; ROWS-COUNT-5: load float, ptr addrspace(3)
; ROWS: ret void

; With 16 threads per row, two rows share a warp: rows of 48 floats keep
; the two half-warps on distinct banks.
; PAD: ; explain: smem_promote: staged in: tile 16+4 floats x 4 rows (rows padded to 48) = 768 B of shared memory, 5 loads now read shared memory

; Column pass, clamps through llvm.smax/llvm.smin: the window is along y,
; B_y + 2R rows of B_x floats.
; COLS: ; explain: smem_promote: staged in: tile 16 floats x 8+2 rows (window along y) = 640 B of shared memory, 3 loads now read shared memory
; COLS: @ks_window_in = internal addrspace(3) global [160 x float] undef
; COLS-LABEL: define void @cols(
; COLS: ks.window.load:
; COLS: call i32 @llvm.smax.i32(
; COLS: call i32 @llvm.smin.i32(
; COLS: call void @llvm.nvvm.barrier0()
; COLS-COUNT-3: load float, ptr addrspace(3)
; COLS: ret void

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

define void @rows(ptr %in, ptr %c, ptr %out, i32 %w, i32 %h, i32 %R) {
entry:
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %x0 = mul i32 %bx, %nx
  %x = add i32 %x0, %tx
  %y0 = mul i32 %by, %ny
  %y = add i32 %y0, %ty
  %xin = icmp slt i32 %x, %w
  %yin = icmp slt i32 %y, %h
  %in2 = and i1 %xin, %yin
  br i1 %in2, label %pre, label %exit

pre:
  %ye = sext i32 %y to i64
  %we = sext i32 %w to i64
  %roff = mul nsw i64 %ye, %we
  %row = getelementptr inbounds float, ptr %in, i64 %roff
  %w1 = add nsw i32 %w, -1
  %negr = sub nsw i32 0, %R
  br label %head

head:
  %k = phi i32 [ %negr, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %cnd = icmp sle i32 %k, %R
  br i1 %cnd, label %body, label %done

body:
  %xk = add nsw i32 %x, %k
  %lo = icmp slt i32 %xk, 0
  %hi = icmp sgt i32 %xk, %w1
  %t = select i1 %hi, i32 %w1, i32 %xk
  %cl = select i1 %lo, i32 0, i32 %t
  %ce = sext i32 %cl to i64
  %p = getelementptr inbounds float, ptr %row, i64 %ce
  %v = load float, ptr %p, align 4
  %kr = add nsw i32 %k, %R
  %kre = sext i32 %kr to i64
  %pc = getelementptr inbounds float, ptr %c, i64 %kre
  %vc = load float, ptr %pc, align 4
  %m = fmul contract float %v, %vc
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %xe = sext i32 %x to i64
  %oi = add nsw i64 %roff, %xe
  %po = getelementptr inbounds float, ptr %out, i64 %oi
  store float %s, ptr %po, align 4
  br label %exit

exit:
  ret void
}

define void @cols(ptr %in, ptr %c, ptr %out, i32 %w, i32 %h, i32 %R) {
entry:
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %x0 = mul i32 %bx, %nx
  %x = add i32 %x0, %tx
  %y0 = mul i32 %by, %ny
  %y = add i32 %y0, %ty
  %xin = icmp slt i32 %x, %w
  %yin = icmp slt i32 %y, %h
  %in2 = and i1 %xin, %yin
  br i1 %in2, label %pre, label %exit

pre:
  %h1 = add nsw i32 %h, -1
  %negr = sub nsw i32 0, %R
  %we = sext i32 %w to i64
  %xe = sext i32 %x to i64
  br label %head

head:
  %k = phi i32 [ %negr, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %cnd = icmp sle i32 %k, %R
  br i1 %cnd, label %body, label %done

body:
  %yk = add nsw i32 %y, %k
  %mx = call i32 @llvm.smax.i32(i32 %yk, i32 0)
  %cl = call i32 @llvm.smin.i32(i32 %mx, i32 %h1)
  %ce = sext i32 %cl to i64
  %roff = mul nsw i64 %ce, %we
  %idx = add nsw i64 %roff, %xe
  %p = getelementptr inbounds float, ptr %in, i64 %idx
  %v = load float, ptr %p, align 4
  %kr = add nsw i32 %k, %R
  %kre = sext i32 %kr to i64
  %pc = getelementptr inbounds float, ptr %c, i64 %kre
  %vc = load float, ptr %pc, align 4
  %m = fmul contract float %v, %vc
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %ye = sext i32 %y to i64
  %oo = mul nsw i64 %ye, %we
  %oi = add nsw i64 %oo, %xe
  %po = getelementptr inbounds float, ptr %out, i64 %oi
  store float %s, ptr %po, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)

!nvvm.annotations = !{!10, !11, !12}
!10 = !{ptr @conv, !"kernel", i32 1}
!11 = !{ptr @rows, !"kernel", i32 1}
!12 = !{ptr @cols, !"kernel", i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.mustprogress"}
