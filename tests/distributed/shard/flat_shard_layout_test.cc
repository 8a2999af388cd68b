// FlatShardLayout: torch.chunk's split of dim 0, the packing of a set of tensors into one buffer
// per rank, and a reduce_scatter / all_gather round trip over thread ranks on the CPU and on
// simulated devices.
#include <catch2/catch.hpp>

#include "distributed/shard/flat_shard_layout.h"
#include "tensor/native/ops.h"
#include "tests/distributed/ddp/thread_process_group.h"

namespace brisk::dist {
namespace {

using Catch::Matchers::Contains;

Tensor counting(const Shape& shape, double start, Device device = kCPU) {
  Tensor t = native::arange(start, start + static_cast<double>(shape_numel(shape)), 1,
                            TensorOptions(kFloat64).device(device));
  return native::reshape(t, shape);
}

bool equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && native::equal(native::to(a, kCPU, kFloat64), native::to(b, kCPU, kFloat64));
}

TEST_CASE("dim0_shard splits rows as torch.chunk: ceil(dim0 / N) per rank, the last ranks fewer or none",
          "[shard]") {
  // torch.arange(10).chunk(4) -> 3, 3, 3, 1 rows.
  CHECK(dim0_shard(10, 4, 0).begin == 0);
  CHECK(dim0_shard(10, 4, 2).begin == 6);
  CHECK(dim0_shard(10, 4, 2).rows == 3);
  CHECK(dim0_shard(10, 4, 3).begin == 9);
  CHECK(dim0_shard(10, 4, 3).rows == 1);
  // torch.arange(5).chunk(4) -> 2, 2, 1 and nothing for rank 3.
  CHECK(dim0_shard(5, 4, 2).rows == 1);
  CHECK(dim0_shard(5, 4, 3).rows == 0);
  CHECK(dim0_shard(5, 4, 3).begin == 5);
  // torch.arange(2).chunk(3) -> 1, 1, nothing.
  CHECK(dim0_shard(2, 3, 2).rows == 0);
  CHECK(dim0_shard(7, 1, 0).rows == 7);
  CHECK_THROWS_WITH(dim0_shard(7, 2, 2), Contains("rank 2 of world size 2"));
}

TEST_CASE("FlatShardLayout pads each tensor's chunk to ceil(dim0 / N) rows in every rank's buffer", "[shard]") {
  FlatShardLayout layout({{5, 3}, {}, {2}, {4, 2, 2}}, 3);
  // Chunks: 2 rows x 3, 1 x 1 (0-d), 1 x 1, 2 rows x 4.
  CHECK(layout.chunk_rows(0) == 2);
  CHECK(layout.offset(1) == 6);
  CHECK(layout.offset(2) == 7);
  CHECK(layout.offset(3) == 8);
  CHECK(layout.shard_numel() == 16);
  CHECK(layout.gathered_numel() == 48);
  CHECK(layout.shard_shape(0, 2) == Shape{1, 3});
  CHECK(layout.shard_shape(1, 0) == Shape{1});
  CHECK(layout.shard_shape(1, 1) == Shape{0});
  CHECK(layout.shard_shape(2, 2) == Shape{0});
  CHECK(layout.shard_shape(3, 1) == Shape{2, 2, 2});
  CHECK(layout.shard_shape(3, 2) == Shape{0, 2, 2});
  CHECK_THROWS_WITH(FlatShardLayout({{2}}, 0), Contains("world size 0"));
}

TEST_CASE("FlatShardLayout pack and unpack round-trip any strides, zero the padding, and shard_views see each rank's rows",
          "[shard]") {
  for (Device device : {kCPU, sim_device(0)}) {
    CAPTURE(device.str());
    // A channels_last 4-D tensor (strided), a 0-d one, one with fewer rows than ranks.
    Tensor conv = native::contiguous(counting({3, 2, 2, 2}, 1, device), MemoryFormat::ChannelsLast);
    Tensor scalar = native::reshape(counting({1}, 100, device), {});
    Tensor small = counting({2}, 200, device);
    FlatShardLayout layout({conv.sizes(), scalar.sizes(), small.sizes()}, 4);
    Tensor gathered = native::full({layout.gathered_numel()}, -1.0, TensorOptions(kFloat64).device(device));
    layout.pack({conv, scalar, small}, gathered);

    const std::vector<Tensor> chunks = layout.rank_chunks(gathered);
    REQUIRE(chunks.size() == 4);
    for (int r = 0; r < 4; ++r) {
      const std::vector<Tensor> views = layout.shard_views(chunks[static_cast<size_t>(r)], r);
      CHECK(equal(views[0], native::narrow(conv, 0, layout.rows(0, r).begin, layout.rows(0, r).rows)));
      CHECK(views[1].numel() == (r == 0 ? 1 : 0));
      CHECK(views[2].numel() == (r < 2 ? 1 : 0));
    }
    // Rank 3 holds nothing of `conv` (chunks of 1 row: ranks 0-2), of the scalar or of `small`: all padding.
    CHECK(equal(chunks[3], native::zeros({layout.shard_numel()}, TensorOptions(kFloat64))));

    Tensor conv_out = native::empty_like(conv), scalar_out = native::empty_like(scalar),
           small_out = native::empty_like(small);
    layout.unpack(gathered, {conv_out, scalar_out, small_out});
    CHECK(equal(conv_out, conv));
    CHECK(equal(scalar_out, scalar));
    CHECK(equal(small_out, small));
  }
}

TEST_CASE("FlatShardLayout converts dtypes while packing (float64 gradients into a float32 buffer)", "[shard]") {
  Tensor grad = counting({3, 2}, 0.5);
  FlatShardLayout layout({grad.sizes()}, 2);
  Tensor gathered = native::empty({layout.gathered_numel()}, TensorOptions(kFloat32));
  layout.pack({grad}, gathered);
  Tensor back = native::empty({3, 2}, TensorOptions(kFloat64));
  layout.unpack(gathered, {back});
  CHECK(equal(back, grad));
}

TEST_CASE("FlatShardLayout names a wrong buffer or tensor", "[shard]") {
  FlatShardLayout layout({{4, 2}}, 2);
  CHECK_THROWS_WITH(layout.pack({counting({4, 3}, 0)}, native::empty({8}, TensorOptions(kFloat64))),
                    Contains("tensor 0 is [4, 3] float64 cpu, the layout expects shape [4, 2]"));
  CHECK_THROWS_WITH(layout.rank_chunks(native::empty({7}, TensorOptions(kFloat64))),
                    Contains("1-D, contiguous, with 8 elements; got [7] float64 cpu"));
  CHECK_THROWS_WITH(layout.pack({}, native::empty({8}, TensorOptions(kFloat64))), Contains("0 tensors for a layout of 1"));
}

TEST_CASE("reduce_scatter over a packed buffer gives each rank the sum of its rows; all_gather restores the tensors",
          "[shard]") {
  for (bool sim : {false, true}) {
    for (int world : {2, 3, 4}) {
      CAPTURE(sim, world);
      auto shared = std::make_shared<testing::ThreadWorld>(world, std::chrono::seconds(5));
      const std::vector<Shape> shapes = {{5, 3}, {}, {2}, {4, 1, 2, 2}};
      std::vector<std::string> errors(static_cast<size_t>(world));
      testing::run_ranks(world, [&](int rank) {
        try {
          const Device device = sim ? sim_device(rank) : kCPU;
          auto group = std::make_shared<testing::ThreadProcessGroup>(shared, rank, device);
          FlatShardLayout layout(shapes, world);
          // Rank r's "gradients": counting tensors scaled by r + 1; their sum over ranks is
          // the counting tensor times world * (world + 1) / 2.
          std::vector<Tensor> grads, expected;
          for (size_t i = 0; i < shapes.size(); ++i) {
            Tensor c = counting(shapes[i], static_cast<double>(10 * i), device);
            grads.push_back(native::binary(BinaryOp::Mul, c, Scalar(rank + 1.0)));
            expected.push_back(native::binary(BinaryOp::Mul, c, Scalar(world * (world + 1) / 2.0)));
          }
          Tensor gathered = native::empty({layout.gathered_numel()}, TensorOptions(kFloat64).device(device));
          layout.pack(grads, gathered);
          Tensor shard = native::empty({layout.shard_numel()}, TensorOptions(kFloat64).device(device));
          std::vector<Tensor> inputs = layout.rank_chunks(gathered);
          group->reduce_scatter(shard, inputs, ReduceOp::SUM)->wait();
          const std::vector<Tensor> views = layout.shard_views(shard, rank);
          for (size_t i = 0; i < shapes.size(); ++i) {
            const RowRange rows = layout.rows(i, rank);
            Tensor want = expected[i].dim() == 0 ? native::view(expected[i], {1}) : expected[i];
            if (!equal(views[i], native::narrow(want, 0, rows.begin, rows.rows)))
              throw std::runtime_error(fmt::format("rank {}: tensor {}'s reduced shard differs", rank, i));
          }
          Tensor all = native::empty({layout.gathered_numel()}, TensorOptions(kFloat64).device(device));
          std::vector<Tensor> outputs = layout.rank_chunks(all);
          group->all_gather(outputs, shard)->wait();
          std::vector<Tensor> full;
          for (const Shape& s : shapes) full.push_back(native::empty(s, TensorOptions(kFloat64).device(device)));
          layout.unpack(all, full);
          for (size_t i = 0; i < shapes.size(); ++i)
            if (!equal(full[i], expected[i]))
              throw std::runtime_error(fmt::format("rank {}: tensor {} after all_gather differs", rank, i));
        } catch (const std::exception& e) {
          errors[static_cast<size_t>(rank)] = e.what();
        }
      });
      for (const std::string& e : errors) CHECK(e.empty());
    }
  }
}

}  // namespace
}  // namespace brisk::dist
