#include "distributed/tensor_parallel/parallel_layer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor/error.h"

namespace brisk::dist::tp {

ParallelParameter TensorParallelLayer::parameter(const std::string& name) const {
  std::vector<std::string> names;
  for (ParallelParameter& p : parallel_parameters()) {
    if (p.name == name) return p;
    names.push_back(p.name);
  }
  throw Error(fmt::format("{}: no parameter '{}'; it has {}", options_text(), name, fmt::join(names, ", ")));
}

Shape TensorParallelLayer::global_shape(const std::string& name) const { return parameter(name).global_shape; }

RowRange TensorParallelLayer::local_range(const std::string& name) const {
  const ParallelParameter p = parameter(name);
  if (p.split_dim < 0) return {0, p.global_shape.empty() ? 1 : p.global_shape[0]};
  return split(p.global_shape[p.split_dim]);
}

Shape TensorParallelLayer::local_shape(const std::string& name) const {
  const ParallelParameter p = parameter(name);
  Shape shape = p.global_shape;
  if (p.split_dim >= 0) shape[p.split_dim] = split(shape[p.split_dim]).rows;
  return shape;
}

std::string TensorParallelLayer::describe() const {
  std::vector<std::string> parts;
  for (const ParallelParameter& p : parallel_parameters()) {
    std::string split_text = "whole on every rank";
    if (p.split_dim >= 0) {
      const RowRange range = split(p.global_shape[p.split_dim]);
      split_text = fmt::format("dim {} [{}, {})", p.split_dim, range.begin, range.begin + range.rows);
    }
    parts.push_back(fmt::format("{} [{}] of [{}] ({})", p.name, fmt::join(local_shape(p.name), ", "),
                                fmt::join(p.global_shape, ", "), split_text));
  }
  return fmt::format("{} on tensor-parallel rank {} of {}: {}", options_text(), tp_rank(), tp_size(),
                     fmt::join(parts, ", "));
}

}  // namespace brisk::dist::tp
