// The compute charge of `compopt train` on the simulator (experiments/train/sim_compute.h): the
// task's FLOPs on the run's GPU, a stand-in workload's compute and wire scale, and the keys'
// refusals. Expectations come from the GPU preset's own figures and the task's shape.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "experiments/train/train_config.h"
#include "net_models/compute_model.h"
#include "net_models/gpu_spec.h"
#include "net_models/workload.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

// 4 ranks x batch 8 on one node of the ethernet V100 preset; quadratic d = 1000.
std::vector<std::string> quadratic_on_sim(std::vector<std::string> more) {
  std::vector<std::string> sets = {"run.backend=sim",      "run.cluster=ethernet-v100-4",
                                   "run.ranks=4",          "run.gpus_per_node=4",
                                   "run.batch_per_rank=8", "run.steps=10",
                                   "task.name=quadratic",  "task.dimension=1000"};
  sets.insert(sets.end(), more.begin(), more.end());
  return sets;
}

std::string error_of(const std::vector<std::string>& sets) {
  try {
    load_train_config("", sets);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

// pass = forward + backward, each one layer of batch x 2d FLOPs (Task::flops) in fp32 on the
// cluster's V100; step = parameters x the default step bytes / HBM bandwidth.
TEST(SimCompute, ModelIsTheTaskFlopsOnTheClusterGpu) {
  const TrainConfig c = load_train_config("", quadratic_on_sim({}));
  ASSERT_EQ(c.compute.mode, "model");
  const net::GpuSpec v100 = net::gpu_preset("V100-16GB");
  EXPECT_EQ(c.compute.gpu.name, v100.name);
  const double per_pass = net::pass_seconds(v100, net::Precision::kFp32, 8 * 2000, 1);
  EXPECT_DOUBLE_EQ(c.compute.charge.pass_s, 2 * per_pass);
  const double hbm = v100.hbm_gbps * 1e9;
  EXPECT_DOUBLE_EQ(c.compute.charge.step_s, 1000 * net::WorkloadSpec{}.step_bytes_per_param / hbm);
  EXPECT_DOUBLE_EQ(c.compute.charge.compression_s,
                   1000 * net::WorkloadSpec{}.compress_bytes_per_element / hbm);
  ASSERT_TRUE(c.compute.train_charge().has_value());
  EXPECT_EQ(c.compute.wire_scale_of(Stage::kCompression), 1.0);
  EXPECT_EQ(c.compute.to_json()["gpu"], "V100-16GB");
}

TEST(SimCompute, GpuAndPrecisionKeysChangeThePeak) {
  const TrainConfig c =
      load_train_config("", quadratic_on_sim({"run.gpu=A100", "run.compute_precision=tf32"}));
  const net::GpuSpec a100 = net::gpu_preset("A100-80GB");
  EXPECT_EQ(c.compute.gpu.name, "A100-80GB");
  const double per_pass = net::pass_seconds(a100, net::Precision::kTf32, 8 * 2000, 1);
  EXPECT_DOUBLE_EQ(c.compute.charge.pass_s, 2 * per_pass);
  EXPECT_LT(per_pass, net::pass_seconds(a100, net::Precision::kFp32, 8 * 2000, 1));
}

// A stand-in charges the workload's own compute and scales the wire by the parameter ratio
// (halved outside compression for its fp16 gradients).
TEST(SimCompute, StandInChargesTheWorkloadAndScalesTheWire) {
  const TrainConfig c = load_train_config("", quadratic_on_sim({"run.stand_in=bert-large"}));
  const net::WorkloadSpec bert = net::workload_preset("bert-large-seq128");
  const net::ComputeTimes t =
      net::compute_times(bert, net::gpu_preset("V100-16GB"), bert.default_batch_per_gpu, 1);
  EXPECT_DOUBLE_EQ(c.compute.charge.pass_s, t.forward_s + t.backward_s);
  EXPECT_DOUBLE_EQ(c.compute.charge.step_s, t.step_s);
  EXPECT_DOUBLE_EQ(c.compute.charge.compression_s, t.compress_s);
  EXPECT_EQ(c.compute.stand_in_batch, bert.default_batch_per_gpu);
  EXPECT_DOUBLE_EQ(c.compute.wire_scale_of(Stage::kCompression), 340e6 / 1000);
  EXPECT_DOUBLE_EQ(c.compute.wire_scale_of(Stage::kWarmup), 340e6 / 1000 / 2);
  EXPECT_EQ(c.compute.to_json()["stand_in"], "bert-large-seq128");

  const TrainConfig b =
      load_train_config("", quadratic_on_sim({"run.stand_in=bert-large", "run.stand_in_batch=4"}));
  EXPECT_LT(b.compute.charge.pass_s, c.compute.charge.pass_s);
  EXPECT_DOUBLE_EQ(b.compute.charge.step_s, c.compute.charge.step_s);
}

TEST(SimCompute, MeasuredAndLocalChargeNothingModeled) {
  const TrainConfig m = load_train_config("", quadratic_on_sim({"run.compute=measured"}));
  EXPECT_FALSE(m.compute.train_charge().has_value());
  EXPECT_EQ(m.compute.to_json()["mode"], "measured");
  const TrainConfig local = load_train_config("", {"task.name=quadratic", "run.steps=3"});
  EXPECT_FALSE(local.compute.train_charge().has_value());
  EXPECT_EQ(local.compute.to_json()["mode"], "wall_clock");
}

// compute = fixed charges exactly the given seconds, the compression part in compression steps.
TEST(SimCompute, FixedChargesTheGivenSeconds) {
  const TrainConfig c = load_train_config(
      "", quadratic_on_sim({"run.compute=fixed", "run.charge_pass_s=0.25", "run.charge_step_s=0.5",
                            "run.charge_compression_s=0.125"}));
  ASSERT_TRUE(c.compute.train_charge().has_value());
  EXPECT_EQ(c.compute.train_charge()->pass_s, 0.25);
  EXPECT_EQ(c.compute.train_charge()->step_s, 0.5);
  EXPECT_EQ(c.compute.train_charge()->compression_s, 0.125);
  EXPECT_EQ(c.compute.describe(), "fixed pass 0.25 step 0.5 compression 0.125");
  const TrainConfig zero = load_train_config("", quadratic_on_sim({"run.compute=fixed"}));
  EXPECT_EQ(zero.compute.train_charge()->pass_s + zero.compute.train_charge()->step_s, 0.0);
}

TEST(SimCompute, BadValuesNameTheKey) {
  EXPECT_THAT(error_of(quadratic_on_sim({"run.compute=fast"})),
              HasSubstr("key 'run.compute' = 'fast'"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.gpu=K80"})), HasSubstr("key 'run.gpu' = 'K80'"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.compute_precision=fp9"})),
              HasSubstr("key 'run.compute_precision' = 'fp9'"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.compute_precision=fp8"})), HasSubstr("no fp8 unit"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.stand_in=bert-huge"})),
              HasSubstr("key 'run.stand_in' = 'bert-huge'"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.stand_in_batch=4"})),
              HasSubstr("'run.stand_in_batch' is set without run.stand_in"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.stand_in=bert-large", "run.stand_in_batch=0"})),
              HasSubstr("run.stand_in_batch"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.compute=measured", "run.gpu=A100"})),
              HasSubstr("key 'run.gpu' applies to run.compute = model only"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.compute=fixed", "run.charge_pass_s=-1"})),
              HasSubstr("key 'run.charge_pass_s' = -1 is out of range"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.compute=fixed", "run.gpu=A100"})),
              HasSubstr("key 'run.gpu' applies to run.compute = model only"));
  EXPECT_THAT(error_of(quadratic_on_sim({"run.charge_step_s=0.1"})),
              HasSubstr("key 'run.charge_step_s' applies to run.compute = fixed only"));
  EXPECT_THAT(error_of({"task.name=quadratic", "run.charge_step_s=0.1"}),
              HasSubstr("applies to run.backend = sim only"));
  EXPECT_THAT(error_of({"task.name=quadratic", "run.compute=model"}),
              HasSubstr("key 'run.compute' applies to run.backend = sim only"));
  EXPECT_THAT(error_of({"task.name=quadratic", "run.stand_in=bert-large"}),
              HasSubstr("key 'run.stand_in' applies to run.backend = sim only"));
}

}  // namespace
}  // namespace compopt::cli
