#!/usr/bin/env python3
"""Writes the first N items of a gzip-compressed IDX file (MNIST's format) as another one.

Usage: idx_subset.py SOURCE DEST N

IDX: two zero bytes, a type code, the number of dimensions D, then D big-endian uint32 sizes,
then the items in row-major order. DEST gets the same header with the first size set to
min(N, its size), and that many items; gzip with no timestamp, so the same input gives the same
bytes. tools/gpu/build_bundle.sh puts such a subset of Fashion-MNIST in the GPU bundle in place
of the whole set (the GPU tests read at most the first 256 training and 200 test images).
"""
import gzip
import struct
import sys

# Bytes per element of each IDX type code.
ELEMENT_SIZE = {0x08: 1, 0x09: 1, 0x0B: 2, 0x0C: 4, 0x0D: 4, 0x0E: 8}


def main(source, dest, n):
    with gzip.open(source, "rb") as f:
        magic = f.read(4)
        if len(magic) != 4 or magic[:2] != b"\0\0" or magic[2] not in ELEMENT_SIZE:
            sys.exit(f"idx_subset: {source} is not an IDX file (header {magic.hex()})")
        dims = list(struct.unpack(f">{magic[3]}I", f.read(4 * magic[3])))
        item = ELEMENT_SIZE[magic[2]]
        for d in dims[1:]:
            item *= d
        count = min(n, dims[0])
        data = f.read(count * item)
        if len(data) != count * item:
            sys.exit(f"idx_subset: {source} ends before item {count} (dimensions {dims})")
    dims[0] = count
    with open(dest, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(magic + struct.pack(f">{len(dims)}I", *dims) + data)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
