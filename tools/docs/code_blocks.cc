#include "tools/docs/code_blocks.h"

#include <set>
#include <sstream>
#include <stdexcept>

namespace brisk::docs {
namespace {

const std::string kBodyMarker = "compiled as the body of:";
const std::string kAfterMarker = "compiled after:";
const std::string kFileMarker = "file:";

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

[[noreturn]] void fail(const std::string& file, size_t index, const std::string& what) {
  throw std::runtime_error(file + ":" + std::to_string(index + 1) + ": " + what);
}

// What an HTML comment above a block says about it.
struct Marker {
  bool present = false;
  bool file = false;  // <!-- file: PATH -->
  CodeBlock::Kind kind = CodeBlock::Kind::kNamespaceScope;
  std::vector<std::string> lines;
  int first_line = 0;
  size_t at = 0;  // the comment's first line, for errors
};

// The comment starting at lines[i] (which starts with "<!--"); i moves to its last line.
Marker read_marker(const std::vector<std::string>& lines, size_t& i, const std::string& file) {
  Marker marker;
  marker.at = i;
  std::string text = trim(lines[i]).substr(4);
  std::vector<std::string> content;
  int first_line = static_cast<int>(i) + 1;
  while (true) {
    const size_t end = text.find("-->");
    if (end != std::string::npos) {
      content.push_back(text.substr(0, end));
      break;
    }
    content.push_back(text);
    if (++i == lines.size()) fail(file, marker.at, "an HTML comment that is never closed");
    text = lines[i];
  }
  const std::string head = trim(content[0]);
  for (const auto& [prefix, kind] : {std::pair{kBodyMarker, CodeBlock::Kind::kFunctionBody},
                                     std::pair{kAfterMarker, CodeBlock::Kind::kNamespaceScope}}) {
    if (!starts_with(head, prefix)) continue;
    marker.present = true;
    marker.kind = kind;
    content[0] = head.substr(prefix.size());
    for (size_t k = 0; k < content.size(); ++k) {
      // The first line of LINES fixes the line numbers of those after it.
      if (marker.lines.empty() && trim(content[k]).empty()) continue;
      if (marker.lines.empty()) marker.first_line = first_line + static_cast<int>(k);
      marker.lines.push_back(trim(content[k]));
    }
    while (!marker.lines.empty() && marker.lines.back().empty()) marker.lines.pop_back();
    if (kind == CodeBlock::Kind::kFunctionBody && marker.lines.empty()) {
      fail(file, marker.at, "\"" + kBodyMarker + "\" names no function signature");
    }
  }
  if (starts_with(head, kFileMarker)) marker.present = marker.file = true;
  return marker;
}

bool is_include(const std::string& line) { return starts_with(trim(line), "#include"); }

}  // namespace

std::vector<CodeBlock> cpp_code_blocks(const std::string& markdown, const std::string& file) {
  const std::vector<std::string> lines = split_lines(markdown);
  std::vector<CodeBlock> blocks;
  Marker marker;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string line = trim(lines[i]);
    if (starts_with(line, "<!--")) {
      Marker read = read_marker(lines, i, file);
      if (read.present) marker = read;
      continue;
    }
    if (!starts_with(line, "```")) {
      if (!line.empty() && marker.present) {
        fail(file, marker.at, "this comment is not followed by a ```cpp block (only blank lines may come between)");
      }
      continue;
    }
    const bool cpp = line == "```cpp" || line == "```c++";
    const size_t indent = lines[i].find('`');
    CodeBlock block;
    block.file = file;
    block.line = static_cast<int>(i) + 2;
    const size_t open = i;
    for (++i; i < lines.size() && trim(lines[i]) != "```"; ++i) {
      // A block indented in a list: its lines without that indentation.
      size_t strip = 0;
      while (strip < indent && strip < lines[i].size() && lines[i][strip] == ' ') ++strip;
      block.code.push_back(lines[i].substr(strip));
    }
    if (i == lines.size()) fail(file, open, "a code block that is never closed");
    if (!cpp && marker.present && !marker.file) {
      fail(file, marker.at, "this comment is followed by a block that is not ```cpp");
    }
    if (cpp && !marker.file) {
      block.kind = marker.kind;
      block.context = marker.lines;
      block.context_line = marker.first_line;
      blocks.push_back(std::move(block));
    }
    marker = Marker();
  }
  if (marker.present) fail(file, marker.at, "this comment is not followed by a ```cpp block");
  return blocks;
}

std::string translation_unit(const std::vector<CodeBlock>& blocks) {
  std::set<std::string> includes{"#include \"brisk/brisk.h\""};
  for (const CodeBlock& block : blocks) {
    for (const auto* lines : {&block.context, &block.code}) {
      for (const std::string& line : *lines) {
        if (is_include(line)) includes.insert(trim(line));
      }
    }
  }
  std::ostringstream out;
  out << "// Generated by //tools/docs:compile_code_blocks from the docs' ```cpp blocks: do not edit.\n"
      << "#include <string>\n#include <vector>\n\n";
  for (const std::string& include : includes) out << include << "\n";
  out << "\nusing namespace brisk;\n";
  // An #include in place would be inside a namespace: an empty line keeps the numbering.
  auto emit = [&out](const std::vector<std::string>& lines, size_t count) {
    for (size_t k = 0; k < count; ++k) out << (is_include(lines[k]) ? "" : lines[k]) << "\n";
  };
  for (size_t b = 0; b < blocks.size(); ++b) {
    const CodeBlock& block = blocks[b];
    const bool body = block.kind == CodeBlock::Kind::kFunctionBody;
    out << "\nnamespace docs_block_" << b << " {\n";
    if (!block.context.empty()) {
      out << "#line " << block.context_line << " \"" << block.file << "\"\n";
      emit(block.context, block.context.size() - (body ? 1 : 0));
      if (body) out << block.context.back() << " {\n";
    }
    out << "#line " << block.line << " \"" << block.file << "\"\n";
    emit(block.code, block.code.size());
    if (body) out << "}\n";
    out << "}  // namespace docs_block_" << b << "\n";
  }
  out << "\nstd::vector<std::string> brisk_docs_compiled_blocks() {\n  return {\n";
  for (const CodeBlock& block : blocks) out << "      \"" << block.file << ":" << block.line << "\",\n";
  out << "  };\n}\n";
  return out.str();
}

}  // namespace brisk::docs
