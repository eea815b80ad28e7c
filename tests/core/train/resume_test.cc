// Exact resume: a run continued from a checkpoint (through the file format)
// reproduces the uninterrupted run's records, parameters and final optimizer
// states bit for bit, on the Local backend and on the simulator (where a fixed
// compute charge makes time_s reproducible, so it is compared too).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <mutex>

#include "core/optim/optimizer_factory.h"
#include "core/tasks/logistic_regression.h"
#include "core/train/checkpoint.h"
#include "core/train/local_training.h"
#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "sim/backend/sim_world.h"
#include "tests/support/same_step_record.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

constexpr int kRanks = 4;
constexpr int kRanksPerNode = 2;
constexpr int64_t kSteps = 16;

// Bitwise, except time_s only when `time` (within a few ulps, see below) and
// the byte counts only when `bytes`.
void expect_same(const StepRecord& a, const StepRecord& b, bool time, const std::string& what,
                 bool bytes = true) {
  SCOPED_TRACE(what + " step " + std::to_string(a.step));
  testing_support::expect_same_math(a, b, bytes);
  if (time && bytes) {
    // SimGrid's clock runs on across the simulations of one process and
    // SimTransport::now() subtracts the clock at the start of each, so runs
    // in one test process differ in the last bits (a process running one
    // simulation, as `compopt train` does, starts at exactly 0).
    EXPECT_NEAR(a.time_s, b.time_s, 1e-13 * std::max(1.0, std::abs(b.time_s)));
  }
}

struct Case {
  std::string optimizer;
  HyperParamMap params;
  int64_t resume_at;  // also the checkpoint interval
  bool sim;
  // birder-hierarchical builds its node sub-communicators (a split and an
  // allgather) at its first step after a resume again: that one-off traffic
  // is counted a second time, so bytes (and simulated time) are not compared.
  bool resplits = false;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.optimizer + "_at" + std::to_string(info.param.resume_at) +
                     (info.param.sim ? "_sim" : "_local");
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

// One training run; keeps every checkpoint (as written to a file and read back)
// and every rank's parameters after the last step.
struct TrainingRun {
  TrainResult result;
  std::vector<Checkpoint> checkpoints;
  std::vector<std::vector<float>> final_params;
};

class ResumeTest : public ::testing::TestWithParam<Case> {
 protected:
  ResumeTest()
      : task_({.dimension = 30, .train_size = 2048, .test_size = 64, .separable = false}) {}

  TrainOptions options(int64_t checkpoint_every) const {
    TrainOptions o{.batch_per_rank = 64,  // 8 steps per epoch: the runs cross an epoch
                   .steps = kSteps,
                   .eval_every = 4,
                   .seed = 5,
                   .checkpoint_every = checkpoint_every};
    if (GetParam().sim) o.compute = ComputeCharge{.pass_s = 2e-3};
    return o;
  }

  OptimizerFactory factory() const {
    HyperParamMap hp = GetParam().params;
    hp.emplace("lr", "0.05");
    const std::string name = GetParam().optimizer;
    return [name, hp](const ParamLayout& layout) { return make_optimizer(name, hp, layout); };
  }

  TrainingRun run(int64_t checkpoint_every,
                  std::shared_ptr<const Checkpoint> resume = nullptr) const {
    TrainingRun out;
    out.final_params.resize(kRanks);
    std::mutex mutex;
    TrainHooks hooks;
    hooks.after_step = [&](int rank, int64_t step, std::span<const float> p) {
      if (step != kSteps) return;
      std::lock_guard lock(mutex);
      out.final_params[static_cast<size_t>(rank)].assign(p.begin(), p.end());
    };
    CheckpointOptions checkpoints;
    checkpoints.write = [&](Checkpoint& c) {
      c.identity = {{"case", GetParam().optimizer}};
      const auto bytes = encode_checkpoint(c);
      out.checkpoints.push_back(decode_checkpoint(bytes, "memory"));
    };
    checkpoints.resume = std::move(resume);
    if (GetParam().sim) {
      net::ClusterSpec spec = net::cluster_preset("ethernet-v100-4");
      spec.gpus_per_node = kRanksPerNode;
      spec = net::with_gpus(spec, kRanks);
      const RankLauncher launch = [spec](const std::function<void(Communicator&)>& fn) {
        sim::run_sim(spec, kRanks, kRanksPerNode, fn);
      };
      out.result =
          train_with(launch, task_, factory(), options(checkpoint_every), hooks, checkpoints);
    } else {
      out.result =
          train_local(task_, factory(), options(checkpoint_every),
                      {.ranks = kRanks, .gpus_per_node = kRanksPerNode}, hooks, checkpoints);
    }
    return out;
  }

