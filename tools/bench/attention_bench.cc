// Causal scaled_dot_product_attention on the CPU (nn/attention/), float32, forward and
// forward + backward, in milliseconds (medians). attention_bench_torch.py times PyTorch's
// torch.nn.functional.scaled_dot_product_attention on the same shapes; run_attention_bench.sh
// runs the two in interleaved rounds and prints them side by side.
//
//   attention_bench [runs]   prints "threads N", then "<shape>_<pass>_ms <median>" lines
#include <cstdio>
#include <cstdlib>

#include "autograd/ops.h"
#include "nn/attention/scaled_dot_product_attention.h"
#include "tensor/parallel.h"
#include "tools/bench/attention_shapes.h"
#include "tools/bench/timing.h"

int main(int argc, char** argv) {
  using namespace brisk;
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  std::printf("threads %d\n", get_num_threads());
  Generator gen(0);
  for (const bench::AttentionShape& s : bench::kAttentionShapes) {
    auto input = [&](int64_t rows) { return randn({s.batch, s.heads, rows, s.head_dim}, kFloat32, &gen); };
    Tensor q = input(s.length).requires_grad_(), k = input(s.length).requires_grad_(),
           v = input(s.length).requires_grad_();
    Tensor grad = input(s.length);
    const double forward = bench::median_ms(1, runs, [&] {
      NoGradGuard no_grad;
      nn::functional::scaled_dot_product_attention(q, k, v, /*is_causal=*/true);
    });
    const double both = bench::median_ms(
        1, runs, [&] { nn::functional::scaled_dot_product_attention(q, k, v, /*is_causal=*/true).backward(grad); });
    std::printf("%s_fwd_ms %.3f\n%s_fwdbwd_ms %.3f\n", s.name, forward, s.name, both);
  }
  return 0;
}
