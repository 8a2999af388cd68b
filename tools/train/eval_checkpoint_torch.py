"""Evaluates a train_mnist checkpoint in PyTorch: the weights of a Brisk checkpoint are a
plain safetensors state_dict, so PyTorch's LeNet-5 (or MLP) loads them as they are and should
reach the test accuracy train_mnist logged.

    pip install torch safetensors numpy
    python3 tools/train/eval_checkpoint_torch.py runs/lenet/checkpoint.safetensors

The test images are standardized as train_mnist does (with the training set's mean and
standard deviation).
"""
import argparse
import gzip
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from safetensors import safe_open
from safetensors.torch import load_file

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from torch_twins import LeNet5, MLP  # noqa: E402


def read_idx(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def find(data_dir, name):
    for candidate in (name, name + ".gz"):
        if os.path.exists(os.path.join(data_dir, candidate)):
            return os.path.join(data_dir, candidate)
    raise FileNotFoundError(f"{name}(.gz) in {data_dir}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()

    with safe_open(args.checkpoint, "pt") as f:
        metadata = f.metadata()
    state = {k: v for k, v in load_file(args.checkpoint).items() if not k.startswith("optimizer/")}
    model = {"lenet": LeNet5, "mlp": MLP}[metadata["model"]]()
    model.load_state_dict(state)
    model.eval()

    train = read_idx(find(args.data_dir, "train-images-idx3-ubyte")).astype(np.float64) / 255.0
    mean, std = train.mean(), train.std(ddof=1)
    images = torch.from_numpy(((read_idx(find(args.data_dir, "t10k-images-idx3-ubyte")) / 255.0 - mean) / std))
    labels = torch.from_numpy(read_idx(find(args.data_dir, "t10k-labels-idx1-ubyte")).astype(np.int64))
    with torch.no_grad():
        logits = model(images.float().unsqueeze(1))
    accuracy = (logits.argmax(1) == labels).double().mean().item()
    loss = F.cross_entropy(logits, labels).item()
    print(f"{args.checkpoint}: {metadata['model']}, progress {metadata['brisk.progress']}")
    print(f"PyTorch {torch.__version__}: test loss {loss:.4f}, test accuracy {100 * accuracy:.2f}%")


if __name__ == "__main__":
    main()
