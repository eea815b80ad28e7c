// Implementation profiles (sim/implementation_profile.h): the registry, each entry's step
// kernel bytes against its hand derivation, the accumulation semantics of the step simulator
// per profile against max(c, B c - (B-1) beta_last / B), the ZeRO-3 parameter all-gather and
// the sharded memory of the ZeRO stages against the ZeRO paper's worked example.

#include "sim/implementation_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/util/error.h"
#include "sim/gpu_memory.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

TEST(ImplementationProfile, UnknownNameListsTheKnownOnes) {
  try {
    implementation_profile("megatron");
    FAIL() << "no throw";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_THAT(what, HasSubstr("unknown implementation 'megatron'"));
    for (const char* name : {"ddp", "deepspeed-2020", "zero-1", "zero-2", "zero-3"})
      EXPECT_THAT(what, HasSubstr(name));
  }
  EXPECT_EQ(implementation_profile("deepspeed").name, "deepspeed-2020");
  EXPECT_EQ(implementation_profile("fsdp").name, "zero-3");
  Scenario s;
  s.implementation = "none";
  EXPECT_THROW(resolve_scenario(s), InvalidArgument);
}

TEST(ImplementationProfile, StepKernelBytesAsDerivedFromTheKernelsReadsAndWrites) {
  // Fused AdamW in fp32: reads parameter, gradient, m, v; writes parameter, m, v.
  EXPECT_DOUBLE_EQ(implementation_profile("ddp").adam_step.bytes_per_param, 4.0 * 7);
  // ZeRO: the same on the fp32 master shard, then fp32 master -> 16-bit weights.
  for (const char* zero : {"zero-1", "zero-2", "zero-3"})
    EXPECT_DOUBLE_EQ(implementation_profile(zero).adam_step.bytes_per_param, 4.0 * 7 + 4 + 2);
  // DeepSpeed 2020: 1-bit Adam's measured 67.27 ms step of 340 M parameters on 900 GB/s.
  EXPECT_NEAR(implementation_profile("deepspeed-2020").adam_step.bytes_per_param, 178.07, 0.01);
  for (const ImplementationProfile& p : implementation_registry().entries())
    EXPECT_FALSE(p.sources.empty()) << p.name;
}

// Each optimizer's kernel per profile, counted by hand from the code (fp32 4 B, fp16 2 B):
//   FusedLamb: part 1 reads g, p, m, v, writes m, v; part 3 reads p, m, v, writes p: 10 x 4;
//   deepspeed-2020 LAMB: flatten fp16 g (2 + 2), fp32 norm of it (2 + 4 + 4), FusedLamb with
//     fp16 g (-2) and the fp16 p_copy written (+2), fp32 -> fp16 copy (4 + 2): 60;
//   torch.optim.SGD with momentum and weight decay: g + wd p (12), buf *= m (8), buf += (12),
//     p -= lr buf (12): 44;
//   BertAdam: clip (4 + 8), m (8 + 12), v (8 + 16), sqrt, + eps, divide (8 + 8 + 12), weight
//     decay (8 + 12), lr x, negate, add (8 + 8 + 12): 132;
//   ZeRO: the kernel on the master shard + 6 B of copy to the 16-bit weights.
TEST(ImplementationProfile, EachOptimizerIsChargedItsProfilesKernel) {
  struct Case {
    const char* profile;
    const char* optimizer;
    double bytes;
    const char* family;
  };
  const std::vector<Case> cases = {
      {"ddp", "adam", 28, "adam"},
      {"ddp", "lamb", 40, "lamb"},
      {"ddp", "onebit-lamb", 40, "lamb"},
      {"ddp", "sgdm", 44, "momentum-sgd"},
      {"ddp", "bertadam", 132, "bertadam"},
      {"ddp", "birder", 28, "adam"},
      {"deepspeed", "lamb", 60, "lamb"},
      {"deepspeed", "momentum-sgd", 44, "momentum-sgd"},
      {"deepspeed", "bertadam", 132, "bertadam"},
      {"zero-2", "lamb", 46, "lamb"},
      {"zero-3", "bertadam", 138, "bertadam"},
      {"zero-1", "momentum-sgd", 50, "momentum-sgd"},
  };
  for (const Case& c : cases) {
    const ChargedStepKernel k = step_kernel(implementation_profile(c.profile), c.optimizer);
    EXPECT_DOUBLE_EQ(k.kernel.bytes_per_param, c.bytes) << c.profile << " " << c.optimizer;
    EXPECT_EQ(k.family, c.family) << c.profile << " " << c.optimizer;
  }
  // LAMB's kernel stands for the registry's LAMB stage (ratio 68/48), so that stage is charged
  // the kernel itself; Adam's stands for ratio 1.
  EXPECT_DOUBLE_EQ(step_kernel(implementation_profile("ddp"), "lamb").reference_ratio, 68.0 / 48.0);
  EXPECT_DOUBLE_EQ(step_kernel(implementation_profile("ddp"), "adam").reference_ratio, 1.0);
}

