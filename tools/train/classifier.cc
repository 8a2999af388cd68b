#include "tools/train/classifier.h"

#include "models/lenet.h"
#include "models/mlp.h"
#include "tensor/error.h"

namespace brisk::train {

Classifier make_classifier(const std::string& name, int64_t num_classes) {
  if (name == "lenet") {
    models::LeNet5 model(num_classes);
    return {model.ptr(), [m = model.ptr()](const Tensor& x) { return m->forward(x); }};
  }
  if (name == "mlp") {
    models::MLP model(models::MLPOptions(28 * 28, num_classes));
    return {model.ptr(), [m = model.ptr()](const Tensor& x) { return m->forward(x); }};
  }
  BRISK_FAIL("unknown model \"{}\" (expected lenet or mlp)", name);
}

}  // namespace brisk::train
