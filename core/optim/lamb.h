#pragma once
// LAMB ([LAMB] with [1BL]'s clipping; docs/algorithms.md): g = allreduce_mean(g_i);
// m, v as Adam (optional bias correction, default off); per tensor l:
//   u = m/(sqrt(v)+eps) + lambda*x;  c = clip(||x_l||/||u_l||, c_min, c_max)
//   (c = 1 when either norm is 0);   x_l -= lr * c * u_l.

#include "core/optim/adam.h"
#include "core/optim/optimizer.h"
#include "core/optim/update_kernels.h"
#include "core/optim/variance_norms.h"

namespace compopt {

struct LambOptions {
  AdamOptions adam;
  double c_min = 0.01;
  double c_max = 10.0;
};

// The clipped trust coefficient of one tensor.
double lamb_coefficient(double param_norm, double update_norm, double c_min, double c_max);

// LAMB's update from the mean gradient g, with u room for the direction (it may be g's own
// storage): per tensor l, m and v as Adam with s, u_l = m/(sqrt(v)+eps) + wd*x_l,
// c_l = lamb_coefficient(||x_l||, ||u_l||) into coefficients[l], x_l -= float(lr*c_l) * u_l.
// Two passes per tensor (update_kernels' lamb_direction with both norms, then subtract_scaled).
void lamb_step(const ParamLayout& layout, const AdamScalars& s, double c_min, double c_max,
               std::span<float> params, std::span<float> m, std::span<float> v,
               std::span<const float> g, std::span<float> u, std::span<double> coefficients);

class Lamb final : public Optimizer {
 public:
  Lamb(ParamLayout layout, CommonOptions common, LambOptions lamb);
  OptimizerMetrics metrics() const override;

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  LambOptions lamb_;
  std::vector<float> m_, v_, g_;
  std::vector<double> coefficients_;
  VarianceNorms norms_;
};

}  // namespace compopt
