#pragma once
// DiLoCo (Douillard et al. 2023, Algorithm 1) and Streaming DiLoCo (Douillard et al. 2025,
// Algorithms 1-2; docs/algorithms.md "DiLoCo and Streaming DiLoCo"). One class: DiLoCo is the
// streaming form with one fragment, no overlap and a full-precision allreduce.
//
// Inner step, every step, no communication: AdamW on the rank's own gradient with the rank's
// own moments, x -= lr*(m^/(sqrt(v^)+eps) + lambda*x).
// Fragments: the flat parameter vector cut in layout order into F ranges, fragment p of
// floor(d/F) elements plus one when p < d % F. At most one fragment sends per step:
// fragment p at the steps t >= o_p with (t - o_p) % H == 0, o_p = (p+1)*H/F, its outer
// gradient Delta_p = mean over ranks of (a_p - x_p), a the anchor (the global parameters, taken
// from x at step 1); fp32 ring mean, or the compressed allreduce of `outer_compressor`.
// tau steps later (overlap_steps, the communication hidden behind tau inner steps) the outer
// Nesterov step merges it:
//   mom_p = mu*mom_p + Delta_p;  a_p -= eta*(Delta_p + mu*mom_p);
//   x_p = alpha*x_p + (1-alpha)*a_p      (x_p = a_p exactly when alpha = 0).
// Anchor and outer momentum are bit-identical on every rank; the parameters too after a merge
// when alpha = 0 (between merges each rank holds its own). save()/load() hold the inner
// moments, anchor, outer momentum, the averaged outer gradients still in flight and the
// error feedback of every fragment's compressed channel.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/optim/adam.h"
#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"

namespace compopt {

struct DilocoOptions {
  AdamOptions inner{.beta1 = 0.9f, .beta2 = 0.999f, .bias_correction = true};
  int64_t inner_steps = 1;                      // H
  float outer_lr = 0.7f;                        // eta
  float outer_momentum = 0.9f;                  // mu
  int64_t fragments = 1;                        // F, divides H
  int64_t overlap_steps = 0;                    // tau < H
  float mixing = 0.0f;                          // alpha in [0, 1]
  std::optional<std::string> outer_compressor;  // nullopt: fp32 ring mean
};

class Diloco final : public Optimizer {
 public:
  // Throws InvalidArgument for H < 1, F < 1, H % F != 0, tau outside [0, H) or alpha outside
  // [0, 1], naming the value.
  Diloco(std::string name, ParamLayout layout, CommonOptions common, DilocoOptions options);
  Stage stage() const override { return Stage::kLocal; }

 private:
  struct Range {
    size_t begin, end;
  };

  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  // The fragment that sends at step t, if any (O(1), whatever F).
  std::optional<size_t> sender_at(int64_t t) const;
  Range fragment(size_t p) const;
  void send(size_t fragment, std::span<const float> params, Communicator& comm);
  void merge(size_t fragment, std::span<float> params);

  DilocoOptions o_;
  // With outer_compressor: fragment p's compressed channel, made at its first send.
  std::map<size_t, CompressedChannel> channels_;
  std::vector<float> m_, v_, anchor_, outer_m_, in_flight_;
};

}  // namespace compopt
