"""Reads a run's TensorBoard event files (tensorboard/summary_writer.h; the training program's
--tensorboard DIR) with TensorBoard's own reader and prints every scalar series, so a change to
the writer can be checked against the real consumer. TensorBoard is not a test dependency:

    python3 -m venv /tmp/tb && /tmp/tb/bin/pip install tensorboard
    /tmp/tb/bin/python tools/check_tensorboard.py runs/lenet/tb

Exits non-zero when the directory holds no scalars. TensorBoard's record reader checks both
CRC-32Cs of every record and silently stops reading a file at the first bad one, so a bad
checksum shows up as missing points.
"""
import argparse
import sys

from tensorboard.backend.event_processing import event_accumulator


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log_dir", help="the directory given to --tensorboard")
    args = parser.parse_args()
    # size_guidance 0: keep every point (the default samples scalars down to 10,000).
    events = event_accumulator.EventAccumulator(args.log_dir, size_guidance={event_accumulator.SCALARS: 0})
    events.Reload()
    tags = events.Tags()[event_accumulator.SCALARS]
    if not tags:
        sys.exit(f"{args.log_dir}: no scalars (is it the directory given to --tensorboard?)")
    for tag in sorted(tags):
        points = events.Scalars(tag)
        shown = ", ".join(f"{p.step}: {p.value:.6g}" for p in points)
        print(f"{tag} ({len(points)} points): {shown}")


if __name__ == "__main__":
    main()
