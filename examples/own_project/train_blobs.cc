// Trains a small classifier on three Gaussian blobs in the plane with Brisk, as a program of a
// project of its own would (examples/own_project/BUILD: deps = ["@brisk//:brisk"]). Exits
// non-zero if Brisk was built without OpenMP (this workspace sets no flags: Brisk's targets
// carry their own) or if it did not learn: CI runs it (tools/test_examples.sh).
#include <cstdio>
#include <memory>
#include <vector>

#include "brisk/brisk.h"

using namespace brisk;

// Points around three centers, `per_class` each: data [3 * per_class, 2], target class ids.
std::shared_ptr<data::TensorDataset> make_blobs(int64_t per_class) {
  const float centers[3][2] = {{-2, 0}, {2, 0}, {0, 2.5}};
  std::vector<Tensor> points, labels;
  for (int64_t c = 0; c < 3; ++c) {
    points.push_back(randn({per_class, 2}) * 0.5 + tensor({centers[c][0], centers[c][1]}));
    labels.push_back(full({per_class}, c, TensorOptions().dtype(kInt64)));
  }
  return std::make_shared<data::TensorDataset>(cat(points), cat(labels));
}

int main() {
  if (!has_openmp()) {
    std::printf("Brisk was compiled without OpenMP: its CPU kernels run on one thread\n");
    return 1;
  }
  manual_seed(0);
  auto blobs = make_blobs(200);
  data::DataLoader loader(blobs, data::DataLoaderOptions().batch_size(32).shuffle(true));
  nn::Sequential model(nn::Linear(2, 32), nn::ReLU(), nn::Linear(32, 3));
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));

  for (int epoch = 0; epoch < 10; ++epoch) {
    double loss_sum = 0;
    int64_t batches = 0;
    for (data::Batch& batch : loader) {
      optimizer.zero_grad();
      Tensor loss = nn::functional::cross_entropy(model(batch.data), batch.target);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<float>();
      ++batches;
    }
    std::printf("epoch %d: loss %.4f\n", epoch + 1, loss_sum / batches);
  }

  NoGradGuard no_grad;
  Tensor predicted = argmax(model(blobs->data()), 1);
  double accuracy = mean(eq(predicted, blobs->target()).to(kFloat32)).item<float>();
  std::printf("accuracy %.3f\n", accuracy);
  return accuracy > 0.9 ? 0 : 1;
}