  LogisticRegressionTask task_;
};

TEST_P(ResumeTest, ContinuesBitForBit) {
  const Case& c = GetParam();
  const bool time = c.sim;  // the Local clock is the wall clock
  const TrainingRun plain = run(0);
  const TrainingRun full = run(c.resume_at);
  ASSERT_EQ(plain.result.records.size(), static_cast<size_t>(kSteps));
  EXPECT_TRUE(plain.checkpoints.empty());
  // Taking checkpoints changes nothing (no communication, no simulated time).
  ASSERT_EQ(full.result.records.size(), plain.result.records.size());
  for (size_t i = 0; i < plain.result.records.size(); ++i) {
    expect_same(full.result.records[i], plain.result.records[i], time, "checkpointing run");
  }
  // Checkpoints every resume_at steps and after the last step.
  ASSERT_GE(full.checkpoints.size(), 2u);
  EXPECT_EQ(full.checkpoints.front().step, c.resume_at);
  EXPECT_EQ(full.checkpoints.back().step, kSteps);
  for (const Checkpoint& k : full.checkpoints) {
    EXPECT_EQ(k.world_size(), kRanks);
    ASSERT_EQ(k.records.size(), static_cast<size_t>(k.step));
  }

  auto from = std::make_shared<Checkpoint>(full.checkpoints.front());
  const TrainingRun resumed = run(c.resume_at, from);
  ASSERT_EQ(resumed.result.records.size(), static_cast<size_t>(kSteps));
  for (size_t i = 0; i < plain.result.records.size(); ++i) {
    expect_same(resumed.result.records[i], plain.result.records[i], time, "resumed run",
                !c.resplits);
  }
  if (c.resplits) {
    // The extra bytes are the setup's, once: constant from the first resumed step on.
    const auto& r = resumed.result.records;
    const auto& p = plain.result.records;
    const auto first = static_cast<size_t>(c.resume_at);
    EXPECT_EQ(r[first - 1].bytes_sent, p[first - 1].bytes_sent);
    const double extra = r[first].bytes_sent - p[first].bytes_sent;
    EXPECT_GT(extra, 0);
    for (size_t i = first; i < r.size(); ++i) EXPECT_EQ(r[i].bytes_sent - p[i].bytes_sent, extra);
  }
  EXPECT_EQ(resumed.result.params, plain.result.params);
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(resumed.final_params[static_cast<size_t>(r)],
              full.final_params[static_cast<size_t>(r)])
        << "rank " << r;
  }
  // The final checkpoints agree in every rank's state: parameters, optimizer
  // state (moments, error feedback, stage), data position, bytes, clock.
  const Checkpoint& a = resumed.checkpoints.back();
  const Checkpoint& b = full.checkpoints.back();
  ASSERT_EQ(a.step, kSteps);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    RankCheckpoint x = a.ranks[r], y = b.ranks[r];
    if (time && !c.resplits) {
      EXPECT_NEAR(x.clock_s, y.clock_s, 1e-13);
    }
    x.clock_s = y.clock_s = 0;
    if (c.resplits) {
      x.bytes_sent = y.bytes_sent = x.bytes_sent_inter_node = y.bytes_sent_inter_node = 0;
    }
    EXPECT_EQ(x.optimizer, y.optimizer) << "rank " << r;
    EXPECT_EQ(x, y) << "rank " << r;
  }
  // Compressed optimizers checkpoint their error feedback once compressing.
  if ((c.params.count("freeze_step") && c.optimizer != "onebit-adam-32bit") ||
      c.optimizer == "birder") {
    EXPECT_TRUE(b.ranks[1].optimizer.tensors.count(c.optimizer == "birder" ? "update.server_ef"
                                                                           : "momentum.worker_ef"));
  }
}

const std::vector<Case> kCases = [] {
  std::vector<Case> cases;
  for (const bool sim : {false, true}) {
    // 1-bit Adam / LAMB freeze at step 8: resume in warmup (5) and in compression (10).
    for (const int64_t at : {5, 10}) {
      cases.push_back({"onebit-adam", {{"freeze_step", "8"}}, at, sim});
      cases.push_back({"onebit-lamb", {{"freeze_step", "8"}}, at, sim});
    }
    cases.push_back({"birder", {}, 8, sim});  // at an epoch boundary
    cases.push_back({"birder", {}, 6, sim});
  }
  // Every other optimizer on the Local backend.
  cases.push_back({"onebit-adam", {{"threshold", "0.5"}}, 6, false});  // variance-freeze detector
  cases.push_back({"onebit-adam-32bit", {{"freeze_step", "4"}}, 6, false});
  cases.push_back({"naive-onebit-adam", {}, 6, false});
  cases.push_back({"adam", {{"bias_correction", "true"}}, 7, false});
  cases.push_back({"lamb", {}, 7, false});
  cases.push_back({"sgd", {}, 7, false});
  cases.push_back({"momentum-sgd", {{"nesterov", "true"}}, 7, false});
  cases.push_back({"ef-momentum-sgd", {}, 7, false});
  cases.push_back({"doublesqueeze", {{"beta", "0.9"}}, 7, false});
  cases.push_back({"birder", {{"amsgrad_max", "true"}, {"amsgrad_start", "3"}}, 7, false});
  cases.push_back({"birder-hierarchical", {}, 6, false, /*resplits=*/true});
  cases.push_back({"local-sgd", {{"tau", "4"}}, 6, false});  // between synchronizations
  cases.push_back({"local-momentum-sgd", {{"tau", "3"}}, 7, false});
  cases.push_back({"diloco", {{"inner_steps", "4"}}, 6, false});
  // A fragment is sent at step 6 and merged at 7: the checkpoint holds it in flight.
  for (const bool sim : {false, true}) {
    cases.push_back({"streaming-diloco", {{"inner_steps", "4"}, {"fragments", "2"}}, 6, sim});
  }
  return cases;
}();

