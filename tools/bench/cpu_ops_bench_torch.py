"""PyTorch twin of cpu_ops_bench.cc: the same two measurements, printed the same way.

Usage: python3 tools/bench/cpu_ops_bench_torch.py THREADS
"""
import sys

import torch

from timing import median_ms


def main():
    torch.set_num_threads(int(sys.argv[1]))
    torch.manual_seed(0)
    print(f"threads {torch.get_num_threads()}")

    n = 1024
    a = torch.rand(n, n) * 2 - 1
    b = torch.rand(n, n) * 2 - 1
    mm_seconds = median_ms(3, 20, lambda: torch.mm(a, b)) / 1e3
    print(f"matmul_1024_f32_gflops {2.0 * n ** 3 / mm_seconds / 1e9:.2f}")

    numel = 16 * 1024 * 1024
    x = torch.rand(numel) * 2 - 1
    y = torch.rand(numel) * 2 - 1
    add_seconds = median_ms(3, 20, lambda: torch.add(x, y)) / 1e3
    print(f"add_16m_f32_gbps {3.0 * numel * 4 / add_seconds / 1e9:.2f}")


if __name__ == "__main__":
    main()
