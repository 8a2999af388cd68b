// The metrics plot: each series drawn in its color through the pixels of its values (and
// nowhere else), one epoch and constant series drawn without dividing by zero, and the file
// a valid PNG of the plot, written atomically from the CSV.
#include "tools/train/metrics_plot.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"
#include "tests/tools/train/png_decode.h"
#include "tools/train/metrics_csv.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Matchers::Contains;

namespace {

// Whether a pixel of `color` lies within `radius` pixels (a square) of (x, y).
bool color_near(const Canvas& canvas, int x, int y, Rgb color, int radius = 2) {
  for (int j = std::max(0, y - radius); j <= std::min(canvas.height() - 1, y + radius); ++j) {
    for (int i = std::max(0, x - radius); i <= std::min(canvas.width() - 1, x + radius); ++i) {
      if (canvas.at(i, j) == color) return true;
    }
  }
  return false;
}

double distance_to_segment(double x, double y, double x0, double y0, double x1, double y1) {
  const double dx = x1 - x0, dy = y1 - y0, length2 = dx * dx + dy * dy;
  const double t = length2 > 0 ? std::clamp(((x - x0) * dx + (y - y0) * dy) / length2, 0.0, 1.0) : 0.0;
  return std::hypot(x - x0 - t * dx, y - y0 - t * dy);
}

int count_color(const Canvas& canvas, Rgb color, int top, int bottom) {
  int n = 0;
  for (int y = top; y < bottom; ++y) {
    for (int x = 0; x < canvas.width(); ++x) n += canvas.at(x, y) == color;
  }
  return n;
}

// Checks that `color` is at every point of the series and halfway between neighbors, and
// nowhere in the panel farther than a dot's radius and a pixel from its polyline.
void check_series(const Canvas& canvas, const Axes& axes, const std::vector<double>& x, const std::vector<double>& y,
                  Rgb color) {
  std::vector<std::pair<int, int>> points;
  for (size_t i = 0; i < x.size(); ++i) points.emplace_back(axes.px(x[i]), axes.py(y[i]));
  for (size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i << " at (" << points[i].first << ", " << points[i].second << ")");
    REQUIRE(canvas.at(points[i].first, points[i].second) == color);
    if (i > 0) {
      REQUIRE(color_near(canvas, (points[i - 1].first + points[i].first) / 2,
                         (points[i - 1].second + points[i].second) / 2, color));
    }
  }
  int stray = 0;
  for (int py = axes.top - 6; py < axes.top + axes.height + 6; ++py) {
    for (int px = axes.left - 6; px < axes.left + axes.width + 6; ++px) {
      if (canvas.at(px, py) != color) continue;
      double nearest = HUGE_VAL;
      for (size_t i = 0; i < points.size(); ++i) {
        const auto& [x1, y1] = points[i];
        const auto& [x0, y0] = points[i > 0 ? i - 1 : i];
        nearest = std::min(nearest, distance_to_segment(px, py, x0, y0, x1, y1));
      }
      if (nearest > 5.5) ++stray;  // the dot's radius is 4; a pixel for rounding
    }
  }
  REQUIRE(stray == 0);
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("plot_metrics: the losses and the accuracy in their colors through their values") {
  MetricsHistory h{{1, 2, 3, 4}, {1.0, 0.6, 0.4, 0.3}, {0.8, 0.55, 0.45, 0.42}, {0.70, 0.80, 0.85, 0.87}};
  MetricsPlot plot = plot_metrics(h);
  // Two panels side by side, each with round ranges around its data.
  REQUIRE(plot.accuracy.left > plot.loss.left + plot.loss.width);
  REQUIRE(plot.loss.x_min <= 1);
  REQUIRE(plot.loss.x_max >= 4);
  REQUIRE(plot.loss.y_min <= 0.3);
  REQUIRE(plot.loss.y_max >= 1.0);
  REQUIRE(plot.accuracy.y_min <= 70);
  REQUIRE(plot.accuracy.y_max >= 87);
  REQUIRE(plot.accuracy.y_max <= 100);

  check_series(plot.canvas, plot.loss, h.epoch, h.train_loss, kTrainLossColor);
  check_series(plot.canvas, plot.loss, h.epoch, h.test_loss, kTestLossColor);
  std::vector<double> percent{70, 80, 85, 87};
  check_series(plot.canvas, plot.accuracy, h.epoch, percent, kAccuracyColor);
  // Later epochs lie to the right; lower losses lower down, higher accuracies higher up.
  REQUIRE(plot.loss.px(2) > plot.loss.px(1));
  REQUIRE(plot.loss.py(0.3) > plot.loss.py(1.0));
  REQUIRE(plot.accuracy.py(87) < plot.accuracy.py(70));
  // Between the series, the plot area's background.
  REQUIRE(plot.canvas.at(plot.loss.px(3.5), plot.loss.py(0.9)) == kPlotBackground);
  REQUIRE(plot.canvas.at(plot.accuracy.px(3.5), plot.accuracy.py(72.5)) == kPlotBackground);
  // The loss panel's legend, above it, names both.
  REQUIRE(count_color(plot.canvas, kTrainLossColor, 0, plot.loss.top) > 0);
  REQUIRE(count_color(plot.canvas, kTestLossColor, 0, plot.loss.top) > 0);
}

TEST_CASE("plot_metrics: one epoch is a dot in the middle; constant series a flat line") {
  MetricsPlot one = plot_metrics({{1}, {0.7}, {0.6}, {0.75}});
  REQUIRE(std::abs(one.loss.px(1) - (one.loss.left + one.loss.width / 2)) <= 1);
  check_series(one.canvas, one.loss, {1}, {0.7}, kTrainLossColor);
  check_series(one.canvas, one.accuracy, {1}, {75}, kAccuracyColor);

  MetricsHistory flat{{1, 2, 3}, {0.5, 0.5, 0.5}, {}, {1.0, 1.0, 1.0}};
  MetricsPlot plot = plot_metrics(flat);
  REQUIRE(plot.loss.y_min < 0.5);
  REQUIRE(plot.loss.y_max > 0.5);
  REQUIRE(plot.accuracy.y_max == 100);  // never above 100%
  REQUIRE(plot.accuracy.y_min < 100);
  check_series(plot.canvas, plot.loss, flat.epoch, flat.train_loss, kTrainLossColor);
  check_series(plot.canvas, plot.accuracy, flat.epoch, {100, 100, 100}, kAccuracyColor);
  REQUIRE(count_color(plot.canvas, kTestLossColor, 0, plot.canvas.height()) == 0);  // no test loss, no legend entry

  REQUIRE_THROWS_WITH(plot_metrics({}), Contains("0 epochs"));
}

TEST_CASE("write_metrics_plot: the CSV's plot as a valid PNG next to it, replaced atomically") {
  std::string dir = checkpoint::testing::scratch_dir("metrics_plot");
  REQUIRE(metrics_png_path(dir + "/metrics.csv") == dir + "/metrics.png");
  REQUIRE(metrics_png_path("run") == "run.png");

  const std::string csv = dir + "/metrics.csv";
  write_text(csv, std::string(MetricsCsv::kHeader) + "\n1,0.9,0.6,0.7,0.7,100.0,1.00\n");
  write_metrics_plot(csv, metrics_png_path(csv));
  train::testing::DecodedPng one = train::testing::decode_png(train::testing::read_file(dir + "/metrics.png"));

  write_text(csv, std::string(MetricsCsv::kHeader) + "\n1,0.9,0.6,0.7,0.7,100.0,1.00\n2,0.5,0.8,0.6,0.8,100.0,1.00\n");
  write_metrics_plot(csv, metrics_png_path(csv));
  train::testing::DecodedPng two = train::testing::decode_png(train::testing::read_file(dir + "/metrics.png"));
  MetricsPlot expected = plot_metrics(read_metrics_csv(csv));
  REQUIRE(two.width == expected.canvas.width());
  REQUIRE(two.height == expected.canvas.height());
  REQUIRE(two.rgb == expected.canvas.rgb());
  REQUIRE(two.rgb != one.rgb);
  std::vector<std::string> files = checkpoint::testing::list_dir(dir);  // no temporary file left
  std::sort(files.begin(), files.end());
  REQUIRE(files == std::vector<std::string>{"metrics.csv", "metrics.png"});
}

TEST_CASE("read_metrics_csv: columns by name, test loss optional, bad numbers named") {
  std::string dir = checkpoint::testing::scratch_dir("metrics_plot_read");
  write_text(dir + "/a.csv", "epoch,test_acc,train_loss\n1,0.5,2.5\n2,0.625,1.5\n");
  MetricsHistory h = read_metrics_csv(dir + "/a.csv");
  REQUIRE(h.epoch == std::vector<double>{1, 2});
  REQUIRE(h.train_loss == std::vector<double>{2.5, 1.5});
  REQUIRE(h.test_loss.empty());
  REQUIRE(h.test_accuracy == std::vector<double>{0.5, 0.625});

  write_text(dir + "/b.csv", "epoch,train_loss,test_acc\n1,0.5,0.9\n2,x,0.9\n");
  REQUIRE_THROWS_WITH(read_metrics_csv(dir + "/b.csv"), Contains("b.csv' line 3: no number in column 2"));
  write_text(dir + "/c.csv", "epoch,loss\n");
  REQUIRE_THROWS_WITH(read_metrics_csv(dir + "/c.csv"), Contains("lacks epoch, train_loss or test_acc"));
  REQUIRE_THROWS_WITH(read_metrics_csv(dir + "/none.csv"), Contains("none.csv': cannot open"));
}
