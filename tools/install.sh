#!/usr/bin/env bash
# Installs Brisk into a prefix for projects that build with CMake or pkg-config
# (docs/install.md):
#   PREFIX/lib/libbrisk.so                       every library of //:brisk, linked whole
#   PREFIX/include/brisk/                        the headers: brisk/brisk.h, tensor/tensor.h, ...
#   PREFIX/lib/cmake/Brisk/BriskConfig.cmake     find_package(Brisk): the target Brisk::brisk
#   PREFIX/lib/cmake/Brisk/BriskConfigVersion.cmake
#   PREFIX/lib/cmake/Brisk/BriskExtension.cmake  brisk_add_extension(NAME SOURCES a.cc b.cu)
#   PREFIX/lib/pkgconfig/brisk.pc                pkg-config --cflags --libs brisk
#   PREFIX/bin/brisk-launch                      the launcher (//tools/launch): brisk-launch
#                                                --nproc-per-node 2 program args...
# The prefix can be moved or copied elsewhere afterwards: BriskConfig.cmake and brisk.pc find
# it from their own location.
#
# With CUDA when the toolkit is found (README, "CPU-only or CUDA"), whether or not the machine
# has a GPU; --cpu-only leaves CUDA out (a library of a few MB that links no CUDA library,
# instead of tens of MB that need the toolkit's cudart, cuBLAS, cuDNN and NCCL at run time).
# It builds in an output base of its own, one per checkout
# (~/.cache/brisk/cpu-only/<md5 of the checkout's path>, as Bazel names its own), so
# the checkout's own build keeps its CUDA configuration; compiled objects come from the shared
# disk cache where they are the same. One per checkout because an output base's external
# repositories link into the checkout that fetched them: shared, a second checkout would
# read the first one's files, or none once it is deleted.
#
#   tools/install.sh --prefix ~/.local            # installs; extra arguments go to bazel build
#   tools/install.sh --prefix /opt/brisk -c opt
#   tools/install.sh --cpu-only --prefix DIR      # without CUDA, even where nvcc is installed
#   BRISK_JOBS=8 tools/install.sh --prefix DIR    # build parallelism (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage="usage: tools/install.sh [--cpu-only] --prefix DIR [bazel build arguments...]"
prefix=""
cpu_only=0
bazel_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --cpu-only) cpu_only=1; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) bazel_args+=("$1"); shift ;;
  esac
done
[ -n "$prefix" ] || { echo "tools/install.sh: --prefix DIR is required; $usage" >&2; exit 2; }
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

bazel=(bazel)
if [ "$cpu_only" -eq 1 ]; then
  # @local_cuda finds no toolkit at CUDA_PATH (third_party/cuda/cuda_configure.bzl).
  checkout_hash="$(pwd -P | tr -d '\n' | md5sum | cut -c1-32)"
  bazel=(env CUDA_PATH=/nonexistent bazel
    --output_base="$HOME/.cache/brisk/cpu-only/$checkout_hash")
  # No bazel-bin, bazel-out, ... links: they would point the checkout's at this output base
  # (and its own build would then read bazel-<workspace> as a package tree).
  bazel_args=(--symlink_prefix=/ "${bazel_args[@]}")
fi

tools/setup.sh
"${bazel[@]}" build --jobs="${BRISK_JOBS:-2}" "${bazel_args[@]}" //tools/install:brisk //tools/install:headers \
  //tools/launch
bin="$("${bazel[@]}" info "${bazel_args[@]}" bazel-bin)"

