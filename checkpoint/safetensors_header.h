#pragma once
// The JSON header of a safetensors file (https://github.com/huggingface/safetensors):
//
//   bytes 0..7      N, the header's length, unsigned 64-bit little-endian
//   bytes 8..8+N    the header, UTF-8 JSON, padded with trailing spaces:
//                   {"weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, ...,
//                    "__metadata__": {"format": "pt"}}
//   bytes 8+N..     the data: each tensor's elements, row-major, little-endian, at its
//                   data_offsets (counted from the start of the data) with no gaps between
//                   tensors and nothing after the last one
//
// This file encodes and checks headers; safetensors.h reads and writes whole files.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace brisk::checkpoint {

// The "__metadata__" entry: free-form string-to-string pairs.
using Metadata = std::map<std::string, std::string>;

// Where one tensor's bytes are: [begin, end) from the start of the data.
struct TensorEntry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<TensorEntry> tensors;  // in data order
  Metadata metadata;
};

// The file's bytes before the data start: 8 bytes and the JSON header.
constexpr uint64_t kHeaderLengthBytes = 8;
// Larger headers are rejected, as by the safetensors library, so that a corrupt length
// cannot make the reader allocate gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// A dtype's safetensors name: "F32", "F64", "I64", "I32", "U8", "BOOL", "BF16", "F16".
const char* safetensors_dtype_name(DType dtype);
// The dtype of a safetensors name; false for a name Brisk does not read.
bool parse_safetensors_dtype(const std::string& name, DType* dtype);

// The JSON of one tensor's header entry, as the header holds it:
// {"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}.
std::string encode_entry(const TensorEntry& entry);

// The header text for `header`'s tensors (in their order) and metadata, padded with spaces to
// a multiple of 8 bytes so that the data starts 8-byte aligned. The offsets must be the
// contiguous layout the entries describe.
std::string encode_header(const SafetensorsHeader& header);

// Parses and checks the header text `json` of a file `file` (for errors) whose data part is
// `data_bytes` long. Every field is checked: the JSON itself, each entry's dtype, shape
// (non-negative integers) and data_offsets (two integers, begin <= end, end - begin equal to
// the shape's byte size), the metadata's values (strings), duplicate names, and that the
// tensors cover the data exactly, without gaps or overlaps. Errors are brisk::Error naming
// the file, the tensor and the byte offset in the file of the problem.
SafetensorsHeader parse_header(const std::string& json, uint64_t data_bytes, const std::string& file);

}  // namespace brisk::checkpoint
