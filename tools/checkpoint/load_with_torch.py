#!/usr/bin/env python3
"""Loads a file that tools/checkpoint/consolidate wrote with PyTorch's safetensors and prints
each tensor's name, dtype, shape and sum, and the file's metadata: the check that PyTorch reads
a consolidated sharded checkpoint.

    /work/venv-torch/bin/python tools/checkpoint/load_with_torch.py model.safetensors
"""
import sys

from safetensors import safe_open
from safetensors.torch import load_file


def main(path):
    tensors = load_file(path)
    with safe_open(path, framework="pt") as f:
        metadata = f.metadata() or {}
    for name, t in tensors.items():
        print(f"{name}: {t.dtype} {list(t.shape)} sum={t.double().sum().item():.17g}")
    print(f"{len(tensors)} tensors; metadata keys: {sorted(metadata)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
