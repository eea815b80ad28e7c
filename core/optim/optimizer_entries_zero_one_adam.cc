// 0/1 Adam's registry entry (Lu et al., ICLR 2022; DeepSpeed's keys and defaults).
#include "core/optim/optimizer_entries.h"
#include "core/optim/zero_one_adam.h"
#include "core/optim/zero_one_adam_schedule.h"

namespace compopt::optimizer_entries {

std::unique_ptr<Optimizer> build_zero_one_adam(const std::string&, KeyReader& r,
                                               const CommonOptions& c, const ParamLayout& l) {
  ZeroOneAdamOptions o;
  read_adam_betas(r, o);
  o.schedule.var_freeze_step = r.integer("var_freeze_step");
  o.schedule.var_update_scaler = r.integer("var_update_scaler");
  o.schedule.local_step_scaler = r.integer("local_step_scaler");
  o.schedule.local_step_clipper = r.integer("local_step_clipper");
  o.compressor = read_compressor(r);
  return std::make_unique<ZeroOneAdam>(l, c, o);
}

// 0/1 Adam's compressed stage at DeepSpeed's default keys, averaged over the run that just
// reaches the capped sync interval (zero_one_adam_run_counts: 100000 + 4 x 32678 = 230712 steps):
// its steps are the compressed-gradient steps before the freeze (one compressed allreduce each)
// and every step after it (one per sync), so period = steps / communications. Step bytes per
// parameter (zero_one_adam.cc): a compressed-gradient step copies g (8), does the momentum EMA
// (12) and the update from m and v (16), 36 in all; a step after the freeze does the EMA and the
// update (28), and a sync adds (x - x_a) * (sqrt(v) + eps) (16) and the restore of x, m and x_a
// (24), 40 more.
StageSpec zero_one_adam_compressed_stage() {
  const ZeroOneAdamRunCounts n = zero_one_adam_run_counts(ZeroOneAdamScheduleKeys{});
  const auto steps = static_cast<double>(n.compressed_steps + n.local_steps);
  StageSpec stage{stage_name(Stage::kCompression), CommPattern::kCompressedFlat, "sign",
                  StageOverlap::kAfterBackward};
  stage.period = steps / static_cast<double>(n.compressed_steps + n.syncs);
  stage.step_bytes_ratio =
      (36.0 * static_cast<double>(n.compressed_steps) + 28.0 * static_cast<double>(n.local_steps) +
       40.0 * static_cast<double>(n.syncs)) /
      (48.0 * steps);
  return stage;
}

void add_zero_one_adam(Registry<OptimizerEntry>& reg) {
  const std::vector<OptionKey> keys = {
      integer_key("var_freeze_step", "100000", 1,
                  "last step of the variance phase; v frozen after it (DeepSpeed's default)"),
      integer_key("var_update_scaler", "16", 1,
                  "variance updates per interval before the interval doubles (kappa)"),
      integer_key("local_step_scaler", "32678", 1,
                  "steps after the freeze per doubling of the sync interval (DeepSpeed's default)"),
      integer_key("local_step_clipper", "16", 1, "largest sync interval H"),
      compressor_key("sign", "compressor of the gradient and accumulated momentum")};
  reg.add(with_state(
      entry("zero-one-adam", {"zoadam", "01adam"},
            "0/1 Adam: variance updates on a doubling schedule, then 1-bit syncs every k steps",
            "Lu et al. 2022, Alg. 1", kAdaptiveLr, adam_keys(false) + keys,
            {warmup_stage(), zero_one_adam_compressed_stage()}, build_zero_one_adam),
      {3, 0}, "adam"));
}

}  // namespace compopt::optimizer_entries
