#include "core/optim/lamb.h"

#include <algorithm>
#include <cmath>

#include "core/optim/update_kernels.h"

namespace compopt {

double lamb_coefficient(double param_norm, double update_norm, double c_min, double c_max) {
  if (param_norm == 0.0 || update_norm == 0.0) return 1.0;
  return std::clamp(param_norm / update_norm, c_min, c_max);
}

Lamb::Lamb(ParamLayout layout, CommonOptions common, LambOptions lamb)
    : Optimizer("lamb", std::move(layout), std::move(common)),
      lamb_(lamb),
      m_(d(), 0.0f),
      v_(d(), 0.0f),
      g_(d()),
      coefficients_(this->layout().num_tensors(), 0.0) {}

void lamb_step(const ParamLayout& layout, const AdamScalars& s, double c_min, double c_max,
               std::span<float> params, std::span<float> m, std::span<float> v,
               std::span<const float> g, std::span<float> u, std::span<double> coefficients) {
  const UpdateKernels& kernels = update_kernels();
  for (size_t l = 0; l < layout.num_tensors(); ++l) {
    const size_t off = layout.tensor(l).offset, n = layout.tensor(l).size;
    float* x = params.data() + off;
    float* ul = u.data() + off;
    double squares[2] = {0.0, 0.0};
    kernels.lamb_direction(x, m.data() + off, v.data() + off, g.data() + off, ul, s, squares, n);
    const double c = lamb_coefficient(std::sqrt(squares[0]), std::sqrt(squares[1]), c_min, c_max);
    coefficients[l] = c;
    kernels.subtract_scaled(x, ul, static_cast<float>(s.lr * c), n);
  }
}

void Lamb::do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                   float lr) {
  const std::span<const float> g = mean_gradient(comm, grads, g_);
  const AdamScalars s = adam_scalars(lamb_.adam, t_, static_cast<float>(options().eps), lr,
                                     static_cast<float>(options().weight_decay));
  lamb_step(layout(), s, lamb_.c_min, lamb_.c_max, params, m_, v_, g, g_, coefficients_);
  norms_.invalidate();
}

OptimizerMetrics Lamb::metrics() const {
  OptimizerMetrics out = Optimizer::metrics();
  norms_.report(v_, out);
  out.layer_coefficients = coefficients_;
  return out;
}

void Lamb::save(OptimizerState& state) const {
  state.put("m", m_);
  state.put("v", v_);
  state.put_scalars("coefficients", coefficients_);
}

void Lamb::load(const OptimizerState& state) {
  state.get("m", m_);
  state.get("v", v_);
  norms_.invalidate();
  coefficients_ = state.scalar_list("coefficients");
}

}  // namespace compopt
