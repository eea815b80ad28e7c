#pragma once
// 0/1 Adam ([01A] Lu, Li, Zhang, De Sa, He, ICLR 2022, Alg. 1, as DeepSpeed's ZeroOneAdam runs
// it; docs/algorithms.md "0/1 Adam"). No bias correction; the step is
// x -= lr * (m / (sqrt(v) + eps) + lambda * x). The schedule of variance updates and
// synchronisations is ZeroOneAdamSchedule (zero_one_adam_schedule.h).
//  - t <= var_freeze_step, variance step: g = allreduce_mean(g_i); m and v updated as Adam's.
//  - t <= var_freeze_step, other step: g = compressed_allreduce_mean(g_i) (sign, worker and
//    server error feedback); m = b1*m + (1-b1)*g, v kept.
//  - t > var_freeze_step (v frozen), every step, on the rank's own gradient and no
//    communication: m_i = b1*m_i + (1-b1)*g_i, x_i -= lr * (m_i/(sqrt(v)+eps) + lambda*x_i),
//    S += lr. At a sync step, with x_a the parameters of the previous sync (or of the freeze):
//      u = compressed_allreduce_mean((x_i - x_a) * (sqrt(v) + eps))   (fresh error feedback
//          from the freeze on, as DeepSpeed resets it: it compresses another quantity now)
//      x = x_a + u / (sqrt(v) + eps);  m = -u / S (0 when S = 0);  x_a = x;  S = 0.
//    (x_i - x_a) * (sqrt(v)+eps) is the rank's -sum lr*(m_i + lambda*x_i*(sqrt(v)+eps)) since
//    x_a: the accumulated momentum u of [01A] Alg. 1.
// x and m are bit-identical on every rank after each step before the freeze and after each sync
// step; between syncs each rank's differ, by design (as local-sgd's).

#include <string>
#include <vector>

#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"
#include "core/optim/update_kernels.h"
#include "core/optim/variance_norms.h"
#include "core/optim/zero_one_adam_schedule.h"

namespace compopt {

struct ZeroOneAdamOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  ZeroOneAdamScheduleKeys schedule;
  std::string compressor = "sign";
};

class ZeroOneAdam final : public Optimizer {
 public:
  ZeroOneAdam(ParamLayout layout, CommonOptions common, ZeroOneAdamOptions options);
  // kWarmup for the next step if it is a full-precision variance step, else kCompression.
  Stage stage() const override;
  OptimizerMetrics metrics() const override;

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void variance_phase_step(std::span<float> params, std::span<const float> grads,
                           Communicator& comm, const AdamScalars& s);
  void local_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                  const AdamScalars& s);
  void synchronise(std::span<float> params, Communicator& comm);
  void freeze(std::span<const float> params, float lr);
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  ZeroOneAdamOptions opt_;
  ZeroOneAdamSchedule schedule_;
  CompressedChannel channel_;
  std::vector<float> m_, v_, buf_;
  std::vector<float> anchor_;  // x_a; empty before the freeze
  double lr_sum_ = 0;          // S
  VarianceNorms norms_;
};

}  // namespace compopt
