// Runners for views, copies and dtype conversion, joining and splitting, and indexing.
#include "tests/reference/runners.h"

namespace brisk::reference {

namespace {

std::optional<int64_t> optional_int(const json& p, const char* key) {
  const json& v = p.at(key);
  return v.is_null() ? std::nullopt : std::optional<int64_t>(v.get<int64_t>());
}

void add_views(RunnerTable& t) {
  t["view"] = {{"x.view(shape)", BRISK_REF_RUN(in[0].view(ints(p, "shape")))}};
  t["reshape"] = {{"x.reshape(shape)", BRISK_REF_RUN(in[0].reshape(ints(p, "shape")))}};
  t["permute"] = {{"x.permute(dims)", BRISK_REF_RUN(in[0].permute(ints(p, "dims")))}};
  t["transpose"] = {
      {"x.transpose(dim0, dim1)", BRISK_REF_RUN(in[0].transpose(integer(p, "dim0"), integer(p, "dim1")))}};
  t["t"] = {{"x.t()", BRISK_REF_RUN(in[0].t())}};
  t["narrow"] = {{"x.narrow(dim, start, length)",
                  BRISK_REF_RUN(in[0].narrow(integer(p, "dim"), integer(p, "start"), integer(p, "length")))}};
  t["slice"] = {
      {"x.slice(dim, start, end, step)", BRISK_REF_RUN(in[0].slice(integer(p, "dim"), optional_int(p, "start"),
                                                                   optional_int(p, "end"), integer(p, "step")))}};
  t["select"] = {{"x.select(dim, index)", BRISK_REF_RUN(in[0].select(integer(p, "dim"), integer(p, "index")))}};
  t["index"] = {{"x[index]", BRISK_REF_RUN(in[0][integer(p, "index")])}};
  t["expand"] = {{"x.expand(shape)", BRISK_REF_RUN(in[0].expand(ints(p, "shape")))}};
  t["expand_as"] = {{"x.expand_as(other)", BRISK_REF_RUN(in[0].expand_as(in[1]))}};
  t["squeeze"] = {{"x.squeeze()", BRISK_REF_RUN(in[0].squeeze())}};
  t["squeeze_dim"] = {{"x.squeeze(dim)", BRISK_REF_RUN(in[0].squeeze(integer(p, "dim")))}};
  t["unsqueeze"] = {{"x.unsqueeze(dim)", BRISK_REF_RUN(in[0].unsqueeze(integer(p, "dim")))}};
  t["flatten"] = {
      {"x.flatten(start_dim, end_dim)", BRISK_REF_RUN(in[0].flatten(integer(p, "start_dim"), integer(p, "end_dim")))}};
}

void add_copies(RunnerTable& t) {
  t["contiguous"] = {{"x.contiguous()", BRISK_REF_RUN(in[0].contiguous())}};
  t["clone"] = {{"x.clone()", BRISK_REF_RUN(in[0].clone())}};
  t["detach"] = {{"x.detach()", BRISK_REF_RUN(in[0].detach())}};
  t["to_dtype"] = {{"x.to(dtype)", BRISK_REF_RUN(in[0].to(dtype(p, "dtype")))}};
}

void add_joining(RunnerTable& t) {
  t["cat"] = {{"cat(tensors, dim)", BRISK_REF_RUN(cat(in, integer(p, "dim")))}};
  t["stack"] = {{"stack(tensors, dim)", BRISK_REF_RUN(stack(in, integer(p, "dim")))}};
  t["split"] = {{"split(x, size, dim)", BRISK_REF_RUN(split(in[0], integer(p, "split_size"), integer(p, "dim")))},
                {"x.split(size, dim)", BRISK_REF_RUN(in[0].split(integer(p, "split_size"), integer(p, "dim")))}};
  t["split_sizes"] = {{"split(x, sizes, dim)", BRISK_REF_RUN(split(in[0], ints(p, "split_sizes"), integer(p, "dim")))},
                      {"x.split(sizes, dim)", BRISK_REF_RUN(in[0].split(ints(p, "split_sizes"), integer(p, "dim")))}};
  t["chunk"] = {{"chunk(x, chunks, dim)", BRISK_REF_RUN(chunk(in[0], integer(p, "chunks"), integer(p, "dim")))},
                {"x.chunk(chunks, dim)", BRISK_REF_RUN(in[0].chunk(integer(p, "chunks"), integer(p, "dim")))}};
}

void add_indexing(RunnerTable& t) {
  t["index_select"] = {{"index_select(x, dim, index)", BRISK_REF_RUN(index_select(in[0], integer(p, "dim"), in[1]))},
                       {"x.index_select(dim, index)", BRISK_REF_RUN(in[0].index_select(integer(p, "dim"), in[1]))}};
  t["gather"] = {{"gather(x, dim, index)", BRISK_REF_RUN(gather(in[0], integer(p, "dim"), in[1]))},
                 {"x.gather(dim, index)", BRISK_REF_RUN(in[0].gather(integer(p, "dim"), in[1]))}};
  t["scatter_add"] = {
      {"scatter_add(x, dim, index, src)", BRISK_REF_RUN(scatter_add(in[0], integer(p, "dim"), in[1], in[2]))},
      {"x.scatter_add(dim, index, src)", BRISK_REF_RUN(in[0].scatter_add(integer(p, "dim"), in[1], in[2]))}};
  t["one_hot"] = {{"one_hot(indices, num_classes)", BRISK_REF_RUN(one_hot(in[0], integer(p, "num_classes")))}};
}

}  // namespace

void add_shape_runners(RunnerTable& table) {
  add_views(table);
  add_copies(table);
  add_joining(table);
  add_indexing(table);
}

}  // namespace brisk::reference
