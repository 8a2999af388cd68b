#include "distributed/store/file_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/store/socket.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

constexpr uint8_t kSetRecord = '+';
constexpr uint8_t kDeleteRecord = '-';

void append_u32(Bytes& out, uint32_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}

}  // namespace

// Opens the file, takes the lock and replays new records into the cache; releases on
// destruction. Record: kind byte, uint32 key length, key, uint32 value length, value.
class FileStore::Locked {
 public:
  Locked(FileStore& store, bool exclusive) : store_(store), lock_(store.mutex_) {
    fd_ = net::Fd(::open(store.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    BRISK_CHECK(fd_.valid(), "FileStore: cannot open '{}': {}", store.path_, std::strerror(errno));
    while (::flock(fd_.get(), exclusive ? LOCK_EX : LOCK_SH) != 0) {
      BRISK_CHECK(errno == EINTR, "FileStore: cannot lock '{}': {}", store.path_, std::strerror(errno));
    }
    replay();
  }
  ~Locked() { ::flock(fd_.get(), LOCK_UN); }

  void append(uint8_t kind, const std::string& key, const Bytes& value) {
    Bytes record{kind};
    append_u32(record, static_cast<uint32_t>(key.size()));
    record.insert(record.end(), key.begin(), key.end());
    append_u32(record, static_cast<uint32_t>(value.size()));
    record.insert(record.end(), value.begin(), value.end());
    BRISK_CHECK(::lseek(fd_.get(), 0, SEEK_END) >= 0, "FileStore: seek in '{}': {}", store_.path_,
                std::strerror(errno));
    size_t done = 0;
    while (done < record.size()) {
      ssize_t n = ::write(fd_.get(), record.data() + done, record.size() - done);
      if (n < 0 && errno == EINTR) continue;
      BRISK_CHECK(n > 0, "FileStore: write to '{}': {}", store_.path_, std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    replay();
  }

 private:
  void replay() {
    off_t end = ::lseek(fd_.get(), 0, SEEK_END);
    BRISK_CHECK(end >= 0, "FileStore: seek in '{}': {}", store_.path_, std::strerror(errno));
    if (end <= store_.read_offset_) return;
    Bytes data(static_cast<size_t>(end - store_.read_offset_));
    ssize_t n = ::pread(fd_.get(), data.data(), data.size(), store_.read_offset_);
    BRISK_CHECK(n == static_cast<ssize_t>(data.size()), "FileStore: read '{}': {}", store_.path_, std::strerror(errno));
    size_t pos = 0;
    auto take_u32 = [&](uint32_t* v) {
      BRISK_CHECK(pos + 4 <= data.size(), "FileStore: '{}' is truncated at byte {}", store_.path_,
                  store_.read_offset_ + static_cast<int64_t>(pos));
      std::memcpy(v, data.data() + pos, 4);
      pos += 4;
    };
    while (pos < data.size()) {
      size_t start = pos;
      uint8_t kind = data[pos++];
      uint32_t key_len, value_len;
      take_u32(&key_len);
      BRISK_CHECK(pos + key_len <= data.size(), "FileStore: '{}' is truncated at byte {}", store_.path_,
                  store_.read_offset_ + static_cast<int64_t>(start));
      std::string key(reinterpret_cast<const char*>(data.data() + pos), key_len);
      pos += key_len;
      take_u32(&value_len);
      BRISK_CHECK(pos + value_len <= data.size(), "FileStore: '{}' is truncated at byte {}", store_.path_,
                  store_.read_offset_ + static_cast<int64_t>(start));
      if (kind == kSetRecord) {
        store_.cache_[key] = Bytes(data.begin() + static_cast<std::ptrdiff_t>(pos),
                                   data.begin() + static_cast<std::ptrdiff_t>(pos + value_len));
      } else {
        BRISK_CHECK(kind == kDeleteRecord, "FileStore: '{}' has an unknown record kind {} at byte {}", store_.path_,
                    kind, store_.read_offset_ + static_cast<int64_t>(start));
        store_.cache_.erase(key);
      }
      pos += value_len;
    }
    store_.read_offset_ = end;
  }

  FileStore& store_;
  std::lock_guard<std::mutex> lock_;
  net::Fd fd_;
};

FileStore::FileStore(std::string path, std::chrono::milliseconds timeout) : Store(timeout), path_(std::move(path)) {
  Locked locked(*this, false);
}

void FileStore::set(const std::string& key, const Bytes& value) {
  Locked locked(*this, true);
  locked.append(kSetRecord, key, value);
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout());
  Locked locked(*this, false);
  auto it = cache_.find(key);
  BRISK_CHECK(it != cache_.end(), "FileStore get: key '{}' was deleted while waiting", key);
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  Locked locked(*this, true);
  int64_t value = 0;
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    std::string text(it->second.begin(), it->second.end());
    char* end = nullptr;
    errno = 0;
    value = std::strtoll(text.c_str(), &end, 10);
    BRISK_CHECK(!text.empty() && errno == 0 && *end == '\0', "FileStore add: the value of key '{}' is not an integer",
                key);
  }
  value = static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(delta));
  std::string text = std::to_string(value);
  locked.append(kSetRecord, key, Bytes(text.begin(), text.end()));
  return value;
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  Locked locked(*this, true);
  auto it = cache_.find(key);
  bool matches = it == cache_.end() ? expected.empty() : it->second == expected;
  if (matches) locked.append(kSetRecord, key, desired);
  auto now = cache_.find(key);
  return now == cache_.end() ? Bytes() : now->second;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  Locked locked(*this, false);
  for (const auto& key : keys) {
    if (!cache_.count(key)) return false;
  }
  return true;
}

void FileStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  auto deadline = net::Clock::now() + timeout;
  for (;;) {
    std::vector<std::string> missing;
    {
      Locked locked(*this, false);
      for (const auto& key : keys) {
        if (!cache_.count(key)) missing.push_back(key);
      }
    }
    if (missing.empty()) return;
    BRISK_CHECK(net::Clock::now() < deadline, "FileStore '{}' wait: timed out after {} ms waiting for keys [{}]", path_,
                timeout.count(), fmt::join(missing, ", "));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool FileStore::delete_key(const std::string& key) {
  Locked locked(*this, true);
  if (!cache_.count(key)) return false;
  locked.append(kDeleteRecord, key, Bytes());
  return true;
}

int64_t FileStore::num_keys() {
  Locked locked(*this, false);
  return static_cast<int64_t>(cache_.size());
}

std::shared_ptr<Store> FileStore::with_timeout(std::chrono::milliseconds timeout) const {
  return std::make_shared<FileStore>(path_, timeout);
}

}  // namespace brisk::dist
