#include "tools/data/synthetic_cifar10.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "data/cifar10.h"
#include "data/cifar10_format.h"
#include "tensor/error.h"

namespace brisk::tools {
namespace {

constexpr int kSide = 32;
constexpr int kPlane = kSide * kSide;
constexpr int kMaxShift = 2;

// Uniform in [0, 1) from the top 53 bits of a draw: the same on every platform (the standard
// distributions are not).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
int uniform_int(std::mt19937_64& rng, int n) { return static_cast<int>(uniform(rng) * n); }

// Class k's image moved by (dx, dy) without noise, as real pixel values per channel plane.
// The stripes' angles lie in [0, pi/2], so that a horizontal flip (angle a -> pi - a), the
// usual augmentation, never turns one class's stripes into another's.
std::vector<double> pattern(int k, int dx, int dy) {
  const double angle = 0.5 * M_PI * k / (data::kCifar10Classes - 1);
  const double frequency = 1.5 + 0.5 * (k % 3);
  std::vector<double> out(3 * kPlane);
  for (int c = 0; c < 3; ++c) {
    const double tint = std::cos(2 * M_PI * (k + 3 * c) / data::kCifar10Classes);
    const double phase = 2 * M_PI * (c * 3 + k) / 7.0;
    for (int y = 0; y < kSide; ++y) {
      for (int x = 0; x < kSide; ++x) {
        const double along = (x - dx) * std::cos(angle) + (y - dy) * std::sin(angle);
        out[c * kPlane + y * kSide + x] = 128 + 48 * tint + 64 * std::sin(2 * M_PI * frequency * along / kSide + phase);
      }
    }
  }
  return out;
}

// `count` records (label byte, then the red, green and blue planes).
std::vector<uint8_t> records(int64_t count, double noise, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes;
  bytes.reserve(count * data::kCifar10RecordBytes);
  for (int64_t i = 0; i < count; ++i) {
    const int label = uniform_int(rng, data::kCifar10Classes);
    const int dx = uniform_int(rng, 2 * kMaxShift + 1) - kMaxShift;
    const int dy = uniform_int(rng, 2 * kMaxShift + 1) - kMaxShift;
    bytes.push_back(static_cast<uint8_t>(label));
    for (double value : pattern(label, dx, dy)) {
      const double noisy = value + noise * (2 * uniform(rng) - 1);
      bytes.push_back(static_cast<uint8_t>(std::clamp(std::lround(noisy), 0L, 255L)));
    }
  }
  return bytes;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  BRISK_CHECK(out.good(), "make_synthetic_cifar10: cannot write {}", path);
}

}  // namespace

void write_synthetic_cifar10(const std::string& dir, const SyntheticCifar10Options& options) {
  const std::vector<std::string> train_files = data::CIFAR10::file_names(/*train=*/true);
  const auto files = static_cast<int64_t>(train_files.size());
  BRISK_CHECK(options.train_size >= files, "make_synthetic_cifar10: --train-size {} must be at least {} (one per file)",
              options.train_size, files);
  BRISK_CHECK(options.test_size >= 1, "make_synthetic_cifar10: --test-size {} must be at least 1", options.test_size);
  BRISK_CHECK(options.noise >= 0, "make_synthetic_cifar10: --noise {} must not be negative", options.noise);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  BRISK_CHECK(!error, "make_synthetic_cifar10: cannot create {}: {}", dir, error.message());

  std::mt19937_64 rng(options.seed);
  for (int64_t f = 0; f < files; ++f) {
    // As even as possible, the first files taking what does not divide.
    const int64_t count = options.train_size / files + (f < options.train_size % files ? 1 : 0);
    write_file(dir + "/" + train_files[f], records(count, options.noise, rng));
  }
  write_file(dir + "/" + data::CIFAR10::file_names(/*train=*/false).front(),
             records(options.test_size, options.noise, rng));
  std::string names;
  for (int k = 0; k < data::kCifar10Classes; ++k) names += "synthetic_" + std::to_string(k) + "\n";
  write_file(dir + "/batches.meta.txt", std::vector<uint8_t>(names.begin(), names.end()));
}

}  // namespace brisk::tools