# Whether the build had CUDA, and where, as @local_cuda found it.
local_cuda="$("${bazel[@]}" info "${bazel_args[@]}" output_base)/external/local_cuda"
with_cuda=OFF
cuda_path=""
cuda_lib_dir=""
nvcc=""
cuda_archs_cmake=""
nvcc_gencode=""
pc_cuda_cflags=""
pc_cuda_libs=""
if grep -q '^CUDA_ENABLED = True' "$local_cuda/defs.bzl"; then
  with_cuda=ON
  cuda_path="$(sed -n 's/^CUDA_PATH = "\(.*\)"$/\1/p' "$local_cuda/defs.bzl")"
  cuda_lib_dir="$(readlink "$local_cuda/lib")"
  nvcc="$(sed -n 's/^NVCC = "\(.*\)"$/\1/p' "$local_cuda/defs.bzl")"
  # Brisk's own architectures (CUDA_ARCHS of tools/build/cuda.bzl, e.g. "80", "90"): machine
  # code for each, and PTX of the last for newer GPUs, in CMake's form (80-real;90) and nvcc's.
  archs=($(sed -n 's/^CUDA_ARCHS = \[\(.*\)\]$/\1/p' tools/build/cuda.bzl | tr -d '",'))
  [ "${#archs[@]}" -gt 0 ] || { echo "tools/install.sh: no CUDA_ARCHS in tools/build/cuda.bzl" >&2; exit 1; }
  last="${archs[${#archs[@]}-1]}"
  for arch in "${archs[@]}"; do
    nvcc_gencode+="-gencode=arch=compute_$arch,code=sm_$arch "
    if [ "$arch" = "$last" ]; then cuda_archs_cmake+="$arch"; else cuda_archs_cmake+="$arch-real;"; fi
  done
  nvcc_gencode+="-gencode=arch=compute_$last,code=compute_$last"
  pc_cuda_cflags="-I$cuda_path/include"
  pc_cuda_libs="-L$cuda_lib_dir -Wl,-rpath,$cuda_lib_dir -lcudart"
fi

version="$(cat VERSION)"
# System libraries that Brisk's headers use (fmt, Gloo) besides OpenMP and threads; linked
# by name from the default library path, where Debian's -dev packages put them.
system_libs=(fmt gloo)

rm -rf "$prefix/include/brisk" "$prefix/lib/cmake/Brisk"
mkdir -p "$prefix/include/brisk" "$prefix/lib/cmake/Brisk" "$prefix/lib/pkgconfig" "$prefix/bin"
install -m 755 "$bin/tools/install/libbrisk.so" "$prefix/lib/libbrisk.so"
# Named brisk-launch: a bare "launch" in a shared bin directory would collide on PATH.
install -m 755 "$bin/tools/launch/launch" "$prefix/bin/brisk-launch"
tar --extract --no-same-owner --file="$bin/tools/install/headers.tar" --directory="$prefix/include/brisk"
chmod -R u+w,a+rX "$prefix/include/brisk"

fill() {
  sed -e "s|@BRISK_VERSION@|$version|g" \
      -e "s|@BRISK_WITH_CUDA@|$with_cuda|g" \
      -e "s|@BRISK_CUDA_PATH@|$cuda_path|g" \
      -e "s|@BRISK_CUDA_LIB_DIR@|$cuda_lib_dir|g" \
      -e "s|@BRISK_NVCC@|$nvcc|g" \
      -e "s|@BRISK_CUDA_ARCHITECTURES_CMAKE@|$cuda_archs_cmake|g" \
      -e "s|@BRISK_NVCC_GENCODE@|$nvcc_gencode|g" \
      -e "s|@BRISK_PC_WITH_CUDA@|$([ "$with_cuda" = ON ] && echo 1 || echo 0)|g" \
      -e "s|@BRISK_SYSTEM_LIBS_CMAKE@|$(IFS=';'; echo "${system_libs[*]}")|g" \
      -e "s|@BRISK_SYSTEM_LIBS_FLAGS@|${system_libs[*]/#/-l}|g" \
      -e "s|@BRISK_PC_CUDA_CFLAGS@|$pc_cuda_cflags|g" \
      -e "s|@BRISK_PC_CUDA_LIBS@|$pc_cuda_libs|g" \
      "tools/install/$1" >"$2"
}
fill BriskConfig.cmake.in "$prefix/lib/cmake/Brisk/BriskConfig.cmake"
fill BriskConfigVersion.cmake.in "$prefix/lib/cmake/Brisk/BriskConfigVersion.cmake"
fill brisk.pc.in "$prefix/lib/pkgconfig/brisk.pc"
install -m 644 tools/install/BriskExtension.cmake "$prefix/lib/cmake/Brisk/BriskExtension.cmake"
# The CPU-only build's server is not needed until the next --cpu-only install: give its memory back.
[ "$cpu_only" -eq 0 ] || "${bazel[@]}" shutdown
echo "tools/install.sh: Brisk $version (CUDA $with_cuda) installed in $prefix"
