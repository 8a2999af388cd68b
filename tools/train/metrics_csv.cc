#include "tools/train/metrics_csv.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "tensor/error.h"

namespace brisk::train {
namespace {

// Removes the rows of `path` whose epoch is above `completed_epochs`; nothing when it has none
// (or the file does not exist).
void drop_rows_after(const std::string& path, int64_t completed_epochs) {
  std::ifstream in(path);
  std::string kept;
  bool dropped = false;
  for (std::string line; std::getline(in, line);) {
    int64_t epoch = 0;
    auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), epoch);
    if (error == std::errc() && end != line.data() + line.size() && *end == ',' && epoch > completed_epochs) {
      dropped = true;
    } else {
      kept += line + "\n";
    }
  }
  if (!dropped) return;
  std::ofstream out(path, std::ios::trunc);
  out << kept;
  BRISK_CHECK(out.good(), "metrics CSV '{}': cannot rewrite it without the rows after epoch {}", path,
              completed_epochs);
}

FILE* open_csv(const std::string& path, bool append, int64_t completed_epochs) {
  if (append) drop_rows_after(path, completed_epochs);
  return std::fopen(path.c_str(), append ? "a" : "w");
}

}  // namespace

MetricsCsv::MetricsCsv(const std::string& path, bool append, int64_t completed_epochs)
    : path_(path), file_(open_csv(path, append, completed_epochs), &std::fclose) {
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
