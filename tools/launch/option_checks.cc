#include "tools/launch/option_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <cmath>
#include <string>

namespace brisk::launch {

CLI::Validator integer_in(int min, int max) {
  std::string expected =
      max == INT_MAX ? fmt::format("an integer >= {}", min) : fmt::format("an integer from {} to {}", min, max);
  std::string range = max == INT_MAX ? fmt::format(">={}", min) : fmt::format("{}-{}", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        auto [stop, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || stop != end || value < min || value > max) {
          return fmt::format("expected {}, got '{}'", expected, text);
        }
        return "";
      },
      range);
}

CLI::Validator non_negative_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::size_t used = 0;
        double seconds = -1;
        try {
          seconds = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size() || !std::isfinite(seconds) || seconds < 0) {
          return fmt::format("expected a number of seconds >= 0, got '{}'", text);
        }
        return "";
      },
      ">=0");
}

}  // namespace brisk::launch
