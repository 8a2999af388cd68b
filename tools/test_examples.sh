#!/usr/bin/env bash
# Builds and runs the examples of docs/install.md, Brisk used from a project of one's own, and
# checks that the docs show their files as they are:
#   own_project    examples/own_project, a Bazel workspace of its own with Brisk as a
#                  local_repository (deps = ["@brisk//:brisk"]) and no flags of its own (no
#                  .bazelrc: Brisk's targets carry C++17 and OpenMP): bazel run //:train_blobs,
#                  which fails if Brisk was compiled without OpenMP
#   cmake_project  tools/install.sh --cpu-only into a temporary prefix (its libbrisk.so must
#                  not need libcudart), the prefix moved elsewhere, then examples/cmake_project
#                  with CMake (find_package(Brisk), Brisk::brisk) and the same program with g++
#                  and `pkg-config --cflags --libs brisk`, both from the moved prefix; each run;
#                  then its sum_ranks under the installed bin/brisk-launch on 2 processes
#   extension_project
#                  Brisk's example extension (examples/extending/fused_bias_leaky_relu)
#                  against cmake_project's CPU-only install: examples/extension_project with
#                  CMake (brisk_add_extension of its C++ sources; a program that calls its
#                  op by name only), the same with g++ and pkg-config, each program run on cpu
#                  and sim:2; brisk_add_extension given its
#                  .cu against that install stops with the error naming the CPU-only Brisk
#   cuda_extension where nvcc is (CUDA_PATH or /usr/local/cuda, where @local_cuda looks):
#                  tools/install.sh with CUDA (the checkout's own build, which tools/test.sh
#                  has just built: only libbrisk.so is linked), examples/extension_project with
#                  CMake (the CPU-only extension against a CUDA-built Brisk, and the CUDA one:
#                  nvcc for Brisk's architectures), the CUDA extension with nvcc and g++
#                  through pkg-config; each program run on cpu and sim:2, and cuda:0 where
#                  nvidia-smi finds a GPU (without one the CUDA kernels are compiled and
#                  linked, not run). Without nvcc: SKIPPED, with the reason in its log
#   headers        the installed headers, as a program of one's own compiles them (no
#                  -fopenmp): brisk/brisk.h without a warning under -Wall -Wextra -Wshadow
#                  -Werror (g++ and clang++), and every header it reaches, included alone below
#                  C++17 (-std=c++0x, Bazel's default, and -std=c++14), stops with
#                  brisk/requires_cxx17.h's message as the first error
#   docs_files     every code block that docs/*.md and README.md mark with
#                  `<!-- file: PATH -->` on the line above is PATH's content, word for word
#                  (their other ```cpp blocks are compiled by //tests/docs:docs_code_blocks_test)
# Writes one line per check to RESULTS ("PASSED name log", "FAILED name log" or "SKIPPED name
# log"; the logs are in runs/test_examples/) and exits non-zero if one failed. tools/test.sh calls it and counts
# each check as one test case.
#
#   tools/test_examples.sh /dev/stdout
#
# The own project is a second Bazel workspace, so Brisk is compiled a second time there (its
# actions name external/brisk/... paths: the disk cache of the main workspace's actions does
# not serve them, only those of earlier runs of the example). What it checks is that Brisk
# builds, links and runs as another workspace's dependency, not its speed, so that second build
# is made cheap: without CUDA (CUDA_PATH=/nonexistent, for its workspace only), which leaves out
# the minutes of nvcc kernels, and at -O0 (on two busy cores: 8 minutes, -O2 12, its longest
# file 51 s instead of 169). The CPU-only install builds in an output base of its own (see
# tools/install.sh) with the main workspace's flags: where the CUDA build's objects do not depend
# on CUDA (most of them) its actions are the same and the disk cache serves them.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
results="${1:?usage: tools/test_examples.sh RESULTS}"
jobs="${BRISK_JOBS:-2}"
logs="runs/test_examples"
mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"
status=0

skipped=77  # the exit code of a check that cannot run on this machine

