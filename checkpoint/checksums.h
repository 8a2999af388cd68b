#pragma once
// Checksums that let the reader of a safetensors file tell a corrupt file from a good one, kept
// in the file's "__metadata__" so that every other safetensors reader still reads it (they
// ignore metadata they do not know). The entry "brisk.checksums" holds JSON:
//
//   {"algorithm": "xxh3-64",
//    "tensors":  {"fc.weight": "9f2c03a1b4e5d6c7", ...},   each tensor's data bytes
//    "entries":  {"fc.weight": "13ab8e0f2d4c6b5a", ...},   each tensor's header entry
//                                                         ({"dtype":..,"shape":..,"data_offsets":..})
//    "metadata": {"format": "a1b2c3d4e5f60718", ...}}     each other metadata entry's value
//
// (XXH3, 64 bits, as 16 lowercase hex digits). Every change to what the file says, a flipped
// bit in a tensor's data, in a name, dtype, shape or offset, in a metadata key or value, or in
// the checksums themselves, makes some checksum disagree, and the error names the file and the
// tensor or metadata entry. A change the reader cannot notice (the header's trailing spaces)
// does not change what it reads. A file whose "brisk.checksums" key itself is damaged reads as
// one without checksums: checkpoints (checkpoint.h) therefore require them.
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
