#include "checkpoint/safetensors.h"

#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "checkpoint/atomic_file.h"
#include "checkpoint/checksums.h"
#include "checkpoint/safetensors_reader.h"
#include "tensor/error.h"

namespace brisk::checkpoint {

// safetensors stores little-endian bytes; Brisk's tensors hold the host's.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes a little-endian host");

void save_safetensors(const std::string& path, const nn::StateDict& tensors, const Metadata& metadata,
                      Checksums checksums) {
  autograd::NoGradGuard no_grad;
  BRISK_CHECK(metadata.count(kChecksumsKey) == 0, "save_safetensors '{}': metadata key \"{}\" is reserved", path,
              kChecksumsKey);
  SafetensorsHeader header;
  header.metadata = metadata;
  std::vector<Tensor> host;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    BRISK_CHECK(!name.empty() && name != "__metadata__", "save_safetensors '{}': invalid tensor name \"{}\"", path,
                name);
    BRISK_CHECK(tensor.defined(), "save_safetensors '{}': tensor \"{}\" is undefined", path, name);
    host.push_back(tensor.detach().to(kCPU).contiguous());
    header.tensors.push_back({name, tensor.dtype(), tensor.sizes(), offset, offset + host.back().nbytes()});
    offset = header.tensors.back().end;
  }
  if (checksums == Checksums::kWrite) {
    std::vector<uint64_t> data_checksums;
    for (const Tensor& t : host) data_checksums.push_back(checksum(t.raw_data(), t.nbytes()));
    std::string entry = encode_checksums(header, data_checksums);
    header.metadata[kChecksumsKey] = std::move(entry);
  }
  std::string text = encode_header(header);
  uint8_t length[kHeaderLengthBytes];
  for (size_t i = 0; i < kHeaderLengthBytes; ++i) length[i] = static_cast<uint8_t>(uint64_t{text.size()} >> (8 * i));

  AtomicFile out(path);
  out.write(length, sizeof(length));
  out.write(text.data(), text.size());
  for (const Tensor& t : host) out.write(t.raw_data(), t.nbytes());
  out.commit();
}

Safetensors load_safetensors(const std::string& path) {
  SafetensorsReader file(path);
  Safetensors out;
  for (const TensorEntry& entry : file.header().tensors) out.tensors.insert(entry.name, file.read(entry));
  out.metadata = file.header().metadata;
  out.metadata.erase(kChecksumsKey);
  out.checksums_verified = file.has_checksums();
  return out;
}

}  // namespace brisk::checkpoint
