#include "tensor/iter/dims.h"

namespace brisk::iter {

void merge_dims(int& ndim, int64_t* sizes, int64_t* const* strides, int nstrides) {
  if (ndim == 0) return;
  int last = 0;
  for (int d = 1; d < ndim; ++d) {
    bool mergeable = true;
    for (int k = 0; k < nstrides; ++k) mergeable = mergeable && strides[k][d] == strides[k][last] * sizes[last];
    if (mergeable) {
      sizes[last] *= sizes[d];
    } else {
      ++last;
      sizes[last] = sizes[d];
      for (int k = 0; k < nstrides; ++k) strides[k][last] = strides[k][d];
    }
  }
  ndim = last + 1;
}

}  // namespace brisk::iter
