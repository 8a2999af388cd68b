// The CIFAR-10 reader on files in its binary format that the test writes.
#include "data/cifar10.h"

#include <catch2/catch.hpp>

#include "tensor/error.h"
#include "tests/data/file_util.h"

using namespace brisk;
using namespace brisk::data;
using Catch::Matchers::Contains;

namespace {

// Record `id`: label id % 10; red plane pixel p = (id + p) % 256, green = 2 * that, blue = 255 - red.
std::vector<uint8_t> record(int id) {
  std::vector<uint8_t> r(3073);
  r[0] = static_cast<uint8_t>(id % 10);
  for (int p = 0; p < 1024; ++p) {
    auto red = static_cast<uint8_t>((id + p) % 256);
    r[1 + p] = red;
    r[1 + 1024 + p] = static_cast<uint8_t>(2 * red);
    r[1 + 2048 + p] = static_cast<uint8_t>(255 - red);
  }
  return r;
}

std::vector<uint8_t> records(int first, int count) {
  std::vector<uint8_t> out;
  for (int i = first; i < first + count; ++i) {
    std::vector<uint8_t> r = record(i);
    out.insert(out.end(), r.begin(), r.end());
  }
  return out;
}

}  // namespace

TEST_CASE("CIFAR10 reads the five train batches and the test batch", "[data][cifar]") {
  std::string dir = data::testing::scratch_dir("cifar_files");
  for (int b = 1; b <= 5; ++b) {
    data::testing::write_bytes(dir + "/data_batch_" + std::to_string(b) + ".bin", records(3 * (b - 1), 3));
  }
  data::testing::write_bytes(dir + "/test_batch.bin", records(100, 2));

  CIFAR10 train(dir, true);
  REQUIRE(train.size() == 15);
  CHECK(train.images().sizes() == Shape{15, 32, 32, 3});
  CHECK(train.images().dtype() == kUInt8);
  CHECK(train.labels().to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4});
  // Example 13 (from data_batch_5): channels last; pixel (row 1, col 2) is plane index 34.
  Example<> e = train.get(13);
  CHECK(e.data.sizes() == Shape{32, 32, 3});
  CHECK(e.target.item<int64_t>() == 3);
  CHECK(e.data[1][2].to_vector<uint8_t>() == std::vector<uint8_t>{47, 94, 208});

  CIFAR10 test(dir, false);
  REQUIRE(test.size() == 2);
  CHECK(test.labels().to_vector<int64_t>() == std::vector<int64_t>{0, 1});
  CHECK(test.get(1).data[0][0].to_vector<uint8_t>() == std::vector<uint8_t>{101, 202, 154});
}

TEST_CASE("CIFAR10 finds the files in cifar-10-batches-bin, as the archive unpacks", "[data][cifar]") {
  std::string dir = data::testing::scratch_dir("cifar_nested");
  REQUIRE(system(("mkdir -p " + dir + "/cifar-10-batches-bin").c_str()) == 0);
  data::testing::write_bytes(dir + "/cifar-10-batches-bin/test_batch.bin", data::testing::gzip(records(7, 4)));
  CIFAR10 test(dir, false);
  CHECK(test.labels().to_vector<int64_t>() == std::vector<int64_t>{7, 8, 9, 0});
}

TEST_CASE("CIFAR10 errors name the file, the problem and the byte offset", "[data][cifar]") {
  std::string dir = data::testing::scratch_dir("cifar_errors");
  CHECK_THROWS_WITH(CIFAR10(dir, false), Contains("missing file") && Contains(dir + "/test_batch.bin") &&
                                             Contains(dir + "/cifar-10-batches-bin/test_batch.bin"));

  data::testing::write_bytes(dir + "/test_batch.bin", {});
  CHECK_THROWS_WITH(CIFAR10(dir, false), Contains(dir + "/test_batch.bin") && Contains("empty"));

  std::vector<uint8_t> cut = records(0, 2);
  cut.resize(3073 + 100);
  data::testing::write_bytes(dir + "/test_batch.bin", cut);
  CHECK_THROWS_WITH(CIFAR10(dir, false), Contains(dir + "/test_batch.bin") && Contains("truncated data") &&
                                             Contains("3173 bytes") && Contains("expected 6146 bytes"));

  std::vector<uint8_t> bad_label = records(0, 3);
  bad_label[2 * 3073] = 10;
  data::testing::write_bytes(dir + "/test_batch.bin", bad_label);
  CHECK_THROWS_WITH(CIFAR10(dir, false), Contains(dir + "/test_batch.bin") &&
                                             Contains("label 10 of record 2 at byte offset 6146 is out of range"));

  // Only data_batch_1.bin: the train set names the first batch that is missing.
  data::testing::write_bytes(dir + "/data_batch_1.bin", records(0, 1));
  CHECK_THROWS_WITH(CIFAR10(dir, true), Contains("missing file") && Contains("data_batch_2.bin"));
}

TEST_CASE("parse_cifar10 reads records from memory", "[data][cifar]") {
  std::vector<uint8_t> bytes = records(5, 1);
  LabeledImages parsed = parse_cifar10(bytes.data(), bytes.size(), "mem");
  CHECK(parsed.images.sizes() == Shape{1, 32, 32, 3});
  CHECK(parsed.labels.to_vector<int64_t>() == std::vector<int64_t>{5});
  CHECK(parsed.images[0][31][31].to_vector<uint8_t>() == std::vector<uint8_t>{4, 8, 251});
}
