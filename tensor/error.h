#pragma once
// The one exception type of Brisk. Messages name the op and the shapes, dtypes and
// devices involved, e.g. "matmul: shapes [64, 784] and [128, 10] cannot be multiplied".
//
// A brisk::Error that nothing catches (one that leaves main or a thread's function) ends the
// program with its message on stderr and exit status 1, as an uncaught Python exception
// does, instead of std::terminate's "terminate called after throwing an instance of
// 'brisk::Error'" and SIGABRT:
//
//   brisk::Error: matmul: shapes [64, 784] and [128, 10] cannot be multiplied
//   (set BRISK_BACKTRACE=1 for a backtrace)
//
// With BRISK_BACKTRACE=1 in the environment each Error records the stack where it was
// constructed, and that report prints it instead of the hint (docs/errors.md). Other
// exceptions keep std::terminate's behaviour.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  explicit Error(const char* message);

  // The stack where this error was constructed, one frame per line, innermost first, with
  // demangled function names (and file:line where the binary has debug information), when
  // BRISK_BACKTRACE=1 was set; empty otherwise.
  std::string backtrace() const;

 private:
  std::shared_ptr<const std::vector<void*>> frames_;  // null unless BRISK_BACKTRACE=1
};

[[noreturn]] void throw_error(const std::string& message);

}  // namespace brisk

// BRISK_CHECK(cond, "fmt string", args...): throws brisk::Error with the formatted message.
#define BRISK_CHECK(cond, ...)                                   \
  do {                                                           \
    if (!(cond)) ::brisk::throw_error(fmt::format(__VA_ARGS__)); \
  } while (0)

#define BRISK_FAIL(...) ::brisk::throw_error(fmt::format(__VA_ARGS__))
