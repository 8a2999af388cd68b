#include "checkpoint/save_pattern.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "checkpoint/atomic_file.h"
#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

// A pattern split around its placeholder: directory + prefix + number + suffix, or, without
// a placeholder, directory + prefix.
struct ParsedPattern {
  std::string directory;  // up to and including the last '/'; empty for a bare file name
  std::string prefix;
  Placeholder placeholder = Placeholder::kNone;
  std::string suffix;
};

ParsedPattern parse(const std::string& pattern) {
  BRISK_CHECK(!pattern.empty() && pattern.back() != '/', "save pattern '{}': not a file path", pattern);
  ParsedPattern out;
  const size_t slash = pattern.find_last_of('/');
  out.directory = slash == std::string::npos ? "" : pattern.substr(0, slash + 1);
  BRISK_CHECK(out.directory.find("{epoch}") == std::string::npos && out.directory.find("{step}") == std::string::npos,
              "save pattern '{}': {{epoch}} and {{step}} may only appear in the file name, not in the directory '{}'",
              pattern, out.directory);
  const std::string name = pattern.substr(out.directory.size());
  const size_t open = name.find('{');
  if (open == std::string::npos) {
    out.prefix = name;
    return out;
  }
  const size_t close = name.find('}', open);
  const std::string placeholder = name.substr(open, close == std::string::npos ? close : close - open + 1);
  out.placeholder = placeholder == "{epoch}"  ? Placeholder::kEpoch
                    : placeholder == "{step}" ? Placeholder::kStep
                                              : Placeholder::kNone;
  BRISK_CHECK(out.placeholder != Placeholder::kNone,
              "save pattern '{}': unknown placeholder {}; the known ones are {{epoch}} and {{step}}", pattern,
              placeholder);
  out.prefix = name.substr(0, open);
  out.suffix = name.substr(close + 1);
  BRISK_CHECK(out.suffix.find('{') == std::string::npos,
              "save pattern '{}': more than one placeholder; give one, {{epoch}} or {{step}}", pattern);
  return out;
}

// Whether file name `name` is one of `pattern`'s, and its number (0 without a placeholder).
bool match(const ParsedPattern& pattern, const std::string& name, uint64_t& number) {
  constexpr size_t kMaxDigits = 18;  // fits in uint64_t
  number = 0;
  if (pattern.placeholder == Placeholder::kNone) return name == pattern.prefix;
  const size_t affixes = pattern.prefix.size() + pattern.suffix.size();
  if (name.size() <= affixes || name.size() - affixes > kMaxDigits) return false;
  if (name.compare(0, pattern.prefix.size(), pattern.prefix) != 0) return false;
  if (name.compare(name.size() - pattern.suffix.size(), pattern.suffix.size(), pattern.suffix) != 0) return false;
  const std::string digits = name.substr(pattern.prefix.size(), name.size() - affixes);
  if (!std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) return false;
  number = std::stoull(digits);
  return true;
}

// A checkpoint file, or a sharded checkpoint's directory once its index is written
// (checkpoint/sharded/sharded_index.h).
bool is_complete_checkpoint(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return false;
  if (S_ISREG(info.st_mode)) return true;
  const std::string index = path + "/index.json";
  return S_ISDIR(info.st_mode) && ::stat(index.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The directory to list for `pattern`'s files.
std::string listed_directory(const ParsedPattern& pattern) {
  if (pattern.directory.empty()) return ".";
  return pattern.directory == "/" ? "/" : pattern.directory.substr(0, pattern.directory.size() - 1);
}

}  // namespace

Placeholder save_pattern_placeholder(const std::string& pattern) { return parse(pattern).placeholder; }

std::string checkpoint_path(const std::string& pattern, const Progress& progress) {
  const ParsedPattern parsed = parse(pattern);
  switch (parsed.placeholder) {
    case Placeholder::kNone: return pattern;
    case Placeholder::kEpoch: return parsed.directory + parsed.prefix + std::to_string(progress.epoch) + parsed.suffix;
    case Placeholder::kStep:
      return parsed.directory + parsed.prefix + fmt::format("{:08d}", progress.step) + parsed.suffix;
  }
  return pattern;
}

std::vector<std::string> list_checkpoints(const std::string& pattern) {
  const ParsedPattern parsed = parse(pattern);
  if (parsed.placeholder == Placeholder::kNone) {
    if (is_complete_checkpoint(pattern)) return {pattern};
    return {};
  }
  const std::string directory = listed_directory(parsed);
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr && errno == ENOENT) return {};
  BRISK_CHECK(dir != nullptr, "checkpoints of '{}': cannot list the directory '{}': {}", pattern, directory,
              std::strerror(errno));
  std::vector<std::pair<uint64_t, std::string>> found;
  while (dirent* entry = ::readdir(dir)) {
    uint64_t number = 0;
    const std::string path = parsed.directory + entry->d_name;
    if (match(parsed, entry->d_name, number) && is_complete_checkpoint(path)) found.emplace_back(number, path);
  }
  ::closedir(dir);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [number, path] : found) out.push_back(std::move(path));
  return out;
}

std::optional<std::string> newest_checkpoint(const std::string& pattern) {
  std::vector<std::string> all = list_checkpoints(pattern);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::vector<std::string> remove_stale_checkpoint_temporaries(const std::string& pattern) {
  const ParsedPattern parsed = parse(pattern);
  return remove_stale_temporaries(listed_directory(parsed), [&](const std::string& target) {
    uint64_t number = 0;
    return match(parsed, target, number);
  });
}

}  // namespace brisk::checkpoint
