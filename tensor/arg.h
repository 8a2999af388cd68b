#pragma once
// BRISK_ARG declares one option of an options struct with a chained setter and a getter,
// as TORCH_ARG:
//
//   struct Conv2dOptions {
//     Conv2dOptions(int64_t in, int64_t out, Size2 kernel) : ... {}
//     BRISK_ARG(Size2, stride) = 1;
//   };
//   auto options = Conv2dOptions(1, 6, 5).stride(2).padding(2);
//   options.stride();  // 2
#include "brisk/requires_cxx17.h"

#define BRISK_ARG(T, name)                                  \
 public:                                                    \
  using name##_type = T;                                    \
  auto& name(const name##_type& value) {                    \
    this->name##_ = value;                                  \
    return *this;                                           \
  }                                                         \
  const name##_type& name() const { return this->name##_; } \
                                                            \
 private:                                                   \
  name##_type name##_ /* = default value */
