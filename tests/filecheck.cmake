# Runs the RUN lines of one IR test (cmake -P), lit-style:
#
#   ; RUN: ks_passes_tool ARGS... %s | FileCheck %s [FILECHECK ARGS...]
#
# %s is the test file itself, %B the tests' build directory (where
# tests/CMakeLists.txt puts data it builds). Every RUN line must succeed.
#   cmake -DTOOL=ks_passes_tool -DFILECHECK=FileCheck -DINPUT=file.ll
#         -DBINARY_DIR=build/tests -P ...
foreach(v TOOL FILECHECK INPUT BINARY_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "filecheck.cmake: -D${v}= is required")
  endif()
endforeach()

file(READ ${INPUT} text)
string(REGEX MATCHALL "RUN: [^\n]*" runs "${text}")
if(NOT runs)
  message(FATAL_ERROR "${INPUT}: no RUN lines")
endif()

foreach(run ${runs})
  string(REGEX REPLACE "^RUN: *" "" run "${run}")
  string(FIND "${run}" "|" bar)
  if(bar EQUAL -1)
    message(FATAL_ERROR "${INPUT}: RUN line without a pipe: ${run}")
  endif()
  string(SUBSTRING "${run}" 0 ${bar} left)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${run}" ${bar} -1 right)
  separate_arguments(left UNIX_COMMAND "${left}")
  separate_arguments(right UNIX_COMMAND "${right}")
  list(POP_FRONT left tool)
  list(POP_FRONT right checker)
  if(NOT tool STREQUAL "ks_passes_tool" OR NOT checker STREQUAL "FileCheck")
    message(FATAL_ERROR "${INPUT}: want `ks_passes_tool ... | FileCheck ...`")
  endif()
  list(TRANSFORM left REPLACE "^%s$" "${INPUT}")
  list(TRANSFORM left REPLACE "%B" "${BINARY_DIR}")
  list(TRANSFORM right REPLACE "^%s$" "${INPUT}")
  message(STATUS "RUN: ${run}")
  execute_process(COMMAND ${TOOL} ${left}
                  COMMAND ${FILECHECK} ${right}
                  RESULTS_VARIABLE results)
  foreach(r ${results})
    if(NOT r EQUAL 0)
      message(FATAL_ERROR "${INPUT}: failed (exit statuses ${results}): "
                          "${run}")
    endif()
  endforeach()
endforeach()
