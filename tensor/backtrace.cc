#include "tensor/backtrace.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fmt/format.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

namespace brisk {

namespace {

constexpr int kMaxFrames = 64;

// An address's object file and the address addr2line expects there: the link-time one, the
// address less the object's load bias.
struct Location {
  std::string object;
  uintptr_t offset = 0;
};

struct Search {
  uintptr_t address = 0;
  Location* location = nullptr;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type != PT_LOAD || search->address < start || search->address >= start + segment.p_memsz) continue;
    // The program itself is listed first, without a name.
    search->location->object = info->dlpi_name[0] != '\0' ? info->dlpi_name : "";
    search->location->offset = search->address - info->dlpi_addr;
    return 1;
  }
  return 0;
}

std::string program_path() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && demangled != nullptr ? demangled.get() : name;
}

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// addr2line's "f at a.cc:?" (no line: no debug information) as "f at a.cc", and "f at ??:0"
// as "f".
std::string without_unknown_location(std::string line) {
  for (const char* unknown : {":?", ":0"}) {
    if (ends_with(line, unknown)) line.resize(line.size() - 2);
  }
  if (ends_with(line, " at ??")) line.resize(line.size() - 6);
  return line;
}

// addr2line's "function at file:line" for each of `offsets` in `object`, followed by
// "(inlined by) ..." lines where calls were inlined there; "" where it knows no function.
// Empty when addr2line cannot be run.
std::vector<std::string> run_addr2line(const std::string& object, const std::vector<uintptr_t>& offsets) {
  std::string command = "addr2line -C -f -i -p -a -e " + shell_quoted(object);
  for (uintptr_t offset : offsets) command += fmt::format(" {:#x}", offset);
  command += " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  if (pclose(pipe) != 0) return {};
  // "0x<offset>: f at a.cc:3\n (inlined by) g at b.cc:9\n": each address starts a line with "0x".
  std::vector<std::string> names;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    start = end + 1;
    line = without_unknown_location(line);
    if (line.rfind("0x", 0) == 0) {
      const size_t colon = line.find(": ");
      std::string name = colon == std::string::npos ? std::string() : line.substr(colon + 2);
      names.push_back(name.rfind("??", 0) == 0 ? std::string() : name);
    } else if (!names.empty() && !names.back().empty()) {
      names.back() += "\n     " + line;
    }
  }
  if (names.size() != offsets.size()) return {};
  return names;
}

// Without addr2line: the dynamic symbol dladdr finds (exported functions only), else the
// object and offset.
std::string describe_without_addr2line(uintptr_t address, const Location& location) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(address), &info) != 0 && info.dli_sname != nullptr) {
    return fmt::format("{}+{:#x} in {}", demangle(info.dli_sname), address - reinterpret_cast<uintptr_t>(info.dli_saddr),
                       info.dli_fname);
  }
  if (!location.object.empty() || location.offset != 0) {
    return fmt::format("{}+{:#x}", location.object.empty() ? program_path() : location.object, location.offset);
  }
  return fmt::format("{:#x}", address);
}

}  // namespace

__attribute__((noinline)) std::vector<void*> capture_backtrace(int skip) {
  void* frames[kMaxFrames];
  const int n = ::backtrace(frames, kMaxFrames);
  const int first = 1 + skip;  // frames[0] is capture_backtrace itself
  return n > first ? std::vector<void*>(frames + first, frames + n) : std::vector<void*>();
}

std::string format_backtrace(const std::vector<void*>& frames) {
  // A return address can belong to the next line, or the next function: look up the call.
  std::vector<uintptr_t> calls;
  for (void* frame : frames) calls.push_back(reinterpret_cast<uintptr_t>(frame) - 1);
  std::vector<Location> locations(frames.size());
  std::map<std::string, std::vector<size_t>> frames_of_object;
  for (size_t i = 0; i < frames.size(); ++i) {
    Search search{calls[i], &locations[i]};
    if (dl_iterate_phdr(find_object, &search) != 0) frames_of_object[locations[i].object].push_back(i);
  }
  std::vector<std::string> names(frames.size());
  for (const auto& [object, indices] : frames_of_object) {
    std::vector<uintptr_t> offsets;
    for (size_t i : indices) offsets.push_back(locations[i].offset);
    const std::vector<std::string> found = run_addr2line(object.empty() ? program_path() : object, offsets);
    for (size_t k = 0; k < found.size(); ++k) names[indices[k]] = found[k];
  }
  std::string text;
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string name = names[i].empty() ? describe_without_addr2line(calls[i], locations[i]) : names[i];
    text += fmt::format("  #{} {}\n", i, name);
  }
  return text;
}

}  // namespace brisk
