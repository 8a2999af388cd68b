// compile_code_blocks OUTPUT.cc FILE.md...: writes the translation unit that compiles every
// ```cpp block of the Markdown files (tools/docs/code_blocks.h says which and how). Run by the
// genrule of tests/docs/BUILD; exits 1 with a message naming the file and line for a
// malformed block.
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tools/docs/code_blocks.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: compile_code_blocks OUTPUT.cc FILE.md...\n";
    return 2;
  }
  try {
    std::vector<brisk::docs::CodeBlock> blocks;
    for (int i = 2; i < argc; ++i) {
      std::ifstream in(argv[i]);
      if (!in) throw std::runtime_error(std::string(argv[i]) + ": cannot be read");
      std::ostringstream text;
      text << in.rdbuf();
      for (auto& block : brisk::docs::cpp_code_blocks(text.str(), argv[i])) blocks.push_back(std::move(block));
    }
    std::ofstream out(argv[1]);
    out << brisk::docs::translation_unit(blocks);
    if (!out) throw std::runtime_error(std::string(argv[1]) + ": cannot be written");
  } catch (const std::exception& e) {
    std::cerr << "compile_code_blocks: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
