#pragma once
// The index types of Tensor::index and Tensor::index_put_, as libtorch's torch::indexing:
//
//   using namespace brisk::indexing;
//   x.index({Slice(1, None), 0})        // x[1:, 0]
//   x.index({"...", None})              // x[..., None]
//   x.index({mask})                     // x[mask], mask a bool tensor
//   x.index_put_({Slice(), idx}, 0.0)   // x[:, idx] = 0, idx an int64 tensor
//
// Semantics are PyTorch's; docs/tensors.md says what differs (one index tensor per call).
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "tensor/tensor.h"

namespace brisk::indexing {

// Python's None: an absent Slice bound, or an index that inserts a dim of size 1.
constexpr std::nullopt_t None = std::nullopt;

// Python's `...`: as many full slices as the other indices leave dims.
struct EllipsisIndexType {
  explicit EllipsisIndexType() = default;
};
inline const EllipsisIndexType Ellipsis{};

// Python's start:stop:step; absent bounds take the whole dim, the step defaults to 1.
class Slice {
 public:
  Slice(std::optional<int64_t> start = None, std::optional<int64_t> stop = None, std::optional<int64_t> step = None)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

// One index: None, Ellipsis ("..." too), an integer, a bool, a Slice or a tensor (a bool mask or
// integer positions).
class TensorIndex {
 public:
  enum class Kind { kNone, kEllipsis, kInteger, kBoolean, kSlice, kTensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::kNone) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::kEllipsis) {}
  // "..." only.
  TensorIndex(const char* ellipsis) : kind_(Kind::kEllipsis) {
    BRISK_CHECK(ellipsis != nullptr && std::string_view(ellipsis) == "...",
                "TensorIndex: expected \"...\" to represent an ellipsis index, got \"{}\"",
                ellipsis == nullptr ? "(null)" : ellipsis);
  }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T integer) : kind_(Kind::kInteger), integer_(static_cast<int64_t>(integer)) {}
  template <typename T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T boolean) : kind_(Kind::kBoolean), boolean_(boolean) {}
  TensorIndex(Slice slice) : kind_(Kind::kSlice), slice_(slice) {}
  TensorIndex(Tensor tensor) : kind_(Kind::kTensor), tensor_(std::move(tensor)) {}

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace brisk::indexing
