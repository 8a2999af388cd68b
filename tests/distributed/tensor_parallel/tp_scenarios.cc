#include "tests/distributed/tensor_parallel/tp_scenarios.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "distributed/tensor_parallel/column_parallel_linear.h"
#include "distributed/tensor_parallel/full_state_dict.h"
#include "distributed/tensor_parallel/row_parallel_linear.h"
#include "distributed/tensor_parallel/uneven_split.h"
#include "distributed/tensor_parallel/vocab_parallel_cross_entropy.h"
#include "distributed/tensor_parallel/vocab_parallel_embedding.h"
#include "nn/nn.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "tensor/generator.h"

namespace brisk::dist::testing {
namespace {

namespace F = nn::functional;
using namespace dist::tp;

// Sizes that no tested group size (2, 3, 4) divides everywhere: uneven parts.
constexpr int64_t kIn = 6, kHidden = 7, kVocab = 11, kRows = 5, kBatch = 2;

// ---- The unsplit models ----

struct PlainMlpImpl : nn::Module {
  PlainMlpImpl() {
    fc1 = register_module("fc1", nn::Linear(kIn, kHidden));
    fc2 = register_module("fc2", nn::Linear(kHidden, kIn));
  }
  Tensor forward(const Tensor& x) override { return fc2(fc1(x).tanh()); }
  nn::Linear fc1{nullptr}, fc2{nullptr};
};
BRISK_MODULE(PlainMlp);

struct PlainLmImpl : nn::Module {
  PlainLmImpl() {
    embed = register_module("embed", nn::Embedding(kVocab, kIn));
    fc1 = register_module("fc1", nn::Linear(kIn, kHidden));
    fc2 = register_module("fc2", nn::Linear(kHidden, kIn));
    head = register_module("head", nn::Linear(kIn, kVocab));
  }
  // ids [rows, batch] -> logits [rows, batch, vocab]
  Tensor forward(const Tensor& ids) override { return head(fc2(fc1(embed(ids)).tanh())); }
  nn::Embedding embed{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, head{nullptr};
};
BRISK_MODULE(PlainLm);

// ---- Their tensor-parallel twins (the same parameter names) ----

struct TpMlpImpl : nn::Module {
  TpMlpImpl(const GroupPtr& group, bool sp) {
    fc1 = register_module("fc1",
                          ColumnParallelLinear(ColumnParallelLinearOptions(kIn, kHidden).sequence_parallel(sp), group));
    fc2 =
        register_module("fc2", RowParallelLinear(RowParallelLinearOptions(kHidden, kIn).sequence_parallel(sp), group));
  }
  // x: [rows, batch, in] whole, or (sequence parallel) this rank's rows.
  Tensor forward(const Tensor& x) override { return fc2(fc1(x).tanh()); }
  ColumnParallelLinear fc1{nullptr};
  RowParallelLinear fc2{nullptr};
};
BRISK_MODULE(TpMlp);

struct TpLmImpl : nn::Module {
  TpLmImpl(const GroupPtr& group, bool sp) {
    embed = register_module(
        "embed", VocabParallelEmbedding(VocabParallelEmbeddingOptions(kVocab, kIn).sequence_parallel(sp), group));
    fc1 = register_module("fc1",
                          ColumnParallelLinear(ColumnParallelLinearOptions(kIn, kHidden).sequence_parallel(sp), group));
    fc2 =
        register_module("fc2", RowParallelLinear(RowParallelLinearOptions(kHidden, kIn).sequence_parallel(sp), group));
    head = register_module("head",
                           ColumnParallelLinear(ColumnParallelLinearOptions(kIn, kVocab).sequence_parallel(sp), group));
  }
  // ids [rows, batch] whole -> this rank's logits [rows, batch, vocab_r] (every row).
  Tensor forward(const Tensor& ids) override { return head(fc2(fc1(embed(ids)).tanh())); }
  VocabParallelEmbedding embed{nullptr};
  ColumnParallelLinear fc1{nullptr}, head{nullptr};
  RowParallelLinear fc2{nullptr};
};
BRISK_MODULE(TpLm);

double max_diff(const Tensor& a, const Tensor& b) {
  BRISK_CHECK(a.sizes() == b.sizes(), "tp scenario: shapes {} and {} differ", a.describe(), b.describe());
  if (a.numel() == 0) return 0;
  return (a.detach().to(kCPU) - b.detach().to(kCPU)).abs().max().item<double>();
}

// Every parameter's gradient of the split model, gathered whole, by name.
nn::StateDict gathered_grads(nn::Module& model) {
  nn::StateDict grads;
  for (const auto& [prefix, module] : model.named_modules()) {
    const auto* layer = dynamic_cast<const TensorParallelLayer*>(module.get());
    if (layer == nullptr) continue;
    const nn::StateDict params = module->named_parameters(false);
    for (const ParallelParameter& p : layer->parallel_parameters()) {
      Tensor grad = params[p.name].grad();
      if (p.split_dim >= 0) grad = all_gather_along(grad, p.split_dim, *layer->group(), p.global_shape[p.split_dim]);
      grads.insert(prefix + "." + p.name, grad);
    }
  }
  return grads;
}

double compare_grads(nn::Module& split, nn::Module& plain) {
  double worst = 0;
  const nn::StateDict grads = gathered_grads(split);
  for (const auto& [key, param] : plain.named_parameters()) worst = std::max(worst, max_diff(grads[key], param.grad()));
  return worst;
}

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& kind, const std::vector<Tensor>& params) {
  if (kind == "sgd") return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9));
  BRISK_CHECK(kind == "adamw", "tp scenario: unknown optimizer '{}' (sgd, adamw)", kind);
  return std::make_unique<optim::AdamW>(params, optim::AdamWOptions(0.05));
}

}  // namespace

