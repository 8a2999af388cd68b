#include "distributed/gloo/process_group_gloo_impl.h"

#include <gloo/transport/tcp/device.h>
#include <signal.h>

#include "distributed/collective_checks.h"
#include "distributed/gloo/gloo_store.h"
#include "tensor/error.h"

namespace brisk::dist {
namespace {

// Gloo writes to its peers' sockets without MSG_NOSIGNAL, so a write to a peer that died
// raises SIGPIPE, whose default action kills this process before the collective can fail
// with an error naming the absent rank. A handler the program installed itself is kept.
void ignore_default_sigpipe() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);
}

// Point-to-point messages use Gloo slots of this prefix; collectives use Gloo's own prefixes
// with the signature's fingerprint as the tag (QueuedGroup::collective).
constexpr uint64_t kP2PSlotPrefix = uint64_t{0xff} << 56;

}  // namespace

ProcessGroupGloo::Impl::Impl(std::shared_ptr<Store> store_, int rank_, int size_, ProcessGroupOptions options_,
                             const std::string& host, std::string name_)
    : rank(rank_), size(size_), options(options_), name(std::move(name_)) {
  const std::string where = fmt::format("ProcessGroupGloo '{}' rank {}/{}", name, rank, size);
  check_group_arguments(fmt::format("ProcessGroupGloo '{}'", name), store_.get(), rank, size, options);
  const std::chrono::milliseconds beat_timeout = heartbeat_timeout(options);
  ignore_default_sigpipe();
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = host;
    device = gloo::transport::tcp::CreateDevice(attr);
    context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(options.timeout);
    GlooStore gloo_store(store_);
    context->connectFullMesh(gloo_store, device);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    BRISK_FAIL("{}: cannot connect the ranks on {} within {} ms: {}", where, host, options.timeout.count(), e.what());
  }
  queue = std::make_unique<QueuedGroup>("gloo", name, where, std::move(store_), rank, size, options, beat_timeout);
}

std::shared_ptr<Work> ProcessGroupGloo::Impl::p2p(bool is_send, Tensor tensor,
                                                  std::shared_ptr<TransportBuffers> staging, int peer, int tag) {
  std::string op = fmt::format("{} rank {} (tag {})", is_send ? "send to" : "recv from", peer, tag);
  return queue->p2p(is_send, peer, tag, op, std::move(staging),
                    [this, is_send, tensor, peer, tag]() -> std::function<void()> {
                      std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
                          context->createUnboundBuffer(tensor.raw_data(), tensor.nbytes());
                      uint64_t slot = kP2PSlotPrefix | static_cast<uint32_t>(tag);
                      if (is_send) buffer->send(peer, slot);
                      else buffer->recv(peer, slot);
                      return [this, buffer, tensor, is_send] {
                        if (is_send) buffer->waitSend(options.timeout);
                        else buffer->waitRecv(options.timeout);
                      };
                    });
}

}  // namespace brisk::dist
