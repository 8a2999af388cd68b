#pragma once
// The argument checks of every ProcessGroup operation, shared by all backends (Gloo, NCCL)
// so that each enforces one contract, NCCL's: every tensor defined, contiguous and on the
// group's device(); lists with one tensor per rank, each like the reference tensor; roots
// and peers in range; a dtype the backend supports. They run at the call, before anything
// is queued, and raise a brisk::Error naming the backend, the op, this rank, the tensor and
// what was wrong with it, e.g.
//   "ProcessGroupGloo all_reduce: rank 1 of 3: tensor is on cpu, but the group's device is sim:0"
//
//   CallChecks check("ProcessGroupGloo", group, "all_gather");
//   check.tensor(input, "input");
//   check.list(outputs, input, "outputs");
#include <initializer_list>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "tensor/tensor.h"

namespace brisk::dist {

class CallChecks {
 public:
  // `backend` names the class in messages ("ProcessGroupGloo"); `op` the operation.
  CallChecks(const char* backend, const ProcessGroup& group, const char* op);

  // Defined, contiguous and on the group's device; `what` names it ("tensor", "inputs[2]").
  void tensor(const Tensor& t, const std::string& what) const;
  // One tensor per rank, each passing tensor() with the numel and dtype of `like`.
  void list(const std::vector<Tensor>& list, const Tensor& like, const std::string& what) const;
  // One tensor per rank, each passing tensor() with dtype `dtype` (sizes may differ: all_to_all).
  void list_of_dtype(const std::vector<Tensor>& list, DType dtype, const std::string& what) const;
  void root(int root) const;
  // A send/recv partner: another rank of the group.
  void peer(int peer) const;
  // `dtype` is one of `supported` (the backend's list for this op).
  void dtype(DType dtype, std::initializer_list<DType> supported) const;
  // all_to_all's arguments: one input and one output per rank, all of one supported dtype,
  // and this rank's own piece as large on both sides. Returns that dtype.
  DType all_to_all(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                   std::initializer_list<DType> supported) const;

  // "ProcessGroupGloo all_reduce: rank 1 of 3", the start of every message.
  std::string where() const;

 private:
  const char* backend_;
  const char* op_;
  int rank_;
  int size_;
  Device device_;
};

}  // namespace brisk::dist
