#pragma once
// Checksums in a safetensors file's "__metadata__" entry "brisk.checksums", which lets a reader
// tell a corrupt file from a good one while every other safetensors reader still reads it. The
// entry's JSON and what it catches: docs/training.md, "Checksums".
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/safetensors_header.h"

namespace brisk::checkpoint {

// The metadata key of the checksums.
constexpr const char* kChecksumsKey = "brisk.checksums";

// XXH3-64 of `size` bytes.
uint64_t checksum(const void* data, size_t size);

// The "brisk.checksums" value for a file with `header`'s tensors and metadata (which must not
// hold kChecksumsKey itself) whose tensors' data have the checksums `data_checksums`, in the
// order of header.tensors.
std::string encode_checksums(const SafetensorsHeader& header, const std::vector<uint64_t>& data_checksums);

// The checks of a file's header and data against its "brisk.checksums" entry.
class ChecksumVerifier {
 public:
  // Parses `checksums` (the entry's value) and checks `header` against it: the same tensors and
  // metadata entries, and each tensor's header entry and each metadata value unchanged. Raises
  // brisk::Error naming `file` and the tensor or entry that differs.
  ChecksumVerifier(const SafetensorsHeader& header, const std::string& checksums, const std::string& file);

  // Checks the data of tensor `entry`, read from file byte `file_offset` on; raises brisk::Error
  // naming the file, the tensor and its bytes when they are not what was written.
  void check_data(const TensorEntry& entry, const void* data, uint64_t file_offset) const;

 private:
  std::string file_;
  std::map<std::string, std::string> data_;  // tensor name -> checksum of its data, in hex
};

}  // namespace brisk::checkpoint
