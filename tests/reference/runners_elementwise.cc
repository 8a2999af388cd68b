// Runners for arithmetic, unary math and activations, comparisons and selection.
#include "tests/reference/runners.h"

namespace brisk::reference {

namespace {

using UnaryFn = Tensor (*)(const Tensor&);
using UnaryMethod = Tensor (Tensor::*)() const;

void add_unary(RunnerTable& t, const std::string& name, UnaryFn fn, UnaryMethod method) {
  t[name] = {
      {name + "(x)", [fn](const Inputs& in, const json&) -> Outputs { return {fn(in[0])}; }},
      {"x." + name + "()", [method](const Inputs& in, const json&) -> Outputs { return {(in[0].*method)()}; }},
  };
}

void add_arithmetic(RunnerTable& t) {
  t["add"] = {{"add(a, b)", BRISK_REF_RUN(add(in[0], in[1]))},
              {"a.add(b)", BRISK_REF_RUN(in[0].add(in[1]))},
              {"a + b", BRISK_REF_RUN(in[0] + in[1])}};
  t["sub"] = {{"sub(a, b)", BRISK_REF_RUN(sub(in[0], in[1]))},
              {"a.sub(b)", BRISK_REF_RUN(in[0].sub(in[1]))},
              {"a - b", BRISK_REF_RUN(in[0] - in[1])}};
  t["mul"] = {{"mul(a, b)", BRISK_REF_RUN(mul(in[0], in[1]))},
              {"a.mul(b)", BRISK_REF_RUN(in[0].mul(in[1]))},
              {"a * b", BRISK_REF_RUN(in[0] * in[1])}};
  t["div"] = {{"div(a, b)", BRISK_REF_RUN(div(in[0], in[1]))},
              {"a.div(b)", BRISK_REF_RUN(in[0].div(in[1]))},
              {"a / b", BRISK_REF_RUN(in[0] / in[1])}};
  t["add_alpha"] = {{"add(a, b, alpha)", BRISK_REF_RUN(add(in[0], in[1], scalar(p, "alpha")))},
                    {"a.add(b, alpha)", BRISK_REF_RUN(in[0].add(in[1], scalar(p, "alpha")))}};
  t["sub_alpha"] = {{"sub(a, b, alpha)", BRISK_REF_RUN(sub(in[0], in[1], scalar(p, "alpha")))},
                    {"a.sub(b, alpha)", BRISK_REF_RUN(in[0].sub(in[1], scalar(p, "alpha")))}};
  t["pow"] = {{"pow(a, b)", BRISK_REF_RUN(brisk::pow(in[0], in[1]))}, {"a.pow(b)", BRISK_REF_RUN(in[0].pow(in[1]))}};

  t["add_scalar"] = {{"a.add(s)", BRISK_REF_RUN(in[0].add(scalar(p, "s")))},
                     {"a + s", BRISK_REF_RUN(in[0] + scalar(p, "s"))},
                     {"s + a", BRISK_REF_RUN(scalar(p, "s") + in[0])}};
  t["sub_scalar"] = {{"a.sub(s)", BRISK_REF_RUN(in[0].sub(scalar(p, "s")))},
                     {"a - s", BRISK_REF_RUN(in[0] - scalar(p, "s"))}};
  t["rsub_scalar"] = {{"s - a", BRISK_REF_RUN(scalar(p, "s") - in[0])}};
  t["mul_scalar"] = {{"a.mul(s)", BRISK_REF_RUN(in[0].mul(scalar(p, "s")))},
                     {"a * s", BRISK_REF_RUN(in[0] * scalar(p, "s"))},
                     {"s * a", BRISK_REF_RUN(scalar(p, "s") * in[0])}};
  t["div_scalar"] = {{"a.div(s)", BRISK_REF_RUN(in[0].div(scalar(p, "s")))},
                     {"a / s", BRISK_REF_RUN(in[0] / scalar(p, "s"))}};
  t["rdiv_scalar"] = {{"s / a", BRISK_REF_RUN(scalar(p, "s") / in[0])}};
  t["pow_scalar"] = {{"pow(a, s)", BRISK_REF_RUN(brisk::pow(in[0], scalar(p, "s")))},
                     {"a.pow(s)", BRISK_REF_RUN(in[0].pow(scalar(p, "s")))}};
  t["rpow_scalar"] = {{"pow(s, a)", BRISK_REF_RUN(brisk::pow(scalar(p, "s"), in[0]))}};
  t["remainder"] = {{"remainder(a, b)", BRISK_REF_RUN(remainder(in[0], in[1]))},
                    {"a.remainder(b)", BRISK_REF_RUN(in[0].remainder(in[1]))},
                    {"a % b", BRISK_REF_RUN(in[0] % in[1])}};
  t["remainder_scalar"] = {{"remainder(a, s)", BRISK_REF_RUN(remainder(in[0], scalar(p, "s")))},
                           {"a.remainder(s)", BRISK_REF_RUN(in[0].remainder(scalar(p, "s")))},
                           {"a % s", BRISK_REF_RUN(in[0] % scalar(p, "s"))}};
  t["rremainder_scalar"] = {{"remainder(s, b)", BRISK_REF_RUN(remainder(scalar(p, "s"), in[0]))}};
  t["fmod"] = {{"fmod(a, b)", BRISK_REF_RUN(brisk::fmod(in[0], in[1]))},
               {"a.fmod(b)", BRISK_REF_RUN(in[0].fmod(in[1]))}};
  t["fmod_scalar"] = {{"fmod(a, s)", BRISK_REF_RUN(brisk::fmod(in[0], scalar(p, "s")))},
                      {"a.fmod(s)", BRISK_REF_RUN(in[0].fmod(scalar(p, "s")))}};
}

void add_math(RunnerTable& t) {
  add_unary(t, "neg", &brisk::neg, &Tensor::neg);
  t["neg"].push_back({"-x", BRISK_REF_RUN(-in[0])});
  add_unary(t, "abs", &brisk::abs, &Tensor::abs);
  add_unary(t, "exp", &brisk::exp, &Tensor::exp);
  add_unary(t, "log", &brisk::log, &Tensor::log);
  add_unary(t, "sqrt", &brisk::sqrt, &Tensor::sqrt);
  add_unary(t, "rsqrt", &brisk::rsqrt, &Tensor::rsqrt);
  add_unary(t, "square", &brisk::square, &Tensor::square);
  add_unary(t, "reciprocal", &brisk::reciprocal, &Tensor::reciprocal);
  add_unary(t, "sin", &brisk::sin, &Tensor::sin);
  add_unary(t, "cos", &brisk::cos, &Tensor::cos);
  add_unary(t, "sign", &brisk::sign, &Tensor::sign);
  add_unary(t, "erf", &brisk::erf, &Tensor::erf);
  add_unary(t, "relu", &brisk::relu, &Tensor::relu);
  add_unary(t, "sigmoid", &brisk::sigmoid, &Tensor::sigmoid);
  add_unary(t, "tanh", &brisk::tanh, &Tensor::tanh);
  add_unary(t, "silu", &brisk::silu, &Tensor::silu);
  t["gelu"] = {{"gelu(x, approximate)", BRISK_REF_RUN(gelu(in[0], p.at("approximate").get<std::string>()))},
               {"x.gelu(approximate)", BRISK_REF_RUN(in[0].gelu(p.at("approximate").get<std::string>()))}};
  t["clamp"] = {{"clamp(x, min, max)",
                 BRISK_REF_RUN(clamp(in[0], optional_scalar_param(p.at("min")), optional_scalar_param(p.at("max"))))},
                {"x.clamp(min, max)",
                 BRISK_REF_RUN(in[0].clamp(optional_scalar_param(p.at("min")), optional_scalar_param(p.at("max"))))}};
  t["clamp_tensor"] = {{"clamp(x, lo, hi)", BRISK_REF_RUN(clamp(in[0], in[1], in[2]))},
                       {"x.clamp(lo, hi)", BRISK_REF_RUN(in[0].clamp(in[1], in[2]))}};
}

void add_selection(RunnerTable& t) {
  t["maximum"] = {{"maximum(a, b)", BRISK_REF_RUN(maximum(in[0], in[1]))},
                  {"a.maximum(b)", BRISK_REF_RUN(in[0].maximum(in[1]))}};
  t["minimum"] = {{"minimum(a, b)", BRISK_REF_RUN(minimum(in[0], in[1]))},
                  {"a.minimum(b)", BRISK_REF_RUN(in[0].minimum(in[1]))}};
  t["where"] = {{"where(cond, a, b)", BRISK_REF_RUN(where(in[0], in[1], in[2]))}};
  t["masked_fill"] = {{"masked_fill(x, mask, v)", BRISK_REF_RUN(masked_fill(in[0], in[1], scalar(p, "value")))},
                      {"x.masked_fill(mask, v)", BRISK_REF_RUN(in[0].masked_fill(in[1], scalar(p, "value")))}};
  t["addcmul"] = {{"addcmul(x, a, b, value)", BRISK_REF_RUN(addcmul(in[0], in[1], in[2], scalar(p, "value")))}};
  t["addcdiv"] = {{"addcdiv(x, a, b, value)", BRISK_REF_RUN(addcdiv(in[0], in[1], in[2], scalar(p, "value")))}};
}

void add_comparisons(RunnerTable& t) {
  t["eq"] = {{"eq(a, b)", BRISK_REF_RUN(eq(in[0], in[1]))},
             {"a.eq(b)", BRISK_REF_RUN(in[0].eq(in[1]))},
             {"a == b", BRISK_REF_RUN(in[0] == in[1])}};
  t["ne"] = {{"ne(a, b)", BRISK_REF_RUN(ne(in[0], in[1]))},
             {"a.ne(b)", BRISK_REF_RUN(in[0].ne(in[1]))},
             {"a != b", BRISK_REF_RUN(in[0] != in[1])}};
  t["lt"] = {{"lt(a, b)", BRISK_REF_RUN(lt(in[0], in[1]))},
             {"a.lt(b)", BRISK_REF_RUN(in[0].lt(in[1]))},
             {"a < b", BRISK_REF_RUN(in[0] < in[1])}};
  t["le"] = {{"le(a, b)", BRISK_REF_RUN(le(in[0], in[1]))},
             {"a.le(b)", BRISK_REF_RUN(in[0].le(in[1]))},
             {"a <= b", BRISK_REF_RUN(in[0] <= in[1])}};
  t["gt"] = {{"gt(a, b)", BRISK_REF_RUN(gt(in[0], in[1]))},
             {"a.gt(b)", BRISK_REF_RUN(in[0].gt(in[1]))},
             {"a > b", BRISK_REF_RUN(in[0] > in[1])}};
  t["ge"] = {{"ge(a, b)", BRISK_REF_RUN(ge(in[0], in[1]))},
             {"a.ge(b)", BRISK_REF_RUN(in[0].ge(in[1]))},
             {"a >= b", BRISK_REF_RUN(in[0] >= in[1])}};
  t["eq_scalar"] = {{"a.eq(s)", BRISK_REF_RUN(in[0].eq(scalar(p, "s")))}};
  t["ne_scalar"] = {{"a.ne(s)", BRISK_REF_RUN(in[0].ne(scalar(p, "s")))}};
  t["lt_scalar"] = {{"a.lt(s)", BRISK_REF_RUN(in[0].lt(scalar(p, "s")))}};
  t["le_scalar"] = {{"a.le(s)", BRISK_REF_RUN(in[0].le(scalar(p, "s")))}};
  t["gt_scalar"] = {{"a.gt(s)", BRISK_REF_RUN(in[0].gt(scalar(p, "s")))}};
  t["ge_scalar"] = {{"a.ge(s)", BRISK_REF_RUN(in[0].ge(scalar(p, "s")))}};
  t["logical_not"] = {{"logical_not(x)", BRISK_REF_RUN(logical_not(in[0]))},
                      {"x.logical_not()", BRISK_REF_RUN(in[0].logical_not())}};
  t["logical_and"] = {{"logical_and(a, b)", BRISK_REF_RUN(logical_and(in[0], in[1]))}};
  t["logical_or"] = {{"logical_or(a, b)", BRISK_REF_RUN(logical_or(in[0], in[1]))}};
}

}  // namespace

void add_elementwise_runners(RunnerTable& table) {
  add_arithmetic(table);
  add_math(table);
  add_selection(table);
  add_comparisons(table);
}

}  // namespace brisk::reference
