#pragma once
// Which devices a graph (tensor/graphs/graph.h) is capturing now, process-wide, for the ops
// that cannot be captured: they call check_not_capturing() and raise an error that names the
// op and the reason instead of recording something every replay would get wrong.
#include "tensor/device.h"

namespace brisk::graphs {

bool is_capturing(Device device);
// Raises brisk::Error when `device` is being captured: "<what> on <device> during graph
// capture: <why>".
void check_not_capturing(Device device, const char* what, const char* why);

namespace detail {
// Set by Graph::capture_begin / capture_end (and reset on a failed capture).
void set_capturing(Device device, bool capturing);
}  // namespace detail

}  // namespace brisk::graphs
