"""The PyTorch twins' timer, as tools/bench/timing.h's median_ms."""
import statistics
import time


def median_ms(warmup, runs, f):
    """The median wall time of `runs` calls of f, in milliseconds, after `warmup` untimed calls."""
    for _ in range(warmup):
        f()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)
