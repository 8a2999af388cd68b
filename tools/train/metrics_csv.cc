#include "tools/train/metrics_csv.h"

#include <cerrno>
#include <cstring>

#include "tensor/error.h"

namespace brisk::train {

MetricsCsv::MetricsCsv(const std::string& path, bool append)
    : path_(path), file_(std::fopen(path.c_str(), append ? "a" : "w"), &std::fclose) {
  BRISK_CHECK(file_ != nullptr, "metrics CSV '{}': cannot open: {}", path, std::strerror(errno));
  std::fseek(file_.get(), 0, SEEK_END);
  if (std::ftell(file_.get()) == 0) {
    std::fprintf(file_.get(), "%s\n", kHeader);
    std::fflush(file_.get());
  }
}

void MetricsCsv::write(const EpochRow& row) {
  std::string line =
      fmt::format("{},{:.6f},{:.6f},{:.6f},{:.6f},{:.1f},{:.2f}\n", row.epoch, row.train.loss(), row.train.accuracy(),
                  row.test.loss(), row.test.accuracy(), row.images_per_second, row.seconds);
  BRISK_CHECK(std::fputs(line.c_str(), file_.get()) >= 0 && std::fflush(file_.get()) == 0,
              "metrics CSV '{}': write failed: {}", path_, std::strerror(errno));
}

}  // namespace brisk::train
