#include "data/collate.h"

#include <cstring>

#include "autograd/ops.h"
#include "tensor/native/ops.h"

namespace brisk::data {

Tensor stack_examples(const std::vector<Tensor>& tensors, const char* what) {
  BRISK_CHECK(!tensors.empty(), "collate: no examples to stack");
  const Tensor& first = tensors[0];
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    BRISK_CHECK(t.sizes() == first.sizes() && t.dtype() == first.dtype() && t.device() == first.device(),
                "collate: cannot stack the {} of example {} of the batch, {}, with that of example 0, {}; "
                "examples of different shapes need a collate function of their own (DataLoaderOptions::collate)",
                what, i, t.describe(), first.describe());
  }
  if (!first.is_cpu()) return brisk::stack(tensors, 0);

  Shape shape = first.sizes();
  shape.insert(shape.begin(), static_cast<int64_t>(tensors.size()));
  Tensor out = native::empty(shape, first.dtype());
  size_t bytes = first.nbytes();
  auto* dst = static_cast<char*>(out.raw_data());
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor src = tensors[i].is_contiguous() ? tensors[i] : native::contiguous(tensors[i]);
    if (bytes > 0) std::memcpy(dst + i * bytes, src.raw_data(), bytes);
  }
  return out;
}

Batch default_collate(std::vector<Example<>> examples) {
  BRISK_CHECK(!examples.empty(), "default_collate: a batch needs at least one example");
  std::vector<Tensor> data;
  std::vector<Tensor> targets;
  data.reserve(examples.size());
  targets.reserve(examples.size());
  bool has_target = examples[0].target.defined();
  for (size_t i = 0; i < examples.size(); ++i) {
    BRISK_CHECK(examples[i].data.defined(), "default_collate: the data of example {} of the batch is undefined", i);
    BRISK_CHECK(examples[i].target.defined() == has_target,
                "default_collate: example {} of the batch has {} target but example 0 has {}", i,
                has_target ? "no" : "a", has_target ? "one" : "none");
    data.push_back(std::move(examples[i].data));
    targets.push_back(std::move(examples[i].target));
  }
  Batch batch;
  batch.data = stack_examples(data, "data");
  if (has_target) batch.target = stack_examples(targets, "target");
  return batch;
}

}  // namespace brisk::data
