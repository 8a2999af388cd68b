#pragma once
// The one exception type of Brisk. Messages name the op and the shapes, dtypes and
// devices involved, e.g. "matmul: shapes [64, 784] and [128, 10] cannot be multiplied".
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>
#include <string>

#include "brisk/requires_cxx17.h"

namespace brisk {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_error(const std::string& message);

}  // namespace brisk

// BRISK_CHECK(cond, "fmt string", args...): throws brisk::Error with the formatted message.
#define BRISK_CHECK(cond, ...)                                   \
  do {                                                           \
    if (!(cond)) ::brisk::throw_error(fmt::format(__VA_ARGS__)); \
  } while (0)

#define BRISK_FAIL(...) ::brisk::throw_error(fmt::format(__VA_ARGS__))
