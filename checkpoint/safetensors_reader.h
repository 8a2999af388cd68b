#pragma once
// SafetensorsReader: one safetensors file opened for reading some of its tensors, each checked
// against the file's checksums (checkpoint/checksums.h) as it is read. load_safetensors
// (checkpoint/safetensors.h) reads every tensor through it; a sharded checkpoint's loader
// (checkpoint/sharded/sharded_reader.h) reads only the entries it needs.
//
//   SafetensorsReader file("ckpt/rank-0.safetensors");   // header read, parsed and checked
//   if (const TensorEntry* w = file.find("fc.weight")) Tensor t = file.read(*w);
#include <memory>
#include <string>

#include "checkpoint/safetensors_header.h"
#include "tensor/tensor.h"

namespace brisk::checkpoint {

class SafetensorsReader {
 public:
  // Opens `path` and checks its whole header against the file size (safetensors_header.h)
  // and, when it has checksums, against them; raises brisk::Error naming the path and the
  // problem.
  explicit SafetensorsReader(const std::string& path);
  ~SafetensorsReader();
  SafetensorsReader(const SafetensorsReader&) = delete;
  SafetensorsReader& operator=(const SafetensorsReader&) = delete;

  const std::string& path() const { return path_; }
  // The tensors' entries and the metadata (the checksums' entry included).
  const SafetensorsHeader& header() const { return header_; }
  bool has_checksums() const;
  // The entry named `name`, or null.
  const TensorEntry* find(const std::string& name) const;
  // The tensor of `entry` (one of header().tensors), on the CPU, checked against its checksum
  // and, for bools, that every byte is 0 or 1.
  Tensor read(const TensorEntry& entry) const;
  // `size` bytes of `entry`'s data from its byte `offset` on, into `out`, unchecked: the caller
  // checks them (a sharded checkpoint's block checksums, checkpoint/sharded/rank_file.h).
  void read_bytes(const TensorEntry& entry, uint64_t offset, uint64_t size, void* out) const;

 private:
  struct Impl;
  std::string path_;
  std::unique_ptr<Impl> impl_;
  SafetensorsHeader header_;
};

}  // namespace brisk::checkpoint
