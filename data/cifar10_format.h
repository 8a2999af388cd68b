#pragma once
// The CIFAR-10 binary format (https://www.cs.toronto.edu/~kriz/cifar.html): a file is a
// sequence of 3073-byte records, a label byte (0-9) followed by a 32x32 colour image as 1024
// red, 1024 green and 1024 blue bytes, each plane row by row.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace brisk::data {

constexpr int64_t kCifar10RecordBytes = 3073;
constexpr int64_t kCifar10Classes = 10;

// Images and labels of a CIFAR-10 file.
struct LabeledImages {
  Tensor images;  // uint8 [N, 32, 32, 3], channels last (HWC), like torchvision's CIFAR10.data
  Tensor labels;  // int64 [N]
};

// Parses CIFAR-10 records held in memory (plain, or gzip recognized by its magic bytes: no
// record starts with 0x1f, an invalid label). `name` names the source in errors: empty
// data, a size that is not a whole number of records (expected vs actual bytes), a label
// out of range (with its byte offset).
LabeledImages parse_cifar10(const uint8_t* data, size_t size, const std::string& name);

}  // namespace brisk::data
