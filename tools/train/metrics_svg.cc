#include "tools/train/metrics_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "checkpoint/atomic_file.h"
#include "tensor/error.h"

namespace brisk::train {
namespace {

constexpr int kPanelWidth = 480, kPanelHeight = 320;
constexpr int kLeft = 64, kRight = 16, kTop = 40, kBottom = 48;  // margins around a plot area
constexpr const char* kTrainColor = "#1f77b4";                   // blue
constexpr const char* kTestColor = "#ff7f0e";                    // orange

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream s(line);
  for (std::string field; std::getline(s, field, ',');) fields.push_back(field);
  return fields;
}

struct Series {
  const char* name;
  const char* color;
  std::vector<double> values;
};

// One panel at horizontal offset `x0`: its frame, title, legend, range labels and series.
std::string panel(int x0, const std::string& title, const std::vector<double>& epochs,
                  const std::vector<Series>& series, const char* unit) {
  const double left = x0 + kLeft, right = x0 + kPanelWidth - kRight, top = kTop, bottom = kPanelHeight - kBottom;
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (const Series& s : series) {
    for (double v : s.values) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  const double first = epochs.front(), last = epochs.back();
  auto px = [&](double epoch) {
    return last > first ? left + (epoch - first) / (last - first) * (right - left) : (left + right) / 2;
  };
  auto py = [&](double v) { return hi > lo ? bottom - (v - lo) / (hi - lo) * (bottom - top) : (top + bottom) / 2; };

  std::string svg =
      fmt::format("<g>\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n"
                  "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n",
                  left, top, right - left, bottom - top, left, top - 16, title);
  double legend_x = left + 120;
  for (const Series& s : series) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", legend_x, top - 16, s.color, s.name);
    legend_x += 60;
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.4g}{}</text>\n"
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.4g}{}</text>\n"
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n"
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n"
                     "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">epoch</text>\n",
                     left - 6, top + 4, hi, unit, left - 6, bottom + 4, lo, unit, px(first), bottom + 18, first,
                     px(last), bottom + 18, last, (left + right) / 2, bottom + 38);
  for (const Series& s : series) {
    std::string points, circles;
    for (size_t i = 0; i < s.values.size(); ++i) {
      const double x = px(epochs[i]), y = py(s.values[i]);
      points += fmt::format("{}{:.1f},{:.1f}", i > 0 ? " " : "", x, y);
      circles += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", x, y, s.color);
    }
    svg += fmt::format(
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"><title>{} {}</title></polyline>\n{}",
        s.color, points, s.name, title, circles);
  }
  return svg + "</g>\n";
}

std::vector<double> percent(const std::vector<double>& fractions) {
  std::vector<double> out;
  for (double f : fractions) out.push_back(100 * f);
  return out;
}

}  // namespace

MetricsHistory read_metrics_csv(const std::string& path) {
  std::ifstream in(path);
  BRISK_CHECK(in.good(), "metrics CSV '{}': cannot open", path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split(line);
  const char* names[] = {"epoch", "train_loss", "test_loss", "train_acc", "test_acc"};
  std::vector<size_t> columns;
  for (const char* name : names) {
    columns.push_back(std::find(header.begin(), header.end(), name) - header.begin());
    BRISK_CHECK(columns.back() < header.size(), "metrics CSV '{}': the header '{}' has no {} column", path, line, name);
  }
  MetricsHistory history;
  std::vector<double>* targets[] = {&history.epoch, &history.train_loss, &history.test_loss, &history.train_accuracy,
                                    &history.test_accuracy};
  for (int number = 2; std::getline(in, line); ++number) {
    const std::vector<std::string> fields = split(line);
    for (size_t c = 0; c < columns.size(); ++c) {
      size_t parsed = 0;
      double v = 0;
      try {
        if (columns[c] < fields.size()) v = std::stod(fields[columns[c]], &parsed);
      } catch (const std::logic_error&) {  // std::stod's invalid_argument and out_of_range
      }
      BRISK_CHECK(parsed > 0, "metrics CSV '{}' line {}: no number in column {} ({}) of '{}'", path, number,
                  columns[c] + 1, names[c], line);
      targets[c]->push_back(v);
    }
  }
  return history;
}

std::string metrics_svg(const MetricsHistory& h) {
  BRISK_CHECK(!h.epoch.empty(), "metrics_svg: no epochs to draw");
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
             2 * kPanelWidth, kPanelHeight) +
         panel(0, "loss", h.epoch, {{"train", kTrainColor, h.train_loss}, {"test", kTestColor, h.test_loss}}, "") +
         panel(kPanelWidth, "accuracy", h.epoch,
               {{"train", kTrainColor, percent(h.train_accuracy)}, {"test", kTestColor, percent(h.test_accuracy)}},
               "%") +
         "</svg>\n";
}

void write_metrics_svg(const std::string& csv_path, const std::string& svg_path) {
  const std::string svg = metrics_svg(read_metrics_csv(csv_path));
  checkpoint::AtomicFile out(svg_path);
  out.write(svg.data(), svg.size());
  out.commit();
}

std::string metrics_svg_path(const std::string& csv_path) {
  const std::string suffix = ".csv";
  const bool is_csv =
      csv_path.size() >= suffix.size() && csv_path.compare(csv_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (is_csv ? csv_path.substr(0, csv_path.size() - suffix.size()) : csv_path) + ".svg";
}

}  // namespace brisk::train
