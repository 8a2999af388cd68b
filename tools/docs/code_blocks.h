#pragma once
// The ```cpp blocks of Markdown files as one C++ translation unit, so that a test compiles
// every code block of the docs and they cannot drift from the API (tests/docs/BUILD).
//
// Each block compiles in a namespace of its own, after #include "brisk/brisk.h" and
// `using namespace brisk;`, with #line directives so that an error names the Markdown file and
// line. An HTML comment right above a block (invisible in the rendered page) says how:
//
//   (none)                                  the block is namespace-scope code: declarations,
//                                           functions, a whole program (its main() is just a
//                                           function in its namespace)
//   <!-- compiled after: LINES -->          LINES (its own includes, declarations the block
//                                           uses) come first; the block is namespace-scope code
//   <!-- compiled as the body of: LINES --> the block is statements: the last of LINES is the
//                                           signature of the function whose body it is, e.g.
//                                           void example(data::DataLoader& loader, int64_t epochs)
//   <!-- file: PATH -->                     not compiled here: the block is PATH's content, which
//                                           its own target compiles (tools/test_examples.sh
//                                           docs_files checks that they are the same)
//
// LINES may span several lines of the comment. An #include, in a block or in LINES, moves to
// the top of the translation unit.
#include <string>
#include <vector>

namespace brisk::docs {

struct CodeBlock {
  enum class Kind { kNamespaceScope, kFunctionBody };

  std::string file;  // the Markdown file, as named to cpp_code_blocks
  int line = 0;      // the line of the block's first line of code (from 1)
  Kind kind = Kind::kNamespaceScope;
  std::vector<std::string> context;  // the comment's LINES (for a body, the signature last)
  int context_line = 0;              // the line of the first of them
  std::vector<std::string> code;
};

// The blocks of one Markdown file to compile: its ```cpp blocks but those marked
// `<!-- file: PATH -->`. Raises std::runtime_error naming `file` and the line for a block
// that is never closed, or a "compiled ..." comment not followed by a ```cpp block.
std::vector<CodeBlock> cpp_code_blocks(const std::string& markdown, const std::string& file);

// The translation unit that compiles `blocks`; it also defines
// `std::vector<std::string> brisk_docs_compiled_blocks()`, each block's "file:line".
std::string translation_unit(const std::vector<CodeBlock>& blocks);

}  // namespace brisk::docs
