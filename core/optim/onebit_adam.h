#pragma once
// 1-bit Adam ([1BA] Alg. 1; docs/algorithms.md) and its "32-bit" ablation.
//  - Warmup (t <= T_w): Adam (no bias correction) on allreduce_mean(g).
//  - After step T_w: v is frozen. T_w = freeze_step, or automatic
//    (VarianceFreezeDetector on the averaged v, past the LR warmup).
//  - Compression stage: m = b1*m + (1-b1)*g_i;
//    m = compressed_allreduce_mean(m) (sign, EF) — or, in the 32-bit ablation,
//    allreduce_mean(m) uncompressed; x -= lr * (m/(sqrt(v_frozen)+eps) + lambda*x).

#include <optional>
#include <string>

#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"
#include "core/optim/variance_freeze_detector.h"
#include "core/optim/variance_norms.h"

namespace compopt {

struct OnebitAdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  std::optional<int64_t> freeze_step;  // >= 1; nullopt: automatic detector
  double threshold = 0.96;             // detector threshold, (0, 1]
  std::string compressor = "sign";
  bool uncompressed_momentum = false;  // the "1-bit Adam (32-bit)" ablation
};

class OnebitAdam final : public Optimizer {
 public:
  OnebitAdam(ParamLayout layout, CommonOptions common, OnebitAdamOptions options);
  Stage stage() const override { return frozen_ ? Stage::kCompression : Stage::kWarmup; }
  OptimizerMetrics metrics() const override;
  // T_w once the variance is frozen.
  std::optional<int64_t> freeze_step() const;
  // With freeze_step = "auto": the detector's earliest step (variance_freeze_detector.h).
  std::optional<int64_t> earliest_automatic_stage_change() const override;

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  OnebitAdamOptions opt_;
  CompressedChannel channel_;
  std::optional<VarianceFreezeDetector> detector_;
  bool frozen_ = false;
  int64_t frozen_at_ = 0;
  std::vector<float> m_, v_, buf_;
  VarianceNorms norms_;
};

}  // namespace compopt