const std::vector<std::string>& tp_scenario_names() {
  static const std::vector<std::string> names{"mlp", "mlp_sp", "lm", "lm_sp"};
  return names;
}

double run_tp_scenario(const std::string& name, const std::string& optimizer, const GroupPtr& group, int steps) {
  const bool lm = name.rfind("lm", 0) == 0;
  const bool sp = name.size() > 3 && name.substr(name.size() - 3) == "_sp";
  BRISK_CHECK(std::find(tp_scenario_names().begin(), tp_scenario_names().end(), name) != tp_scenario_names().end(),
              "tp scenario: unknown '{}'", name);
  std::shared_ptr<nn::Module> plain, split;
  {
    // Thread ranks share the default generator: each seeds it and draws its models in turn, so
    // that every rank's unsplit model starts alike.
    static std::mutex init_mutex;
    std::lock_guard<std::mutex> lock(init_mutex);
    manual_seed(lm ? 31 : 17);
    if (lm) {
      plain = PlainLm().ptr();
      split = TpLm(group, sp).ptr();
    } else {
      plain = PlainMlp().ptr();
      split = TpMlp(group, sp).ptr();
    }
  }
  plain->to(kFloat64);
  const Device device = group->device();  // the split model runs where the group's tensors live
  split->to(device, kFloat64);
  load_full_state_dict(*split, plain->state_dict());
  auto plain_opt = make_optimizer(optimizer, plain->parameters());
  auto split_opt = make_optimizer(optimizer, split->parameters());

  Generator data(lm ? 7 : 3);
  double worst = 0;
  for (int step = 0; step < steps; ++step) {
    plain_opt->zero_grad();
    split_opt->zero_grad();
    Tensor plain_loss, split_loss;
    if (lm) {
      const Tensor ids = randint(kVocab, {kRows, kBatch}, kInt64, &data);
      const Tensor targets = randint(kVocab, {kRows, kBatch}, kInt64, &data);
      plain_loss = F::cross_entropy(plain->forward(ids).reshape({-1, kVocab}), targets.reshape({-1}));
      split_loss = vocab_parallel_cross_entropy(split->forward(ids.to(device)), targets.to(device), group, kVocab);
    } else {
      const Tensor x = randn({kRows, kBatch, kIn}, kFloat64, &data);
      const Tensor target = randn({kRows, kBatch, kIn}, kFloat64, &data);
      plain_loss = F::mse_loss(plain->forward(x), target);
      if (sp) {
        // Each rank holds its rows; the loss is the sum of the ranks' parts of the mean.
        const Tensor diff =
            split->forward(local_part(x.to(device), 0, *group)) - local_part(target.to(device), 0, *group);
        split_loss = diff.pow(2).sum() / static_cast<double>(target.numel());
      } else {
        split_loss = F::mse_loss(split->forward(x.to(device)), target.to(device));
      }
    }
    plain_loss.backward();
    split_loss.backward();
    Tensor total = split_loss.detach().clone().reshape({1});
    if (sp && !lm) group->all_reduce(total)->wait();
    worst = std::max(worst, std::abs(total.item<double>() - plain_loss.item<double>()));
    worst = std::max(worst, compare_grads(*split, *plain));
    plain_opt->step();
    split_opt->step();
  }
  const nn::StateDict full = full_state_dict(*split);
  for (const auto& [key, value] : plain->state_dict()) worst = std::max(worst, max_diff(full[key], value));
  return worst;
}

}  // namespace brisk::dist::testing
