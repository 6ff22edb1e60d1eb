; Store exchange (smem_promote): in a 2-D block, a kernel whose one store
; per thread is contiguous along y but strided along x (a transpose)
; stores through a shared tile after a barrier, each thread storing the
; element of its mirror thread (tid.x and tid.y swapped) in a square
; block, of the thread at its place in address order otherwise.
;
; RUN: ks_passes_tool --stage smem_promote --kernel transpose --block 32,32 %s | FileCheck %s --check-prefix=T
; RUN: ks_passes_tool --stage all --kernel transpose --block 32,32 %s | FileCheck %s --check-prefix=O3
; RUN: ks_passes_tool --stage all --kernel transpose --block 32,32 --no-pass smem_promote %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage smem_promote --kernel transpose --block 8,8 %s | FileCheck %s --check-prefix=T8
; RUN: ks_passes_tool --stage smem_promote --kernel copy --block 32,32 %s | FileCheck %s --check-prefix=COPY
; RUN: ks_passes_tool --stage smem_promote --kernel transpose --block 32,8 %s | FileCheck %s --check-prefix=RECT
; RUN: ks_passes_tool --stage all --kernel transpose --block 32,8 %s | FileCheck %s --check-prefix=RECTO3
; RUN: ks_passes_tool --stage smem_promote --kernel transpose --block 64,4 %s | FileCheck %s --check-prefix=SHORT
; RUN: ks_passes_tool --stage smem_promote --kernel transpose --block 32,8,2 %s | FileCheck %s --check-prefix=THREED
; RUN: ks_passes_tool --stage smem_promote --kernel inloop --block 32,32 %s | FileCheck %s --check-prefix=LOOP
; RUN: ks_passes_tool --stage smem_promote --kernel atomic --block 32,32 %s | FileCheck %s --check-prefix=ATOMIC
; RUN: ks_passes_tool --stage smem_promote --kernel barrier --block 32,32 %s | FileCheck %s --check-prefix=BARRIER
; RUN: ks_passes_tool --stage smem_promote --kernel twostores --block 32,32 %s | FileCheck %s --check-prefix=TWO
; RUN: ks_passes_tool --stage smem_promote --kernel gather --block 32,32 %s | FileCheck %s --check-prefix=GATHER
; RUN: ks_passes_tool --stage smem_promote --kernel early --block 32,32 %s | FileCheck %s --check-prefix=EARLY
; RUN: ks_passes_tool --stage smem_promote --kernel dataguard --block 32,32 %s | FileCheck %s --check-prefix=DATAGUARD

target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare void @llvm.nvvm.barrier0()

