#pragma once
// Adam (Kingma & Ba 2015; docs/algorithms.md): g = allreduce_mean(g_i); m = b1*m + (1-b1)*g;
// v = b2*v + (1-b2)*g^2; x -= lr * (m^/(sqrt(v^)+eps) + lambda*x), where
// m^ = m/(1-b1^t), v^ = v/(1-b2^t) with bias_correction, else m^ = m, v^ = v.
//
// With a gradient compressor this is naive 1-bit Adam ([1BA] §3.2 ablation):
// never freezes; g = compressed_allreduce_mean(g_i) with worker and server EF,
// then the same Adam update from the decoded average.

#include <optional>
#include <string>

#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"
#include "core/optim/update_kernels.h"
#include "core/optim/variance_norms.h"

namespace compopt {

struct AdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  bool bias_correction = false;
};

// u_j = (m_j/c1) / (sqrt(v_j/c2) + eps) with c1 = 1-b1^t, c2 = 1-b2^t when
// bias_correction (t >= 1), else c1 = c2 = 1.
void adam_direction(const AdamOptions& options, int64_t t, float eps, std::span<const float> m,
                    std::span<const float> v, std::span<float> u);
// The scalars of the fused kernels (update_kernels.h) for step t: options' rates and the bias
// corrections c1, c2 above, with eps, lr and wd.
AdamScalars adam_scalars(const AdamOptions& options, int64_t t, float eps, float lr, float wd);

class Adam final : public Optimizer {
 public:
  // gradient_compressor: nullopt for Adam (and bertadam), a compressor spec for naive
  // 1-bit Adam; `name` is the registry name it reports and checkpoints under.
  Adam(std::string name, ParamLayout layout, CommonOptions common, AdamOptions adam,
       const std::optional<std::string>& gradient_compressor = std::nullopt);
  Stage stage() const override { return channel_ ? Stage::kCompression : Stage::kFullPrecision; }
  OptimizerMetrics metrics() const override;

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  AdamOptions adam_;
  std::optional<CompressedChannel> channel_;  // set for naive 1-bit Adam
  std::vector<float> m_, v_, g_;
  VarianceNorms norms_;
};

}  // namespace compopt
