#include "sim/implementation_profile.h"

#include <algorithm>
#include <cmath>

#include "core/optim/optimizer_registry.h"

namespace compopt::sim {
namespace {

// The optimizer step's kernels, HBM bytes per parameter, counted from the code each profile
// runs (docs/implementations.md, "Optimizer step kernels"); one measured figure.
constexpr double kFp32 = 4, kFp16 = 2;
// PyTorch's fused / foreach AdamW on fp32 weights: one pass reads parameter, gradient, m and v
// and writes parameter, m and v.
constexpr double kFusedAdamFp32Bytes = 4 * kFp32 + 3 * kFp32;
// ZeRO steps its fp32 master shard, then copies it into the 16-bit weights (read 4, write 2).
constexpr double kZeroMasterCopyBytes = kFp32 + kFp16;
// DeepSpeed 2020, unfused fp16 step with fp32 master weights: measured, not derived. 1-bit
// Adam's mean optimizer step of BERT-Large, 67.27 ms on a V100 (900 GB/s) for 340 M
// parameters (Tang et al. 2021, sec. 4).
constexpr double kDeepSpeed2020AdamBytes = 67.27e-3 * 900e9 / 340e6;
// DeepSpeed's FusedLamb (csrc/lamb/fused_lamb_cuda_kernel.cu), fp32 state: part 1 reads g, p,
// m, v and writes m, v while summing |p|^2 and |update|^2 (16 + 8); part 2 reduces the
// per-block sums (no per-parameter traffic); part 3 reads p, m, v and writes p (12 + 4).
constexpr double kFusedLambBytes = 4 * kFp32 + 2 * kFp32 + 3 * kFp32 + kFp32;
// DeepSpeed's engine runs "Lamb" in fp16 through FP16_UnfusedOptimizer's legacy path
// (deepspeed/runtime/fp16/unfused_optimizer.py, step_fused_lamb; engine.py passes
// fused_lamb_legacy for LAMB): the fp16 gradients flattened (read 2, write 2), the flat copy's
// norm as fp32 (p.data.float().norm(): read 2, write 4, read 4), FusedLamb with the fp16
// gradient read and the fp16 weights written as its p_copy (the kernel above, g at 2 B and
// 2 B more written), then the fp32 weights copied into the fp16 ones again (read 4, write 2).
constexpr double kDeepSpeedLambBytes = (kFp16 + kFp16) + (kFp16 + kFp32 + kFp32) +
                                       (kFusedLambBytes - kFp32 + kFp16 + kFp16) + (kFp32 + kFp16);
// torch.optim.SGD with momentum and weight decay, one elementwise kernel per operation (the
// per-parameter loop of PyTorch <= 1.x and the foreach ops since, same traffic): d_p = g + wd p
// (read 8, write 4), buf *= momentum (read 4, write 4), buf += d_p (read 8, write 4),
// p -= lr buf (read 8, write 4).
constexpr double kTorchMomentumSgdBytes = 12 + 8 + 12 + 12;
// BertAdam of pytorch-pretrained-bert (optimization.py, 2018-2019), fp32, a per-parameter loop
// of separate kernels: clip_grad_norm_ per parameter (norm read 4; grad *= coefficient, read 4
// write 4), m.mul_ (8) and add_ (read 8, write 4), v.mul_ (8) and addcmul_(g, g) (reads v, g, g:
// 12, write 4), v.sqrt() (8), + eps (8), m / that (read 8, write 4), wd * p (8), update += (read
// 8, write 4), lr * update (8), its negation (8), p.add_ (read 8, write 4).
// torch.optim.Adam of PyTorch 1.11 (torch/optim/_functional.py, adam), no weight decay, one
// kernel per operation: m.mul_ (8) and add_ (read 8, write 4), v.mul_ (8) and addcmul_(g, g)
// (reads v, g, g: 12, write 4), v.sqrt() (8), / sqrt(bias correction) (8), add_(eps) (8),
// p.addcdiv_(m, denom) (reads p, m, denom: 12, write 4).
constexpr double kTorchAdamBytes = (8 + 12) + (8 + 16) + (8 + 8 + 8) + 16;
constexpr double kBertAdamBytes =
    (4 + 8) + (8 + 12) + (8 + 16) + (8 + 8 + 12) + (8 + 12) + (8 + 8 + 12);

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
const std::string kMpiBackendSource =
    "deepspeedai/DeepSpeed PR #380 (1-bit Adam v1, September 2020): the compressed allreduce on "
    "mpi4py (deepspeed/runtime/comm/mpi.py); the 1-bit LAMB paper (Li et al., arXiv:2104.06069, "
    "2021) calls it the existing MPI-based implementation, the one 1-bit Adam's runs used";
const std::string kNcclBackendSource =
    "DeepSpeed 1-bit Adam tutorial (https://www.deepspeed.ai/tutorials/onebit-adam/, updated "
    "2021-03-04; PR #817) and deepspeed/runtime/comm/nccl.py: the NCCL-based compressed "
    "allreduce; the 1-bit LAMB paper (Li et al., arXiv:2104.06069) reports its runs on it";
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

// The step kernels several profiles run unchanged (counted; docs/implementations.md).
const StepKernel kFusedLambStep = {kFusedLambBytes,
                                   "DeepSpeed FusedLamb kernel on fp32 state (counted)"};
const StepKernel kTorchMomentumSgdStep = {
    kTorchMomentumSgdBytes, "torch.optim.SGD, momentum + weight decay, 4 kernels (counted)"};
const StepKernel kBertAdamStep = {kBertAdamBytes,
                                  "BertAdam, per-parameter loop of 14 kernels (counted)"};

ImplementationProfile ddp() {
  ImplementationProfile p;
  p.name = "ddp";
  p.help = "PyTorch DistributedDataParallel: bucketed allreduce behind backward, fused AdamW";
  p.issue = OverlapMode::kAuto;
  p.issue_text = "gradient allreduce bucketed behind backward; optimizer-formed vectors after it";
  p.accumulation_text = "no_sync on all but the last micro-batch: only its backward hides comm";
  p.bucket_bytes = kDdpBucketBytes;
  p.compressed_collectives = "torch-nccl";
  p.adam_step = {kFusedAdamFp32Bytes,
                 "fused AdamW, fp32 params: read p, g, m, v (16 B), write p, m, v (12 B)"};
  p.lamb_step = kFusedLambStep;
  p.momentum_sgd_step = kTorchMomentumSgdStep;
  p.bertadam_step = kBertAdamStep;
  p.sources = {kDdpSource, kNoSyncSource};
  return p;
}

// DeepSpeed's engine of the 1-bit papers with the compressed allreduce on `collectives`
// (framework_collectives.h): the 2020 MPI backend of 1-bit Adam, the 2021 NCCL one of 1-bit LAMB.
ImplementationProfile deepspeed_engine(const std::string& name, const std::string& collectives,
                                       const std::string& backend_source) {
  ImplementationProfile p;
  p.name = name;
  p.issue = OverlapMode::kOff;
  p.issue_text = "every stage after backward (the engine's allreduce_gradients)";
  p.accumulation_text = "one sync after the last micro-batch's backward, none overlapped";
  p.bucket_elements = kDeepSpeedBucketElements;
  p.compressed_collectives = collectives;
  p.adam_step = {kDeepSpeed2020AdamBytes,
                 "unfused fp16 step with fp32 master weights: measured, 67.27 ms x 900 GB/s / "
                 "340 M"};
  p.lamb_step = {kDeepSpeedLambBytes,
                 "FP16_UnfusedOptimizer's legacy FusedLamb step: flatten, norm, kernel, copy "
                 "(counted)"};
  p.momentum_sgd_step = kTorchMomentumSgdStep;
  p.bertadam_step = kBertAdamStep;
  p.sources = {kEngineSource, backend_source};
  return p;
}

ImplementationProfile deepspeed_2020() {
  ImplementationProfile p = deepspeed_engine("deepspeed-2020", "deepspeed-mpi", kMpiBackendSource);
  p.aliases = {"deepspeed"};
  p.help = "DeepSpeed's engine of the 1-bit Adam paper: after backward, MPI compressed backend";
  return p;
}

ImplementationProfile deepspeed_2021() {
  ImplementationProfile p =
      deepspeed_engine("deepspeed-2021", "deepspeed-nccl", kNcclBackendSource);
  p.help = "DeepSpeed's engine of the 1-bit LAMB paper: after backward, NCCL compressed backend";
  return p;
}

const std::string kBirderSource =
    "Peng et al., 'Birder: Communication-Efficient 1-bit Adaptive Optimizer for Practical "
    "Distributed DNN Training', NeurIPS 2023: PyTorch 1.11.0, CUDA 11.6, NCCL 2.10.3, one to "
    "eight nodes of 8 A100-80GB over 10 Gbit/s Ethernet; the appendix times the compressed "
    "allreduce built from PyTorch's collective primitives";

// PyTorch 1.11 with the collectives issued from the training loop after backward, as Birder's
// comparison runs (docs/implementations.md says why): nothing overlaps backward, and the step
// is PyTorch's per-operation kernels.
ImplementationProfile pytorch_2022() {
  ImplementationProfile p;
  p.name = "pytorch-2022";
  p.help = "PyTorch 1.11 collectives after backward, per-op step kernels (Birder's setup)";
  p.issue = OverlapMode::kOff;
  p.issue_text = "every stage after backward (torch.distributed collectives from the loop)";
  p.accumulation_text = "one sync after the last micro-batch's backward, none overlapped";
  p.bucket_bytes = kDdpBucketBytes;
  p.compressed_collectives = "torch-nccl";
  p.adam_step = {kTorchAdamBytes, "torch.optim.Adam of PyTorch 1.11, 9 kernels (counted)"};
  p.lamb_step = kFusedLambStep;
  p.momentum_sgd_step = kTorchMomentumSgdStep;
  p.bertadam_step = kBertAdamStep;
  p.sources = {kBirderSource};
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
  p.compressed_collectives = "deepspeed-nccl";
  auto on_shard = [](double bytes, const std::string& kernel) {
    return StepKernel{bytes + kZeroMasterCopyBytes,
                      kernel +
                          " on the fp32 master shard + copy to 16-bit weights (6 B), "
                          "1/world of n"};
  };
  p.adam_step = on_shard(kFusedAdamFp32Bytes, "fused Adam (28 B)");
  p.lamb_step = on_shard(kFusedLambBytes, "FusedLamb (40 B)");
  p.momentum_sgd_step = on_shard(kTorchMomentumSgdBytes, "torch.optim.SGD (44 B)");
  p.bertadam_step = on_shard(kBertAdamBytes, "BertAdam (132 B)");
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
    r.add(deepspeed_2021());
    for (int stage = 1; stage <= 3; ++stage) r.add(zero(stage));
    r.add(pytorch_2022());
    return r;
  }();
  return registry;
}

const ImplementationProfile& implementation_profile(std::string_view name) {
  return implementation_registry().get(name);
}

std::vector<std::string> implementation_names() { return implementation_registry().names(); }

namespace {

// The optimizers that run a step kernel of their own; every other one runs Adam's.
struct StepFamily {
  const char* optimizer;
  const char* family;
  StepKernel ImplementationProfile::*kernel;
};
const std::vector<StepFamily>& step_families() {
  static const std::vector<StepFamily> families = {
      {"lamb", "lamb", &ImplementationProfile::lamb_step},
      {"onebit-lamb", "lamb", &ImplementationProfile::lamb_step},
      {"momentum-sgd", "momentum-sgd", &ImplementationProfile::momentum_sgd_step},
      {"bertadam", "bertadam", &ImplementationProfile::bertadam_step},
  };
  return families;
}

}  // namespace

ChargedStepKernel step_kernel(const ImplementationProfile& profile, std::string_view optimizer) {
  const OptimizerEntry& entry = optimizer_registry().get(optimizer);
  for (const StepFamily& f : step_families()) {
    if (entry.name != f.optimizer) continue;
    return {profile.*f.kernel, entry.stages.front().step_bytes_ratio, f.family};
  }
  return {profile.adam_step, 1.0, "adam"};
}

ImplementedWorkload implemented_workload(const net::WorkloadSpec& workload,
                                         const ImplementationProfile& profile,
                                         std::string_view optimizer) {
  ImplementedWorkload out{workload, 1.0};
  if (!workload.step_bytes_stated) {
    const ChargedStepKernel charged = step_kernel(profile, optimizer);
    out.workload.step_bytes_per_param = charged.kernel.bytes_per_param;
    out.step_reference_ratio = charged.reference_ratio;
  }
  if (!workload.attention) out.workload.attention = profile.attention;
  if (!workload.activation_checkpointing)
    out.workload.activation_checkpointing = profile.activation_checkpointing;
  return out;
}

int default_bucket_count(const ImplementationProfile& profile, double elements, int wire_bytes) {
  const double buckets = profile.bucket_elements > 0 ? elements / profile.bucket_elements
                                                     : elements * wire_bytes / profile.bucket_bytes;
  return std::max(1, static_cast<int>(std::ceil(buckets)));
}

}  // namespace compopt::sim
