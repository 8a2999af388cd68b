// Runners for reductions, extrema with indices, statistics and softmax.
#include "tests/reference/runners.h"

namespace brisk::reference {

namespace {

Outputs both(const std::pair<Tensor, Tensor>& values_and_indices) {
  return {values_and_indices.first, values_and_indices.second};
}

std::optional<int64_t> optional_dim(const json& p) {
  const json& dim = p.at("dim");
  return dim.is_null() ? std::nullopt : std::optional<int64_t>(dim.get<int64_t>());
}

void add_sums(RunnerTable& t) {
  t["sum"] = {{"sum(x, dims, keepdim)", BRISK_REF_RUN(sum(in[0], ints(p, "dims"), flag(p, "keepdim")))},
              {"x.sum(dims, keepdim)", BRISK_REF_RUN(in[0].sum(ints(p, "dims"), flag(p, "keepdim")))}};
  t["mean"] = {{"mean(x, dims, keepdim)", BRISK_REF_RUN(mean(in[0], ints(p, "dims"), flag(p, "keepdim")))},
               {"x.mean(dims, keepdim)", BRISK_REF_RUN(in[0].mean(ints(p, "dims"), flag(p, "keepdim")))}};
  t["prod"] = {{"prod(x, dims, keepdim)", BRISK_REF_RUN(prod(in[0], ints(p, "dims"), flag(p, "keepdim")))},
               {"x.prod(dims, keepdim)", BRISK_REF_RUN(in[0].prod(ints(p, "dims"), flag(p, "keepdim")))}};
  t["amax"] = {{"amax(x, dims, keepdim)", BRISK_REF_RUN(amax(in[0], ints(p, "dims"), flag(p, "keepdim")))},
               {"x.amax(dims, keepdim)", BRISK_REF_RUN(in[0].amax(ints(p, "dims"), flag(p, "keepdim")))}};
  t["amin"] = {{"amin(x, dims, keepdim)", BRISK_REF_RUN(amin(in[0], ints(p, "dims"), flag(p, "keepdim")))},
               {"x.amin(dims, keepdim)", BRISK_REF_RUN(in[0].amin(ints(p, "dims"), flag(p, "keepdim")))}};
}

void add_extrema(RunnerTable& t) {
  t["max_all"] = {{"x.max()", BRISK_REF_RUN(in[0].max())}};
  t["min_all"] = {{"x.min()", BRISK_REF_RUN(in[0].min())}};
  t["max_dim"] = {{"max(x, dim, keepdim)", BRISK_REF_RUN(both(max(in[0], integer(p, "dim"), flag(p, "keepdim"))))},
                  {"x.max(dim, keepdim)", BRISK_REF_RUN(both(in[0].max(integer(p, "dim"), flag(p, "keepdim"))))}};
  t["min_dim"] = {{"min(x, dim, keepdim)", BRISK_REF_RUN(both(min(in[0], integer(p, "dim"), flag(p, "keepdim"))))},
                  {"x.min(dim, keepdim)", BRISK_REF_RUN(both(in[0].min(integer(p, "dim"), flag(p, "keepdim"))))}};
  t["argmax"] = {{"argmax(x, dim, keepdim)", BRISK_REF_RUN(argmax(in[0], optional_dim(p), flag(p, "keepdim")))},
                 {"x.argmax(dim, keepdim)", BRISK_REF_RUN(in[0].argmax(optional_dim(p), flag(p, "keepdim")))}};
  t["argmin"] = {{"argmin(x, dim, keepdim)", BRISK_REF_RUN(argmin(in[0], optional_dim(p), flag(p, "keepdim")))},
                 {"x.argmin(dim, keepdim)", BRISK_REF_RUN(in[0].argmin(optional_dim(p), flag(p, "keepdim")))}};
}

void add_statistics(RunnerTable& t) {
  t["var"] = {{"var(x, dims, correction, keepdim)",
               BRISK_REF_RUN(var(in[0], ints(p, "dims"), integer(p, "correction"), flag(p, "keepdim")))},
              {"x.var(dims, correction, keepdim)",
               BRISK_REF_RUN(in[0].var(ints(p, "dims"), integer(p, "correction"), flag(p, "keepdim")))}};
  t["std"] = {{"std(x, dims, correction, keepdim)",
               BRISK_REF_RUN(brisk::std(in[0], ints(p, "dims"), integer(p, "correction"), flag(p, "keepdim")))},
              {"x.std(dims, correction, keepdim)",
               BRISK_REF_RUN(in[0].std(ints(p, "dims"), integer(p, "correction"), flag(p, "keepdim")))}};
  t["logsumexp"] = {
      {"logsumexp(x, dims, keepdim)", BRISK_REF_RUN(logsumexp(in[0], ints(p, "dims"), flag(p, "keepdim")))},
      {"x.logsumexp(dims, keepdim)", BRISK_REF_RUN(in[0].logsumexp(ints(p, "dims"), flag(p, "keepdim")))}};
  t["norm"] = {{"norm(x, p, dims, keepdim)",
                BRISK_REF_RUN(norm(in[0], double_param(p.at("p")), ints(p, "dims"), flag(p, "keepdim")))},
               {"x.norm(p, dims, keepdim)",
                BRISK_REF_RUN(in[0].norm(double_param(p.at("p")), ints(p, "dims"), flag(p, "keepdim")))}};
  t["softmax"] = {{"softmax(x, dim)", BRISK_REF_RUN(softmax(in[0], integer(p, "dim")))},
                  {"x.softmax(dim)", BRISK_REF_RUN(in[0].softmax(integer(p, "dim")))}};
  t["log_softmax"] = {{"log_softmax(x, dim)", BRISK_REF_RUN(log_softmax(in[0], integer(p, "dim")))},
                      {"x.log_softmax(dim)", BRISK_REF_RUN(in[0].log_softmax(integer(p, "dim")))}};
}

}  // namespace

void add_reduction_runners(RunnerTable& table) {
  add_sums(table);
  add_extrema(table);
  add_statistics(table);
}

}  // namespace brisk::reference
