#pragma once
// The model of the pipeline tests: a chain of float64 Linear layers (tanh between them, none
// after the last), cut into a pipeline's stages by layer ranges, and optionally a skip
// connection: the input goes along every stage, added before each tanh, so each stage passes
// two tensors to the next and the input's gradient gathers from all of them.
//
//   LayerChain model(ChainOptions{6, 8, 4, /*seed=*/1});      // every rank: the same weights
//   LayerChain on_device(options, Device("sim:0"));           // the same weights on a device
//   auto chunks = model.chunks(StageLayout(3, 1), rank);       // the stages of `rank`
//   Tensor logits = model.forward(x);                          // one process: the reference
#include <cstdint>
#include <utility>
#include <vector>

#include "distributed/pipeline/pipeline_stage.h"
#include "nn/nn.h"

namespace brisk::dist::pipeline::testing {

struct ChainOptions {
  int layers = 5;
  int64_t width = 6;    // the input's and every hidden layer's features
  int64_t classes = 3;  // the last layer's outputs
  uint64_t seed = 1;
  bool skip = false;  // carry the input along every stage (two tensors per message)
};

class LayerChain {
 public:
  // The weights are drawn on the CPU from options.seed, then moved to `device`.
  explicit LayerChain(const ChainOptions& options, Device device = kCPU);

  // Layers [from, to) of the chain on `h` (the skip input `x` added before each tanh when on).
  Tensor run(Tensor h, const Tensor& x, int from, int to) const;
  Tensor forward(const Tensor& x) const { return run(x, x, 0, options_.layers); }
  // The layers of `stage` among `stages`: consecutive ranges, the larger first (7 in 3: 3, 2, 2).
  std::pair<int, int> stage_layers(int stage, int stages) const;
  // The chunks of `rank` under `layout`: stage s runs stage_layers(s); with skip on, stages pass
  // {h, x} and the last returns {logits}.
  std::vector<StageFunction> chunks(const StageLayout& layout, int rank) const;
  // The parameters of layers [from, to).
  std::vector<Tensor> parameters(int from, int to) const;
  std::vector<Tensor> parameters() const { return parameters(0, options_.layers); }
  // The parameters of the stages `rank` holds.
  std::vector<Tensor> rank_parameters(const StageLayout& layout, int rank) const;

 private:
  ChainOptions options_;
  std::vector<nn::Linear> layers_;
};

// A batch of the chain's inputs [rows, width] (float64) and class targets [rows] (int64).
std::pair<Tensor, Tensor> chain_batch(const ChainOptions& options, int64_t rows, uint64_t seed);

// The cross-entropy loss of the last stage's first output.
Tensor chain_loss(const std::vector<Tensor>& outputs, const std::vector<Tensor>& targets);

// The largest |a - b| over two lists of tensors of equal shapes (their gradients, say), on
// any devices.
double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b);

}  // namespace brisk::dist::pipeline::testing
