#pragma once
// An op's schema, parsed from the string an extension declares it with, in PyTorch's shape:
//
//   "scaled_silu(Tensor x, Tensor a) -> Tensor"
//   "scaled_silu_backward(Tensor grad, Tensor x, Tensor a) -> (Tensor, Tensor)"
//
// Argument types: Tensor, Tensor[], int, float, bool, str, int[]. Returns: Tensor, Tensor[] or
// a tuple of Tensors. Defaults, optional types (Tensor?) and alias annotations (Tensor(a!))
// are refused: a kernel is a plain C++ function, called with every argument.
#include <string>
#include <string_view>
#include <vector>

#include "brisk/requires_cxx17.h"

namespace brisk::library {

enum class ArgType { Tensor, TensorList, Int, Float, Bool, Str, IntList };

// As the schema spells it: "Tensor", "Tensor[]", "int", "float", "bool", "str", "int[]".
const char* arg_type_name(ArgType type);

struct Argument {
  ArgType type;
  std::string name;
};

// What an op returns: one Tensor, a Tensor[], or a tuple of `tuple_size` Tensors.
struct Returns {
  enum class Kind { Tensor, TensorList, Tuple };
  Kind kind = Kind::Tensor;
  size_t tuple_size = 0;

  bool operator==(const Returns& o) const { return kind == o.kind && tuple_size == o.tuple_size; }
  bool operator!=(const Returns& o) const { return !(*this == o); }
  // "Tensor", "Tensor[]", "(Tensor, Tensor)".
  std::string str() const;
};

struct Schema {
  std::string name;  // unqualified: "scaled_silu"
  std::vector<Argument> arguments;
  Returns returns;

  // The declaration as written, normalized: "scaled_silu(Tensor x, Tensor a) -> Tensor".
  std::string str() const;
};

// Raises brisk::Error quoting `text` and saying what is wrong in it.
Schema parse_schema(std::string_view text);

}  // namespace brisk::library
