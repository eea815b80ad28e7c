#pragma once
// Naive 1-bit Adam ([1BA] §3.2 ablation, SPEC §3): never freezes; the gradient
// goes through the EF compressed allreduce (sign) and Adam updates m and v
// from the decoded average: g = compressed_allreduce_mean(g_i); Adam(g).

#include <string>

#include "core/optim/adam.h"
#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer.h"

namespace compopt {

class NaiveOnebitAdam final : public Optimizer {
 public:
  NaiveOnebitAdam(ParamLayout layout, CommonOptions common, AdamOptions adam,
                  const std::string& compressor = "sign");
  Stage stage() const override { return Stage::kCompression; }
  OptimizerMetrics metrics() const override;

 private:
  void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
               float lr) override;
  void save(OptimizerState& state) const override;
  void load(const OptimizerState& state) override;

  AdamOptions adam_;
  CompressedChannel channel_;
  std::vector<float> m_, v_, g_;
};

}  // namespace compopt
