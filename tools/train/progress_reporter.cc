#include "tools/train/progress_reporter.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace brisk::train {
namespace {

constexpr int kBarWidth = 30;
// Redraws at most this often: a bar redrawn every millisecond would cost more than it shows.
constexpr std::chrono::milliseconds kRedrawPeriod{100};

std::string format_duration(double seconds) {
  auto s = static_cast<int64_t>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressReporter::ProgressReporter(std::string title, int64_t batches, int64_t first_batch, int64_t log_interval,
                                   bool bar)
    : title_(std::move(title)),
      batches_(batches),
      first_batch_(first_batch),
      log_interval_(std::max<int64_t>(1, log_interval)),
      bar_(bar),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

double ProgressReporter::images_per_second(int64_t images) const {
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  return elapsed.count() > 0 ? images / elapsed.count() : 0.0;
}

std::string ProgressReporter::status(const Metrics& epoch) const {
  return fmt::format("loss {:.4f}  acc {:.1f}%  {:.0f} img/s", epoch.loss(), 100.0 * epoch.accuracy(),
                     images_per_second(epoch.count));
}

void ProgressReporter::update(int64_t batch, const MetricSums& epoch) {
  if (!bar_) {
    if (batch % log_interval_ == 0 || batch == batches_) {
      spdlog::info("{} batch {}/{}  {}", title_, batch, batches_, status(epoch.read()));
    }
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedrawPeriod && batch != batches_) return;
  last_draw_ = now;
  int filled = static_cast<int>(kBarWidth * batch / std::max<int64_t>(1, batches_));
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < kBarWidth) bar += '>';
  bar.resize(kBarWidth, ' ');
  std::chrono::duration<double> elapsed = now - start_;
  int64_t done = batch - first_batch_;
  double eta = done > 0 ? elapsed.count() / done * (batches_ - batch) : 0.0;
  std::fprintf(stderr, "\r%s [%s] %lld/%lld  %s  ETA %s\x1b[K", title_.c_str(), bar.c_str(),
               static_cast<long long>(batch), static_cast<long long>(batches_), status(epoch.read()).c_str(),
               format_duration(eta).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressReporter::finish() {
  if (drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace brisk::train
