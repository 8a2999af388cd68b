#pragma once
// The argument checks of every ProcessGroup operation, shared by all backends (Gloo, NCCL)
// so that each enforces one contract, NCCL's: every tensor defined, contiguous and on the
// group's device(); lists with one tensor per rank, each like the reference tensor; roots
// and peers in range; a dtype the backend supports. They run at the call, before anything
// is queued, and raise a brisk::Error naming the backend, the op, this rank, the tensor and
// what was wrong with it, e.g.
//   "ProcessGroupGloo all_reduce: rank 1 of 3: tensor is on cpu, but the group's device is sim:0"
//
// A backend states the dtypes it supports once and checks each operation with the function of
// its name, at the top of the operation; a collective's check returns its signature (what the
// desync monitor compares across ranks, and Gloo's tag), so every backend describes a call alike:
//
//   constexpr OperationChecks kChecks("ProcessGroupGloo", {kFloat32, kInt64}, {kFloat32});
//   CollectiveSignature sig = kChecks.all_gather(*this, outputs, input);
//
// check_group_arguments() does the same for a backend's constructor.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "distributed/health/collective_signature.h"
#include "distributed/process_group.h"
#include "distributed/store/store.h"
#include "tensor/tensor.h"

namespace brisk::dist {

// The dtypes a backend supports in some operations; a value (constexpr-constructible).
class DTypeSet {
 public:
  constexpr DTypeSet(std::initializer_list<DType> dtypes) {
    for (DType d : dtypes) bits_ |= uint32_t{1} << static_cast<unsigned>(d);
  }
  constexpr bool contains(DType d) const { return (bits_ >> static_cast<unsigned>(d)) & 1u; }
  // "float32, float64, int64", in the order of the DType enum.
  std::string names() const;

 private:
  uint32_t bits_ = 0;
};

// The checks of each ProcessGroup operation (its arguments as process_group.h describes them),
// for a backend that supports `dtypes` in every operation and `reducing_dtypes` in all_reduce,
// reduce and reduce_scatter. Point-to-point moves the tensor's bytes as they are: any dtype.
class OperationChecks {
 public:
  // `backend` names the class in messages ("ProcessGroupGloo").
  constexpr OperationChecks(const char* backend, DTypeSet dtypes, DTypeSet reducing_dtypes)
      : backend_(backend), dtypes_(dtypes), reducing_dtypes_(reducing_dtypes) {}

  CollectiveSignature broadcast(const ProcessGroup& group, const Tensor& tensor, int root) const;
  CollectiveSignature all_reduce(const ProcessGroup& group, const Tensor& tensor, ReduceOp op) const;
  CollectiveSignature reduce(const ProcessGroup& group, const Tensor& tensor, int root, ReduceOp op) const;
  CollectiveSignature all_gather(const ProcessGroup& group, const std::vector<Tensor>& outputs,
                                 const Tensor& input) const;
  // `outputs` is checked on the root only (it is ignored elsewhere).
  CollectiveSignature gather(const ProcessGroup& group, const std::vector<Tensor>& outputs, const Tensor& input,
                             int root) const;
  // `inputs` is checked on the root only (it is ignored elsewhere).
  CollectiveSignature scatter(const ProcessGroup& group, const Tensor& output, const std::vector<Tensor>& inputs,
                              int root) const;
  CollectiveSignature reduce_scatter(const ProcessGroup& group, const Tensor& output, const std::vector<Tensor>& inputs,
                                     ReduceOp op) const;
  // One input and one output per rank, all of one supported dtype, the sizes free but for this
  // rank's own piece, as large on both sides. Sizes may differ per peer, so the signature holds
  // only the op and the dtype.
  CollectiveSignature all_to_all(const ProcessGroup& group, const std::vector<Tensor>& outputs,
                                 const std::vector<Tensor>& inputs) const;
  void send(const ProcessGroup& group, const Tensor& tensor, int dst) const;
  void recv(const ProcessGroup& group, const Tensor& tensor, int src) const;

 private:
  const char* backend_;
  DTypeSet dtypes_;
  DTypeSet reducing_dtypes_;
};

// A backend's construction arguments: a store, 0 <= rank < size, a positive timeout. `backend`
// starts the message: "ProcessGroupGloo 'default': rank 3 is not in [0, 2)".
void check_group_arguments(const std::string& backend, const Store* store, int rank, int size,
                           const ProcessGroupOptions& options);

}  // namespace brisk::dist