report() {  # check, exit code of its run
  local log="$logs/$1.log"
  case "$2" in
    0) echo "PASSED $1 $log" >>"$results" ;;
    "$skipped") echo "SKIPPED $1 $log" >>"$results" ;;
    *) echo "FAILED $1 $log" >>"$results"; status=1 ;;
  esac
}

own_project() {
  cd examples/own_project || return 1
  # Settings of this run, not of the build: the disk cache of earlier runs, and none of the
  # sandboxes Debian's /etc/bazel/bazelrc keeps (--sandbox_debug).
  CUDA_PATH=/nonexistent bazel run --jobs="$jobs" --copt=-O0 --color=no --curses=no \
    --disk_cache="$HOME/.cache/brisk/bazel-disk-cache" --nosandbox_debug //:train_blobs
  local rc=$?
  # Its own Bazel server, not needed until the next run: give its memory back.
  bazel shutdown
  return $rc
}

# cmake_project installs here, and headers reads what it installed.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
installed="$tmp/moved/prefix"

cmake_project() {
  local needed
  tools/install.sh --cpu-only --prefix "$tmp/prefix" || return 1
  needed="$(readelf -d "$tmp/prefix/lib/libbrisk.so" | grep NEEDED)" || return 1
  echo "libbrisk.so needs:"; echo "$needed"
  if grep -q -E 'libcud|libcublas|libnccl' <<<"$needed"; then
    echo "tools/install.sh --cpu-only: libbrisk.so needs a CUDA library"
    return 1
  fi
  # Everything below uses the prefix at its new place only.
  mkdir -p "$tmp/moved" && mv "$tmp/prefix" "$installed" || return 1
  cmake -S examples/cmake_project -B "$tmp/build" -DCMAKE_PREFIX_PATH="$installed" &&
    cmake --build "$tmp/build" &&
    "$tmp/build/fit_line" "$tmp/fit_line.safetensors" &&
    g++ examples/cmake_project/fit_line.cc -o "$tmp/fit_line_pkg_config" \
      $(PKG_CONFIG_PATH="$installed/lib/pkgconfig" pkg-config --cflags --libs brisk) &&
    "$tmp/fit_line_pkg_config" "$tmp/fit_line_pkg_config.safetensors" || return 1
  # The installed launcher runs an installed-Brisk program as a job of two processes.
  local job
  job="$("$installed/bin/brisk-launch" --nproc-per-node 2 "$tmp/build/sum_ranks")" || return 1
  echo "$job"
  for rank in 0 1; do
    grep -q -x "\[rank $rank\] rank $rank of 2: sum 3" <<<"$job" ||
      { echo "brisk-launch: rank $rank did not print 'rank $rank of 2: sum 3'"; return 1; }
  done
}

# The example extension's sources include its headers by their path in Brisk's tree: copies
# there, in DIR/include, so that Brisk's headers come from the install.
extension_headers() {  # DIR
  mkdir -p "$1/include/examples/extending" &&
    cp examples/extending/fused_bias_leaky_relu.h examples/extending/fused_bias_leaky_relu_kernels.h \
      "$1/include/examples/extending/"
}

# The example extension's C++ sources (examples/extending/BUILD's fused_bias_leaky_relu).
extension_cc=(examples/extending/fused_bias_leaky_relu.cc examples/extending/fused_bias_leaky_relu_ops.cc)

# g++ through pkg-config: DIR/libfused.so from SOURCES, and DIR/check_extension linked to it.
extension_with_pkg_config() {  # DIR SOURCES...
  local dir="$1"
  shift
  g++ -shared -fPIC "$@" -I"$dir/include" -o "$dir/libfused.so" -Wl,--no-undefined \
    $(pkg-config --cflags --libs brisk) &&
    g++ examples/extension_project/check_fused_bias_leaky_relu.cc -I"$dir/include" -o "$dir/check_extension" \
      -L"$dir" -Wl,-rpath,"$dir" -Wl,--no-as-needed -lfused $(pkg-config --cflags --libs brisk)
}

