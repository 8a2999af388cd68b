#pragma once
// Files for the data tests: the shared scratch-file helpers (tests/scratch_files.h), gzip and
// IDX encoding.
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/scratch_files.h"

namespace brisk::data::testing {

using brisk::testing::scratch_dir;
using brisk::testing::write_bytes;

// `plain` as one gzip member.
inline std::vector<uint8_t> gzip(const std::vector<uint8_t>& plain) {
  z_stream s{};
  if (deflateInit2(&s, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::vector<uint8_t> out(deflateBound(&s, plain.size()) + 32);
  s.next_in = const_cast<Bytef*>(plain.data());
  s.avail_in = static_cast<uInt>(plain.size());
  s.next_out = out.data();
  s.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&s, Z_FINISH);
  out.resize(out.size() - s.avail_out);
  deflateEnd(&s);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

inline void append_be32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

// An IDX file: header for `type` and `dims`, then `payload` (already big-endian).
inline std::vector<uint8_t> idx(uint8_t type, const std::vector<uint32_t>& dims, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> out = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) append_be32(out, d);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace brisk::data::testing
