#pragma once
// A synthetic, learnable dataset in CIFAR-10's binary format (data/cifar10_format.h), for
// demos and tests where the real CIFAR-10 is not at hand. It is not CIFAR-10: each of its 10
// classes is a colour pattern, stripes of one orientation and frequency on a tint of its own,
// and each image is its class's pattern moved by up to 2 pixels, plus uniform noise:
//
//   pixel(c, y, x) = clamp(128 + 48 tint[k][c] + 64 sin(2 pi f_k ((x - dx) cos a_k + (y - dy) sin a_k) / 32
//                                                          + phase[k][c]) + noise U(-n, n), 0, 255)
//
// for class k, with a_k = pi/2 k/9 (a horizontal flip makes no class look like another),
// f_k = 1.5 + (k mod 3) / 2, tint[k][c] = cos(2 pi (k + 3c) / 10), phase[k][c] = 2 pi (3c + k) / 7. Labels are drawn
// uniformly. A small network learns it in an epoch or two; the noise (`noise`, in pixel levels) makes it harder.
#include <cstdint>
#include <string>

namespace brisk::tools {

struct SyntheticCifar10Options {
  int64_t train_size = 10000;  // split over data_batch_1.bin ... data_batch_5.bin (at least 5)
  int64_t test_size = 2000;    // test_batch.bin (at least 1)
  double noise = 64.0;         // half-width of the uniform pixel noise, in levels of 0-255
  uint64_t seed = 0;           // of the labels, shifts and noise (the class patterns are fixed)
};

// Writes data_batch_1.bin ... data_batch_5.bin, test_batch.bin and batches.meta.txt (the class
// names, "synthetic_0" ... "synthetic_9", one a line, as the archive's file) into `dir`,
// creating it if needed: what data::CIFAR10(dir) reads. The same options give the same bytes.
// Raises brisk::Error for sizes out of range or a file that cannot be written.
void write_synthetic_cifar10(const std::string& dir, const SyntheticCifar10Options& options = {});

}  // namespace brisk::tools
