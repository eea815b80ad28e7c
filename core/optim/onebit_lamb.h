#pragma once
// 1-bit LAMB ([1BL] Alg. 1 and appendix A.5; docs/algorithms.md).
//  - Warmup (t <= T_w = freeze_step): LAMB on allreduce_mean(g) (no bias
//    correction); per tensor c_avg = b3*c_avg + (1-b3)*c_t (c_avg starts at 0).
//  - After step T_w: v_frozen = v, v_fresh = v; c_avg stops; per tensor
//    sigma_l = ||m_l||/sqrt(d_l), k_l = mean(sigma)/sigma_l (1 if sigma_l = 0).
//  - Compression stage: m = b1*m + (1-b1)*g_i; m_l *= k_l; one compressed
//    allreduce (sign, EF) over the fused momentum; m_l /= k_l; per tensor
//    g~ = (m - b1*m_prev)/(1-b1); v_fresh = b2*v_fresh + (1-b2)*g~^2;
//    r = max_j (sqrt(v_frozen)+eps)/(sqrt(v_fresh)+eps), clipped to
//    [(1-r_thr) r_prev, (1+r_thr) r_prev] (not on the first compression step)
//    then to [r_min, r_max]; c = r*c_avg; x_l -= lr*c*(m_l/(sqrt(v_frozen)+eps) + lambda*x_l).

#include <string>

#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"

namespace compopt {

struct OnebitLambOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  double beta3 = 0.9;
  int64_t freeze_step = 1;  // T_w >= 1
  double c_min = 0.01, c_max = 10.0;
  double r_min = 0.5, r_max = 4.0, r_threshold = 0.1;
  std::string compressor = "sign";
};

class OnebitLamb final : public Optimizer {
 public:
  OnebitLamb(ParamLayout layout, CommonOptions common, OnebitLambOptions options);
  Stage stage() const override { return frozen_ ? Stage::kCompression : Stage::kWarmup; }
  OptimizerMetrics metrics() const override;
  const std::vector<double>& coefficient_averages() const { return c_avg_; }
  const std::vector<double>& momentum_scales() const { return k_; }

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void warmup_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                   float lr);
  void compression_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                        float lr);
  void freeze();
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  OnebitLambOptions opt_;
  CompressedChannel channel_;
  bool frozen_ = false;
  bool has_ratio_ = false;
  std::vector<float> m_, v_, v_fresh_, m_prev_, buf_;
  std::vector<double> c_avg_, k_, coefficients_, ratios_;
};

}  // namespace compopt
