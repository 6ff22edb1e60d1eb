# The test suite's two helpers (tests/CMakeLists.txt and the files it
# includes).
#
# ks_test_executable(TARGET [SOURCES file...] [INTERNAL] [CMOCKA]
#                    [LIBS lib...] [INCLUDES dir...] [DEFS def...]
#                    [DEPENDS target...])
#   A test program: SOURCES (default TARGET.c), linked with libkspec, or
#   with INTERNAL with kspec_internal (every symbol visible, LLVM's headers
#   on the include path); CMOCKA adds libcmocka; LIBS, INCLUDES and DEFS
#   are its other libraries, include directories and definitions, DEPENDS
#   targets built before it (bitcode, the mocked driver). kspec's warnings.
#
# add_ks_test(NAME [TARGET exe] [ARGS arg...] | [COMMAND cmd arg...]
#             [<ks_test_executable's options>]
#             [LABELS label...] [TIMEOUT seconds] [SKIP_RETURN_CODE code]
#             [ENVIRONMENT VAR=value...] [PROPERTIES name value...])
#   The CTest test NAME. Without COMMAND it runs exe (default test_NAME)
#   with ARGS, and builds exe with the options of ks_test_executable unless
#   an earlier call did (several tests may run one program: then only the
#   first call gives them). LABELS (cpu, gpu, fuzz, ...: what
#   `ctest -L/-LE` selects), TIMEOUT, SKIP_RETURN_CODE and ENVIRONMENT are
#   the test properties of those names; PROPERTIES passes others.
set(KS_TEST_EXE_FLAGS INTERNAL CMOCKA)
set(KS_TEST_EXE_LISTS SOURCES LIBS INCLUDES DEFS DEPENDS)

function(ks_test_executable target)
  cmake_parse_arguments(PARSE_ARGV 1 T "${KS_TEST_EXE_FLAGS}" ""
                        "${KS_TEST_EXE_LISTS}")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ks_test_executable(${target}): unknown arguments "
                        "${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_SOURCES)
    set(T_SOURCES ${target}.c)
  endif()
  add_executable(${target} ${T_SOURCES})
  if(T_INTERNAL)
    target_link_libraries(${target} PRIVATE kspec_internal)
    target_include_directories(${target} PRIVATE ${LLVM_INCLUDE_DIRS})
  else()
    target_link_libraries(${target} PRIVATE kspec)
  endif()
  if(T_CMOCKA)
    target_link_libraries(${target} PRIVATE PkgConfig::CMOCKA)
  endif()
  if(T_LIBS)
    target_link_libraries(${target} PRIVATE ${T_LIBS})
  endif()
  if(T_INCLUDES)
    target_include_directories(${target} PRIVATE ${T_INCLUDES})
  endif()
  if(T_DEFS)
    target_compile_definitions(${target} PRIVATE ${T_DEFS})
  endif()
  if(T_DEPENDS)
    add_dependencies(${target} ${T_DEPENDS})
  endif()
  ks_target_warnings(${target})
endfunction()

function(add_ks_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "${KS_TEST_EXE_FLAGS}"
    "TARGET;TIMEOUT;SKIP_RETURN_CODE"
    "${KS_TEST_EXE_LISTS};ARGS;COMMAND;LABELS;ENVIRONMENT;PROPERTIES")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "add_ks_test(${name}): unknown arguments "
                        "${T_UNPARSED_ARGUMENTS}")
  endif()
  set(exe_args "")
  foreach(f ${KS_TEST_EXE_FLAGS})
    if(T_${f})
      list(APPEND exe_args ${f})
    endif()
  endforeach()
  foreach(l ${KS_TEST_EXE_LISTS})
    if(T_${l})
      list(APPEND exe_args ${l} ${T_${l}})
    endif()
  endforeach()
  if(T_COMMAND)
    if(exe_args OR T_TARGET OR T_ARGS)
      message(FATAL_ERROR "add_ks_test(${name}): COMMAND runs its own "
                          "program: no TARGET, ARGS or build options")
    endif()
    add_test(NAME ${name} COMMAND ${T_COMMAND})
  else()
    if(NOT T_TARGET)
      set(T_TARGET test_${name})
    endif()
    if(NOT TARGET ${T_TARGET})
      ks_test_executable(${T_TARGET} ${exe_args})
    elseif(exe_args)
      message(FATAL_ERROR "add_ks_test(${name}): ${T_TARGET} is built "
                          "already, with the options of its first test")
    endif()
    add_test(NAME ${name} COMMAND ${T_TARGET} ${T_ARGS})
  endif()
  # one property a call: a list value (LABELS cpu gpu) stays one value
  foreach(p LABELS ENVIRONMENT TIMEOUT SKIP_RETURN_CODE)
    if(DEFINED T_${p})
      set_tests_properties(${name} PROPERTIES ${p} "${T_${p}}")
    endif()
  endforeach()
  list(LENGTH T_PROPERTIES n)
  while(n GREATER 1)
    list(POP_FRONT T_PROPERTIES p v)
    set_tests_properties(${name} PROPERTIES ${p} "${v}")
    math(EXPR n "${n} - 2")
  endwhile()
  if(n EQUAL 1)
    message(FATAL_ERROR "add_ks_test(${name}): PROPERTIES wants pairs")
  endif()
endfunction()
