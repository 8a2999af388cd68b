#include "checkpoint/safetensors_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "autograd/ops.h"
#include "checkpoint/checksums.h"
#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

// safetensors stores little-endian bytes; Brisk's tensors hold the host's.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors I/O assumes a little-endian host");

// An open file descriptor, closed at scope exit.
class ReadFile {
 public:
  explicit ReadFile(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    BRISK_CHECK(fd_ >= 0, "safetensors '{}': cannot open: {}", path, std::strerror(errno));
    struct stat info {};
    BRISK_CHECK(::fstat(fd_, &info) == 0 && S_ISREG(info.st_mode), "safetensors '{}': not a regular file", path);
    size_ = static_cast<uint64_t>(info.st_size);
  }
  ~ReadFile() { ::close(fd_); }
  ReadFile(const ReadFile&) = delete;
  ReadFile& operator=(const ReadFile&) = delete;

  uint64_t size() const { return size_; }

  // `size` bytes at `offset`, which the caller has checked lie inside the file.
  void read(void* out, uint64_t size, uint64_t offset, const char* what) const {
    char* bytes = static_cast<char*>(out);
    while (size > 0) {
      ssize_t n = ::pread(fd_, bytes, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      BRISK_CHECK(n > 0, "safetensors '{}': reading {} at byte {} failed: {}", path_, what, offset,
                  n == 0 ? "unexpected end of file" : std::strerror(errno));
      bytes += n;
      size -= static_cast<uint64_t>(n);
      offset += static_cast<uint64_t>(n);
    }
  }

 private:
  std::string path_;
  int fd_;
  uint64_t size_ = 0;
};

uint64_t read_header_length(const ReadFile& file, const std::string& path) {
  BRISK_CHECK(file.size() >= kHeaderLengthBytes,
              "safetensors '{}': the file is {} bytes, too short for the 8-byte header length at byte 0", path,
              file.size());
  uint8_t bytes[kHeaderLengthBytes];
  file.read(bytes, kHeaderLengthBytes, 0, "the header length");
  uint64_t length = 0;
  for (int i = kHeaderLengthBytes - 1; i >= 0; --i) length = (length << 8) | bytes[i];
  BRISK_CHECK(length <= kMaxHeaderBytes, "safetensors '{}': the header length at byte 0 is {}, over the limit of {}",
              path, length, kMaxHeaderBytes);
  BRISK_CHECK(length <= file.size() - kHeaderLengthBytes,
              "safetensors '{}': the header length at byte 0 says the header ends at byte {}, but the file ends at "
              "byte {} (truncated?)",
              path, kHeaderLengthBytes + length, file.size());
  return length;
}

// A bool other than 0 or 1 would be undefined behaviour in C++, so it is a corrupt file.
void check_bools(const Tensor& t, const TensorEntry& entry, uint64_t data_start, const std::string& path) {
  const uint8_t* bytes = static_cast<const uint8_t*>(t.raw_data());
  for (int64_t i = 0; i < t.numel(); ++i) {
    BRISK_CHECK(bytes[i] <= 1, "safetensors '{}': tensor \"{}\" (BOOL) has byte {} at file byte {}; bools are 0 or 1",
                path, entry.name, bytes[i], data_start + entry.begin + i);
  }
}

}  // namespace

struct SafetensorsReader::Impl {
  explicit Impl(const std::string& path) : file(path) {}
  ReadFile file;
  uint64_t data_start = 0;
  std::optional<ChecksumVerifier> verifier;
};

SafetensorsReader::SafetensorsReader(const std::string& path) : path_(path), impl_(std::make_unique<Impl>(path)) {
  const ReadFile& file = impl_->file;
  uint64_t length = read_header_length(file, path);
  std::string text(length, '\0');
  file.read(text.data(), length, kHeaderLengthBytes, "the header");
  impl_->data_start = kHeaderLengthBytes + length;
  header_ = parse_header(text, file.size() - impl_->data_start, path);
  auto checksums = header_.metadata.find(kChecksumsKey);
  if (checksums != header_.metadata.end()) impl_->verifier.emplace(header_, checksums->second, path);
}

SafetensorsReader::~SafetensorsReader() = default;

bool SafetensorsReader::has_checksums() const { return impl_->verifier.has_value(); }

const TensorEntry* SafetensorsReader::find(const std::string& name) const {
  for (const TensorEntry& entry : header_.tensors) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

Tensor SafetensorsReader::read(const TensorEntry& entry) const {
  const uint64_t data_start = impl_->data_start;
  Tensor t = empty(entry.shape, entry.dtype);
  impl_->file.read(t.raw_data(), entry.end - entry.begin, data_start + entry.begin, "tensor data");
  if (impl_->verifier) impl_->verifier->check_data(entry, t.raw_data(), data_start + entry.begin);
  if (entry.dtype == kBool) check_bools(t, entry, data_start, path_);
  return t;
}

void SafetensorsReader::read_bytes(const TensorEntry& entry, uint64_t offset, uint64_t size, void* out) const {
  BRISK_CHECK(offset <= entry.end - entry.begin && size <= entry.end - entry.begin - offset,
              "safetensors '{}': bytes [{}, {}) of tensor \"{}\", which has {}", path_, offset, offset + size,
              entry.name, entry.end - entry.begin);
  impl_->file.read(out, size, impl_->data_start + entry.begin + offset, "tensor data");
}

}  // namespace brisk::checkpoint
