#pragma once
// dist::all_reduce_metrics: numbers each rank computed for its share of the data (a loss sum,
// a correct count, an example count) combined over the ranks, so that every rank logs, or
// rank 0 saves, the whole job's:
//
//   std::vector<double> sums = dist::all_reduce_metrics({loss_sum, double(correct), double(count)});
//   double mean_loss = sums[0] / sums[2];                       // the same on every rank
//   double mean_time = dist::all_reduce_metric(seconds, dist::ReduceOp::AVG);
//
// Sums (ReduceOp::SUM, the default) then one division give exact means however the examples
// are split; ReduceOp::AVG averages the ranks' values, MAX/MIN take the extremes. Each call
// is one blocking collective over `group` (null: the default group) that every rank makes
// with as many values; before init_process_group, in a process started alone, the values
// come back as they are, so a program runs the same with and without a launcher.
#include <vector>

#include "distributed/process_group.h"
#include "distributed/reduce_op.h"
#include "tensor/tensor.h"

namespace brisk::dist {

std::vector<double> all_reduce_metrics(const std::vector<double>& values, ReduceOp op = ReduceOp::SUM,
                                       const std::shared_ptr<ProcessGroup>& group = nullptr);
double all_reduce_metric(double value, ReduceOp op = ReduceOp::SUM,
                         const std::shared_ptr<ProcessGroup>& group = nullptr);
// For metrics summed on a device step after step (no wait for it each step): `values`, a
// one-dimensional tensor on any device, reduced over the ranks into a copy on the group's
// device (float64 for a floating-point `values`, else its dtype). `values` is left as it was.
Tensor all_reduce_metrics(const Tensor& values, ReduceOp op = ReduceOp::SUM,
                          const std::shared_ptr<ProcessGroup>& group = nullptr);

}  // namespace brisk::dist
