#pragma once
// The per-epoch metrics of a run (metrics_csv.h's file) drawn as an SVG next to it, rewritten
// after every epoch, for a look without tools (any browser shows it; TensorBoard, --tensorboard,
// has more): two panels side by side, the loss and the accuracy in %, each with the train and
// test series as polylines through circles at the epochs, against the epoch.
//
//   write_metrics_svg("runs/metrics.csv", metrics_svg_path("runs/metrics.csv"));  // runs/metrics.svg
#include <string>
#include <vector>

namespace brisk::train {

// The columns the chart uses, one entry per CSV row (accuracies as fractions, as in the CSV).
struct MetricsHistory {
  std::vector<double> epoch;
  std::vector<double> train_loss, test_loss;
  std::vector<double> train_accuracy, test_accuracy;
};

// Reads a metrics CSV, finding the columns by their header names. Raises brisk::Error naming
// the file and line of a missing column or a malformed number.
MetricsHistory read_metrics_csv(const std::string& path);

// The chart as an SVG document. Each series is a <polyline> whose <title> names it ("train
// loss", "test accuracy", ...) and whose points are in its panel's plot area: the first and
// last epoch at its left and right edges (a single epoch in the middle), the series' smallest
// and largest value in the panel at its bottom and top (a constant panel in the middle).
std::string metrics_svg(const MetricsHistory& history);

// Writes the chart of the CSV at `csv_path` to `svg_path` atomically (temporary file and
// rename, checkpoint/atomic_file.h), so a viewer never sees half a file.
void write_metrics_svg(const std::string& csv_path, const std::string& svg_path);

// Where the chart of `csv_path` goes: its name with ".svg" for ".csv" (or ".svg" appended).
std::string metrics_svg_path(const std::string& csv_path);

}  // namespace brisk::train
