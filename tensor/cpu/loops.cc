#include "tensor/cpu/loops.h"

namespace brisk::cpu {

bool wants_tiles(const iter::LoopShape& s) {
  if (s.ndim < 2 || s.sizes[0] < 2 * kTileRows || s.sizes[1] < 2 * kTileRows) return false;
  for (int k = 1; k < s.noperands; ++k) {
    if (s.strides[k][1] != 0 && s.strides[k][1] < s.strides[k][0]) return true;
  }
  return false;
}

int64_t num_tiles(const iter::LoopShape& s) {
  int64_t outer = 1;
  for (int d = 2; d < s.ndim; ++d) outer *= s.sizes[d];
  return outer * ((s.sizes[0] + kTileCols - 1) / kTileCols) * ((s.sizes[1] + kTileRows - 1) / kTileRows);
}

}  // namespace brisk::cpu
