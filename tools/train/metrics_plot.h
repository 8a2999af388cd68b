#pragma once
// The per-epoch metrics of a run (metrics_csv.h's file) drawn as a PNG, rewritten after every
// epoch next to the CSV: two panels side by side, the loss (train and test) and the test
// accuracy in %, against the epoch, each with ticks, numeric labels and a title.
//
//   write_metrics_plot("runs/metrics.csv", metrics_png_path("runs/metrics.csv"));  // runs/metrics.png
#include <string>
#include <vector>

#include "tools/train/raster.h"

namespace brisk::train {

// The columns the plot uses, one entry per CSV row.
struct MetricsHistory {
  std::vector<double> epoch;
  std::vector<double> train_loss;
  std::vector<double> test_loss;      // empty when the CSV has no test_loss column
  std::vector<double> test_accuracy;  // fractions, as in the CSV
};

// Reads a metrics CSV, finding the columns by their header names (test_loss optional).
// Raises brisk::Error naming the file and line of a missing column or a malformed number.
MetricsHistory read_metrics_csv(const std::string& path);

// One panel's data ranges and its plot area in pixels (ticks fall on round values of x and y).
struct Axes {
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  int left = 0, top = 0, width = 0, height = 0;
  // The pixel column of x, and the row of y, inside the plot area.
  int px(double x) const;
  int py(double y) const;
};

struct MetricsPlot {
  Canvas canvas;
  Axes loss;
  Axes accuracy;  // y in percent
};

constexpr Rgb kPlotBackground{255, 255, 255};
constexpr Rgb kTrainLossColor{31, 119, 180};  // blue
constexpr Rgb kTestLossColor{255, 127, 14};   // orange
constexpr Rgb kAccuracyColor{44, 160, 44};    // green

// Draws the history (at least one epoch; one epoch is a single dot, a constant series a flat
// line in the middle of a small range around it).
MetricsPlot plot_metrics(const MetricsHistory& history);

// Writes the plot of the CSV at `csv_path` to `png_path` atomically (temporary file and
// rename, checkpoint/atomic_file.h), so a viewer never sees half an image.
void write_metrics_plot(const std::string& csv_path, const std::string& png_path);

// Where the plot of `csv_path` goes: its name with ".png" for ".csv" (or ".png" appended).
std::string metrics_png_path(const std::string& csv_path);

}  // namespace brisk::train
