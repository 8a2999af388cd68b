// tools/docs/code_blocks: which Markdown blocks are compiled, how their comments place them,
// and malformed blocks named by file and line.
#include "tools/docs/code_blocks.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace brisk::docs;
using Catch::Contains;

TEST_CASE("cpp_code_blocks: ```cpp blocks, but not file blocks or other languages") {
  const std::string markdown = "# Title\n"                               // 1
                               "```sh\n"                                 // 2
                               "bazel run //x\n"                         // 3
                               "```\n"                                   // 4
                               "<!-- file: examples/a.cc -->\n"          // 5
                               "```cpp\n"                                // 6
                               "int shown_as_is;\n"                      // 7
                               "```\n"                                   // 8
                               "```cpp\n"                                // 9
                               "#include <map>\n"                        // 10
                               "struct Point { int x; };\n"              // 11
                               "```\n"                                   // 12
                               "<!-- compiled as the body of:\n"         // 13
                               "#include <vector>\n"                     // 14
                               "void example(std::vector<int> v) -->\n"  // 15
                               "\n"                                      // 16
                               "```cpp\n"                                // 17
                               "v.push_back(1);\n"                       // 18
                               "```\n"                                   // 19
                               "1. a list\n"                             // 20
                               "   ```cpp\n"                             // 21
                               "   int indented;\n"                      // 22
                               "   ```\n";                               // 23
  std::vector<CodeBlock> blocks = cpp_code_blocks(markdown, "docs/x.md");
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].line == 10);
  CHECK(blocks[0].kind == CodeBlock::Kind::kNamespaceScope);
  CHECK(blocks[0].code == std::vector<std::string>{"#include <map>", "struct Point { int x; };"});
  CHECK(blocks[1].kind == CodeBlock::Kind::kFunctionBody);
  CHECK(blocks[1].context == std::vector<std::string>{"#include <vector>", "void example(std::vector<int> v)"});
  CHECK(blocks[1].context_line == 14);
  CHECK(blocks[1].line == 18);
  CHECK(blocks[2].code == std::vector<std::string>{"int indented;"});

  const std::string unit = translation_unit(blocks);
  // Includes first, once; each block in its namespace, numbered as in the Markdown file.
  CHECK(unit.find("#include <map>\n") < unit.find("namespace docs_block_0"));
  CHECK(unit.find("#include <vector>\n") < unit.find("namespace docs_block_0"));
  CHECK_THAT(unit, Contains("namespace docs_block_1 {\n#line 14 \"docs/x.md\"\n\n"
                            "void example(std::vector<int> v) {\n#line 18 \"docs/x.md\"\nv.push_back(1);\n}\n"));
  CHECK_THAT(unit, Contains("\"docs/x.md:10\",\n      \"docs/x.md:18\",\n      \"docs/x.md:22\","));
}

TEST_CASE("cpp_code_blocks: malformed blocks and stray comments are named by file and line") {
  CHECK_THROWS_WITH(cpp_code_blocks("text\n```cpp\nint x;\n", "a.md"),
                    Contains("a.md:2: a code block that is never closed"));
  CHECK_THROWS_WITH(cpp_code_blocks("<!-- compiled after: int y; -->\nSome text.\n```cpp\nint x;\n```\n", "b.md"),
                    Contains("b.md:1: this comment is not followed by a ```cpp block"));
  CHECK_THROWS_WITH(cpp_code_blocks("<!-- compiled as the body of: -->\n```cpp\nx();\n```\n", "c.md"),
                    Contains("c.md:1: \"compiled as the body of:\" names no function signature"));
  CHECK_THROWS_WITH(cpp_code_blocks("<!-- compiled after: int y; -->\n```sh\nls\n```\n", "d.md"),
                    Contains("d.md:1: this comment is followed by a block that is not ```cpp"));
  CHECK(cpp_code_blocks("<!-- an ordinary comment -->\ntext\n```cpp\nint x;\n```\n", "e.md").size() == 1);
}
