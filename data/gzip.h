#pragma once
// gzip decompression in memory (zlib), for datasets shipped as .gz files.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace brisk::data {

// True when `data` starts with the gzip magic bytes 1f 8b.
bool is_gzip(const uint8_t* data, size_t size);

// The decompressed bytes of a gzip stream of one or more members (as `cat a.gz b.gz`
// makes), optionally padded with zero bytes at the end, as gzip(1) accepts. Raises
// brisk::Error naming `name` for corrupt or truncated data, with the compressed byte offset
// where decompression stopped.
std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, const std::string& name);

}  // namespace brisk::data
