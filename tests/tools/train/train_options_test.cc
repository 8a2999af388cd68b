// The training program's flags: defaults, parsing, the values CLI11 refuses (naming the flag),
// and the combinations check_train_options refuses.
#include "tools/train/train_options.h"

#include <catch2/catch.hpp>

#include <limits>
#include <string>
#include <vector>

#include "tensor/error.h"

using namespace brisk;
using namespace brisk::train;
using Catch::Matchers::Contains;

namespace {

// Parses `args` as the program would; returns CLI11's error message, empty when they parse.
std::string parse(std::vector<std::string> args, TrainOptions& options) {
  CLI::App app;
  add_train_flags(app, options);
  args.insert(args.begin(), "train");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    return "";
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("train flags: the CIFAR recipe's flags parse into TrainOptions; a flag given twice takes its last value") {
  TrainOptions o;
  REQUIRE(parse({"--dataset",
                 "cifar10",
                 "--data-dir",
                 "data/c",
                 "--model",
                 "mlp",
                 "--optimizer",
                 "adamw",
                 "--lr",
                 "0.002",
                 "--weight-decay",
                 "0.05",
                 "--lr-schedule",
                 "onecycle",
                 "--warmup-epochs",
                 "0.5",
                 "--max-grad-norm",
                 "1",
                 "--accumulate",
                 "4",
                 "--batch-size",
                 "256",
                 "--label-smoothing",
                 "0.2",
                 "--epochs",
                 "3",
                 "--epochs",
                 "5"},
                o) == "");
  CHECK(o.dataset == "cifar10");
  CHECK(o.data_dir == "data/c");
  CHECK(o.model == "mlp");
  CHECK(o.optimizer == "adamw");
  CHECK(o.lr == 0.002);
  CHECK(o.weight_decay == 0.05);
  CHECK(o.lr_schedule == "onecycle");
  CHECK(o.warmup_epochs == 0.5);
  CHECK(o.max_grad_norm == 1.0);
  CHECK(o.accumulate == 4);
  CHECK(o.batch_size == 256);
  CHECK(o.label_smoothing == 0.2);
  CHECK(o.epochs == 5);
  CHECK_NOTHROW(check_train_options(o));

  TrainOptions sgd;
  REQUIRE(parse({"--nesterov", "--momentum", "0.9", "--weight-decay", "5e-4"}, sgd) == "");
  CHECK(sgd.nesterov);
  CHECK(sgd.optimizer == "sgd");
  CHECK(sgd.dataset == "fashion-mnist");  // the defaults: the main job's data
  CHECK(sgd.data_dir.empty());
  CHECK(sgd.lr_schedule == "cosine");
  CHECK(sgd.accumulate == 1);
  CHECK(sgd.heartbeat_timeout < 0);  // BRISK_HEARTBEAT_TIMEOUT, else the process group's default
  CHECK_NOTHROW(check_train_options(sgd));

  TrainOptions beats;
  REQUIRE(parse({"--heartbeat-timeout", "2.5"}, beats) == "");
  CHECK(beats.heartbeat_timeout == 2.5);
}

TEST_CASE("train flags: values out of range are refused by name") {
  TrainOptions o;
  CHECK_THAT(parse({"--dataset", "imagenet"}, o), Contains("--dataset") && Contains("imagenet"));
  CHECK_THAT(parse({"--model", "resnet"}, o), Contains("--model") && Contains("resnet"));
  CHECK_THAT(parse({"--optimizer", "adagrad"}, o), Contains("--optimizer"));
  CHECK_THAT(parse({"--lr-schedule", "step"}, o), Contains("--lr-schedule"));
  CHECK_THAT(parse({"--accumulate", "0"}, o), Contains("--accumulate"));
  CHECK_THAT(parse({"--max-grad-norm", "-1"}, o), Contains("--max-grad-norm"));
  CHECK_THAT(parse({"--warmup-epochs", "-0.5"}, o), Contains("--warmup-epochs"));
  CHECK_THAT(parse({"--weight-decay", "-1"}, o), Contains("--weight-decay"));
  CHECK_THAT(parse({"--label-smoothing", "1.5"}, o), Contains("--label-smoothing"));
  CHECK_THAT(parse({"--heartbeat-timeout", "-2"}, o), Contains("--heartbeat-timeout"));
  CHECK_THAT(parse({"--shard", "zero4"}, o), Contains("--shard") && Contains("zero4"));
  CHECK_THAT(parse({"--tp", "0"}, o), Contains("--tp"));
  CHECK_THAT(parse({"--pp-schedule", "zigzag"}, o), Contains("--pp-schedule") && Contains("zigzag"));
  REQUIRE(o.shard == "none");
  REQUIRE(parse({"--shard", "zero2"}, o) == "");
  CHECK(o.shard == "zero2");
}

TEST_CASE("train flags: range errors name the flag and the value, and print no 309-digit bound") {
  TrainOptions o;
  CHECK(parse({"--batch-size", "0"}, o) == "--batch-size: 0 is not a positive integer");
  CHECK(parse({"--batch-size", "-3"}, o) == "--batch-size: -3 is not a positive integer");
  // Past int64: refused, not taken as int64's largest value.
  CHECK(parse({"--batch-size", "99999999999999999999"}, o) ==
        "--batch-size: 99999999999999999999 is too large; the largest accepted is 9223372036854775807");
  CHECK(parse({"--workers", "3000000000"}, o) ==
        "--workers: 3000000000 is too large; the largest accepted is 2147483647");
  CHECK(parse({"--lr", "0"}, o) == "--lr: 0 is not a positive number");
  CHECK(parse({"--lr", "inf"}, o) == "--lr: inf is not a positive number");
  CHECK(parse({"--weight-decay", "-1e-3"}, o) == "--weight-decay: -1e-3 is not a non-negative number");
  CHECK_THAT(parse({"--batch-size", "abc"}, o), Contains("--batch-size") && Contains("abc"));
  // The help names the bounds in words.
  CLI::App app;
  add_train_flags(app, o);
  std::string help = app.help();
  CHECK_THAT(help, Contains("a positive integer"));
  CHECK(help.find("179769313486231570") == std::string::npos);
  REQUIRE(parse({"--batch-size", "9223372036854775807", "--lr", "1e300", "--workers", "0"}, o) == "");
  CHECK(o.batch_size == std::numeric_limits<int64_t>::max());
}

TEST_CASE("check_batch_size: a --batch-size larger than the training set is refused by name") {
  TrainOptions o;
  REQUIRE(parse({"--batch-size", "100", "--train-limit", "60"}, o) == "");
  CHECK_THROWS_WITH(check_batch_size(o, 60),
                    "--batch-size 100 is larger than the training set (60 examples, --train-limit); give at most 60");
  CHECK_NOTHROW(check_batch_size(o, 100));
  o.batch_size = std::numeric_limits<int64_t>::max();
  o.train_limit = 0;
  CHECK_THROWS_WITH(check_batch_size(o, 60000),
                    "--batch-size 9223372036854775807 is larger than the training set (60000 examples); give at most "
                    "60000");
}

TEST_CASE("check_train_options: flags that do not go together, named") {
  auto refuses = [](const std::vector<std::string>& args, const std::string& message) {
    TrainOptions o;
    REQUIRE(parse(args, o) == "");
    CHECK_THROWS_WITH(check_train_options(o), Contains(message));
  };
  refuses({"--optimizer", "adamw", "--nesterov"}, "--nesterov is SGD's; --optimizer adamw has no such option");
  refuses({"--nesterov", "--momentum", "0"}, "--nesterov needs --momentum above 0");
  refuses({"--epochs", "2", "--warmup-epochs", "2"}, "--warmup-epochs 2 must be below --epochs 2");
  refuses({"--batch-size", "100", "--accumulate", "3"}, "--batch-size 100 does not split into --accumulate 3");
  refuses({"--resume", "auto"}, "--resume auto resumes from the newest checkpoint of --save's pattern, but no --save");
  refuses({"--keep-checkpoints", "2"}, "--checkpoint-every and --keep-checkpoints need --save");
  refuses({"--save", "c-{epoch}", "--checkpoint-every", "5"}, "--checkpoint-every 5: --save 'c-{epoch}' names");
  refuses({"--save", "c", "--keep-checkpoints", "3"}, "--keep-checkpoints 3: --save 'c' names one file");
  refuses({"--save", "c-{stp}"}, "save pattern 'c-{stp}': unknown placeholder {stp}");
  refuses({"--cuda-graph", "--optimizer", "adamw", "--lr-schedule", "constant"},
          "--cuda-graph needs --optimizer sgd: adamw reads its step count on the host");
  refuses({"--cuda-graph", "--amp", "fp16", "--lr-schedule", "constant"}, "--cuda-graph cannot train with --amp fp16");
  refuses({"--cuda-graph", "--accumulate", "2", "--lr-schedule", "constant"},
          "--cuda-graph captures one batch a step; got --accumulate 2");
  refuses({"--cuda-graph"}, "--cuda-graph needs --lr-schedule constant: --lr-schedule cosine changes the learning "
                            "rate every step");
  refuses({"--cuda-graph", "--lr-schedule", "constant", "--shard", "zero2"},
          "--cuda-graph captures a DDP step; --shard zero2 steps a sharded optimizer");
  refuses({"--pp", "2"}, "--dp, --tp, --pp and --microbatches lay out --model gpt; --model lenet trains");
  TrainOptions layout;
  REQUIRE(parse({"--model", "gpt", "--dp", "2", "--tp", "2", "--pp", "2", "--pp-schedule", "interleaved",
                 "--microbatches", "4"},
                layout) == "");
  CHECK(layout.dp * layout.tp * layout.pp == 8);
  CHECK(layout.pp_schedule == "interleaved");
  CHECK(layout.microbatches == 4);
  REQUIRE_NOTHROW(check_train_options(layout));
  TrainOptions zero_bubble;
  REQUIRE(parse({"--model", "gpt", "--pp", "2", "--pp-schedule", "zb-h1", "--microbatches", "4"}, zero_bubble) == "");
  CHECK(zero_bubble.pp_schedule == "zb-h1");
  REQUIRE_NOTHROW(check_train_options(zero_bubble));
  TrainOptions graphed;
  REQUIRE(parse({"--cuda-graph", "--lr-schedule", "constant", "--amp", "bf16"}, graphed) == "");
  REQUIRE(graphed.cuda_graph);
  REQUIRE_NOTHROW(check_train_options(graphed));
  TrainOptions fine;
  REQUIRE(parse({"--save", "c-{step}", "--checkpoint-every", "5", "--keep-checkpoints", "3"}, fine) == "");
  REQUIRE(fine.checkpoint_every == 5);
  REQUIRE(fine.keep_checkpoints == 3);
  REQUIRE_NOTHROW(check_train_options(fine));
}

TEST_CASE("--model gpt: AdamW at lr 1e-3 unless --optimizer or --lr are given; --sample needs --resume") {
  auto parsed = [](std::vector<std::string> args) {
    TrainOptions o;
    CLI::App app;
    add_train_flags(app, o);
    args.insert(args.begin(), "train");
    std::vector<const char*> argv;
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
    apply_language_model_defaults(app, o);
    return o;
  };
  const TrainOptions gpt = parsed({"--model", "gpt", "--gpt-size", "tiny", "--block-size", "32"});
  CHECK(gpt.optimizer == "adamw");
  CHECK(gpt.lr == 1e-3);
  CHECK(gpt.gpt_size == "tiny");
  CHECK(gpt.block_size == 32);
  const TrainOptions given = parsed({"--model", "gpt", "--optimizer", "sgd", "--lr", "0.1"});
  CHECK(given.optimizer == "sgd");
  CHECK(given.lr == 0.1);
  CHECK(parsed({"--model", "mlp"}).optimizer == "sgd");  // image models keep theirs
  CHECK_THROWS_WITH(check_train_options(parsed({"--model", "gpt", "--sample", "10"})),
                    Contains("--sample prints text sampled from a checkpoint: give it with --resume"));
  CHECK_THROWS_WITH(check_train_options(parsed({"--model", "mlp", "--sample", "10", "--resume", "c"})),
                    Contains("--sample needs a language model (--model gpt), not --model mlp"));
  TrainOptions bad;
  CHECK_THAT(parse({"--gpt-size", "huge"}, bad), Contains("--gpt-size"));
}
