// The docs' ```cpp blocks compile: this test builds only if every one of them does (the
// generated docs_code_blocks.cc, tests/docs/BUILD); it lists them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

std::vector<std::string> brisk_docs_compiled_blocks();

TEST_CASE("docs: every ```cpp block of README.md and docs/*.md compiles") {
  const std::vector<std::string> blocks = brisk_docs_compiled_blocks();
  for (const std::string& block : blocks) UNSCOPED_INFO(block);  // shown if the count is off
  CHECK(blocks.size() >= 20);                                    // docs/guide.md alone has 12
}
