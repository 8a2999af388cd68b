#include "tests/reference/runners.h"

namespace brisk::reference {

const RunnerTable& runners() {
  static const RunnerTable table = [] {
    RunnerTable t;
    add_elementwise_runners(t);
    add_reduction_runners(t);
    add_linalg_runners(t);
    add_shape_runners(t);
    add_inplace_runners(t);
    add_factory_runners(t);
    add_indexing_runners(t);
    return t;
  }();
  return table;
}

}  // namespace brisk::reference