extension_project() {
  local build="$tmp/extension_build" pc="$tmp/extension_pkg_config" refused="$tmp/extension_refused"
  [ -f "$installed/lib/cmake/Brisk/BriskExtension.cmake" ] || { echo "no install: cmake_project did not install"; return 1; }
  cmake -S examples/extension_project -B "$build" -DCMAKE_PREFIX_PATH="$installed" &&
    cmake --build "$build" -j "$jobs" &&
    "$build/check_cpu_extension" cpu sim:2 &&
    "$build/call_by_name" || return 1
  if [ -e "$build/check_cuda_extension" ]; then echo "a CPU-only Brisk built the CUDA extension"; return 1; fi

  echo "pkg-config: g++ for the extension's .cc"
  export PKG_CONFIG_PATH="$installed/lib/pkgconfig"
  [ "$(pkg-config --variable=with_cuda brisk)" = 0 ] || { echo "brisk.pc of --cpu-only: with_cuda is not 0"; return 1; }
  extension_headers "$pc" &&
    extension_with_pkg_config "$pc" "${extension_cc[@]}" &&
    "$pc/check_extension" cpu sim:2 || return 1

  echo "brisk_add_extension with a .cu against a CPU-only Brisk: refused"
  local cu="$PWD/examples/extending/fused_bias_leaky_relu.cu"
  mkdir -p "$refused"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.18)' 'project(refused LANGUAGES CXX)' \
    'find_package(Brisk 0.1 REQUIRED)' "brisk_add_extension(fused SOURCES $cu)" >"$refused/CMakeLists.txt"
  if cmake -S "$refused" -B "$refused/build" -DCMAKE_PREFIX_PATH="$installed" >"$refused/cmake.log" 2>&1; then
    echo "CMake configured it"
    return 1
  fi
  cat "$refused/cmake.log"
  # CMake wraps the message's lines. (grep -q of a pipe would end the pipe's writer early,
  # which pipefail counts as a failure.)
  grep -qF "CUDA sources ($cu) need a Brisk built with CUDA" <<<"$(tr -s ' \n' ' ' <"$refused/cmake.log")" ||
    { echo "not the error of BriskExtension.cmake"; return 1; }
}

cuda_extension() {
  local nvcc="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc" prefix="$tmp/cuda_prefix" build="$tmp/cuda_extension_build"
  local pc="$tmp/cuda_extension_pkg_config" devices=(cpu sim:2) library rc
  if [ ! -x "$nvcc" ]; then
    echo "SKIPPED: no nvcc at $nvcc (CUDA_PATH or /usr/local/cuda): the CUDA extension needs the CUDA toolkit"
    return "$skipped"
  fi
  if nvidia-smi -L >/dev/null 2>&1; then devices+=(cuda:0); else echo "no GPU: the CUDA kernels are built, not run"; fi
  tools/install.sh --prefix "$prefix" || return 1
  grep -qx 'set(Brisk_WITH_CUDA ON)' "$prefix/lib/cmake/Brisk/BriskConfig.cmake" ||
    { echo "tools/install.sh installed Brisk without CUDA, though $nvcc exists"; return 1; }

  cmake -S examples/extension_project -B "$build" -DCMAKE_PREFIX_PATH="$prefix" &&
    cmake --build "$build" -j "$jobs" --verbose >"$build.log" 2>&1
  rc=$?
  cat "$build.log"
  [ "$rc" -eq 0 ] || return 1
  # Brisk's architectures, where the project named none (BriskConfig.cmake's
  # Brisk_CUDA_ARCHITECTURES, from CUDA_ARCHS of tools/build/cuda.bzl).
  grep -q 'nvcc .*arch=compute_80.*arch=compute_90.*fused_bias_leaky_relu\.cu' "$build.log" ||
    { echo "nvcc did not compile fused_bias_leaky_relu.cu for Brisk's architectures (80, 90)"; return 1; }
  "$build/check_cpu_extension" "${devices[@]}" &&
    "$build/check_cuda_extension" "${devices[@]}" || return 1

  echo "pkg-config: nvcc for the extension's .cu, g++ for its .cc"
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  extension_headers "$pc" &&
    $(pkg-config --variable=nvcc brisk) $(pkg-config --variable=nvcc_cflags brisk) \
      $(pkg-config --variable=nvcc_gencode brisk) -Xcompiler=-fPIC -I"$pc/include" \
      -c examples/extending/fused_bias_leaky_relu.cu -o "$pc/fused_bias_leaky_relu.cu.o" &&
    extension_with_pkg_config "$pc" "${extension_cc[@]}" "$pc/fused_bias_leaky_relu.cu.o" &&
    "$pc/check_extension" "${devices[@]}" || return 1
  # The CUDA extensions carry the device code their kernels compiled to.
  for library in "$build/libfused_cuda.so" "$pc/libfused.so"; do
    grep -q '\.nv_fatbin' <<<"$(readelf -S "$library")" || { echo "$library: no CUDA device code (.nv_fatbin)"; return 1; }
  done
}

