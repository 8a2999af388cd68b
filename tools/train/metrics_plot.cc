#include "tools/train/metrics_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "checkpoint/atomic_file.h"
#include "tensor/error.h"
#include "tools/train/png_writer.h"

namespace brisk::train {
namespace {

constexpr int kPanelWidth = 600, kPanelHeight = 440;
constexpr int kMarginLeft = 100, kMarginRight = 24, kMarginTop = 56, kMarginBottom = 70;
constexpr int kPad = 12;       // between the frame and the outermost data points
constexpr int kTextScale = 2;  // of the 5x7 font: 10x14-pixel characters
constexpr int kTickLength = 6;
constexpr Rgb kInk{40, 40, 40};
constexpr Rgb kGrid{228, 228, 228};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream s(line);
  for (std::string field; std::getline(s, field, ',');) fields.push_back(field);
  return fields;
}

// 1, 2 or 5 times a power of ten, about span / target.
double nice_step(double span, int target) {
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  return magnitude * (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10);
}

struct Range {
  double min, max, step;
};

// The data's range widened to whole ticks; a constant series gets a small range around it
// (so that no division is by zero), within [lowest, highest].
Range y_range(double lo, double hi, double lowest, double highest) {
  if (hi - lo <= 1e-9 * std::max(1.0, std::abs(hi))) {
    const double pad = std::max(0.05 * std::abs(hi), 0.01);
    lo -= pad, hi += pad;
  }
  const double step = nice_step(hi - lo, 4);
  return {std::max(lowest, std::floor(lo / step) * step), std::min(highest, std::ceil(hi / step) * step), step};
}

// Whole epochs; a single epoch stands in the middle of [epoch - 1, epoch + 1].
Range x_range(double first, double last) {
  if (last <= first) first -= 1, last += 1;
  return {first, last, std::max(1.0, nice_step(last - first, 6))};
}

std::string tick_label(double value, double step, const char* suffix) {
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}f}{}", value, decimals, suffix);
}

// The frame, grid, ticks, tick labels and axis label of a panel at (x, 0) of the canvas.
Axes draw_axes(Canvas& canvas, int x, const Range& xr, const Range& yr, const char* y_suffix) {
  Axes axes{xr.min,
            xr.max,
            yr.min,
            yr.max,
            x + kMarginLeft,
            kMarginTop,
            kPanelWidth - kMarginLeft - kMarginRight,
            kPanelHeight - kMarginTop - kMarginBottom};
  const int bottom = axes.top + axes.height, right = axes.left + axes.width;
  const int text_h = Canvas::text_height(kTextScale);
  for (double v = std::ceil(xr.min / xr.step) * xr.step; v <= xr.max + 1e-9; v += xr.step) {
    const int px = axes.px(v);
    canvas.line(px, axes.top, px, bottom, kGrid);
    canvas.line(px, bottom, px, bottom + kTickLength, kInk);
    const std::string label = tick_label(v, xr.step, "");
    canvas.text(px - Canvas::text_width(label, kTextScale) / 2, bottom + kTickLength + 4, label, kInk, kTextScale);
  }
  for (double v = yr.min; v <= yr.max + 1e-9 * yr.step; v += yr.step) {
    const int py = axes.py(v);
    canvas.line(axes.left, py, right, py, kGrid);
    canvas.line(axes.left - kTickLength, py, axes.left, py, kInk);
    const std::string label = tick_label(v, yr.step, y_suffix);
    canvas.text(axes.left - kTickLength - 4 - Canvas::text_width(label, kTextScale), py - text_h / 2, label, kInk,
                kTextScale);
  }
  canvas.line(axes.left, axes.top, right, axes.top, kInk);
  canvas.line(axes.left, bottom, right, bottom, kInk);
  canvas.line(axes.left, axes.top, axes.left, bottom, kInk);
  canvas.line(right, axes.top, right, bottom, kInk);
  canvas.text(axes.left + (axes.width - Canvas::text_width("epoch", kTextScale)) / 2,
              bottom + kTickLength + text_h + 14, "epoch", kInk, kTextScale);
  return axes;
}

void draw_series(Canvas& canvas, const Axes& axes, const std::vector<double>& x, const std::vector<double>& y,
                 Rgb color) {
  for (size_t i = 1; i < y.size(); ++i) {
    canvas.line(axes.px(x[i - 1]), axes.py(y[i - 1]), axes.px(x[i]), axes.py(y[i]), color, 2);
  }
  for (size_t i = 0; i < y.size(); ++i) canvas.dot(axes.px(x[i]), axes.py(y[i]), 4, color);
}

// A title, then legend entries (a short colored line and a name) on the same row above the panel.
void draw_title(Canvas& canvas, const Axes& axes, const std::string& title,
                const std::vector<std::pair<std::string, Rgb>>& legend) {
  const int y = (kMarginTop - Canvas::text_height(kTextScale)) / 2;
  canvas.text(axes.left, y, title, kInk, kTextScale);
  int x = axes.left + Canvas::text_width(title, kTextScale) + 40;
  for (const auto& [name, color] : legend) {
    const int mid = y + Canvas::text_height(kTextScale) / 2;
    canvas.line(x, mid, x + 24, mid, color, 3);
    canvas.text(x + 32, y, name, kInk, kTextScale);
    x += 32 + Canvas::text_width(name, kTextScale) + 28;
  }
}

}  // namespace

