#include "tools/train/mnist_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "data/mnist.h"

namespace brisk::train {
namespace {

// Mean and standard deviation (correction 1, as Tensor::std) of the uint8 pixels scaled to
// [0, 1], from their histogram: exact, and without a float copy of the whole set.
std::pair<double, double> pixel_statistics(const Tensor& images) {
  std::array<int64_t, 256> histogram{};
  const uint8_t* pixels = images.contiguous().data_ptr<uint8_t>();
  const int64_t n = images.numel();
  for (int64_t i = 0; i < n; ++i) ++histogram[pixels[i]];
  double sum = 0.0;
  for (int v = 0; v < 256; ++v) sum += histogram[v] * (v / 255.0);
  const double mean = sum / n;
  double squares = 0.0;
  for (int v = 0; v < 256; ++v) squares += histogram[v] * (v / 255.0 - mean) * (v / 255.0 - mean);
  return {mean, std::sqrt(squares / (n - 1))};
}

// The first `limit` examples of `set` (all for 0), images as uint8 [N, 1, 28, 28].
std::shared_ptr<data::TensorDataset> first(const data::MNIST& set, int64_t limit) {
  int64_t n = limit > 0 ? std::min(limit, set.size()) : set.size();
  return std::make_shared<data::TensorDataset>(set.images().narrow(0, 0, n).unsqueeze(1).contiguous(),
                                               set.labels().narrow(0, 0, n).contiguous());
}

}  // namespace

MnistData load_mnist(const std::string& dir, int64_t train_limit, int64_t test_limit) {
  autograd::NoGradGuard no_grad;
  data::MNIST train(dir, /*train=*/true);
  data::MNIST test(dir, /*train=*/false);
  // Statistics of the full training set, whatever the limit, so that a quick run sees the
  // same inputs as a full one.
  MnistData out;
  std::tie(out.mean, out.std) = pixel_statistics(train.images());
  out.train = first(train, train_limit);
  out.test = first(test, test_limit);
  return out;
}

Tensor standardize(const Tensor& images, double mean, double std) {
  autograd::NoGradGuard no_grad;
  return images.to(kFloat32).div(255.0).sub(mean).div(std);
}

data::Collate standardizing_collate(double mean, double std) {
  return [mean, std](std::vector<data::Example<>> examples) {
    data::Batch batch = data::default_collate(std::move(examples));
    batch.data = standardize(batch.data, mean, std);
    return batch;
  };
}

}  // namespace brisk::train
