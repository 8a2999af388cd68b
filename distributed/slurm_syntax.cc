#include "distributed/slurm_syntax.h"

#include <cctype>

#include "tensor/error.h"

namespace brisk::dist {
namespace {

// A list longer than this is a typo (a range like "1-999999999"), not a cluster.
constexpr size_t kMaxEntries = 1 << 20;

bool all_digits(const std::string& text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "01-03,07" to {"01", "02", "03", "07"}, each number as wide as its range's lower bound.
std::vector<std::string> expand_ranges(const std::string& ranges, const std::string& text,
                                       const std::string& variable) {
  std::vector<std::string> numbers;
  size_t start = 0;
  while (start <= ranges.size()) {
    size_t comma = ranges.find(',', start);
    if (comma == std::string::npos) comma = ranges.size();
    const std::string range = ranges.substr(start, comma - start);
    const size_t dash = range.find('-');
    const std::string low = range.substr(0, dash);
    const std::string high = dash == std::string::npos ? low : range.substr(dash + 1);
    BRISK_CHECK(all_digits(low) && all_digits(high) && std::stol(low) <= std::stol(high),
                "{}='{}' is not a Slurm hostlist: range '{}' is not n or a-b with a <= b", variable, text, range);
    BRISK_CHECK(numbers.size() + static_cast<size_t>(std::stol(high) - std::stol(low)) < kMaxEntries,
                "{}='{}' is not a Slurm hostlist: range '{}' has too many hosts", variable, text, range);
    for (long n = std::stol(low); n <= std::stol(high); ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < low.size()) digits.insert(0, low.size() - digits.size(), '0');
      numbers.push_back(digits);
    }
    start = comma + 1;
  }
  return numbers;
}

// One name of the list, its bracket groups expanded left to right ("r[1-2]n[1-2]": r1n1, r1n2, ...).
void expand_name(const std::string& name, const std::string& text, const std::string& variable,
                 std::vector<std::string>& hosts) {
  std::vector<std::string> partial = {""};
  size_t pos = 0;
  while (pos < name.size()) {
    const size_t open = name.find('[', pos);
    const std::string literal = name.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
    BRISK_CHECK(literal.find(']') == std::string::npos, "{}='{}' is not a Slurm hostlist: ']' without '[' in '{}'",
                variable, text, name);
    for (std::string& host : partial) host += literal;
    if (open == std::string::npos) break;
    const size_t close = name.find(']', open);
    BRISK_CHECK(close != std::string::npos, "{}='{}' is not a Slurm hostlist: '[' without ']' in '{}'", variable, text,
                name);
    const std::vector<std::string> numbers = expand_ranges(name.substr(open + 1, close - open - 1), text, variable);
    BRISK_CHECK(partial.size() * numbers.size() + hosts.size() < kMaxEntries,
                "{}='{}' is not a Slurm hostlist: '{}' has too many hosts", variable, text, name);
    std::vector<std::string> next;
    for (const std::string& host : partial) {
      for (const std::string& number : numbers) next.push_back(host + number);
    }
    partial = std::move(next);
    pos = close + 1;
  }
  hosts.insert(hosts.end(), partial.begin(), partial.end());
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& text, const std::string& variable) {
  std::vector<std::string> hosts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '[') ++depth;
    if (i < text.size() && text[i] == ']') --depth;
    BRISK_CHECK(depth == 0 || depth == 1, "{}='{}' is not a Slurm hostlist: unbalanced brackets", variable, text);
    if (i < text.size() && !(text[i] == ',' && depth == 0)) continue;
    const std::string name = text.substr(start, i - start);
    BRISK_CHECK(!name.empty(), "{}='{}' is not a Slurm hostlist: an empty name", variable, text);
    expand_name(name, text, variable, hosts);
    start = i + 1;
  }
  return hosts;
}

std::vector<int> expand_tasks_per_node(const std::string& text, const std::string& variable) {
  std::vector<int> counts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string entry = text.substr(start, comma - start);
    const size_t paren = entry.find('(');
    const std::string count = entry.substr(0, paren);
    std::string repeat = "1";
    if (paren != std::string::npos) {
      const bool closed = entry.size() > paren + 3 && entry.compare(paren, 2, "(x") == 0 && entry.back() == ')';
      repeat = closed ? entry.substr(paren + 2, entry.size() - paren - 3) : "";
    }
    BRISK_CHECK(all_digits(count) && all_digits(repeat) && std::stol(repeat) > 0,
                "{}='{}' is not Slurm's tasks per node: '{}' is not n or n(xk)", variable, text, entry);
    BRISK_CHECK(counts.size() + static_cast<size_t>(std::stol(repeat)) < kMaxEntries,
                "{}='{}' is not Slurm's tasks per node: '{}' repeats too often", variable, text, entry);
    counts.insert(counts.end(), static_cast<size_t>(std::stol(repeat)), std::stoi(count));
    start = comma + 1;
  }
  return counts;
}

}  // namespace brisk::dist
