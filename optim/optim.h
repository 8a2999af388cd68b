#pragma once
// Everything in brisk::optim: optimizers, LR schedulers and gradient clipping.
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/grad_scaler.h"
#include "optim/optimizer.h"
#include "optim/schedulers/cosine_annealing_lr.h"
#include "optim/schedulers/lambda_lr.h"
#include "optim/schedulers/linear_lr.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/schedulers/multi_step_lr.h"
#include "optim/schedulers/one_cycle_lr.h"
#include "optim/schedulers/step_lr.h"
#include "optim/sgd.h"
