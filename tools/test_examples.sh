#!/usr/bin/env bash
# Builds and runs the examples of docs/install.md, Brisk used from a project of one's own, and
# checks that the docs show their files as they are:
#   own_project    examples/own_project, a Bazel workspace of its own with Brisk as a
#                  local_repository (deps = ["@brisk//:brisk"]): bazel run //:train_blobs
#   cmake_project  tools/install.sh into a temporary prefix, then examples/cmake_project with
#                  CMake (find_package(Brisk), Brisk::brisk), and the same program with g++ and
#                  `pkg-config --cflags --libs brisk`; each run
#   docs_files     every code block that docs/*.md and README.md mark with
#                  `<!-- file: PATH -->` on the line above is PATH's content, word for word
#                  (their other ```cpp blocks are compiled by //tests/docs:docs_code_blocks_test)
# Writes one line per check to RESULTS ("PASSED name log" or "FAILED name log"; the logs are
# in runs/test_examples/) and exits non-zero if one failed. tools/test.sh calls it and counts
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
# file 51 s instead of 169). The CMake example uses the main workspace's build, CUDA or not.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
results="${1:?usage: tools/test_examples.sh RESULTS}"
jobs="${BRISK_JOBS:-2}"
logs="runs/test_examples"
mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"
status=0

report() {  # check, exit code of its run
  local log="$logs/$1.log"
  if [ "$2" -eq 0 ]; then echo "PASSED $1 $log" >>"$results"; else echo "FAILED $1 $log" >>"$results"; status=1; fi
}

own_project() {
  cd examples/own_project || return 1
  CUDA_PATH=/nonexistent bazel run --jobs="$jobs" --copt=-O0 --color=no --curses=no //:train_blobs
  local rc=$?
  # Its own Bazel server, not needed until the next run: give its memory back.
  bazel shutdown
  return $rc
}

cmake_project() {
  local tmp
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  tools/install.sh --prefix "$tmp/prefix" &&
    cmake -S examples/cmake_project -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" &&
    cmake --build "$tmp/build" &&
    "$tmp/build/fit_line" "$tmp/fit_line.safetensors" &&
    g++ examples/cmake_project/fit_line.cc -o "$tmp/fit_line_pkg_config" \
      $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs brisk) &&
    "$tmp/fit_line_pkg_config" "$tmp/fit_line_pkg_config.safetensors"
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

for example in docs_files own_project cmake_project; do
  echo "tools/test_examples.sh: $example (log: $logs/$example.log)"
  (set -o pipefail; "$example" 2>&1 | tee "$logs/$example.log")
  report "$example" $?
done
exit $status
