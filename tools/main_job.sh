#!/usr/bin/env bash
# Sets up the machine (tools/setup.sh) and runs Brisk's main job, optimized.
# Arguments go to the program: tools/main_job.sh --epochs 1
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools/setup.sh
exec bazel run -c opt --jobs="${BRISK_JOBS:-2}" //tools:demo -- "$@"
