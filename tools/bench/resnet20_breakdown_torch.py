#!/usr/bin/env python3
"""PyTorch twin of resnet20_breakdown.cc: the same layers at the same shapes, timed the same
way, and the same full training step (models/torch_twins.py's CIFARResNet(20)). Prints the
same lines (resnet20_breakdown.cc's header), then torch.profiler's key_averages of one
training step (after warm-up), sorted by self CPU time:

  profile <op> <calls> <self CPU ms> <CPU total ms>

Usage: resnet20_breakdown_torch.py --threads N [--batch 64] [--repeats 20]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

from timing import median_ms

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from torch_twins import CIFARResNet  # noqa: E402

# Untimed calls before each timing.
WARMUP = 3


def leaf(*shape):
    return torch.randn(*shape).requires_grad_()


def layer(name, count, repeats, shape, f):
    x = leaf(*shape)
    grad = torch.randn(f(x).shape)
    forward = median_ms(WARMUP, repeats, lambda: f(x))

    def both():
        x.grad = None
        f(x).backward(grad)

    print(f"layer {name} {count} {forward:.4f} {max(0.0, median_ms(WARMUP, repeats, both) - forward):.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    b, repeats = args.batch, args.repeats
    print(f"threads {torch.get_num_threads()}")

    for name, count, cin, cout, size, stride in [("conv_3_16_s1_32px", 1, 3, 16, 32, 1),
                                                  ("conv_16_16_s1_32px", 6, 16, 16, 32, 1),
                                                  ("conv_16_32_s2_32px", 1, 16, 32, 32, 2),
                                                  ("conv_32_32_s1_16px", 5, 32, 32, 16, 1),
                                                  ("conv_32_64_s2_16px", 1, 32, 64, 16, 2),
                                                  ("conv_64_64_s1_8px", 5, 64, 64, 8, 1)]:
        w = leaf(cout, cin, 3, 3)
        layer(name, count, repeats, (b, cin, size, size), lambda x: F.conv2d(x, w, None, stride, 1))
    for channels, size, norms, adds in [(16, 32, 7, 3), (32, 16, 6, 3), (64, 8, 6, 3)]:
        shape = (b, channels, size, size)
        suffix = f"_{channels}ch_{size}px"
        weight, bias = leaf(channels), leaf(channels)
        running_mean, running_var = torch.zeros(channels), torch.ones(channels)
        layer("batch_norm" + suffix, norms, repeats, shape,
              lambda x: F.batch_norm(x, running_mean, running_var, weight, bias, True, 0.1, 1e-5))
        layer("relu" + suffix, norms, repeats, shape, F.relu)
        other = leaf(*shape)
        layer("add" + suffix, adds, repeats, shape, lambda x: x + other)

    model = CIFARResNet(20)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(b, 3, 32, 32)
    labels = torch.randint(0, 10, (b,))

    def step():
        F.cross_entropy(model(images), labels).backward()
        opt.step()
        opt.zero_grad()

    print(f"step {median_ms(WARMUP, repeats, step):.4f}")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        step()
    events = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    for e in events[:25]:
        print(f"profile {e.key.replace(' ', '_')} {e.count} {e.self_cpu_time_total / 1e3:.4f} "
              f"{e.cpu_time_total / 1e3:.4f}")


if __name__ == "__main__":
    main()