int Axes::px(double x) const {
  return left + kPad + static_cast<int>(std::lround((x - x_min) / (x_max - x_min) * (width - 2 * kPad)));
}

int Axes::py(double y) const {
  return top + height - kPad - static_cast<int>(std::lround((y - y_min) / (y_max - y_min) * (height - 2 * kPad)));
}

MetricsHistory read_metrics_csv(const std::string& path) {
  std::ifstream in(path);
  BRISK_CHECK(in.good(), "metrics CSV '{}': cannot open", path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  auto column = [&](const std::string& name) {
    return static_cast<int>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const int epoch = column("epoch"), train_loss = column("train_loss"), test_loss = column("test_loss"),
            test_acc = column("test_acc"), columns = static_cast<int>(header.size());
  BRISK_CHECK(epoch < columns && train_loss < columns && test_acc < columns,
              "metrics CSV '{}': the header '{}' lacks epoch, train_loss or test_acc", path, line);
  MetricsHistory history;
  for (int number = 2; std::getline(in, line); ++number) {
    const std::vector<std::string> fields = split(line);
    auto value = [&](int i) {
      size_t parsed = 0;
      double v = 0;
      try {
        if (i < static_cast<int>(fields.size())) v = std::stod(fields[i], &parsed);
      } catch (const std::logic_error&) {  // std::stod's invalid_argument and out_of_range
      }
      BRISK_CHECK(parsed > 0, "metrics CSV '{}' line {}: no number in column {} of '{}'", path, number, i + 1, line);
      return v;
    };
    history.epoch.push_back(value(epoch));
    history.train_loss.push_back(value(train_loss));
    if (test_loss < columns) history.test_loss.push_back(value(test_loss));
    history.test_accuracy.push_back(value(test_acc));
  }
  return history;
}

MetricsPlot plot_metrics(const MetricsHistory& h) {
  const size_t n = h.epoch.size();
  BRISK_CHECK(n > 0 && h.train_loss.size() == n && h.test_accuracy.size() == n &&
                  (h.test_loss.empty() || h.test_loss.size() == n),
              "plot_metrics: {} epochs with {} train losses, {} test losses, {} accuracies (one each, at least one)", n,
              h.train_loss.size(), h.test_loss.size(), h.test_accuracy.size());
  const auto [first, last] = std::minmax_element(h.epoch.begin(), h.epoch.end());
  const Range xr = x_range(*first, *last);
  std::vector<double> losses = h.train_loss;
  losses.insert(losses.end(), h.test_loss.begin(), h.test_loss.end());
  const auto [loss_lo, loss_hi] = std::minmax_element(losses.begin(), losses.end());
  std::vector<double> percent;
  for (double a : h.test_accuracy) percent.push_back(100 * a);
  const auto [acc_lo, acc_hi] = std::minmax_element(percent.begin(), percent.end());

  MetricsPlot plot{Canvas(2 * kPanelWidth, kPanelHeight, kPlotBackground), {}, {}};
  plot.loss = draw_axes(plot.canvas, 0, xr, y_range(*loss_lo, *loss_hi, -HUGE_VAL, HUGE_VAL), "");
  plot.accuracy = draw_axes(plot.canvas, kPanelWidth, xr, y_range(*acc_lo, *acc_hi, 0, 100), "%");
  std::vector<std::pair<std::string, Rgb>> legend{{"train", kTrainLossColor}};
  if (!h.test_loss.empty()) legend.emplace_back("test", kTestLossColor);
  draw_title(plot.canvas, plot.loss, "loss", legend);
  draw_title(plot.canvas, plot.accuracy, "test accuracy", {});
  draw_series(plot.canvas, plot.loss, h.epoch, h.train_loss, kTrainLossColor);
  draw_series(plot.canvas, plot.loss, h.epoch, h.test_loss, kTestLossColor);
  draw_series(plot.canvas, plot.accuracy, h.epoch, percent, kAccuracyColor);
  return plot;
}

void write_metrics_plot(const std::string& csv_path, const std::string& png_path) {
  const MetricsPlot plot = plot_metrics(read_metrics_csv(csv_path));
  const std::string png = encode_png(plot.canvas.width(), plot.canvas.height(), plot.canvas.rgb());
  checkpoint::AtomicFile out(png_path);
  out.write(png.data(), png.size());
  out.commit();
}

std::string metrics_png_path(const std::string& csv_path) {
  const std::string suffix = ".csv";
  const bool is_csv =
      csv_path.size() >= suffix.size() && csv_path.compare(csv_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (is_csv ? csv_path.substr(0, csv_path.size() - suffix.size()) : csv_path) + ".png";
}

}  // namespace brisk::train
