#include "distributed/pipeline/action.h"

#include <fmt/format.h>

#include "tensor/error.h"

namespace brisk::dist::pipeline {

StageLayout::StageLayout(int ranks, int chunks) : ranks_(ranks), chunks_(chunks) {
  BRISK_CHECK(ranks >= 1 && chunks >= 1, "StageLayout: needs at least one rank and one chunk per rank, got {} and {}",
              ranks, chunks);
}

std::string describe(const Action& action) {
  const int mb = action.microbatch, stage = action.stage, peer = action.peer;
  switch (action.kind) {
    case ActionKind::Forward: return fmt::format("forward mb {} stage {}", mb, stage);
    case ActionKind::Backward: return fmt::format("backward mb {} stage {}", mb, stage);
    case ActionKind::BackwardInput: return fmt::format("backward input mb {} stage {}", mb, stage);
    case ActionKind::BackwardWeight: return fmt::format("backward weight mb {} stage {}", mb, stage);
    case ActionKind::SendActivation: return fmt::format("send activation mb {} stage {} to rank {}", mb, stage, peer);
    case ActionKind::RecvActivation: return fmt::format("recv activation mb {} stage {} from rank {}", mb, stage, peer);
    case ActionKind::SendGradient: return fmt::format("send gradient mb {} stage {} to rank {}", mb, stage, peer);
    case ActionKind::RecvGradient: return fmt::format("recv gradient mb {} stage {} from rank {}", mb, stage, peer);
  }
  return "unknown action";
}

int message_tag(ActionKind kind) {
  return kind == ActionKind::SendGradient || kind == ActionKind::RecvGradient ? 1 : 0;
}

}  // namespace brisk::dist::pipeline