headers() {
  local include="$installed/include/brisk" compiler standard header first rc=0
  [ -f "$include/brisk/brisk.h" ] || { echo "no installed headers: cmake_project did not install"; return 1; }
  for compiler in g++ clang++-14; do
    if echo '#include "brisk/brisk.h"' | $compiler -std=c++17 -Wall -Wextra -Wshadow -Werror \
        -fsyntax-only -I"$include" -x c++ -; then
      echo "$compiler -Wall -Wextra -Wshadow -Werror: brisk/brisk.h compiles without a warning"
    else
      echo "$compiler: brisk/brisk.h warns under -Wall -Wextra -Wshadow (above)"
      rc=1
    fi
  done
  # The headers a program reaches through brisk/brisk.h (all of its public API), each included
  # first on its own.
  local headers
  headers="$(cd "$include" && echo '#include "brisk/brisk.h"' | g++ -std=c++17 -MM -I. -x c++ - |
    tr ' \\' '\n\n' | grep '\.h$' | sed 's|^\./||' | sort -u)" || return 1
  echo "$(wc -l <<<"$headers") headers reached from brisk/brisk.h"
  for standard in c++0x c++14; do
    while read -r header; do
      first="$(echo "#include \"$header\"" | g++ -std="$standard" -fsyntax-only -I"$include" -x c++ - 2>&1 |
        grep -m1 'error:')"
      case "$first" in
        ""|*"error: #error \"Brisk needs C++17: compile with -std=c++17"*) ;;
        *) echo "-std=$standard: $header: the first error is not brisk/requires_cxx17.h's: $first"; rc=1 ;;
      esac
    done <<<"$headers"
    echo "-std=$standard: every one stops at brisk/requires_cxx17.h's message first (or compiles)"
  done
  echo '#include "brisk/brisk.h"' | g++ -std=c++14 -fsyntax-only -I"$include" -x c++ - 2>&1 | head -3
  return $rc
}

docs_files() {
  local doc path rc=0
  for doc in README.md docs/*.md; do
    while read -r path; do
      if diff -u "$path" <(awk -v marker="<!-- file: $path -->" '
          $0 == marker { state = 1; next }
          state == 1 && /^```/ { state = 2; next }
          state == 2 && /^```$/ { exit }
          state == 2 { print }' "$doc"); then
        echo "$doc: $path as shown"
      else
        echo "$doc: the block marked $path differs from the file (diff above)"
        rc=1
      fi
    done < <(sed -n 's/^<!-- file: \(.*\) -->$/\1/p' "$doc")
  done
  return $rc
}

for example in docs_files own_project cmake_project extension_project cuda_extension headers; do
  echo "tools/test_examples.sh: $example (log: $logs/$example.log)"
  (set -o pipefail; "$example" 2>&1 | tee "$logs/$example.log")
  report "$example" $?
done
exit $status
