#pragma once
// The TCPStore wire format. Every message is a frame: a little-endian uint32 payload length,
// then the payload. A request payload is an opcode byte and its fields; a reply payload is a
// status byte and its fields. Fields: byte strings as uint32 length + bytes, integers as
// little-endian int64, key lists as uint32 count + strings. The first request on a
// connection must be kAuth with the job's token; anything else, or any frame that does not
// parse, makes the server drop that connection.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace brisk::dist::wire {

constexpr uint32_t kMaxFrame = 64u << 20;  // 64 MiB: larger lengths are hostile or corrupt
constexpr uint32_t kMaxKeys = 1u << 16;    // keys in one check/wait

enum class Op : uint8_t {
  kAuth = 1,
  kSet,
  kGet,         // key, timeout_ms: waits server-side
  kAdd,         // key, delta
  kCompareSet,  // key, expected, desired
  kCheck,       // keys
  kWait,        // keys, timeout_ms
  kDelete,      // key
  kNumKeys,
};

enum class Status : uint8_t { kOk = 0, kTimeout = 1, kError = 2 };

// Thrown by Reader when a payload is shorter (or, at end(), longer) than its fields claim.
struct Malformed {};

class Writer {
 public:
  Writer() { out_.resize(4); }
  // A request or a reply payload, starting with its opcode or status byte.
  explicit Writer(Op op) : Writer() { u8(static_cast<uint8_t>(op)); }
  explicit Writer(Status status) : Writer() { u8(static_cast<uint8_t>(status)); }
  Writer& u8(uint8_t v) {
    out_.push_back(v);
    return *this;
  }
  Writer& i64(int64_t v) { return raw(&v, 8); }
  Writer& bytes(const void* data, size_t n) {
    uint32_t len = static_cast<uint32_t>(n);
    raw(&len, 4);
    return raw(data, n);
  }
  Writer& str(const std::string& s) { return bytes(s.data(), s.size()); }
  Writer& bytes(const std::vector<uint8_t>& v) { return bytes(v.data(), v.size()); }
  Writer& keys(const std::vector<std::string>& ks) {
    uint32_t n = static_cast<uint32_t>(ks.size());
    raw(&n, 4);
    for (const auto& k : ks) str(k);
    return *this;
  }
  // The finished frame, its length prefix filled in.
  const std::vector<uint8_t>& frame() {
    uint32_t len = static_cast<uint32_t>(out_.size() - 4);
    std::memcpy(out_.data(), &len, 4);
    return out_;
  }

 private:
  Writer& raw(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    out_.insert(out_.end(), p, p + n);
    return *this;
  }
  std::vector<uint8_t> out_;
};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint8_t u8() {
    need(1);
    return *p_++;
  }
  int64_t i64() { return fixed<int64_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<std::string> keys() {
    uint32_t n = u32();
    if (n > kMaxKeys) throw Malformed{};
    std::vector<std::string> ks;
    for (uint32_t i = 0; i < n; ++i) ks.push_back(str());
    return ks;
  }
  // Every field was read: a payload longer than its fields claim is malformed too.
  void end() const {
    if (p_ != end_) throw Malformed{};
  }

 private:
  // An integer of T's width, in the host's byte order (little-endian, as Writer writes it).
  template <typename T>
  T fixed() {
    T v;
    need(sizeof(T));
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  void need(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) throw Malformed{};
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace brisk::dist::wire
