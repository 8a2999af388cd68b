#pragma once
// IntArrayRef: a non-owning view of int64 values, the parameter type of the ops that take a
// list of dims (as libtorch's c10::IntArrayRef). One call spells the dims any of these ways:
//
//   x.sum()          // no argument, or {}: every dim
//   x.sum(1)         // one dim
//   x.sum({0, 1})    // a braced list
//   x.sum(dims)      // a std::vector<int64_t>
//
// It points into its argument, which lives until the end of the full expression: take it as a
// parameter and copy it (vec()) to keep it; never store the view itself.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk {

class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
  // One value.
  constexpr IntArrayRef(const int64_t& one) : data_(&one), size_(1) {}
  IntArrayRef(const std::vector<int64_t>& values) : data_(values.data()), size_(values.size()) {}
  // (std::begin rather than values.begin() spares GCC's -Winit-list-lifetime: the list
  // outlives the call, as above.)
  constexpr IntArrayRef(std::initializer_list<int64_t> values)
      : data_(std::begin(values) == std::end(values) ? nullptr : std::begin(values)), size_(values.size()) {}
  constexpr IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}

  constexpr const int64_t* begin() const { return data_; }
  constexpr const int64_t* end() const { return data_ + size_; }
  constexpr const int64_t* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const int64_t& operator[](size_t i) const { return data_[i]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace brisk
