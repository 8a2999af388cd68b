#!/usr/bin/env python3
"""PyTorch twin of train_bench.cc: the same models (models/torch_twins.py), training step,
inputs, timing, flags and output lines (train_bench.cc's header describes them), with
torch.autocast and torch.amp.GradScaler for --amp, torch.cuda.profiler.start() and stop()
around the --profile-steps, torch.profiler (CUPTI's records, as Brisk's) over the
--activity-steps for the kernels per step and the GPU-busy share, and for --cuda-graph PyTorch's
whole-network capture recipe (torch.cuda.graph: warm-up on a side stream, the fixed batch as the
static input, gradients set to none before the capture; the timed steps are replays).

Usage: train_bench_torch.py --model lenet|resnet20|airbench --threads N [--device cpu|cuda]
       [--batches 64,256] [--warmup W] [--repeats R] [--steps S] [--amp off|bf16|fp16] [--channels-last]
       [--profile-steps N] [--activity-steps N] [--cuda-graph]
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"))
from torch_twins import AirbenchNet, CIFARResNet, LeNet5  # noqa: E402

from gpu_activity import gpu_activity  # noqa: E402

# name -> (constructor, shape of one image)
MODELS = {
    "lenet": (LeNet5, (1, 28, 28)),
    "resnet20": (lambda: CIFARResNet(20), (3, 32, 32)),
    "airbench": (AirbenchNet, (3, 32, 32)),
}


def step_activity(step, steps, sync):
    """Kernels launched and the GPU-busy share of `steps` steps (gpu_activity.py); the share is
    of the steps' wall time."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        start = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        wall_us = (time.perf_counter() - start) * 1e6
    kernels, busy_us = gpu_activity(prof)
    return kernels, min(busy_us / wall_us, 1.0) if wall_us > 0 else 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=sorted(MODELS), default="lenet")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batches", default="64,256")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--amp", choices=("off", "bf16", "fp16"), default="off")
    parser.add_argument("--channels-last", action="store_true",
                        help="torch.channels_last model and images, as train_bench --channels-last")
    parser.add_argument("--profile-steps", type=int, default=0)
    parser.add_argument("--activity-steps", type=int, default=4)
    parser.add_argument("--cuda-graph", action="store_true")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    if args.profile_steps > 0 and device.type != "cuda":
        parser.error(f"--profile-steps {args.profile_steps} needs a CUDA device, not {args.device}")
    if args.cuda_graph and (device.type != "cuda" or args.amp == "fp16"):
        parser.error(f"--cuda-graph needs a CUDA device and no --amp fp16 (got {args.device}, {args.amp})")
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    make_model, image = MODELS[args.model]
    model = make_model().to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    amp_dtype = torch.float16 if args.amp == "fp16" else torch.bfloat16
    scaler = torch.amp.GradScaler(device.type, enabled=args.amp == "fp16")
    print(f"threads {torch.get_num_threads()}")
    for batch in (int(b) for b in args.batches.split(",")):
        images = torch.randn(batch, *image, device=device)
        if args.channels_last:
            images = images.contiguous(memory_format=torch.channels_last)
        labels = torch.randint(0, 10, (batch,), device=device)

        def step():
            with torch.autocast(device.type, dtype=amp_dtype, enabled=args.amp != "off"):
                loss = F.cross_entropy(model(images), labels)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()

        if args.cuda_graph:
            # Warm-up on a side stream, so that the capture's stream starts clean.
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(max(args.warmup, 3)):
                    step()
            torch.cuda.current_stream().wait_stream(side)
            opt.zero_grad(set_to_none=True)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                step()
            timed_step = graph.replay
        else:
            for _ in range(args.warmup):
                step()
            timed_step = step
        sync()
        if args.profile_steps > 0:
            torch.cuda.profiler.start()
            for _ in range(args.profile_steps):
                timed_step()
            sync()
            torch.cuda.profiler.stop()
        rates = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            for _ in range(args.steps):
                timed_step()
            sync()
            rates.append(batch * args.steps / (time.perf_counter() - start))
        suffix = ("" if args.amp == "off" else f"_{args.amp}") + ("_cl" if args.channels_last else "") + (
            "_graph" if args.cuda_graph else "")
        line = f"{args.model}_b{batch}{suffix} {statistics.median(rates):.1f} {min(rates):.1f} {max(rates):.1f}"
        if device.type == "cuda" and args.activity_steps > 0:
            kernels, busy = step_activity(timed_step, args.activity_steps, sync)
            line += f" {kernels / args.activity_steps:.1f} {busy:.3f}"
        print(line)


if __name__ == "__main__":
    main()
