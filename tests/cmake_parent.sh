#!/bin/sh
# tests/cmake_parent.sh - kspec as a part of another CMake project: a
# parent project that adds kspec with add_subdirectory() and links its
# program with kspec::kspec.
#
#   tests/cmake_parent.sh KSPEC_SOURCE_DIR WORK_DIR [CMAKE]
#
# From the parent's configuration alone (seconds), it checks that only the
# library is built there: KSPEC_BUILD_TESTS, KSPEC_BUILD_TOOLS and
# KSPEC_WERROR default to OFF below the top level, no tests or tools are
# configured, BUILD_TESTING is left to the parent; that kspec's warnings
# are on its own targets (and not errors), the parent's program gets none
# of them, but kspec's public include directory. With KSPEC_PARENT_BUILD=1
# it also builds the parent's program (libkspec from scratch: minutes on
# two cores) and runs it.
set -eu
src=$1
work=$2
cmake=${3:-cmake}

fail() {
  echo "cmake_parent: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work/p"
cat >"$work/p/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(parent LANGUAGES C)
add_subdirectory("$src" kspec)
add_executable(app main.c)
target_link_libraries(app PRIVATE kspec::kspec)
EOF
cat >"$work/p/main.c" <<'EOF'
#include <stdio.h>

#include "kspec.h"

int main(void) {
  int unused; /* a warning under -Wall, which the parent did not ask for */
  printf("%zu built-in templates, the first %s\n", ks_builtin_count(),
         ks_builtin_name(0));
  return ks_builtin_count() == 0;
}
EOF

"$cmake" -S "$work/p" -B "$work/b" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log" >&2
  fail "the parent project does not configure"
}

cache="$work/b/CMakeCache.txt"
for o in KSPEC_BUILD_TESTS KSPEC_BUILD_TOOLS KSPEC_WERROR; do
  grep -q "^$o:BOOL=OFF\$" "$cache" || fail "$o is not OFF in a parent project"
done
! grep -q '^BUILD_TESTING:' "$cache" ||
  fail "kspec set BUILD_TESTING for its parent"
[ ! -e "$work/b/kspec/tests" ] || fail "kspec's tests are configured"
[ ! -e "$work/b/kspec/tools" ] || fail "kspec's tools are configured"

# One command line a source file (CMake writes each on its own line).
command_of() {
  grep "\"command\": .*$1\"" "$work/b/compile_commands.json" ||
    fail "no compile command for $1"
}
app=$(command_of "/p/main\\.c")
case "$app" in *-W*) fail "the parent's program gets warning flags: $app" ;; esac
case "$app" in *"-I$src/include"*) ;; *) fail "no kspec include dir: $app" ;; esac
lib=$(command_of "/ir/ir\\.c")
case "$lib" in *-Wall*) ;; *) fail "kspec's own code lost its warnings: $lib" ;; esac
case "$lib" in *-Werror*) fail "kspec's code has -Werror in a parent: $lib" ;; esac

if [ "${KSPEC_PARENT_BUILD:-0}" = 1 ]; then
  "$cmake" --build "$work/b" --target app -j "${KSPEC_PARENT_JOBS:-2}" \
    >"$work/build.log" 2>&1 || {
    tail -40 "$work/build.log" >&2
    fail "the parent's program does not build"
  }
  "$work/b/app" || fail "the parent's program failed"
fi
echo "cmake_parent: kspec as a subproject: library only, warnings its own"
