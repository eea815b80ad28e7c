// Memory per GPU against hand-computed bytes for a 1000-parameter workload on 8 GPUs
// (2 nodes of 4), so each term of sim/gpu_memory.h is checked on its own.

#include "sim/gpu_memory.h"

#include <gtest/gtest.h>

#include <optional>

#include "net_models/model_shapes.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

StepConfig small(const std::string& optimizer, net::Precision compute = net::Precision::kFp16,
                 const std::string& gpu = "") {
  net::WorkloadSpec w;
  w.name = "small";
  w.parameters = 1000;
  w.forward_flops_per_sample = 1e6;
  w.compute_precision = compute;
  w.gradient_precision = net::Precision::kFp16;
  w.activation_bytes_per_sample = 100;
  Scenario s;
  s.workload_spec = w;
  s.cluster = "ethernet-v100-4";  // 4 GPUs per node
  s.gpu = gpu;                    // empty: the cluster's V100-16GB
  s.gpus = 8;
  s.batch_per_gpu = 3;
  s.optimizer = optimizer;
  return resolve_scenario(s);
}

TEST(GpuMemory, AdamInMixedPrecisionByHand) {
  const GpuMemory m = estimate_gpu_memory(small("adam"));
  EXPECT_DOUBLE_EQ(m.weights_bytes, 1000 * 2 + 1000 * 4);  // fp16 copy + fp32 master
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 1000 * 2);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 2 * 4 * 1000);  // m, v
  EXPECT_DOUBLE_EQ(m.activations_bytes, 3 * 100);
  EXPECT_DOUBLE_EQ(m.total_bytes(), 6000 + 2000 + 8000 + 300);
  EXPECT_DOUBLE_EQ(m.gpu_bytes, 16e9);  // V100-16GB
  EXPECT_TRUE(m.fits());
}

TEST(GpuMemory, Fp32ComputeKeepsNoMasterCopy) {
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(small("adam", net::Precision::kFp32)).weights_bytes, 4000);
  EXPECT_DOUBLE_EQ(
      estimate_gpu_memory(small("adam", net::Precision::kTf32, "A100-80GB")).weights_bytes, 4000);
}

TEST(GpuMemory, ErrorFeedbackOfTheFlatAndHierarchicalSchemes) {
  // Flat: m, v + worker buffer n + server buffer n/8.
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(small("onebit-adam")).optimizer_bytes,
                   4 * (2000 + 1000 + 125));
  // 1-bit LAMB: m, v, fresh v, previous m + the same buffers.
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(small("onebit-lamb")).optimizer_bytes,
                   4 * (4000 + 1000 + 125));
  // The 32-bit ablation averages the momentum uncompressed: no error feedback.
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(small("onebit-adam-32bit")).optimizer_bytes, 4 * 2000);
  // Hierarchical: m, b_hat of the node shard n/4, worker n/4, server n/8.
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(small("birder-hierarchical")).optimizer_bytes,
                   4 * (2 * 250 + 250 + 125));
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(small("sgd")).optimizer_bytes, 0);
}

TEST(GpuMemory, ALargeModelDoesNotFit) {
  StepConfig c = small("adam");
  c.workload.parameters = 2'000'000'000;  // 16 B per parameter = 32 GB > 16 GB
  const GpuMemory m = estimate_gpu_memory(c);
  EXPECT_DOUBLE_EQ(m.total_bytes(), 2e9 * 16 + 300);
  EXPECT_FALSE(m.fits());
}

// A Llama-2-7B-like decoder (32 blocks, hidden 4096, 32 heads) at sequence 4096, bf16, one
// sample per GPU. Korthikanti et al. 2022 per block: s*h*(34 + 5*a*s/h) bytes =
// 4096 * 4096 * (34 + 160) = 3.255 GB, 104.15 GB for 32 blocks (the "104 GB");
// FlashAttention keeps no a*s^2 term: 34 * s * h * 32 = 18.25 GB ("about 18"); full
// checkpointing keeps each block's input, 2 * s * h * 32 = 1.07 GB, plus the one block being
// recomputed (18.25 / 32 GB with flash, 104.15 / 32 GB unfused).
StepConfig llama(std::optional<net::AttentionKind> attention, std::optional<bool> checkpointing) {
  const net::ShapeTotals shape = net::transformer_totals({32, 4096, 4096, 32000, true, 32});
  net::WorkloadSpec w;
  w.name = "llama-2-7b-like";
  w.parameters = shape.parameters;
  w.layers = shape.layers;
  w.forward_flops_per_sample = shape.forward_flops_per_sample;
  w.compute_precision = net::Precision::kBf16;
  w.gradient_precision = net::Precision::kBf16;
  w.set_activations(shape);
  w.attention = attention;
  w.activation_checkpointing = checkpointing;
  Scenario s;
  s.workload_spec = w;
  s.cluster = "dgx-h100";
  s.batch_per_gpu = 1;
  return resolve_scenario(s);
}

TEST(GpuMemory, ActivationsUnderFlashAttentionAndCheckpointingByHand) {
  const double sh = 4096.0 * 4096.0;
  const double unfused = 32 * sh * (34 + 5.0 * 32 * 4096 / 4096);
  const double flash = 32 * sh * 34;
  const double inputs = 32 * 2 * sh;
  EXPECT_DOUBLE_EQ(unfused, 104'152'956'928.0);
  EXPECT_DOUBLE_EQ(flash, 18'253'611'008.0);
  // Unset: the ddp profile's (unfused, no checkpointing).
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(llama({}, {})).activations_bytes, unfused);
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(llama(net::AttentionKind::kFlash, {})).activations_bytes,
                   flash);
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(llama(net::AttentionKind::kFlash, true)).activations_bytes,
                   inputs + flash / 32);
  EXPECT_DOUBLE_EQ(estimate_gpu_memory(llama({}, true)).activations_bytes, inputs + unfused / 32);
}

// Checkpointing recomputes each micro-batch's forward inside backward: the step pays one more
// forward, the achieved utilisation (model FLOPs) drops accordingly.
TEST(GpuMemory, CheckpointingChargesOneMoreForward) {
  const StageTiming plain = simulate_step(llama({}, {})).front();
  const StageTiming recomputed = simulate_step(llama({}, true)).front();
  EXPECT_DOUBLE_EQ(recomputed.forward_s, plain.forward_s);
  EXPECT_NEAR(recomputed.backward_compute_s, plain.backward_compute_s + plain.forward_s, 1e-12);
  EXPECT_LT(recomputed.compute_utilization, plain.compute_utilization);
}

}  // namespace
}  // namespace compopt::sim
