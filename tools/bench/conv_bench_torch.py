#!/usr/bin/env python3
"""PyTorch twin of conv_bench.cc: the same layers, shapes and timing (median ms of forward +
backward after warm-up). Usage: conv_bench_torch.py THREADS"""
import sys

import torch
import torch.nn.functional as F

from timing import median_ms

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else torch.get_num_threads())
torch.manual_seed(0)


def param(*shape):
    return (torch.randn(*shape) * 0.1).requires_grad_()


def time_layer(shape, f):
    x = torch.randn(*shape).requires_grad_()

    def forward_backward():
        y = f(x)
        y.backward(torch.ones_like(y))

    return median_ms(3, 15, forward_backward)


w1, b1, w2, b2 = param(6, 1, 5, 5), param(6), param(16, 6, 5, 5), param(16)
for batch in (64, 256):
    print(f"conv1_b{batch}_ms {time_layer((batch, 1, 28, 28), lambda x: F.conv2d(x, w1, b1, 1, 2)):.3f}")
    print(f"maxpool1_b{batch}_ms {time_layer((batch, 6, 28, 28), lambda x: F.max_pool2d(x, 2)):.3f}")
    print(f"conv2_b{batch}_ms {time_layer((batch, 6, 14, 14), lambda x: F.conv2d(x, w2, b2)):.3f}")

    def features(x):
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, 1, 2)), 2)
        return F.max_pool2d(F.relu(F.conv2d(h, w2, b2)), 2)

    print(f"lenet_features_b{batch}_ms {time_layer((batch, 1, 28, 28), features):.3f}")
