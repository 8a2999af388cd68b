#include "checkpoint/save_pattern.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <tuple>

#include "checkpoint/atomic_file.h"
#include "tensor/error.h"

namespace brisk::checkpoint {
namespace {

enum class Field { kNone, kEpoch, kStep };

// A piece of a pattern's file name: literal text, or a placeholder.
struct Part {
  Field field = Field::kNone;
  std::string text;  // the literal text; empty for a placeholder
};

struct ParsedPattern {
  std::string directory;  // up to and including the last '/'; empty for a bare file name
  std::vector<Part> parts;
};

ParsedPattern parse(const std::string& pattern) {
  BRISK_CHECK(!pattern.empty() && pattern.back() != '/', "save pattern '{}': not a file path", pattern);
  ParsedPattern out;
  size_t slash = pattern.find_last_of('/');
  out.directory = slash == std::string::npos ? "" : pattern.substr(0, slash + 1);
  BRISK_CHECK(out.directory.find("{epoch}") == std::string::npos && out.directory.find("{step}") == std::string::npos,
              "save pattern '{}': {{epoch}} and {{step}} may only appear in the file name, not in the directory '{}'",
              pattern, out.directory);
  const std::string name = pattern.substr(out.directory.size());
  bool seen_epoch = false, seen_step = false;
  size_t i = 0;
  while (i < name.size()) {
    size_t open = name.find('{', i);
    size_t close = open == std::string::npos ? std::string::npos : name.find('}', open);
    if (close == std::string::npos) {
      out.parts.push_back({Field::kNone, name.substr(i)});
      break;
    }
    if (open > i) out.parts.push_back({Field::kNone, name.substr(i, open - i)});
    const std::string placeholder = name.substr(open, close - open + 1);
    Field field = placeholder == "{epoch}" ? Field::kEpoch : placeholder == "{step}" ? Field::kStep : Field::kNone;
    BRISK_CHECK(field != Field::kNone,
                "save pattern '{}': unknown placeholder {}; the known ones are {{epoch}} and {{step}}", pattern,
                placeholder);
    bool& seen = field == Field::kEpoch ? seen_epoch : seen_step;
    BRISK_CHECK(!seen, "save pattern '{}': {} appears twice", pattern, placeholder);
    seen = true;
    const bool separated = close + 1 == name.size() ||
                           (!std::isdigit(static_cast<unsigned char>(name[close + 1])) && name[close + 1] != '{');
    BRISK_CHECK(separated,
                "save pattern '{}': {} must be followed by a character that is not a digit (or end the name), so "
                "that its number can be read back",
                pattern, placeholder);
    out.parts.push_back({field, ""});
    i = close + 1;
  }
  return out;
}

bool has_field(const ParsedPattern& pattern, Field field) {
  return std::any_of(pattern.parts.begin(), pattern.parts.end(), [&](const Part& p) { return p.field == field; });
}

bool has_placeholder(const ParsedPattern& pattern) {
  return has_field(pattern, Field::kEpoch) || has_field(pattern, Field::kStep);
}

// A checkpoint file's numbers: ordered by step, then epoch (0 for a placeholder the pattern lacks).
using Key = std::tuple<uint64_t, uint64_t>;

// Whether file name `name` is one of `pattern`'s, and its numbers.
bool match(const ParsedPattern& pattern, const std::string& name, Key& key) {
  constexpr size_t kMaxDigits = 18;  // fits in uint64_t
  key = {0, 0};
  size_t at = 0;
  for (const Part& part : pattern.parts) {
    if (part.field == Field::kNone) {
      if (name.compare(at, part.text.size(), part.text) != 0) return false;
      at += part.text.size();
      continue;
    }
    size_t end = at;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    if (end == at || end - at > kMaxDigits) return false;
    uint64_t value = std::stoull(name.substr(at, end - at));
    (part.field == Field::kStep ? std::get<0>(key) : std::get<1>(key)) = value;
    at = end;
  }
  return at == name.size();
}

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The directory to list for `pattern`'s files.
std::string listed_directory(const ParsedPattern& pattern) {
  if (pattern.directory.empty()) return ".";
  return pattern.directory == "/" ? "/" : pattern.directory.substr(0, pattern.directory.size() - 1);
}

}  // namespace

void check_save_pattern(const std::string& pattern) { parse(pattern); }

bool has_placeholder(const std::string& pattern, const std::string& placeholder) {
  BRISK_CHECK(placeholder == "{epoch}" || placeholder == "{step}", "has_placeholder: {} is not a placeholder",
              placeholder);
  return has_field(parse(pattern), placeholder == "{epoch}" ? Field::kEpoch : Field::kStep);
}

bool names_several_checkpoints(const std::string& pattern) { return has_placeholder(parse(pattern)); }

std::string checkpoint_path(const std::string& pattern, const Progress& progress) {
  ParsedPattern parsed = parse(pattern);
  std::string out = parsed.directory;
  for (const Part& part : parsed.parts) {
    switch (part.field) {
      case Field::kNone: out += part.text; break;
      case Field::kEpoch: out += std::to_string(progress.epoch); break;
      case Field::kStep: out += fmt::format("{:08d}", progress.step); break;
    }
  }
  return out;
}

std::vector<std::string> list_checkpoints(const std::string& pattern) {
  ParsedPattern parsed = parse(pattern);
  if (!has_placeholder(parsed)) {
    if (is_regular_file(pattern)) return {pattern};
    return {};
  }
  const std::string directory = listed_directory(parsed);
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr && errno == ENOENT) return {};
  BRISK_CHECK(dir != nullptr, "checkpoints of '{}': cannot list the directory '{}': {}", pattern, directory,
              std::strerror(errno));
  std::vector<std::pair<Key, std::string>> found;
  while (dirent* entry = ::readdir(dir)) {
    Key key;
    const std::string path = parsed.directory + entry->d_name;
    if (match(parsed, entry->d_name, key) && is_regular_file(path)) found.emplace_back(key, path);
  }
  ::closedir(dir);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [key, path] : found) out.push_back(std::move(path));
  return out;
}

std::optional<std::string> newest_checkpoint(const std::string& pattern) {
  std::vector<std::string> all = list_checkpoints(pattern);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::vector<std::string> remove_stale_checkpoint_temporaries(const std::string& pattern) {
  ParsedPattern parsed = parse(pattern);
  return remove_stale_temporaries(listed_directory(parsed), [&](const std::string& target) {
    Key key;
    return match(parsed, target, key);
  });
}

}  // namespace brisk::checkpoint
