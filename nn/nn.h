#pragma once
// Everything of brisk::nn in one include: modules and containers, the layers, the
// functional forms and losses, parameter initialization, autocast (autograd/autocast.h) and
// activation checkpointing (nn/utils/checkpoint.h), plus the tensor ops (autograd/ops.h) and
// grad mode that model code uses with them.
#include "autograd/autocast.h"
#include "autograd/grad_mode.h"
#include "autograd/ops.h"
#include "nn/functional.h"
#include "nn/functional_options.h"
#include "nn/init.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/module_list.h"
#include "nn/modules/activation.h"
#include "nn/modules/batchnorm.h"
#include "nn/modules/conv.h"
#include "nn/modules/dropout.h"
#include "nn/modules/embedding.h"
#include "nn/modules/flatten.h"
#include "nn/modules/linear.h"
#include "nn/modules/loss.h"
#include "nn/modules/normalization.h"
#include "nn/modules/pooling.h"
#include "nn/modules/upsampling.h"
#include "nn/sequential.h"
#include "nn/utils/checkpoint.h"
