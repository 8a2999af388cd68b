"""PyTorch's side of attention_bench (tools/bench/attention_bench.cc): causal
torch.nn.functional.scaled_dot_product_attention on the CPU, float32, forward and forward +
backward, the same shapes and the same output lines.

    python3 tools/bench/attention_bench_torch.py THREADS [RUNS]
"""
import sys

import torch
import torch.nn.functional as F

from timing import median_ms

SHAPES = [  # attention_shapes.h
    ("gpt_mini_b8_h4_t128_d32", 8, 4, 128, 32),
    ("gpt_small_b4_h6_t256_d64", 4, 6, 256, 64),
    ("long_b1_h8_t1024_d64", 1, 8, 1024, 64),
]


def main():
    torch.set_num_threads(int(sys.argv[1]))
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    print(f"threads {torch.get_num_threads()}")
    g = torch.Generator().manual_seed(0)
    for name, b, h, t, d in SHAPES:
        q, k, v = (torch.randn(b, h, t, d, generator=g).requires_grad_() for _ in range(3))
        grad = torch.randn(b, h, t, d, generator=g)

        def forward():
            with torch.no_grad():
                F.scaled_dot_product_attention(q, k, v, is_causal=True)

        def both():
            F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad)

        print(f"{name}_fwd_ms {median_ms(1, runs, forward):.3f}")
        print(f"{name}_fwdbwd_ms {median_ms(1, runs, both):.3f}")


if __name__ == "__main__":
    main()