StepConfig bert(const std::string& implementation, int grad_accum, OverlapMode overlap,
                int buckets) {
  Scenario s;
  s.cluster = "infiniband-v100-8";
  s.gpus = 16;
  s.batch_per_gpu = 16;
  s.grad_accum = grad_accum;
  s.overlap = overlap;
  s.buckets = buckets;
  s.implementation = implementation;
  return resolve_scenario(s);
}

// DDP with 4 buckets: the exposed time is max(c, 4c - 3 beta_last / 4) with c one bucket's
// allreduce and beta_last the LAST micro-batch's backward, whatever the accumulation.
TEST(ImplementationProfile, DdpHidesCommunicationBehindTheLastMicroBatchOnly) {
  for (int accum : {1, 4}) {
    std::vector<StagePhases> phases;
    const StepConfig c = bert("ddp", accum, OverlapMode::kAuto, 4);
    const StageTiming t = simulate_step(c, &phases).front();
    ASSERT_EQ(phases.front().buckets, 4);
    EXPECT_EQ(t.buckets, 4);
    const double bucket = phases.front().bucket_s;
    const double beta_last = t.backward_compute_s / accum;
    EXPECT_NEAR(t.comm_s, std::max(bucket, 4 * bucket - 3 * beta_last / 4), 1e-12) << accum;
  }
  // The last micro-batch is the same with or without accumulation: so is the exposed time.
  EXPECT_NEAR(simulate_step(bert("ddp", 4, OverlapMode::kAuto, 0)).front().comm_s,
              simulate_step(bert("ddp", 1, OverlapMode::kAuto, 0)).front().comm_s, 1e-12);
}

TEST(ImplementationProfile, DeepSpeed2020ExposesTheWholeAllreduceWhateverTheAccumulation) {
  const double whole = simulate_step(bert("ddp", 1, OverlapMode::kOff, 0)).front().comm_s;
  for (int accum : {1, 4}) {
    const StageTiming t =
        simulate_step(bert("deepspeed-2020", accum, OverlapMode::kAuto, 0)).front();
    EXPECT_NEAR(t.comm_s, whole, 1e-12) << accum;
    EXPECT_EQ(t.buckets, 1);
  }
  // --overlap on still overrides the profile's issue point.
  EXPECT_LT(simulate_step(bert("deepspeed-2020", 1, OverlapMode::kOn, 4)).front().comm_s, whole);
}

TEST(ImplementationProfile, StepTrafficIsTheProfilesAndShardedUnderZero) {
  const StepConfig ddp = bert("ddp", 1, OverlapMode::kOff, 0);
  const double n = static_cast<double>(ddp.workload.parameters);
  const double hbm = ddp.cluster.gpu.hbm_gbps * 1e9;
  EXPECT_NEAR(simulate_step(ddp).front().step_s, n * 28 / hbm, 1e-12);
  EXPECT_NEAR(simulate_step(bert("zero-1", 1, OverlapMode::kOff, 0)).front().step_s,
              n * 34 / hbm / 16, 1e-12);
  // A workload that states its own step traffic keeps it.
  StepConfig stated = ddp;
  stated.workload.step_bytes_per_param = 100;
  stated.workload.step_bytes_stated = true;
  EXPECT_NEAR(simulate_step(stated).front().step_s, n * 100 / hbm, 1e-12);
}