INSTANTIATE_TEST_SUITE_P(Optimizers, ResumeTest, ::testing::ValuesIn(kCases), case_name);

// Mismatched checkpoints are refused before any step, naming the mismatch.
class ResumeMismatch : public ::testing::Test {
 protected:
  ResumeMismatch()
      : task_({.dimension = 30, .train_size = 2048, .test_size = 64, .separable = false}) {
    CheckpointOptions keep;
    keep.write = [this](Checkpoint& c) {
      if (c.step == 5) checkpoint_ = c;
    };
    train_local(task_, factory("onebit-adam", {{"freeze_step", "3"}}), options_,
                {.ranks = kRanks, .gpus_per_node = kRanksPerNode}, {}, keep);
  }
  static OptimizerFactory factory(const std::string& name, HyperParamMap hp) {
    hp.emplace("lr", "0.05");
    return [name, hp](const ParamLayout& layout) { return make_optimizer(name, hp, layout); };
  }
  std::string refusal(const Task& task, const OptimizerFactory& f, const TrainOptions& o, int ranks,
                      const Checkpoint& c) const {
    try {
      check_resume(c, task, f, o, ranks);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "accepted";
  }
  LogisticRegressionTask task_;
  TrainOptions options_{
      .batch_per_rank = 64, .steps = 12, .eval_every = 4, .seed = 5, .checkpoint_every = 5};
  Checkpoint checkpoint_;
};

TEST_F(ResumeMismatch, AcceptsItsOwnRun) {
  ASSERT_EQ(checkpoint_.step, 5);
  EXPECT_EQ(
      refusal(task_, factory("onebit-adam", {{"freeze_step", "3"}}), options_, kRanks, checkpoint_),
      "accepted");
}

TEST_F(ResumeMismatch, NamesWhatDiffers) {
  const auto onebit = factory("onebit-adam", {{"freeze_step", "3"}});
  EXPECT_THAT(refusal(task_, factory("adam", {}), options_, kRanks, checkpoint_),
              HasSubstr("rank 0: adam: load_state got the state of another optimizer"));
  EXPECT_THAT(refusal(task_, onebit, options_, 2, checkpoint_),
              HasSubstr("the checkpoint holds 4 ranks, this run has 2"));
  LogisticRegressionTask wider({.dimension = 31, .train_size = 2048, .test_size = 64});
  EXPECT_THAT(refusal(wider, onebit, options_, kRanks, checkpoint_),
              HasSubstr("rank 0 has 31 parameters, the task has 32"));
  EXPECT_THAT(refusal(task_, factory("onebit-adam", {{"freeze_step", "3"}, {"seed", "9"}}),
                      options_, kRanks, checkpoint_),
              HasSubstr("another seed"));
  TrainOptions shorter = options_;
  shorter.steps = 5;
  EXPECT_THAT(refusal(task_, onebit, shorter, kRanks, checkpoint_),
              HasSubstr("resume from step 5 of a run of 5 steps"));
  TrainOptions other_batch = options_;
  other_batch.batch_per_rank = 32;  // 16 steps per epoch: step 5 ends at offset 160, not 320
  EXPECT_THAT(refusal(task_, onebit, other_batch, kRanks, checkpoint_),
              HasSubstr("data position (epoch 0, offset 320) does not match step 5"));
  Checkpoint lagging = checkpoint_;
  lagging.ranks[2].optimizer.scalars["step"] = {4};
  EXPECT_THAT(refusal(task_, onebit, options_, kRanks, lagging),
              HasSubstr("rank 2: optimizer state at step 4, checkpoint at step 5"));
  Checkpoint short_ef = checkpoint_;
  short_ef.ranks[1].optimizer.tensors["m"].pop_back();
  EXPECT_THAT(refusal(task_, onebit, options_, kRanks, short_ef),
              HasSubstr("tensor 'm' has 30 elements, expected 31"));
}

TEST_F(ResumeMismatch, TrainingRefusesAWorldOfAnotherSize) {
  auto c = std::make_shared<Checkpoint>(checkpoint_);
  CheckpointOptions resume;
  resume.resume = c;
  EXPECT_THAT(
      [&] {
        train_local(task_, factory("onebit-adam", {{"freeze_step", "3"}}), options_, {.ranks = 2},
                    {}, resume);
      },
      ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("holds 4 ranks, this run has 2")));
}

}  // namespace
}  // namespace compopt
