#!/usr/bin/env python3
"""PyTorch twin of allreduce_bench.cc: torch.distributed's Gloo all_reduce of float32 tensors
from 4 KiB to --max-bytes (factors of 4), on --nproc processes it spawns itself, timed as
allreduce_bench times (a barrier, then one all_reduce, median of the same run counts). Rank 0
prints "torch_gloo <bytes> - <median us> <bus bandwidth GB/s>" per size, allreduce_bench's
columns (no desync check to turn off: "-").

Usage: allreduce_bench_torch.py [--nproc 2] [--max-bytes 268435456]
"""
import argparse
import os
import socket
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run(rank, world, port, max_bytes):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    size = 4096
    while size <= max_bytes:
        t = torch.ones(size // 4, dtype=torch.float32)
        runs = 7 if size >= 16 << 20 else 15 if size >= 1 << 20 else 51
        for _ in range(3):
            dist.all_reduce(t)
        times = []
        for _ in range(runs):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(t)
            times.append((time.perf_counter() - start) * 1e6)
        us = statistics.median(times)
        if rank == 0:
            print(f"torch_gloo {size} - {us:.1f} {size / us / 1e3 * 2 * (world - 1) / world:.3f}", flush=True)
        size *= 4
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--max-bytes", type=int, default=256 << 20)
    args = parser.parse_args()
    with socket.socket() as s:  # a free port for the store
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    print(f"# torch {torch.__version__} gloo, {args.nproc} ranks", flush=True)
    mp.spawn(run, args=(args.nproc, port, args.max_bytes), nprocs=args.nproc)


if __name__ == "__main__":
    main()
