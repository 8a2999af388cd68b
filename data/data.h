#pragma once
// Everything of brisk::data in one include: datasets (in-memory tensors, MNIST/Fashion-MNIST,
// CIFAR-10, subsets, transformed datasets), the torchvision-style transforms, samplers
// (sequential, random, distributed) and the DataLoader; and libtorch's spellings of them:
// data::datasets::MNIST, .map(data::transforms::Normalize<>(...)), data::make_data_loader.
#include "data/cifar10.h"
#include "data/collate.h"
#include "data/data_loader.h"
#include "data/dataset.h"
#include "data/distributed_sampler.h"
#include "data/example.h"
#include "data/make_data_loader.h"
#include "data/map_dataset.h"
#include "data/mnist.h"
#include "data/sampler.h"
#include "data/tensor_dataset.h"
#include "data/transform_dataset.h"
#include "data/transforms/compose.h"
#include "data/transforms/normalize.h"
#include "data/transforms/random_crop.h"
#include "data/transforms/random_horizontal_flip.h"
#include "data/transforms/stack.h"
#include "data/transforms/to_tensor.h"
#include "data/transforms/transform.h"
