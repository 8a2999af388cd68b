#include "models/parallel/gather_gpt_state.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "autograd/ops.h"
#include "distributed/pipeline/tensor_message.h"
#include "tensor/error.h"

namespace brisk::models {

namespace {

constexpr int kStateTag = 7;  // the pipeline's streams use their own tags; this one is a step's end

// The keys, joined by '\n', as a uint8 tensor that travels with the values.
Tensor encode_keys(const nn::StateDict& state) {
  std::string joined;
  for (const auto& item : state) joined += item.key() + "\n";
  Tensor bytes = empty({static_cast<int64_t>(joined.size())}, TensorOptions(kUInt8));
  std::copy(joined.begin(), joined.end(), bytes.data_ptr<uint8_t>());
  return bytes;
}

std::vector<std::string> decode_keys(const Tensor& bytes) {
  const uint8_t* data = bytes.data_ptr<uint8_t>();
  std::vector<std::string> keys(1);
  for (int64_t i = 0; i < bytes.numel(); ++i) {
    if (data[i] == '\n') {
      keys.emplace_back();
    } else {
      keys.back().push_back(static_cast<char>(data[i]));
    }
  }
  keys.pop_back();  // after the last '\n'
  return keys;
}

}  // namespace

bool is_gathering_rank(const ParallelGPTImpl& model) {
  return model.groups.dp->rank() == 0 && model.groups.tp->rank() == 0 && model.groups.pp->rank() == 0;
}

nn::StateDict gather_full_state_dict(ParallelGPTImpl& model) {
  nn::StateDict stage = model.full_state_dict();  // collective over tp
  if (model.groups.dp->rank() != 0 || model.groups.tp->rank() != 0) return {};
  dist::ProcessGroup& pp = *model.groups.pp;
  if (pp.rank() != 0) {
    std::vector<Tensor> message{encode_keys(stage)};
    for (const auto& item : stage) message.push_back(item.value().contiguous());
    dist::pipeline::MessageShapes shapes;
    dist::pipeline::send_tensors(pp, message, /*dst=*/0, kStateTag, shapes).wait();
    return {};
  }
  nn::StateDict merged = stage;
  for (int source = 1; source < pp.size(); ++source) {
    dist::pipeline::MessageShapes shapes;
    const std::vector<Tensor> message = dist::pipeline::recv_tensors(pp, source, kStateTag, shapes);
    const std::vector<std::string> keys = decode_keys(message.at(0));
    for (size_t i = 0; i < keys.size(); ++i) {
      if (merged.find(keys[i]) == nullptr) merged.insert(keys[i], message.at(i + 1));
    }
  }
  // In the unsplit GPT's order: the embeddings, the blocks by index, ln_f.
  std::vector<std::string> prefixes{"wte.", "wpe."};
  for (int64_t i = 0; i < model.config.n_layer(); ++i) prefixes.push_back(fmt::format("blocks.{}.", i));
  prefixes.push_back("ln_f.");
  nn::StateDict ordered;
  for (const std::string& prefix : prefixes) {
    for (const auto& item : merged) {
      if (item.key().compare(0, prefix.size(), prefix) == 0) ordered.insert(item.key(), item.value());
    }
  }
  BRISK_CHECK(ordered.size() == merged.size(), "gather_full_state_dict: {} of the stages' {} keys are GPT keys",
              ordered.size(), merged.size());
  return ordered;
}

}  // namespace brisk::models
