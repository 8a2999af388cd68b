#pragma once
// Everything in brisk::optim: optimizers, LR schedulers and gradient clipping.
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/grad_scaler.h"
#include "optim/optimizer.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/schedulers/one_cycle_lr.h"
#include "optim/sgd.h"
