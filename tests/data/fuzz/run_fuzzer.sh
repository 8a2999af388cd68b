#!/usr/bin/env bash
# Runs a fuzz target of data/fuzz for SECONDS on its seed corpus: libFuzzer under
# --config=fuzz, data/fuzz/driver.cc otherwise. What libFuzzer adds to the corpus goes to the
# test's scratch directory, a crashing input to its outputs (bazel-testlogs/.../test.outputs).
#
#   run_fuzzer.sh FUZZER SECONDS SEED_DIR
set -euo pipefail
fuzzer="$1" seconds="$2" seeds="$3"
found="$TEST_TMPDIR/corpus"
mkdir -p "$found"
exec "$fuzzer" -max_total_time="$seconds" -max_len=16384 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/" "$found" "$seeds"
