#!/usr/bin/env bash
# Installs the Debian packages that Brisk's build, tests, default datasets and tools/format.sh need.
# Idempotent: when everything is installed it only runs dpkg-query and exits.
# Otherwise it runs `apt-get update` once and installs just the missing packages
# (as root, or through sudo when not root).
set -euo pipefail

packages=(
  bazel-bootstrap        # Bazel 4.2.3 (pulls in build-essential and a JDK)
  g++
  libeigen3-dev          # @eigen
  libfmt-dev             # @fmt
  libspdlog-dev          # @spdlog
  catch2                 # @catch2 (v2, single header)
  libgloo-dev            # @gloo
  zlib1g-dev             # @zlib
  libcli11-dev           # @cli11
  nlohmann-json3-dev     # @nlohmann_json
  libdnnl-dev            # @onednn (oneDNN 2.6: the CPU backend's float32 convolution)
  libxxhash-dev          # @xxhash (checkpoints' checksums; header-only use)
  libprotobuf-dev        # @protobuf (TensorBoard's event files, tensorboard/)
  protobuf-compiler      # @protobuf//:protoc
  dataset-fashion-mnist  # /usr/share/datasets/fashion-mnist (@fashion_mnist)
  fortunes               # /usr/share/games/fortunes: --model gpt's default text (BSD license; docs/training.md)
  clang-format           # clang-format 14, for tools/format.sh
  libomp-14-dev          # LLVM's OpenMP runtime and archer, on which --config=tsan runs the kernels
  cmake                  # examples/cmake_project against tools/install.sh's prefix (tools/test.sh)
  pkg-config             # the same example built through brisk.pc (tools/test.sh)
  libopenmpi-dev         # @mpi: ProcessGroupMPI (distributed/mpi/), Open MPI 4.1
  openmpi-bin            # mpirun, which starts the MPI backend's tests
  slurmctld              # Slurm's controller, node daemon, client commands and munge: the tests
  slurmd                 # that run jobs with srun and sbatch start a one-node cluster of their
  slurm-client           # own (tests/tools/slurm) and stop it
  munge
)

missing=()
for p in "${packages[@]}"; do
  if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tools/setup.sh: installing missing packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "tools/setup.sh: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
apt_opts=(-o DPkg::Lock::Timeout=300 -q)
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}"
# The tests start their own Slurm and munge daemons; the packages' services are not needed.
if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
  "${sudo[@]}" systemctl disable --now slurmctld slurmd munge >/dev/null 2>&1 || true
fi
