#include "sim/implementation_profile.h"

#include <algorithm>
#include <cmath>

namespace compopt::sim {
namespace {

// Adam's step kernels, HBM bytes per parameter (derivations in docs/implementations.md).
// One fused pass over fp32 parameter, gradient, m and v: reads 4 x 4 B, writes 3 x 4 B
// (parameter, m, v).
constexpr double kFusedAdamFp32Bytes = 4 * 4 + 3 * 4;
// ZeRO's step on the fp32 master partition: the fused pass above, then the master copied to
// the 16-bit weights (read 4 B, write 2 B) before the all-gather.
constexpr double kZeroAdamBytes = kFusedAdamFp32Bytes + 4 + 2;
// DeepSpeed 2020, unfused fp16 step with fp32 master weights: measured, not derived. 1-bit
// Adam's mean optimizer step of BERT-Large, 67.27 ms on a V100 (900 GB/s) for 340 M
// parameters (Tang et al. 2021, sec. 4).
constexpr double kDeepSpeed2020AdamBytes = 67.27e-3 * 900e9 / 340e6;

constexpr double kDdpBucketBytes = 25.0 * 1024 * 1024;  // bucket_cap_mb = 25
constexpr double kDeepSpeedBucketElements = 5e8;        // allreduce / reduce bucket size

const std::string kDdpSource =
    "PyTorch DistributedDataParallel docs "
    "(https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html) "
    "and Li et al., 'PyTorch Distributed', VLDB 2020: gradients are allreduced in buckets of "
    "bucket_cap_mb (default 25) as backward produces them, overlapping the rest of backward";
const std::string kNoSyncSource =
    "pytorch/pytorch PR 21736 (S. Li, 2019), DistributedDataParallel.no_sync(): inside the "
    "context no gradient is synchronised; the backward run after leaving it synchronises the "
    "accumulated gradients, so only that last micro-batch's backward can hide the allreduce";
const std::string kEngineSource =
    "DeepSpeed deepspeed/runtime/engine.py (2020): backward() calls allreduce_gradients() at the "
    "gradient accumulation boundary only, after the whole backward, in buckets of "
    "MEMORY_OPT_ALLREDUCE_SIZE = 5e8 elements";
const std::string kOneBitSource =
    "DeepSpeed 1-bit Adam tutorial (https://www.deepspeed.ai/tutorials/onebit-adam/, updated "
    "2021-03-04) and deepspeed/runtime/comm/nccl.py: the NCCL backend's compressed allreduce is "
    "an all-to-all of the packed signs with an all-gather of the scales, then an all-gather of "
    "the server's signs and scales";
const std::string kZeroPaperSource =
    "Rajbhandari, Rasley, Ruwase, He, 'ZeRO: Memory Optimizations Toward Training Trillion "
    "Parameter Models', SC 2020 (arXiv:1910.02054): mixed-precision Adam holds 2 + 2 + K bytes "
    "per parameter (16-bit weights, 16-bit gradients, K = 12: fp32 master, m, v); stage 1 "
    "partitions the K bytes, stage 2 also the gradients, stage 3 also the weights; stages 1 and 2 "
    "move the same volume as an allreduce (reduce-scatter of gradients, all-gather of weights), "
    "stage 3 1.5x (weights all-gathered in forward and again in backward)";
const std::string kZeroAccumulationSource =
    "DeepSpeed deepspeed/runtime/engine.py, allreduce_gradients(): with partitioned gradients "
    "(ZeRO stage 2 and 3) the engine reduces them on every micro-batch, not only at the "
    "gradient accumulation boundary";
const std::string kZeroConfigSource =
    "DeepSpeed deepspeed/runtime/zero/config.py (DeepSpeedZeroConfig): reduce_bucket_size "
    "defaults to 5e8 elements; overlap_comm left unset is true for stage 3 only";
const std::string kFsdpSource =
    "Zhao et al., 'PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel', VLDB 2023: "
    "FULL_SHARD shards weights, gradients and optimizer state as ZeRO-3 does, all-gathering "
    "weights before forward and backward and reduce-scattering gradients";

ImplementationProfile ddp() {
  ImplementationProfile p;
  p.name = "ddp";
  p.help = "PyTorch DistributedDataParallel: bucketed allreduce behind backward, fused AdamW";
  p.issue = OverlapMode::kAuto;
  p.issue_text = "gradient allreduce bucketed behind backward; optimizer-formed vectors after it";
  p.accumulation_text = "no_sync on all but the last micro-batch: only its backward hides comm";
  p.bucket_bytes = kDdpBucketBytes;
  p.compressed_allreduce_text = "compopt's compressed allreduce (all-to-all + all-gather)";
  p.adam_step_bytes_per_param = kFusedAdamFp32Bytes;
  p.step_kernel_text = "fused AdamW, fp32 params: read p, g, m, v (16 B), write p, m, v (12 B)";
  p.sources = {kDdpSource, kNoSyncSource};
  return p;
}

ImplementationProfile deepspeed_2020() {
  ImplementationProfile p;
  p.name = "deepspeed-2020";
  p.aliases = {"deepspeed"};
  p.help = "DeepSpeed's engine of the 1-bit Adam / LAMB papers: allreduce after backward";
  p.issue = OverlapMode::kOff;
  p.issue_text = "every stage after backward (the engine's allreduce_gradients)";
  p.accumulation_text = "one sync after the last micro-batch's backward, none overlapped";
  p.bucket_elements = kDeepSpeedBucketElements;
  p.compressed_allreduce_text = "NCCL backend: all-to-all of signs + all-gather of scales/signs";
  p.adam_step_bytes_per_param = kDeepSpeed2020AdamBytes;
  p.step_kernel_text =
      "unfused fp16 step with fp32 master weights: measured, 67.27 ms x 900 GB/s / 340 M";
  p.sources = {kEngineSource, kOneBitSource};
  return p;
}

// ZeRO stage 1, 2 or 3 with DeepSpeed's defaults.
ImplementationProfile zero(int stage) {
  ImplementationProfile p;
  p.name = "zero-" + std::to_string(stage);
  if (stage == 3) p.aliases = {"fsdp"};
  p.zero_stage = stage;
  p.sharded = {.parameters = stage >= 3, .gradients = stage >= 2, .optimizer = true};
  p.gathers_parameters = stage >= 3;
  p.reduces_every_micro_batch = stage >= 2;
  p.help = stage == 1   ? "DeepSpeed ZeRO-1: optimizer state sharded"
           : stage == 2 ? "DeepSpeed ZeRO-2: optimizer state and gradients sharded"
                        : "DeepSpeed ZeRO-3 / PyTorch FSDP: weights, gradients, state sharded";
  p.issue = stage >= 3 ? OverlapMode::kAuto : OverlapMode::kOff;
  p.issue_text = stage >= 3 ? "reduce-scatter bucketed behind backward (overlap_comm true)"
                            : "reduce-scatter after backward (overlap_comm false)";
  p.accumulation_text = stage >= 2 ? "gradients reduce-scattered after every micro-batch's backward"
                                   : "one reduce-scatter at the accumulation boundary";
  p.bucket_elements = kDeepSpeedBucketElements;
  p.compressed_allreduce_text = "compopt's compressed allreduce (all-to-all + all-gather)";
  p.adam_step_bytes_per_param = kZeroAdamBytes;
  p.step_kernel_text =
      "fused Adam on the fp32 master shard (28 B) + copy to 16-bit weights (6 B), 1/world of n";
  p.sources = {kZeroPaperSource, kZeroConfigSource};
  if (stage >= 2) p.sources.push_back(kZeroAccumulationSource);
  if (stage >= 3) p.sources.push_back(kFsdpSource);
  return p;
}

}  // namespace

const Registry<ImplementationProfile>& implementation_registry() {
  static const Registry<ImplementationProfile> registry = [] {
    Registry<ImplementationProfile> r("implementation");
    r.add(ddp());
    r.add(deepspeed_2020());
    for (int stage = 1; stage <= 3; ++stage) r.add(zero(stage));
    return r;
  }();
  return registry;
}

const ImplementationProfile& implementation_profile(std::string_view name) {
  return implementation_registry().get(name);
}

std::vector<std::string> implementation_names() { return implementation_registry().names(); }

const char* attention_kind_name(AttentionKind kind) {
  return kind == AttentionKind::kFlash ? "flash" : "unfused";
}

int default_bucket_count(const ImplementationProfile& profile, double elements, int wire_bytes) {
  const double buckets = profile.bucket_elements > 0 ? elements / profile.bucket_elements
                                                     : elements * wire_bytes / profile.bucket_bytes;
  return std::max(1, static_cast<int>(std::ceil(buckets)));
}

}  // namespace compopt::sim
