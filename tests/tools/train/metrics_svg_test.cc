// The metrics chart: a well-formed SVG whose polylines pass through each series' values in its
// panel, one epoch and constant series drawn without dividing by zero, and the file written
// atomically from the CSV.
#include "tools/train/metrics_svg.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "tensor/error.h"
#include "tests/checkpoint/file_util.h"
#include "tools/train/metrics_csv.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Matchers::Contains;

namespace {

// The panels' plot areas (metrics_svg.cc's layout): x from left to right, y from top to bottom.
struct Area {
  double left, right, top = 40, bottom = 272;
};
constexpr Area kLossArea{64, 464}, kAccuracyArea{544, 944};

// Whether `svg` is well-formed XML of elements, attributes and text: every tag closed in order,
// one root, attribute values quoted, no stray '<' or '&'.
bool well_formed(const std::string& svg) {
  std::vector<std::string> open;
  int roots = 0;
  for (size_t at = 0; at < svg.size();) {
    if (svg[at] == '&') return false;
    if (svg[at] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(svg[at]))) return false;  // text outside the root
      ++at;
      continue;
    }
    const size_t end = svg.find('>', at);
    if (end == std::string::npos) return false;
    std::string tag = svg.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.find('<') != std::string::npos || std::count(tag.begin(), tag.end(), '"') % 2 != 0) return false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
      continue;
    }
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (open.empty()) ++roots;
    if (tag.back() != '/') open.push_back(name);
  }
  return open.empty() && roots == 1;
}

