#!/usr/bin/env python3
"""PyTorch on the metrics of gpu_bench.cc, measured the same way: CUDA events around each
repetition, warm-up first, the median of the repetitions, random inputs.

Prints one tab-separated line per metric (key, value, unit, description), with the keys of
gpu_bench.cc, for tools/gpu/gpu_bench_table.py to join.
"""
import statistics
import time

import torch

from gpu_activity import gpu_activity

ELEMENTS = 64 << 20
MATRIX = 4096
WARMUP = 3
REPETITIONS = 30


def median_ms(f):
    for _ in range(WARMUP):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(REPETITIONS):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def report(key, value, unit, description):
    print(f"{key}\t{value:.2f}\t{unit}\t{description}", flush=True)


def bandwidth():
    a = torch.rand(ELEMENTS, device="cuda")
    b = torch.rand(ELEMENTS, device="cuda")
    c = torch.empty(ELEMENTS, device="cuda")
    nbytes = ELEMENTS * 4
    ms = median_ms(lambda: c.copy_(a))
    report("copy_d2d", 2 * nbytes / ms / 1e6, "GB/s", "device-to-device copy_, 256 MiB (read + write)")
    ms = median_ms(lambda: a + b)
    report("add", 3 * nbytes / ms / 1e6, "GB/s", "a + b, 64M float32 (2 reads + 1 write)")
    ms = median_ms(lambda: a * b)
    report("mul", 3 * nbytes / ms / 1e6, "GB/s", "a * b, 64M float32 (2 reads + 1 write)")
    ms = median_ms(lambda: a.sum())
    report("sum", nbytes / ms / 1e6, "GB/s", "a.sum(), 64M float32 (1 read)")


def matmul_rate(key, dtype, tf32, description):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.rand(MATRIX, MATRIX, device="cuda").to(dtype)
    b = torch.rand(MATRIX, MATRIX, device="cuda").to(dtype)
    ms = median_ms(lambda: a @ b)
    torch.backends.cuda.matmul.allow_tf32 = False
    report(key, 2.0 * MATRIX**3 / ms / 1e9, "TFLOP/s", description)


def small_add_overhead():
    calls = 10000
    a = torch.rand(1024, device="cuda")
    b = torch.rand(1024, device="cuda")
    per_call = []
    for _ in range(7):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            a + b
        torch.cuda.synchronize()
        per_call.append((time.perf_counter() - start) * 1e6 / calls)
    report("small_add", statistics.median(per_call), "us/call",
           "a + b on 1024 float32, 10000 calls, host time (from Python)")
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        start = time.perf_counter()
        for _ in range(calls):
            a + b
        torch.cuda.synchronize()
        wall_us = (time.perf_counter() - start) * 1e6
    kernels, busy_us = gpu_activity(prof)
    report("small_add_kernels", kernels / calls, "kernels/call", "kernels per call of the small adds (torch.profiler)")
    report("small_add_busy", 100 * min(busy_us / wall_us, 1.0), "%",
           "GPU-busy share of the small adds' time (torch.profiler)")



def main():
    print(f"# gpu_bench_torch: torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    bandwidth()
    matmul_rate("matmul_fp32", torch.float32, False, "4096^3 matmul, float32 (no TF32)")
    matmul_rate("matmul_tf32", torch.float32, True, "4096^3 matmul, float32 with TF32 allowed")
    matmul_rate("matmul_bf16", torch.bfloat16, False, "4096^3 matmul, bfloat16 (float32 accumulation)")
    small_add_overhead()


if __name__ == "__main__":
    main()
