#include "data/byte_text.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "autograd/ops.h"
#include "data/file_bytes.h"
#include "tensor/error.h"

namespace brisk::data {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The regular files of directory `dir` that from_path reads, in name order.
std::vector<std::string> text_files(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> handle(opendir(dir.c_str()), &closedir);
  BRISK_CHECK(handle != nullptr, "cannot open the directory '{}': {}", dir, std::strerror(errno));
  std::vector<std::string> files;
  while (const dirent* entry = readdir(handle.get())) {
    const std::string path = dir + "/" + entry->d_name;
    struct stat info {};
    if (lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && !ends_with(path, ".dat")) files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Windows of block_size + 1 bytes starting at `starts` as int64 inputs and targets.
TokenBatch windows_at(const std::vector<uint8_t>& bytes, const std::vector<int64_t>& starts, int64_t block_size) {
  const int64_t B = static_cast<int64_t>(starts.size()), T = block_size;
  Tensor inputs = empty({B, T}, kInt64), targets = empty({B, T}, kInt64);
  int64_t* in = inputs.data_ptr<int64_t>();
  int64_t* out = targets.data_ptr<int64_t>();
  for (int64_t b = 0; b < B; ++b) {
    const uint8_t* window = bytes.data() + starts[b];
    for (int64_t t = 0; t < T; ++t) {
      in[b * T + t] = window[t];
      out[b * T + t] = window[t + 1];
    }
  }
  return {inputs, targets};
}

}  // namespace

ByteText::ByteText(std::vector<uint8_t> bytes, double held_out_fraction) {
  BRISK_CHECK(held_out_fraction >= 0 && held_out_fraction < 1, "ByteText: held_out_fraction must be in [0, 1), got {}",
              held_out_fraction);
  const auto split = static_cast<int64_t>(static_cast<double>(bytes.size()) * (1 - held_out_fraction));
  held_out_.assign(bytes.begin() + split, bytes.end());
  bytes.resize(split);
  train_ = std::move(bytes);
}

ByteText ByteText::from_path(const std::string& path, double held_out_fraction) {
  struct stat info {};
  BRISK_CHECK(stat(path.c_str(), &info) == 0, "cannot read the text '{}': {}{}", path, std::strerror(errno),
              path == kDefaultTextPath ? " (Debian's fortunes package installs it: tools/setup.sh)" : "");
  std::vector<uint8_t> bytes;
  if (S_ISDIR(info.st_mode)) {
    for (const std::string& file : text_files(path)) {
      std::vector<uint8_t> more = read_file_bytes(file);
      bytes.insert(bytes.end(), more.begin(), more.end());
    }
  } else {
    bytes = read_file_bytes(path);
  }
  BRISK_CHECK(!bytes.empty(), "the text '{}' holds no bytes", path);
  return ByteText(std::move(bytes), held_out_fraction);
}

TokenBatch random_windows(const std::vector<uint8_t>& bytes, int64_t batch, int64_t block_size, Generator& generator) {
  const int64_t n = static_cast<int64_t>(bytes.size());
  BRISK_CHECK(n >= block_size + 1, "random_windows: {} bytes are fewer than one window of block_size + 1 = {}", n,
              block_size + 1);
  return windows_at(bytes, randint(0, n - block_size, {batch}, kInt64, &generator).to_vector<int64_t>(), block_size);
}

int64_t window_count(const std::vector<uint8_t>& bytes, int64_t block_size) {
  const int64_t n = static_cast<int64_t>(bytes.size());
  return n < block_size + 1 ? 0 : (n - 1) / block_size;
}

TokenBatch consecutive_windows(const std::vector<uint8_t>& bytes, int64_t block_size, int64_t first, int64_t count) {
  const int64_t last = std::min(window_count(bytes, block_size), first + count);
  std::vector<int64_t> starts;
  for (int64_t i = first; i < last; ++i) starts.push_back(i * block_size);
  return windows_at(bytes, starts, block_size);
}

}  // namespace brisk::data
