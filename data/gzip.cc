#include "data/gzip.h"

#include <zlib.h>

#include <algorithm>

#include "tensor/error.h"

namespace brisk::data {
namespace {

// Deflate cannot compress better than about 1032:1, so a size hint read from the (possibly
// corrupt) trailer is capped at that before memory is reserved for it.
constexpr size_t kMaxDeflateRatio = 1032;
// zlib counts in uInt (32 bits): input and output are handed over in pieces of at most this.
constexpr size_t kPiece = size_t{1} << 30;

size_t reserve_hint(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  // The last four bytes of a member are its decompressed size mod 2^32 (little-endian).
  size_t isize = static_cast<size_t>(data[size - 4]) | static_cast<size_t>(data[size - 3]) << 8 |
                 static_cast<size_t>(data[size - 2]) << 16 | static_cast<size_t>(data[size - 1]) << 24;
  return std::min(isize, size * kMaxDeflateRatio);
}

class Inflater {
 public:
  explicit Inflater(const std::string& name) : name_(name) {
    // 16 + MAX_WBITS: expect a gzip header and trailer rather than a raw zlib stream.
    int rc = inflateInit2(&stream_, 16 + MAX_WBITS);
    BRISK_CHECK(rc == Z_OK, "{}: cannot start gzip decompression (zlib error {})", name_, rc);
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  std::vector<uint8_t> run(const uint8_t* data, size_t size) {
    std::vector<uint8_t> out(std::max<size_t>(reserve_hint(data, size), 4096));
    size_t produced = 0;
    size_t consumed = 0;
    while (true) {
      if (produced == out.size()) out.resize(out.size() * 2);
      stream_.next_in = const_cast<Bytef*>(data + consumed);
      stream_.avail_in = static_cast<uInt>(std::min(size - consumed, kPiece));
      stream_.next_out = out.data() + produced;
      stream_.avail_out = static_cast<uInt>(std::min(out.size() - produced, kPiece));
      uInt in_before = stream_.avail_in;
      uInt out_before = stream_.avail_out;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      consumed += in_before - stream_.avail_in;
      produced += out_before - stream_.avail_out;
      if (rc == Z_STREAM_END) {
        // Another member may follow; zero bytes after the last one are padding.
        size_t next = consumed;
        while (next < size && data[next] == 0) ++next;
        if (next == size) break;
        BRISK_CHECK(is_gzip(data + consumed, size - consumed),
                    "{}: corrupt gzip data: unexpected bytes after the end of a gzip member at compressed byte "
                    "offset {}",
                    name_, consumed);
        inflateReset(&stream_);
        continue;
      }
      if (rc == Z_OK) continue;
      if (rc == Z_BUF_ERROR && consumed == size) {
        BRISK_FAIL("{}: truncated gzip data: the compressed stream ends at byte {} before the end of its last member",
                   name_, size);
      }
      if (rc == Z_BUF_ERROR) continue;
      BRISK_FAIL("{}: corrupt gzip data near compressed byte offset {}: {}", name_, consumed,
                 stream_.msg ? stream_.msg : zError(rc));
    }
    out.resize(produced);
    return out;
  }

 private:
  const std::string& name_;
  z_stream stream_{};
};

}  // namespace

bool is_gzip(const uint8_t* data, size_t size) { return size >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, const std::string& name) {
  BRISK_CHECK(is_gzip(data, size), "{}: not gzip data: it does not start with the magic bytes 1f 8b", name);
  return Inflater(name).run(data, size);
}

}  // namespace brisk::data
