// The per-epoch metrics CSV (tools/train/metrics_csv.h): a header and a row per epoch; a resumed
// run appends, dropping the rows of epochs after its checkpoint.
#include "tools/train/metrics_csv.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace brisk;
using namespace brisk::train;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string scratch(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

}  // namespace

TEST_CASE("MetricsCsv: a header, one row per epoch; appending keeps the rows") {
  std::string path = scratch("metrics.csv");
  EpochRow row{1, Metrics{6.0, 3, 4}, Metrics{2.0, 9, 10}, 1234.56, 7.891};
  {
    MetricsCsv csv(path, /*append=*/false);
    csv.write(row);
  }
  REQUIRE(read_text(path) ==
          std::string(MetricsCsv::kHeader) + "\n1,1.500000,0.750000,0.200000,0.900000,1234.6,7.89\n");
  {
    MetricsCsv csv(path, /*append=*/true);
    row.epoch = 2;
    csv.write(row);
  }
  REQUIRE(read_text(path) == std::string(MetricsCsv::kHeader) +
                                 "\n1,1.500000,0.750000,0.200000,0.900000,1234.6,7.89"
                                 "\n2,1.500000,0.750000,0.200000,0.900000,1234.6,7.89\n");
  REQUIRE_THROWS_WITH(MetricsCsv("/nonexistent-dir/m.csv", false), Catch::Contains("/nonexistent-dir/m.csv"));
}

TEST_CASE("MetricsCsv: appending after a checkpoint of epoch E drops the rows of later epochs") {
  std::string path = scratch("metrics_resumed.csv");
  EpochRow row{1, Metrics{6.0, 3, 4}, Metrics{2.0, 9, 10}, 1234.56, 7.891};
  {
    MetricsCsv csv(path, /*append=*/false);
    for (int64_t epoch : {1, 2, 3}) {
      row.epoch = epoch;
      csv.write(row);
    }
  }
  {
    // Resumed from the checkpoint after epoch 1: epochs 2 and 3 are trained, and written, again.
    MetricsCsv csv(path, /*append=*/true, /*completed_epochs=*/1);
    row.epoch = 2;
    row.seconds = 1.5;
    csv.write(row);
  }
  REQUIRE(read_text(path) == std::string(MetricsCsv::kHeader) +
                                 "\n1,1.500000,0.750000,0.200000,0.900000,1234.6,7.89"
                                 "\n2,1.500000,0.750000,0.200000,0.900000,1234.6,1.50\n");
}
