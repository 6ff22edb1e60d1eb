; bounds: a user template whose shared tile holds TILE*TILE floats for
; TILE up to 128 (64 KiB), over the 48 KiB of static shared memory a
; block may have; the tile is declared at its upper bound
target triple = "nvptx64-nvidia-cuda"
@tile = internal addrspace(3) global [16384 x float] undef, align 4
@.str = private unnamed_addr constant [27 x i8] c"kspec.param TILE 128 1 128\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr null, i32 0, ptr null }], section "llvm.metadata"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
define void @k(ptr %out, i32 %TILE) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n = mul i32 %TILE, %TILE
  %i = urem i32 %t, %n
  %j = sub i32 %n, 1
  %r = sub i32 %j, %i
  %a = getelementptr [16384 x float], ptr addrspace(3) @tile, i32 0, i32 %i
  store float 1.0, ptr addrspace(3) %a
  call void @llvm.nvvm.barrier0()
  %b = getelementptr [16384 x float], ptr addrspace(3) @tile, i32 0, i32 %r
  %v = load float, ptr addrspace(3) %b
  %o = getelementptr float, ptr %out, i32 %t
  store float %v, ptr %o
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
