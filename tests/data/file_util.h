#pragma once
// Files for the data tests: a scratch directory, writing bytes, gzip and IDX encoding.
#include <sys/stat.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace brisk::data::testing {

// A fresh, empty directory named `name` under Bazel's TEST_TMPDIR (or /tmp).
inline std::string scratch_dir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/" + name;
  std::string cleanup = "rm -rf '" + dir + "'";
  if (std::system(cleanup.c_str()) != 0 || mkdir(dir.c_str(), 0755) != 0) {
    throw std::runtime_error("cannot create " + dir);
  }
  return dir;
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  if (written != bytes.size()) throw std::runtime_error("short write to " + path);
}

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