// ZeRO-3 moves 1.5x an allreduce's volume (ZeRO paper): the stage's allreduce (reduce-scatter
// of gradients, all-gather of weights for backward) plus the forward all-gather, half of one.
// On a ring cluster (the all-gather is a ring whatever the allreduce's choice).
TEST(ImplementationProfile, ZeroThreeAddsTheForwardParameterAllGather) {
  auto on_ring = [](const std::string& implementation) {
    StepConfig c = bert(implementation, 1, OverlapMode::kOff, 0);
    c.cluster.allreduce_algorithm = "ring";
    return simulate_step(c).front();
  };
  const StageTiming two = on_ring("zero-2");
  const StageTiming three = on_ring("zero-3");
  EXPECT_NEAR(three.comm_s, 1.5 * two.comm_s, 1e-9 * two.comm_s);
  EXPECT_NEAR(three.bytes_per_gpu, 1.5 * two.bytes_per_gpu, 1e-6 * two.bytes_per_gpu);
  EXPECT_THAT(three.algorithm, HasSubstr("forward parameter all-gather"));
}

// ZeRO-2 and 3 reduce-scatter the gradients after every micro-batch (ZeRO-3 also gathers the
// weights before every micro-batch's forward); a compressed stage, formed in the optimizer
// step, still sends once per step.
TEST(ImplementationProfile, ZeroTwoAndThreeCommunicateOnEveryMicroBatch) {
  for (const char* zero : {"zero-2", "zero-3"}) {
    const double one = simulate_step(bert(zero, 1, OverlapMode::kOff, 0)).front().comm_s;
    EXPECT_NEAR(simulate_step(bert(zero, 4, OverlapMode::kOff, 0)).front().comm_s, 4 * one,
                1e-9 * one)
        << zero;
  }
  const double zero1 = simulate_step(bert("zero-1", 1, OverlapMode::kOff, 0)).front().comm_s;
  EXPECT_NEAR(simulate_step(bert("zero-1", 4, OverlapMode::kOff, 0)).front().comm_s, zero1,
              1e-9 * zero1);
  StepConfig onebit = bert("zero-2", 1, OverlapMode::kAuto, 0);
  onebit.optimizer = "onebit-adam";
  const double compression = simulate_step(onebit).back().comm_s;
  onebit.grad_accum = 4;
  EXPECT_NEAR(simulate_step(onebit).back().comm_s, compression, 1e-9 * compression);
}

// The ZeRO paper's example (Figure 1): 7.5 B parameters, mixed-precision Adam (K = 12) on 64
// ranks: 120 GB per GPU replicated, 31.4 GB with stage 1, 16.6 with stage 2, 1.9 with stage 3.
TEST(ImplementationProfile, ZeroStagesShardMemoryAsThePaperCounts) {
  net::WorkloadSpec w = net::workload_preset("bert-large-seq128");
  w.parameters = 7'500'000'000;
  w.activation_bytes_per_sample = 0;
  w.attention_score_bytes_per_sample = 0;
  w.layer_input_bytes_per_sample = 0;
  Scenario s;
  s.workload_spec = w;
  s.cluster = "infiniband-v100-8";
  s.gpus = 64;
  const double psi = 7.5e9;
  const std::vector<std::pair<std::string, double>> expected = {{"ddp", 16 * psi},
                                                                {"deepspeed-2020", 16 * psi},
                                                                {"zero-1", 4 * psi + 12 * psi / 64},
                                                                {"zero-2", 2 * psi + 14 * psi / 64},
                                                                {"zero-3", 16 * psi / 64}};
  for (const auto& [name, bytes] : expected) {
    s.implementation = name;
    const GpuMemory m = estimate_gpu_memory(resolve_scenario(s));
    EXPECT_NEAR(m.total_bytes(), bytes, 1) << name;
  }
  s.implementation = "zero-1";
  EXPECT_NEAR(estimate_gpu_memory(resolve_scenario(s)).total_bytes() / 1e9, 31.4, 0.01);
  s.implementation = "zero-2";
  EXPECT_NEAR(estimate_gpu_memory(resolve_scenario(s)).total_bytes() / 1e9, 16.6, 0.05);
  s.implementation = "zero-3";
  EXPECT_NEAR(estimate_gpu_memory(resolve_scenario(s)).total_bytes() / 1e9, 1.9, 0.03);
}

}  // namespace
}  // namespace compopt::sim
