#pragma once
// TensorBoard event files read back for tests: every record's length and both masked CRC-32Cs
// are checked (Catch2 REQUIREs) before its Event is parsed.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensorboard/event.pb.h"

namespace brisk::tensorboard::testing {

std::vector<Event> read_events(const std::string& path);

// The paths of the event files in `dir` (names with "tfevents"), sorted.
std::vector<std::string> event_files(const std::string& dir);

// (step, value) of each scalar event, by tag, in file order; the first event must be the file
// version and no later one.
using Scalars = std::map<std::string, std::vector<std::pair<int64_t, float>>>;
Scalars read_scalars(const std::string& path);

}  // namespace brisk::tensorboard::testing
