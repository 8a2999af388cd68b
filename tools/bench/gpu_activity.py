"""The PyTorch twins' kernels and GPU-busy time, counted as Brisk's cuda::ActivityRecorder
counts them (cuda/gpu_activity.h): kernels are counted; kernels, memory copies and memsets make
the busy time, overlaps counted once."""
import torch


def gpu_activity(prof):
    """(kernels, busy microseconds) of a finished torch.profiler.profile run."""
    intervals, kernels = [], 0
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if not event.name.startswith(("Memcpy", "Memset")):
            kernels += 1
        intervals.append((event.time_range.start, event.time_range.end))
    busy_us, covered_until = 0.0, float("-inf")
    for begin, end in sorted(intervals):
        if end > covered_until:
            busy_us += end - max(begin, covered_until)
            covered_until = end
    return kernels, busy_us
