#pragma once
// Events as a Chrome trace (the JSON of chrome://tracing and ui.perfetto.dev): one complete
// ("ph": "X") event per Event, or a begin/end pair ("b", "e", one "id") for an async one;
// timestamps in microseconds from `origin_ns`, "pid" the process (labelled `process_name`,
// e.g. "rank 1"), "tid" the thread, "cat" the category, "args" the event's fields.
#include <cstdint>
#include <string>
#include <vector>

#include "profiler/record.h"

namespace brisk::profiler {

void write_chrome_trace(const std::string& path, const std::vector<Event>& events, int64_t origin_ns,
                        const std::string& process_name);

}  // namespace brisk::profiler
