#include "tools/train/raster.h"

#include <algorithm>
#include <cstdlib>

namespace brisk::train {
namespace {

// 5x7 glyphs, one byte per row, the leftmost pixel in bit 4.
struct Glyph {
  char c;
  uint8_t rows[7];
};
constexpr Glyph kFont[] = {
    {'0', {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}}, {'1', {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e}},
    {'2', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}}, {'3', {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e}},
    {'4', {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}}, {'5', {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e}},
    {'6', {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}}, {'7', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}}, {'9', {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c}}, {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}},
    {'-', {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00}}, {'a', {0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f}},
    {'c', {0x00, 0x00, 0x0e, 0x10, 0x10, 0x11, 0x0e}}, {'e', {0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e}},
    {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}}, {'i', {0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e}},
    {'l', {0x0c, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'o', {0x00, 0x00, 0x0e, 0x11, 0x11, 0x11, 0x0e}}, {'p', {0x00, 0x00, 0x1e, 0x11, 0x11, 0x1e, 0x10}},
    {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}}, {'s', {0x00, 0x00, 0x0e, 0x10, 0x0e, 0x01, 0x1e}},
    {'t', {0x08, 0x08, 0x1c, 0x08, 0x08, 0x09, 0x06}}, {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0d}},
    {'y', {0x00, 0x00, 0x11, 0x11, 0x0f, 0x01, 0x0e}},
};
constexpr int kAdvance = 6;  // glyph width and one column of spacing

const Glyph* find_glyph(char c) {
  for (const Glyph& g : kFont) {
    if (g.c == c) return &g;
  }
  return nullptr;
}

}  // namespace

Canvas::Canvas(int width, int height, Rgb background)
    : width_(width), height_(height), rgb_(3 * static_cast<size_t>(width) * height) {
  fill_rect(0, 0, width, height, background);
}

Rgb Canvas::at(int x, int y) const {
  const uint8_t* p = &rgb_[3 * (static_cast<size_t>(y) * width_ + x)];
  return {p[0], p[1], p[2]};
}

void Canvas::set(int x, int y, Rgb color) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  uint8_t* p = &rgb_[3 * (static_cast<size_t>(y) * width_ + x)];
  p[0] = color.r, p[1] = color.g, p[2] = color.b;
}

void Canvas::fill_rect(int x, int y, int w, int h, Rgb color) {
  for (int j = std::max(y, 0); j < std::min(y + h, height_); ++j) {
    for (int i = std::max(x, 0); i < std::min(x + w, width_); ++i) set(i, j, color);
  }
}

void Canvas::line(int x0, int y0, int x1, int y1, Rgb color, int thickness) {
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
  const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  const int offset = (thickness - 1) / 2;
  for (int error = dx + dy;;) {
    fill_rect(x0 - offset, y0 - offset, thickness, thickness, color);
    if (x0 == x1 && y0 == y1) return;
    const int twice = 2 * error;
    if (twice >= dy) error += dy, x0 += sx;
    if (twice <= dx) error += dx, y0 += sy;
  }
}

void Canvas::dot(int cx, int cy, int radius, Rgb color) {
  for (int y = -radius; y <= radius; ++y) {
    for (int x = -radius; x <= radius; ++x) {
      if (x * x + y * y <= radius * radius + radius) set(cx + x, cy + y, color);
    }
  }
}

void Canvas::text(int x, int y, const std::string& s, Rgb color, int scale) {
  for (char c : s) {
    if (const Glyph* glyph = find_glyph(c)) {
      for (int row = 0; row < 7; ++row) {
        for (int col = 0; col < 5; ++col) {
          if (glyph->rows[row] & (0x10 >> col)) fill_rect(x + col * scale, y + row * scale, scale, scale, color);
        }
      }
    }
    x += kAdvance * scale;
  }
}

int Canvas::text_width(const std::string& s, int scale) {
  return s.empty() ? 0 : (kAdvance * static_cast<int>(s.size()) - 1) * scale;
}

}  // namespace brisk::train
