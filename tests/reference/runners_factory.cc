// Runners for factories and whole-tensor comparisons (equal/allclose give a bool,
// returned as a 0-dim bool tensor to compare with the fixture). Factories make their result
// on the test device; arange without options has no device argument, so it is made on the
// CPU and moved.
#include "tests/reference/runners.h"

namespace brisk::reference {

namespace {

TensorOptions options(const json& p) { return TensorOptions(dtype(p, "dtype")).device(test_device()); }

Tensor as_tensor(bool value) { return scalar_tensor(Scalar(value), TensorOptions(kBool).device(test_device())); }

void add_factories(RunnerTable& t) {
  t["zeros"] = {{"zeros(shape, dtype)", BRISK_REF_RUN(zeros(ints(p, "shape"), options(p)))}};
  t["ones"] = {{"ones(shape, dtype)", BRISK_REF_RUN(ones(ints(p, "shape"), options(p)))}};
  t["full"] = {{"full(shape, value, dtype)", BRISK_REF_RUN(full(ints(p, "shape"), scalar(p, "value"), options(p)))}};
  t["empty"] = {{"empty(shape, dtype)", BRISK_REF_RUN(empty(ints(p, "shape"), options(p)))}};
  t["zeros_like"] = {{"zeros_like(x)", BRISK_REF_RUN(zeros_like(in[0]))}};
  t["ones_like"] = {{"ones_like(x)", BRISK_REF_RUN(ones_like(in[0]))}};
  t["full_like"] = {{"full_like(x, value)", BRISK_REF_RUN(full_like(in[0], scalar(p, "value")))}};
  t["empty_like"] = {{"empty_like(x)", BRISK_REF_RUN(empty_like(in[0]))}};
  t["arange_end"] = {{"arange(end)", BRISK_REF_RUN(on_test_device(arange(scalar(p, "end"))))}};
  t["arange_end_options"] = {{"arange(end, dtype)", BRISK_REF_RUN(arange(scalar(p, "end"), options(p)))}};
  t["arange"] = {{"arange(start, end, step)",
                  BRISK_REF_RUN(on_test_device(arange(scalar(p, "start"), scalar(p, "end"), scalar(p, "step"))))}};
  t["arange_options"] = {{"arange(start, end, step, dtype)",
                          BRISK_REF_RUN(arange(scalar(p, "start"), scalar(p, "end"), scalar(p, "step"), options(p)))}};
  t["linspace"] = {{"linspace(start, end, steps, dtype)",
                    BRISK_REF_RUN(linspace(scalar(p, "start"), scalar(p, "end"), integer(p, "steps"), options(p)))}};
  t["scalar_tensor"] = {{"scalar_tensor(value, dtype)", BRISK_REF_RUN(scalar_tensor(scalar(p, "value"), options(p)))}};
}

void add_comparisons(RunnerTable& t) {
  t["equal"] = {{"equal(a, b)", BRISK_REF_RUN(as_tensor(equal(in[0], in[1])))}};
  t["allclose"] = {
      {"allclose(a, b, rtol, atol)",
       BRISK_REF_RUN(as_tensor(allclose(in[0], in[1], double_param(p.at("rtol")), double_param(p.at("atol")))))}};
}

}  // namespace

void add_factory_runners(RunnerTable& table) {
  add_factories(table);
  add_comparisons(table);
}

}  // namespace brisk::reference
