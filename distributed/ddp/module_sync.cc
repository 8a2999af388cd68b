#include "distributed/ddp/module_sync.h"

#include <algorithm>

#include "distributed/host_value_collectives.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

namespace {

// Flattens a group of same-dtype tensors, broadcasts, and copies back.
void broadcast_group(ProcessGroup& group, const std::vector<Tensor>& tensors, int root) {
  std::vector<Tensor> flat;
  flat.reserve(tensors.size());
  for (const Tensor& t : tensors) flat.push_back(native::reshape(t, {t.numel()}));
  Tensor buffer = flat.size() == 1 ? native::contiguous(flat[0]) : native::cat(flat, 0);
  group.broadcast(buffer, root)->wait();
  if (group.rank() == root) return;  // its tensors hold the values already
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    Tensor target = t;
    native::copy_(target, native::view(native::narrow(buffer, 0, offset, t.numel()), t.sizes()));
    t.bump_version();
    offset += t.numel();
  }
}

// rank's description of its tensors: count, then per tensor dtype, rank and sizes.
std::vector<int64_t> describe(const nn::StateDict& tensors) {
  std::vector<int64_t> words{static_cast<int64_t>(tensors.size())};
  for (const auto& item : tensors) {
    const Tensor& t = item.second;
    words.push_back(static_cast<int64_t>(t.dtype()));
    words.push_back(t.dim());
    for (int64_t size : t.sizes()) words.push_back(size);
  }
  return words;
}

// Every rank's words, each padded with -1 to the longest rank's count, in rank order.
std::vector<int64_t> all_gather_words(ProcessGroup& group, const std::vector<int64_t>& words) {
  std::vector<int64_t> lengths = all_gather_values(group, {static_cast<int64_t>(words.size())});
  std::vector<int64_t> padded(words);
  padded.resize(*std::max_element(lengths.begin(), lengths.end()), -1);
  return all_gather_values(group, padded);
}

std::string shape_text(const int64_t* words) {
  std::vector<int64_t> sizes(words + 2, words + 2 + words[1]);
  return fmt::format("[{}] {}", fmt::join(sizes, ", "), dtype_name(static_cast<DType>(words[0])));
}

}  // namespace

void broadcast_coalesced(ProcessGroup& group, const std::vector<Tensor>& tensors, int root, int64_t buffer_bytes) {
  std::vector<Tensor> pending;
  int64_t pending_bytes = 0;
  auto flush = [&] {
    if (!pending.empty()) broadcast_group(group, pending, root);
    pending.clear();
    pending_bytes = 0;
  };
  for (const Tensor& t : tensors) {
    if (!pending.empty() && (pending.front().dtype() != t.dtype() || pending.front().device() != t.device() ||
                             pending_bytes + static_cast<int64_t>(t.nbytes()) > buffer_bytes)) {
      flush();
    }
    pending.push_back(t);
    pending_bytes += static_cast<int64_t>(t.nbytes());
  }
  flush();
}

void check_on_group_device(const ProcessGroup& group, const nn::StateDict& tensors, const std::string& what,
                           const std::string& wrapper) {
  for (const auto& [name, t] : tensors) {
    BRISK_CHECK(t.device() == group.device(),
                "{} on rank {}: {} {} is on {} but the process group ({}) takes tensors on {}; "
                "move the module to {} before wrapping it, or create the group for {} "
                "(ProcessGroupOptions::device)",
                wrapper, group.rank(), what, name, t.device(), group.backend_name(), group.device(), group.device(),
                t.device());
  }
}

void verify_same_shapes(ProcessGroup& group, const nn::StateDict& tensors, const std::string& what,
                        const std::string& wrapper) {
  std::vector<int64_t> words = describe(tensors);
  std::vector<int64_t> all = all_gather_words(group, words);
  const int64_t stride = static_cast<int64_t>(all.size()) / group.size();
  const int64_t* reference = all.data();
  for (int r = 1; r < group.size(); ++r) {
    const int64_t* other = all.data() + r * stride;
    BRISK_CHECK(other[0] == reference[0],
                "{}: rank {} has {} {}s but rank 0 has {}; every rank must wrap the same model", wrapper, r, other[0],
                what, reference[0]);
    int64_t a = 1, b = 1;
    for (const auto& item : tensors) {
      bool same = reference[a] == other[b] && reference[a + 1] == other[b + 1] &&
                  std::equal(reference + a + 2, reference + a + 2 + reference[a + 1], other + b + 2);
      BRISK_CHECK(same, "{}: {} {} has shape {} on rank {} but {} on rank 0", wrapper, what, item.first,
                  shape_text(other + b), r, shape_text(reference + a));
      a += 2 + reference[a + 1];
      b += 2 + other[b + 1];
    }
  }
}

Replica replicate_from_rank0(nn::Module& module, ProcessGroup& group, const std::string& wrapper) {
  nn::StateDict named = module.named_parameters();
  const nn::StateDict buffers = module.named_buffers();
  check_on_group_device(group, named, "parameter", wrapper);
  check_on_group_device(group, buffers, "buffer", wrapper);
  verify_same_shapes(group, named, "parameter", wrapper);
  verify_same_shapes(group, buffers, "buffer", wrapper);

  Replica replica;
  replica.buffers = module.buffers();
  std::vector<Tensor> state = module.parameters();
  state.insert(state.end(), replica.buffers.begin(), replica.buffers.end());
  if (group.size() > 1) broadcast_coalesced(group, state, 0);

  for (const auto& [name, param] : named) {
    if (!param.requires_grad()) continue;
    replica.trained.push_back(param);
    replica.trained_names.push_back(name);
  }
  BRISK_CHECK(!replica.trained.empty(), "{}: the module has no parameter that requires a gradient", wrapper);
  return replica;
}

}  // namespace brisk::dist
