#include "distributed/zero/zero_state_wire.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

#include "distributed/host_value_collectives.h"
#include "tensor/native/ops.h"

namespace brisk::dist {

std::vector<uint8_t> encode_shard_state(const std::vector<ShardStateEntry>& entries) {
  nlohmann::json header = nlohmann::json::array();
  std::vector<Tensor> host;
  for (const ShardStateEntry& e : entries) {
    header.push_back({{"param", e.param},
                      {"name", e.name},
                      {"dtype", static_cast<int>(e.value.dtype())},
                      {"shape", e.value.sizes()},
                      {"on_param_device", !e.value.is_cpu()}});
    host.push_back(native::contiguous(native::to(e.value, kCPU, e.value.dtype())));
  }
  const std::string text = header.dump();
  const uint64_t length = text.size();
  std::vector<uint8_t> bytes(sizeof(length));
  for (size_t i = 0; i < sizeof(length); ++i) bytes[i] = static_cast<uint8_t>(length >> (8 * i));
  bytes.insert(bytes.end(), text.begin(), text.end());
  for (const Tensor& t : host) {
    const auto* data = static_cast<const uint8_t*>(t.raw_data());
    bytes.insert(bytes.end(), data, data + t.nbytes());
  }
  return bytes;
}

std::vector<Tensor> gather_bytes(ProcessGroup& group, const std::vector<uint8_t>& bytes, int to) {
  const std::vector<int64_t> lengths = all_gather_values(group, {static_cast<int64_t>(bytes.size())});
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());

  // gather needs equal sizes: every buffer is padded to the longest.
  std::vector<uint8_t> padded(bytes);
  padded.resize(longest, 0);
  const auto on_device = TensorOptions(kUInt8).device(group.device());
  Tensor mine = native::from_vector<uint8_t>(padded, {longest}, on_device);
  std::vector<Tensor> all;
  if (group.rank() == to) {
    for (int r = 0; r < group.size(); ++r) all.push_back(native::empty({longest}, on_device));
  }
  group.gather(all, mine, to)->wait();
  for (Tensor& t : all) t = native::to(t, kCPU, kUInt8);
  return all;
}

std::vector<ShardStateEntry> decode_shard_state(const Tensor& bytes, const std::vector<Tensor>& params, int from) {
  const auto* data = bytes.data_ptr<uint8_t>();
  const size_t size = static_cast<size_t>(bytes.numel());
  auto check = [&](bool ok, const std::string& what) {
    BRISK_CHECK(ok, "ZeroRedundancyOptimizer: the optimizer state sent by rank {} is malformed ({})", from, what);
  };
  uint64_t length = 0;
  check(size >= sizeof(length), "shorter than its header length");
  for (size_t i = 0; i < sizeof(length); ++i) length |= static_cast<uint64_t>(data[i]) << (8 * i);
  size_t offset = sizeof(length);
  check(length <= size - offset, "header runs past the buffer");
  const nlohmann::json header =
      nlohmann::json::parse(data + offset, data + offset + length, nullptr, /*allow_exceptions=*/false);
  check(header.is_array(), "header is not a JSON array");
  offset += length;

  std::vector<ShardStateEntry> entries;
  for (const nlohmann::json& item : header) {
    const bool well_formed = item.is_object() && item.value("param", nlohmann::json()).is_number_integer() &&
                             item.value("name", nlohmann::json()).is_string() &&
                             item.value("dtype", nlohmann::json()).is_number_integer() &&
                             item.value("shape", nlohmann::json()).is_array() &&
                             item.value("on_param_device", nlohmann::json()).is_boolean();
    check(well_formed, "entry " + item.dump());
    const int64_t param = item["param"].get<int64_t>();
    check(param >= 0 && param < static_cast<int64_t>(params.size()),
          fmt::format("parameter index {} of {}", param, params.size()));
    const int dtype = item["dtype"].get<int>();
    check(dtype >= 0 && dtype <= static_cast<int>(kFloat16), fmt::format("dtype {}", dtype));
    Tensor value = native::empty(item["shape"].get<Shape>(), static_cast<DType>(dtype));
    check(value.nbytes() <= size - offset, "tensor data runs past the buffer");
    std::memcpy(value.raw_data(), data + offset, value.nbytes());
    offset += value.nbytes();
    if (item["on_param_device"].get<bool>()) value = native::to(value, params[param].device(), value.dtype());
    entries.push_back({param, item["name"].get<std::string>(), value});
  }
  return entries;
}

}  // namespace brisk::dist
