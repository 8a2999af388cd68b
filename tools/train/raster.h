#pragma once
// An RGB canvas with the few drawing operations a line plot needs: rectangles, thick lines,
// dots, and text in a built-in 5x7 bitmap font (digits, ". % -", and the lowercase letters
// of the plot's titles; other characters draw as blanks). Drawing outside is clipped.
#include <cstdint>
#include <string>
#include <vector>

namespace brisk::train {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
  bool operator!=(const Rgb& o) const { return !(*this == o); }
};

class Canvas {
 public:
  Canvas(int width, int height, Rgb background);

  int width() const { return width_; }
  int height() const { return height_; }
  Rgb at(int x, int y) const;
  // width * height (r, g, b) triples, top row first: encode_png's input.
  const std::vector<uint8_t>& rgb() const { return rgb_; }

  void set(int x, int y, Rgb color);
  void fill_rect(int x, int y, int w, int h, Rgb color);
  // A line `thickness` pixels wide (a square pen moved along Bresenham's line).
  void line(int x0, int y0, int x1, int y1, Rgb color, int thickness = 1);
  void dot(int cx, int cy, int radius, Rgb color);
  // Text with its top-left corner at (x, y), each font pixel `scale` x `scale` pixels.
  void text(int x, int y, const std::string& s, Rgb color, int scale = 1);
  static int text_width(const std::string& s, int scale = 1);
  static int text_height(int scale = 1) { return 7 * scale; }

 private:
  int width_, height_;
  std::vector<uint8_t> rgb_;
};

}  // namespace brisk::train
