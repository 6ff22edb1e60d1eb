; tex_hw.ll - host stand-ins for the NVVM texture fetches of a kernel that
; --tex made (tex_hw_sim.sh renames llvm.nvvm.tex.unified.2d/3d.v4<T>.f32 to
; these): each asks tex_grid.c's sim_tex_fetch for element 0 and returns
; the four elements as the intrinsic does.
declare void @sim_tex_fetch(i64, float, float, ptr, ptr)

define { float, float, float, float } @sim_tex_v4f32(i64 %t, float %x, float %y) {
  %f = alloca [4 x float], align 4
  %i = alloca [4 x i32], align 4
  call void @sim_tex_fetch(i64 %t, float %x, float %y, ptr %f, ptr %i)
  %v = load float, ptr %f, align 4
  %r = insertvalue { float, float, float, float } zeroinitializer, float %v, 0
  ret { float, float, float, float } %r
}

define { i32, i32, i32, i32 } @sim_tex_v4s32(i64 %t, float %x, float %y) {
  %f = alloca [4 x float], align 4
  %i = alloca [4 x i32], align 4
  call void @sim_tex_fetch(i64 %t, float %x, float %y, ptr %f, ptr %i)
  %v = load i32, ptr %i, align 4
  %r = insertvalue { i32, i32, i32, i32 } zeroinitializer, i32 %v, 0
  ret { i32, i32, i32, i32 } %r
}

define { i32, i32, i32, i32 } @sim_tex_v4u32(i64 %t, float %x, float %y) {
  %r = call { i32, i32, i32, i32 } @sim_tex_v4s32(i64 %t, float %x, float %y)
  ret { i32, i32, i32, i32 } %r
}

; 3-D (llvm.nvvm.tex.unified.3d.v4<T>.f32)
declare void @sim_tex_fetch3(i64, float, float, float, ptr, ptr)

define { float, float, float, float } @sim_tex3_v4f32(i64 %t, float %x, float %y, float %z) {
  %f = alloca [4 x float], align 4
  %i = alloca [4 x i32], align 4
  call void @sim_tex_fetch3(i64 %t, float %x, float %y, float %z, ptr %f, ptr %i)
  %v = load float, ptr %f, align 4
  %r = insertvalue { float, float, float, float } zeroinitializer, float %v, 0
  ret { float, float, float, float } %r
}

define { i32, i32, i32, i32 } @sim_tex3_v4s32(i64 %t, float %x, float %y, float %z) {
  %f = alloca [4 x float], align 4
  %i = alloca [4 x i32], align 4
  call void @sim_tex_fetch3(i64 %t, float %x, float %y, float %z, ptr %f, ptr %i)
  %v = load i32, ptr %i, align 4
  %r = insertvalue { i32, i32, i32, i32 } zeroinitializer, i32 %v, 0
  ret { i32, i32, i32, i32 } %r
}

define { i32, i32, i32, i32 } @sim_tex3_v4u32(i64 %t, float %x, float %y, float %z) {
  %r = call { i32, i32, i32, i32 } @sim_tex3_v4s32(i64 %t, float %x, float %y, float %z)
  ret { i32, i32, i32, i32 } %r
}
