# ks_target_warnings(TARGET): kspec's warnings on one of its own targets,
# for the C and C++ compilers (nvcc's are set where CUDA is compiled), and
# -Werror with KSPEC_WERROR. Set per target rather than for the directory,
# so that nothing reaches targets kspec does not own, say those of a
# project that adds kspec with add_subdirectory().
function(ks_target_warnings target)
  set(host "$<COMPILE_LANGUAGE:C,CXX>")
  target_compile_options(${target} PRIVATE
    "$<${host}:-Wall;-Wextra;-Wshadow;-Wno-unused-parameter>")
  if(KSPEC_WERROR)
    target_compile_options(${target} PRIVATE "$<${host}:-Werror>")
  endif()
endfunction()
