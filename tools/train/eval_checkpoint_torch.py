"""Evaluates a checkpoint of the training program (tools/train/train.cc) in PyTorch: the weights
of a Brisk checkpoint are a plain safetensors state_dict, so the PyTorch twin of its model
(models/torch_twins.py) loads them as they are and should reach the test accuracy the program
logged for the same test images.

    pip install torch safetensors numpy
    python3 tools/train/eval_checkpoint_torch.py runs/main_job/checkpoint.safetensors
    python3 tools/train/eval_checkpoint_torch.py runs/cifar/resnet20.safetensors --data-dir data/cifar10

The dataset and the model come from the checkpoint's metadata. The test images are prepared as
the program prepares them: MNIST-format images standardized with the training set's mean and
standard deviation; CIFAR-10 images scaled to [0, 1] and normalized per channel with the
constants of tools/train/cifar_data.h, in float32 with the same operations, so the inputs are
the program's to the bit.
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
import torch_twins  # noqa: E402

# The program's model names and their twins (num_classes 10), built for a checkpoint's state dict: the program
# sizes the MLP's first layer from the images (784 inputs for MNIST-format data, 3072 for CIFAR-10).
TWINS = {
    "lenet": lambda state: torch_twins.LeNet5(),
    "mlp": lambda state: torch_twins.MLP(in_features=state["layers.0.weight"].shape[1]),
    "resnet20": lambda state: torch_twins.CIFARResNet(20),
    "resnet32": lambda state: torch_twins.CIFARResNet(32),
    "resnet56": lambda state: torch_twins.CIFARResNet(56),
    "resnet18": lambda state: torch_twins.ResNet18(),
    "airbench": lambda state: torch_twins.AirbenchNet(),
}

# tools/train/cifar_data.h: kCifar10Mean, kCifar10Std.
CIFAR10_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR10_STD = (0.2470, 0.2435, 0.2616)

# tools/train/training_data.cc: default_data_dir.
DEFAULT_DATA_DIRS = {
    "fashion-mnist": "/usr/share/datasets/fashion-mnist",
    "mnist": "data/mnist",
    "cifar10": "data/cifar10",
}


def read_idx(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def find(data_dir, names):
    for name in names:
        if os.path.exists(os.path.join(data_dir, name)):
            return os.path.join(data_dir, name)
    raise FileNotFoundError(f"none of {', '.join(names)} in {data_dir}")


def mnist_test_set(data_dir):
    """float32 [N, 1, 28, 28] standardized with the training pixels' mean and std, int64 [N]."""
    def idx(name):
        return read_idx(find(data_dir, [name, name + ".gz"]))
    train = idx("train-images-idx3-ubyte").astype(np.float64) / 255.0
    mean, std = train.mean(), train.std(ddof=1)
    images = torch.from_numpy((idx("t10k-images-idx3-ubyte") / 255.0 - mean) / std).float().unsqueeze(1)
    return images, torch.from_numpy(idx("t10k-labels-idx1-ubyte").astype(np.int64))


def cifar10_test_set(data_dir):
    """float32 [N, 3, 32, 32] as ToTensor then Normalize compute them in float32, int64 [N]."""
    path = find(data_dir, ["test_batch.bin", os.path.join("cifar-10-batches-bin", "test_batch.bin")])
    records = np.fromfile(path, dtype=np.uint8).reshape(-1, 3073)
    unit = np.arange(256, dtype=np.float32) / np.float32(255)  # byte / 255 in float32
    images = unit[records[:, 1:].reshape(-1, 3, 32, 32)]
    mean = np.array(CIFAR10_MEAN, dtype=np.float32).reshape(1, 3, 1, 1)
    std = np.array(CIFAR10_STD, dtype=np.float32).reshape(1, 3, 1, 1)
    images = (images - mean) / std
    return torch.from_numpy(np.ascontiguousarray(images)), torch.from_numpy(records[:, 0].astype(np.int64))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--data-dir", help="the dataset's directory (default: the program's default for it)")
    parser.add_argument("--test-limit", type=int, default=0, help="the first N test images only, as the program's flag")
    args = parser.parse_args()

    with safe_open(args.checkpoint, "pt") as f:
        metadata = f.metadata()
    dataset = metadata["dataset"]
    if metadata["model"] not in TWINS:
        sys.exit(f"{args.checkpoint}: model {metadata['model']} has no PyTorch twin here (known: {', '.join(TWINS)})")
    state = {k: v for k, v in load_file(args.checkpoint).items() if not k.startswith("optimizer/")}
    model = TWINS[metadata["model"]](state)
    model.load_state_dict(state)
    model.eval()

    data_dir = args.data_dir or DEFAULT_DATA_DIRS[dataset]
    images, labels = cifar10_test_set(data_dir) if dataset == "cifar10" else mnist_test_set(data_dir)
    if args.test_limit > 0:
        images, labels = images[:args.test_limit], labels[:args.test_limit]
    with torch.no_grad():
        logits = torch.cat([model(batch) for batch in images.split(1000)])
    accuracy = (logits.argmax(1) == labels).double().mean().item()
    loss = F.cross_entropy(logits, labels).item()
    print(f"{args.checkpoint}: {metadata['model']} on {dataset} ({len(labels)} test images from {data_dir}), "
          f"progress {metadata['brisk.progress']}")
    print(f"PyTorch {torch.__version__}: test loss {loss:.4f}, test accuracy {100 * accuracy:.2f}%")


if __name__ == "__main__":
    main()