; out[x*rows + y] = in[y*cols + x], x = ctaid.x*32 + tid.x, y = ctaid.y*32
; + tid.y. The real block is 32x8: the body becomes a loop over the
; virtual rows vy = tid.y + 8j, j < 4, each clearing the flag of its slot
; (vy*33 + tid.x, computed as (tid.y*33 + tid.x) + 264j); the guarded
; store goes to the tile and sets the flag.
; After the loop, a barrier, then a loop kept rolled over the four rows r:
; the mirror slot (tid.x*33 + tid.y + 8r) is read and, if its flag is set,
; stored at the address rebuilt with the coordinates swapped (x from
; tid.y + 8r, y from tid.x).
; T: ; explain: smem_promote: exchanged out: stores of a 32x32 block go through a shared tile (8448 bytes), each warp writing contiguous memory; each thread runs 4 rows (real block 32x8)
; T: @ks_exchange_tile = internal addrspace(3) global [1056 x float] undef, align 16
; T: @ks_exchange_flag = internal addrspace(3) global [1056 x i32] undef, align 16
; T-LABEL: define void @transpose(
; T-NEXT: ks.exchange.entry:
; T-NEXT: %[[TX:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; T-NEXT: %[[TY:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; T-NEXT: %[[M:[0-9]+]] = mul i32 %[[TY]], 33
; T-NEXT: %[[OWN0:ks.exchange.own0]] = add i32 %[[M]], %[[TX]]
; T-NEXT: br label %entry
; T: entry:
; T-NEXT: %[[J:ks.exchange.j]] = phi i32 [ 0, %ks.exchange.entry ], [ %[[J1:[0-9]+]], %end ]
; T-NEXT: %[[J8:[0-9]+]] = mul i32 %[[J]], 8
; T-NEXT: %[[VY:ks.exchange.y]] = add i32 %[[TY]], %[[J8]]
; T-NEXT: %[[JS:[0-9]+]] = mul i32 %[[J]], 264
; T-NEXT: %[[OWN:ks.exchange.own]] = add i32 %[[OWN0]], %[[JS]]
; T-NEXT: %[[FP:[0-9]+]] = getelementptr i32, ptr addrspace(3) @ks_exchange_flag, i32 %[[OWN]]
; T-NEXT: store i32 0, ptr addrspace(3) %[[FP]]
; T-NOT: sreg.tid.y
; T: %y = add nuw nsw i32 %by5, %[[VY]]
; T: %[[V:[0-9a-z.]+]] = load float, ptr
; T: %[[TP:[0-9]+]] = getelementptr float, ptr addrspace(3) @ks_exchange_tile, i32 %[[OWN]]
; T-NEXT: store float %[[V]], ptr addrspace(3) %[[TP]]
; T-NEXT: %[[FP2:[0-9]+]] = getelementptr i32, ptr addrspace(3) @ks_exchange_flag, i32 %[[OWN]]
; T-NEXT: store i32 1, ptr addrspace(3) %[[FP2]]
; T-NOT: store float %[[V]], ptr %
; T: end:
; T-NEXT: %[[J1]] = add i32 %[[J]], 1
; T-NEXT: %[[MORE:[0-9]+]] = icmp ult i32 %[[J1]], 4
; T-NEXT: br i1 %[[MORE]], label %entry, label %ks.exchange
; T: ks.exchange:
; T-NEXT: call void @llvm.nvvm.barrier0()
; T-NEXT: br label %ks.exchange.row
; T: ks.exchange.row:
; T-NEXT: %[[R:ks.exchange.r]] = phi i32 [ 0, %ks.exchange ], [ %[[R1:[0-9]+]], %ks.exchange.next ]
; T-NEXT: %[[R8:[0-9]+]] = mul i32 %[[R]], 8
; T-NEXT: %[[MY:ks.exchange.my]] = add i32 %[[TY]], %[[R8]]
; T-NEXT: %[[M2:[0-9]+]] = mul i32 %[[TX]], 33
; T-NEXT: %[[OTHER:.+]] = add i32 %[[M2]], %[[MY]]
; T: load i32, ptr addrspace(3)
; T: br i1 %{{[0-9]+}}, label %ks.exchange.store, label %ks.exchange.next
; T: ks.exchange.store:
; T: %[[W:[0-9]+]] = load float, ptr addrspace(3)
; T: %[[CX:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; T-NEXT: %[[X5:[0-9]+]] = shl i32 %[[CX]], 5
; T-NEXT: add i32 %[[X5]], %[[MY]]
; T: %[[CY:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
; T-NEXT: %[[Y5:[0-9]+]] = shl i32 %[[CY]], 5
; T-NEXT: add i32 %[[Y5]], %[[TX]]
; T: store float %[[W]], ptr %{{[0-9]+}}, align 4
; T: ks.exchange.next:
; T-NEXT: %[[R1]] = add i32 %[[R]], 1
; T-NEXT: %[[RM:[0-9]+]] = icmp ult i32 %[[R1]], 4
; T-NEXT: br i1 %[[RM]], label %ks.exchange.row, label %ks.exchange.done, !llvm.loop ![[ROLLED:[0-9]+]]
; T: ks.exchange.done:
; T-NEXT: ret void
; T: !{ptr @transpose, !"reqntidx", i32 32}
; T: !{ptr @transpose, !"reqntidy", i32 8}
; T: ![[ROLLED]] = distinct !{![[ROLLED]], ![[DIS:[0-9]+]]}
; T: ![[DIS]] = !{!"llvm.loop.unroll.disable"}

; After the whole pipeline: one barrier, the global store after it.
; O3-LABEL: define void @transpose(
; O3: store float %{{.*}}, ptr addrspace(3)
; O3: call void @llvm.nvvm.barrier0()
; O3: store float %{{.*}}, ptr %
; O3-NOT: barrier0
; O3: ret void
; OFF-NOT: explain: smem_promote: exchanged
; OFF-LABEL: define void @transpose(
; OFF-NOT: addrspace(3)
; OFF-NOT: barrier0
; OFF: ret void

; A small block: one row per thread, no loop.
; T8: ; explain: smem_promote: exchanged out: stores of a 8x8 block go through a shared tile (576 bytes), each warp writing contiguous memory
; T8: @ks_exchange_tile = internal addrspace(3) global [72 x float]
; T8-LABEL: define void @transpose(
; T8-NOT: phi
; T8: call void @llvm.nvvm.barrier0()
; T8: store float
; T8-NOT: store float
; T8: ret void
; T8: !{ptr @transpose, !"reqntidy", i32 8}

; Contiguous along x already: nothing to do, nothing said.
; COPY-NOT: exchange
; COPY-LABEL: define void @copy(
; COPY-NOT: barrier0
; COPY: ret void

; A block that is not square: thread (a, b) fills its slot b*36 + a; after
; the barrier the thread of linear id L = tid.y*32 + tid.x stores for
; thread (L / 8, L % 8), whose address is rebuilt with tid.x = L / 8 and
; tid.y = L % 8: lanes 0..31 of a warp store 4 runs of 8 floats. The pitch
; 36 puts the reads of a warp (4 columns of 8) in 32 distinct banks. No
; virtual rows: the real block is the launch's.
; RECT: ; explain: smem_promote: exchanged out: stores of a 32x8 block go through a shared tile (2304 bytes), each warp writing runs of 32 contiguous bytes
; RECT: @ks_exchange_tile = internal addrspace(3) global [288 x float] undef, align 16
; RECT: @ks_exchange_flag = internal addrspace(3) global [288 x i32] undef, align 16
; RECT-LABEL: define void @transpose(
; RECT-NEXT: ks.exchange.entry:
; RECT-NEXT: %[[TX:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; RECT-NEXT: %[[TY:[0-9]+]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; RECT-NEXT: %[[M:[0-9]+]] = mul i32 %[[TY]], 36
; RECT-NEXT: %[[OWN:ks.exchange.own0]] = add i32 %[[M]], %[[TX]]
; RECT-NOT: phi
; RECT: store i32 0, ptr addrspace(3)
; RECT: %[[V:[0-9a-z.]+]] = load float, ptr
; RECT: %[[TP:[0-9]+]] = getelementptr float, ptr addrspace(3) @ks_exchange_tile, i32 %[[OWN]]
; RECT-NEXT: store float %[[V]], ptr addrspace(3) %[[TP]]
; RECT-NEXT: %[[FP:[0-9]+]] = getelementptr i32, ptr addrspace(3) @ks_exchange_flag, i32 %[[OWN]]
; RECT-NEXT: store i32 1, ptr addrspace(3) %[[FP]]
; RECT-NOT: store float %[[V]], ptr %
; RECT: ks.exchange:
; RECT-NEXT: call void @llvm.nvvm.barrier0()
; RECT-NEXT: %[[L0:[0-9]+]] = mul i32 %[[TY]], 32
; RECT-NEXT: %[[L:[0-9]+]] = add i32 %[[L0]], %[[TX]]
; RECT-NEXT: %[[A:ks.exchange.a]] = udiv i32 %[[L]], 8
; RECT-NEXT: %[[B:ks.exchange.b]] = urem i32 %[[L]], 8
; RECT-NEXT: %[[BP:[0-9]+]] = mul i32 %[[B]], 36
; RECT-NEXT: %[[OTHER:ks.exchange.other]] = add i32 %[[BP]], %[[A]]
; RECT-NEXT: getelementptr i32, ptr addrspace(3) @ks_exchange_flag, i32 %[[OTHER]]
; RECT: ks.exchange.store:
; RECT-NEXT: getelementptr float, ptr addrspace(3) @ks_exchange_tile, i32 %[[OTHER]]
; RECT-NEXT: %[[W:[0-9]+]] = load float, ptr addrspace(3)
; RECT: add i32 %{{[0-9]+}}, %[[A]]
; RECT: add i32 %{{[0-9]+}}, %[[B]]
; RECT: store float %[[W]], ptr %{{[0-9]+}}, align 4
; RECT: ks.exchange.next:
; RECT-NEXT: ret void
; RECT: !{ptr @transpose, !"reqntidy", i32 8}
; RECTO3-LABEL: define void @transpose(
; RECTO3: store float %{{.*}}, ptr addrspace(3)
; RECTO3: call void @llvm.nvvm.barrier0()
; RECTO3: store float %{{.*}}, ptr %
; RECTO3-NOT: barrier0
; RECTO3: ret void

; Runs of 4 floats along y are under a 32-byte sector: a warp's stores
; would cover as many sectors after the exchange as before.
; SHORT: ; explain: smem_promote: declined exchange of out: a 4-row block stores runs of 16 bytes, under a 32-byte sector
; SHORT-LABEL: define void @transpose(
; SHORT-NOT: barrier0
; SHORT: ret void

; THREED: ; explain: smem_promote: declined exchange of out: block 32x8x2 is not 2-D
; THREED-LABEL: define void @transpose(
; THREED-NOT: barrier0
; THREED: ret void

define void @transpose(ptr %in, ptr %out, i32 %rows, i32 %cols) {
entry:
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bx5 = shl i32 %bx, 5
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = add i32 %bx5, %tx
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %by5 = shl nuw nsw i32 %by, 5
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %y = add nuw nsw i32 %by5, %ty
  %c1 = icmp slt i32 %x, %cols
  %c2 = icmp slt i32 %y, %rows
  %c = and i1 %c1, %c2
  br i1 %c, label %then, label %end

then:
  %y64 = zext nneg i32 %y to i64
  %cols64 = sext i32 %cols to i64
  %row = mul nsw i64 %y64, %cols64
  %x64 = sext i32 %x to i64
  %p0 = getelementptr float, ptr %in, i64 %row
  %p = getelementptr float, ptr %p0, i64 %x64
  %v = load float, ptr %p, align 4
  %rows64 = zext nneg i32 %rows to i64
  %col = mul nsw i64 %x64, %rows64
  %q0 = getelementptr float, ptr %out, i64 %col
  %q = getelementptr float, ptr %q0, i64 %y64
  store float %v, ptr %q, align 4
  br label %end

end:
  ret void
}

; out[y*cols + x] = in[y*cols + x]
define void @copy(ptr %in, ptr %out, i32 %cols) {
entry:
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bx5 = shl i32 %bx, 5
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %x = add i32 %bx5, %tx
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %by5 = shl i32 %by, 5
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %y = add i32 %by5, %ty
  %yc = mul i32 %y, %cols
  %i = add i32 %yc, %x
  %i64 = sext i32 %i to i64
  %p = getelementptr float, ptr %in, i64 %i64
  %v = load float, ptr %p, align 4
  %q = getelementptr float, ptr %out, i64 %i64
  store float %v, ptr %q, align 4
  ret void
}

; The store runs in a loop (as often as the data say): a thread may store
; more than once.
; LOOP: ; explain: smem_promote: declined exchange of out: the store may run in a loop
; LOOP-LABEL: define void @inloop(
; LOOP-NOT: barrier0
; LOOP: ret void
define void @inloop(ptr %in, ptr %out, i32 %rows) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %rows64 = sext i32 %rows to i64
  %xr = mul i64 %tx64, %rows64
  %j64 = add i64 %xr, %ty64
  %q = getelementptr float, ptr %out, i64 %j64
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %p = getelementptr float, ptr %in, i64 %k
  %v = load float, ptr %p, align 4
  store float %v, ptr %q, align 4
  %k1 = add i64 %k, 1
  %more = fcmp ogt float %v, 0.0
  br i1 %more, label %loop, label %end
end:
  ret void
}

; (max: not privatized, which an add would be under a run-time alias check)
; ATOMIC: ; explain: smem_promote: declined exchange of out: it has atomics
define void @atomic(ptr %in, ptr %out, ptr %cnt, i32 %rows) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %rows64 = sext i32 %rows to i64
  %xr = mul i64 %tx64, %rows64
  %j64 = add i64 %xr, %ty64
  %v = load float, ptr %in, align 4
  %q = getelementptr float, ptr %out, i64 %j64
  store float %v, ptr %q, align 4
  %old = atomicrmw max ptr %cnt, i32 1 monotonic
  ret void
}

; BARRIER: ; explain: smem_promote: declined exchange of out: it has barriers
define void @barrier(ptr %in, ptr %out, i32 %rows) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %rows64 = sext i32 %rows to i64
  %xr = mul i64 %tx64, %rows64
  %j64 = add i64 %xr, %ty64
  call void @llvm.nvvm.barrier0()
  %v = load float, ptr %in, align 4
  %q = getelementptr float, ptr %out, i64 %j64
  store float %v, ptr %q, align 4
  ret void
}

; Two stores per thread: not a case this pass handles; it says nothing.
; TWO-NOT: exchange
; TWO-LABEL: define void @twostores(
; TWO-NOT: barrier0
; TWO: ret void
define void @twostores(ptr %in, ptr %out, i32 %rows) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %rows64 = sext i32 %rows to i64
  %xr = mul i64 %tx64, %rows64
  %j64 = add i64 %xr, %ty64
  %v = load float, ptr %in, align 4
  %q = getelementptr float, ptr %out, i64 %j64
  store float %v, ptr %q, align 4
  store float %v, ptr %in, align 4
  ret void
}

; The address comes from memory: no normal form, no exchange.
; GATHER-NOT: exchange
; GATHER-LABEL: define void @gather(
; GATHER-NOT: barrier0
; GATHER: ret void
define void @gather(ptr %in, ptr %out, ptr %idx) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %t = mul i32 %ty, 32
  %t2 = add i32 %t, %tx
  %t64 = sext i32 %t2 to i64
  %pi = getelementptr i32, ptr %idx, i64 %t64
  %k = load i32, ptr %pi, align 4
  %k64 = sext i32 %k to i64
  %v = load float, ptr %in, align 4
  %q = getelementptr float, ptr %out, i64 %k64
  store float %v, ptr %q, align 4
  ret void
}

; A thread may stop early (unreachable after a trap): some threads would
; never reach the barrier.
; EARLY: ; explain: smem_promote: declined exchange of out: it calls llvm.trap
; EARLY-LABEL: define void @early(
; EARLY-NOT: barrier0
; EARLY: ret void
declare void @llvm.trap()
define void @early(ptr %in, ptr %out, i32 %rows) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %z = icmp eq i32 %rows, 0
  br i1 %z, label %stop, label %go
stop:
  call void @llvm.trap()
  unreachable
go:
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %rows64 = sext i32 %rows to i64
  %xr = mul i64 %tx64, %rows64
  %j64 = add i64 %xr, %ty64
  %v = load float, ptr %in, align 4
  %q = getelementptr float, ptr %out, i64 %j64
  store float %v, ptr %q, align 4
  ret void
}

; Whether a thread stores depends on the data it loaded: the flags carry
; that to the mirror thread, so the exchange still applies.
; DATAGUARD: ; explain: smem_promote: exchanged out
; DATAGUARD: store i32 1, ptr addrspace(3)
define void @dataguard(ptr %in, ptr %out, i32 %rows) {
entry:
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %t = mul i32 %ty, 32
  %t2 = add i32 %t, %tx
  %t64 = sext i32 %t2 to i64
  %p = getelementptr float, ptr %in, i64 %t64
  %v = load float, ptr %p, align 4
  %pos = fcmp ogt float %v, 0.0
  br i1 %pos, label %st, label %end
st:
  %tx64 = zext i32 %tx to i64
  %ty64 = zext i32 %ty to i64
  %rows64 = sext i32 %rows to i64
  %xr = mul i64 %tx64, %rows64
  %j64 = add i64 %xr, %ty64
  %q = getelementptr float, ptr %out, i64 %j64
  store float %v, ptr %q, align 4
  br label %end
end:
  ret void
}
