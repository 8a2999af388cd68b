// Runners for in-place ops. Each works on a clone of its first input, as the fixture
// generator does in PyTorch, so that gradients reach the original leaf.
#include "tests/reference/runners.h"

namespace brisk::reference {

namespace {

// A runner that applies `op` to a clone of the first input and returns the clone.
template <typename Op>
RunFn on_clone(Op op) {
  return [op](const Inputs& in, const json& p) -> Outputs {
    Tensor self = in[0].clone();
    op(self, in, p);
    return {self};
  };
}

#define BRISK_REF_INPLACE(...)                                 \
  on_clone([](Tensor& self, const Inputs& in, const json& p) { \
    (void)in;                                                  \
    (void)p;                                                   \
    __VA_ARGS__;                                               \
  })

void add_arithmetic(RunnerTable& t) {
  t["add_"] = {{"x.add_(b)", BRISK_REF_INPLACE(self.add_(in[1]))}, {"x += b", BRISK_REF_INPLACE(self += in[1])}};
  t["sub_"] = {{"x.sub_(b)", BRISK_REF_INPLACE(self.sub_(in[1]))}, {"x -= b", BRISK_REF_INPLACE(self -= in[1])}};
  t["mul_"] = {{"x.mul_(b)", BRISK_REF_INPLACE(self.mul_(in[1]))}, {"x *= b", BRISK_REF_INPLACE(self *= in[1])}};
  t["div_"] = {{"x.div_(b)", BRISK_REF_INPLACE(self.div_(in[1]))}, {"x /= b", BRISK_REF_INPLACE(self /= in[1])}};
  t["add_alpha_"] = {{"x.add_(b, alpha)", BRISK_REF_INPLACE(self.add_(in[1], scalar(p, "alpha")))}};
  t["sub_alpha_"] = {{"x.sub_(b, alpha)", BRISK_REF_INPLACE(self.sub_(in[1], scalar(p, "alpha")))}};
  t["add_scalar_"] = {{"x.add_(s)", BRISK_REF_INPLACE(self.add_(scalar(p, "s")))},
                      {"x += s", BRISK_REF_INPLACE(self += scalar(p, "s"))}};
  t["sub_scalar_"] = {{"x.sub_(s)", BRISK_REF_INPLACE(self.sub_(scalar(p, "s")))},
                      {"x -= s", BRISK_REF_INPLACE(self -= scalar(p, "s"))}};
  t["mul_scalar_"] = {{"x.mul_(s)", BRISK_REF_INPLACE(self.mul_(scalar(p, "s")))},
                      {"x *= s", BRISK_REF_INPLACE(self *= scalar(p, "s"))}};
  t["div_scalar_"] = {{"x.div_(s)", BRISK_REF_INPLACE(self.div_(scalar(p, "s")))},
                      {"x /= s", BRISK_REF_INPLACE(self /= scalar(p, "s"))}};
  t["pow_scalar_"] = {{"x.pow_(s)", BRISK_REF_INPLACE(self.pow_(scalar(p, "s")))}};
}

void add_math(RunnerTable& t) {
  t["neg_"] = {{"x.neg_()", BRISK_REF_INPLACE(self.neg_())}};
  t["abs_"] = {{"x.abs_()", BRISK_REF_INPLACE(self.abs_())}};
  t["exp_"] = {{"x.exp_()", BRISK_REF_INPLACE(self.exp_())}};
  t["log_"] = {{"x.log_()", BRISK_REF_INPLACE(self.log_())}};
  t["sqrt_"] = {{"x.sqrt_()", BRISK_REF_INPLACE(self.sqrt_())}};
  t["relu_"] = {{"x.relu_()", BRISK_REF_INPLACE(self.relu_())}};
  t["sigmoid_"] = {{"x.sigmoid_()", BRISK_REF_INPLACE(self.sigmoid_())}};
  t["tanh_"] = {{"x.tanh_()", BRISK_REF_INPLACE(self.tanh_())}};
  t["clamp_"] = {{"x.clamp_(min, max)", BRISK_REF_INPLACE(self.clamp_(optional_scalar_param(p.at("min")),
                                                                      optional_scalar_param(p.at("max"))))}};
}

void add_writes(RunnerTable& t) {
  // No clone: in-place on a leaf that requires grad (or a view of one) must be refused.
  t["inplace_on_leaf"] = {{"leaf.add_(b)", [](const Inputs& in, const json&) -> Outputs {
                             Tensor leaf = in[0];
                             return {leaf.add_(in[1])};
                           }}};
  t["masked_fill_"] = {{"x.masked_fill_(mask, v)", BRISK_REF_INPLACE(self.masked_fill_(in[1], scalar(p, "value")))}};
  t["fill_"] = {{"x.fill_(v)", BRISK_REF_INPLACE(self.fill_(scalar(p, "value")))}};
  t["zero_"] = {{"x.zero_()", BRISK_REF_INPLACE(self.zero_())}};
  t["copy_"] = {{"x.copy_(src)", BRISK_REF_INPLACE(self.copy_(in[1]))}};
}

#undef BRISK_REF_INPLACE

}  // namespace

void add_inplace_runners(RunnerTable& table) {
  add_arithmetic(table);
  add_math(table);
  add_writes(table);
}

}  // namespace brisk::reference
