; child codegen: a wmma load needs sm_70
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %r = call {float,float,float,float,float,float,float,float} @llvm.nvvm.wmma.m16n16k16.load.c.row.f32.p0(ptr %p)
  %x = extractvalue {float,float,float,float,float,float,float,float} %r, 0
  store float %x, ptr %p
  ret void
}
declare {float,float,float,float,float,float,float,float} @llvm.nvvm.wmma.m16n16k16.load.c.row.f32.p0(ptr)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
