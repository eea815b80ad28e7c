// Memory per GPU against hand-computed bytes for a 1000-parameter workload on 8 GPUs
// (2 nodes of 4), so each term of sim/gpu_memory.h is checked on its own.

#include "sim/gpu_memory.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace compopt::sim
