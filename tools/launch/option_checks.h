#pragma once
// Checks of the launcher's numeric options, as CLI11 validators whose messages read at a glance
// ("--nproc-per-node: expected an integer >= 1, got 'two'") instead of CLI11's own ranges
// (which print the limits of a double, 309 digits long). They see the option's text before it
// is converted, so a word, a fraction or trailing characters are refused with the same message.
#include <CLI/CLI.hpp>

namespace brisk::launch {

// An integer from min to max, in decimal with nothing around it; max = INT_MAX reads ">= min".
CLI::Validator integer_in(int min, int max);

// A number of seconds >= 0, e.g. 10 or 2.5.
CLI::Validator non_negative_seconds();

}  // namespace brisk::launch
