#pragma once
// A transform maps one sample tensor to another (torchvision.transforms). The transforms of
// this folder are callable objects that convert to Transform; so does any lambda.
//
// Random transforms draw from the Generator they were constructed with, or, given none,
// from data::sample_generator(): inside a DataLoader that makes augmentations depend only on
// the loader's seed, the epoch and the sample's position, whatever the number of workers.
// A Generator passed in is shared by every thread that applies the transform, so the draws
// then depend on the order in which samples are loaded: reproducible with num_workers = 0.
#include <functional>

#include "tensor/tensor.h"

namespace brisk::data {

using Transform = std::function<Tensor(const Tensor&)>;

namespace transforms {
// libtorch's spelling of a transform of each example's data,
// torch::data::transforms::TensorLambda<>([](Tensor x) { return x * 2; }).
template <typename Target = Tensor>
using TensorLambda = Transform;
}  // namespace transforms

}  // namespace brisk::data
