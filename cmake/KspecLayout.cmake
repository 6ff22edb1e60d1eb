# Where the static libkspec's code lies (KSPEC_LLVM_STATIC): LLVM's
# functions in the order a specialization runs them (ld.lld's symbol
# ordering), then libkspec rewritten from a profile by llvm-bolt. Neither
# changes what the library does; BENCHMARKS.md has what each gains.
#
# Included by the root CMakeLists.txt after LLVM is found. Sets
# KSPEC_BOLT_ON (the layout trains with kspec-train, which tools/ builds)
# and defines ks_link_layout(TARGET TRAIN), called once both exist.

# BOLT (Debian bolt-19) rewrites the linked library from a profile of
# specializations: tools/bolt.sh, run after the link, strips it.
set(KSPEC_BOLT_ON OFF)
if(KSPEC_LLVM_STATIC AND KSPEC_BOLT AND
   NOT CMAKE_BUILD_TYPE STREQUAL "Debug" AND
   NOT (KSPEC_SANITIZE OR KSPEC_TSAN OR KSPEC_FUZZ))
  find_program(KSPEC_LLVM_BOLT llvm-bolt HINTS ${LLVM_TOOLS_BINARY_DIR}
               NO_DEFAULT_PATH)
  if(KSPEC_LLVM_BOLT)
    set(KSPEC_BOLT_ON ON)
    message(STATUS "kspec: libkspec's code laid out by ${KSPEC_LLVM_BOLT}")
  else()
    message(STATUS "kspec: no llvm-bolt in ${LLVM_TOOLS_BINARY_DIR} "
                   "(Debian bolt-19): libkspec's code as linked")
  endif()
endif()

# ks_link_layout(TARGET TRAIN): the layout of the static library TARGET;
# TRAIN is the program that BOLT's profile comes from.
function(ks_link_layout target train)
  if(NOT KSPEC_LLVM_STATIC)
    return()
  endif()
  if(KSPEC_BOLT_ON)
    target_link_options(${target} PRIVATE -Wl,--emit-relocs)
  endif()
  if(KSPEC_STRIP AND NOT KSPEC_BOLT_ON)
    target_link_options(${target} PRIVATE $<$<NOT:$<CONFIG:Debug>>:-s>)
  endif()
  ks_symbol_order(${target})
  if(KSPEC_BOLT_ON)
    ks_bolt(${target} ${train})
  endif()
endfunction()

# A specialization runs about 6 MB of LLVM's 25 MB of code, spread over all
# of it. Linked by ld.lld in the order a specialization first runs them
# (cmake/kspec-symbol-order.txt, made by tools/symbol_order.sh), the
# functions of each stage lie together, and it runs sooner (BENCHMARKS.md).
# Without ld.lld, the system linker's order.
function(ks_symbol_order target)
  if(NOT KSPEC_SYMBOL_ORDER)
    return()
  endif()
  find_program(KSPEC_LLD ld.lld HINTS ${LLVM_TOOLS_BINARY_DIR}
               NO_DEFAULT_PATH)
  if(NOT KSPEC_LLD)
    message(STATUS "kspec: no ld.lld in ${LLVM_TOOLS_BINARY_DIR} (Debian "
                   "lld-19): LLVM's functions in the linker's order")
    return()
  endif()
  get_filename_component(lld_dir ${KSPEC_LLD} DIRECTORY)
  set(order ${PROJECT_SOURCE_DIR}/cmake/kspec-symbol-order.txt)
  target_link_options(${target} PRIVATE -fuse-ld=lld -B${lld_dir}
                      -Wl,--symbol-ordering-file=${order}
                      -Wl,--no-warn-symbol-ordering)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${order})
  message(STATUS "kspec: LLVM's functions in the order of "
                 "cmake/kspec-symbol-order.txt (${KSPEC_LLD})")
endfunction()

# A specialization's hot paths run through functions whose cold paths are
# most of their size. tools/bolt.sh profiles kspec-train's specializations
# of the built-in templates on an instrumented copy of the library just
# linked, then lets llvm-bolt rewrite it from that profile (blocks in the
# order they run, cold code split off, hot functions together): what a
# specialization runs then fits in a few MB, and it runs sooner
# (BENCHMARKS.md).
function(ks_bolt target train)
  get_filename_component(bolt_dir ${KSPEC_LLVM_BOLT} DIRECTORY)
  set(strip "")
  if(KSPEC_STRIP)
    set(strip --strip)
  endif()
  add_dependencies(${target} ${train})
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND sh ${PROJECT_SOURCE_DIR}/tools/bolt.sh
            $<TARGET_FILE:${target}> $<TARGET_FILE:${train}> ${bolt_dir}
            ${strip}
    COMMENT "Laying out libkspec's code from a profile of specializations"
    VERBATIM)
endfunction()