// The points of each polyline, by its title.
std::map<std::string, std::vector<std::pair<double, double>>> polylines(const std::string& svg) {
  std::map<std::string, std::vector<std::pair<double, double>>> lines;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    const size_t points = svg.find("points=\"", at) + 8;
    std::stringstream coordinates(svg.substr(points, svg.find('"', points) - points));
    const size_t title = svg.find("<title>", at) + 7;
    auto& line = lines[svg.substr(title, svg.find("</title>", title) - title)];
    double x, y;
    char comma;
    while (coordinates >> x >> comma >> y) line.emplace_back(x, y);
  }
  return lines;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("metrics_svg: each series a polyline through its values, within its panel") {
  MetricsHistory h;
  h.epoch = {1, 2, 3};
  h.train_loss = {2.0, 1.0, 0.5};
  h.test_loss = {1.5, 1.25, 1.0};
  h.train_accuracy = {0.5, 0.75, 0.875};
  h.test_accuracy = {0.625, 0.75, 0.8};
  const std::string svg = metrics_svg(h);
  REQUIRE(well_formed(svg));
  REQUIRE(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  auto lines = polylines(svg);
  REQUIRE(lines.size() == 4);
  const std::tuple<const char*, const std::vector<double>*, Area, double, double> series[] = {
      {"train loss", &h.train_loss, kLossArea, 0.5, 2.0},
      {"test loss", &h.test_loss, kLossArea, 0.5, 2.0},
      {"train accuracy", &h.train_accuracy, kAccuracyArea, 0.5, 0.875},
      {"test accuracy", &h.test_accuracy, kAccuracyArea, 0.5, 0.875}};
  for (const auto& [title, values, area, lo, hi] : series) {
    INFO(title);
    const auto& points = lines.at(title);
    REQUIRE(points.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
      // Epochs 1..3 span the plot area's width; the panel's range its height.
      REQUIRE(points[i].first == Approx(area.left + i * (area.right - area.left) / 2).margin(0.05));
      const double expected_y = area.bottom - ((*values)[i] - lo) / (hi - lo) * (area.bottom - area.top);
      REQUIRE(points[i].second == Approx(expected_y).margin(0.05));
    }
  }
  // The ranges are labeled, accuracies in percent.
  REQUIRE_THAT(svg, Contains(">2<") && Contains(">0.5<") && Contains(">87.5%<") && Contains(">50%<"));
}

TEST_CASE("metrics_svg: one epoch is a point in the middle; a constant panel a line across its middle") {
  MetricsHistory h;
  h.epoch = {4};
  h.train_loss = h.test_loss = {0.3};
  h.train_accuracy = h.test_accuracy = {0.9};
  auto lines = polylines(metrics_svg(h));
  REQUIRE(lines.at("train loss") == std::vector<std::pair<double, double>>{{264, 156}});
  REQUIRE(lines.at("test accuracy") == std::vector<std::pair<double, double>>{{744, 156}});
  h.epoch = {1, 2};
  h.train_loss = h.test_loss = {0.3, 0.3};
  h.train_accuracy = h.test_accuracy = {0.9, 0.9};
  REQUIRE(polylines(metrics_svg(h)).at("test loss") == std::vector<std::pair<double, double>>{{64, 156}, {464, 156}});
  REQUIRE_THROWS_WITH(metrics_svg({}), Contains("no epochs"));
}

TEST_CASE("write_metrics_svg: the CSV's chart next to it, replaced atomically") {
  std::string dir = checkpoint::testing::scratch_dir("metrics_svg");
  REQUIRE(metrics_svg_path(dir + "/metrics.csv") == dir + "/metrics.svg");
  REQUIRE(metrics_svg_path("run") == "run.svg");
  const std::string csv = dir + "/metrics.csv";
  write_text(csv, std::string(MetricsCsv::kHeader) + "\n1,0.9,0.6,0.7,0.7,100.0,1.00\n");
  write_metrics_svg(csv, metrics_svg_path(csv));
  const std::vector<uint8_t> one = checkpoint::testing::read_bytes(dir + "/metrics.svg");
  write_text(csv, std::string(MetricsCsv::kHeader) + "\n1,0.9,0.6,0.7,0.7,100.0,1.00\n2,0.5,0.8,0.6,0.8,100.0,1.00\n");
  write_metrics_svg(csv, metrics_svg_path(csv));
  const std::vector<uint8_t> two = checkpoint::testing::read_bytes(dir + "/metrics.svg");
  const std::string expected = metrics_svg(read_metrics_csv(csv));
  REQUIRE(std::string(two.begin(), two.end()) == expected);
  REQUIRE(two != one);
  REQUIRE(polylines(expected).at("train loss").size() == 2);
  std::vector<std::string> files = checkpoint::testing::list_dir(dir);  // no temporary file left
  std::sort(files.begin(), files.end());
  REQUIRE(files == std::vector<std::string>{"metrics.csv", "metrics.svg"});
}

TEST_CASE("read_metrics_csv: columns by name, missing columns and bad numbers named") {
  std::string dir = checkpoint::testing::scratch_dir("metrics_svg_read");
  write_text(dir + "/a.csv", "test_acc,epoch,train_acc,test_loss,train_loss\n0.5,1,0.25,3,2.5\n0.625,2,0.5,2,1.5\n");
  MetricsHistory h = read_metrics_csv(dir + "/a.csv");
  REQUIRE(h.epoch == std::vector<double>{1, 2});
  REQUIRE(h.train_loss == std::vector<double>{2.5, 1.5});
  REQUIRE(h.test_loss == std::vector<double>{3, 2});
  REQUIRE(h.train_accuracy == std::vector<double>{0.25, 0.5});
  REQUIRE(h.test_accuracy == std::vector<double>{0.5, 0.625});

  write_text(dir + "/b.csv", std::string(MetricsCsv::kHeader) + "\n1,0.9,0.6,0.7,0.7,100.0,1.00\n2,0.5,x,0.6,0.8\n");
  REQUIRE_THROWS_WITH(read_metrics_csv(dir + "/b.csv"), Contains("b.csv' line 3: no number in column 3 (train_acc)"));
  write_text(dir + "/c.csv", "epoch,train_loss,test_loss,test_acc\n");
  REQUIRE_THROWS_WITH(read_metrics_csv(dir + "/c.csv"), Contains("has no train_acc column"));
  REQUIRE_THROWS_WITH(read_metrics_csv(dir + "/none.csv"), Contains("none.csv': cannot open"));
}
