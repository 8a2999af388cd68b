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

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors import safe_open
from safetensors.torch import load_file


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


class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc3(F.relu(self.fc2(x)))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)])

    def forward(self, x):
        x = x.flatten(1)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x


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
