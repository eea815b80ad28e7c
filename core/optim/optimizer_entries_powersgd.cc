// PowerSGD's registry entries, on momentum SGD and on Adam.
#include "core/optim/optimizer_entries.h"
#include "core/optim/powersgd.h"

namespace compopt::optimizer_entries {

// PowerSGD's keys: PyTorch's PowerSGDState names and defaults (powerSGD_hook.py).
std::vector<OptionKey> powersgd_keys() {
  return {
      integer_key("matrix_approximation_rank", "1", 1, "rank r of the factors P and Q"),
      integer_key("start_powerSGD_iter", "1000", 0, "full-precision warmup steps"),
      non_negative_key("min_compression_rate", "2",
                       "factor a matrix only when n*m > (n+m)*r times this"),
      flag_key("use_error_feedback", "true", "keep the compression error for the next step"),
      flag_key("warm_start", "true", "reuse Q from the previous step instead of a fresh draw"),
      non_negative_key("orthogonalization_epsilon", "0", "added to column norms in Gram-Schmidt")};
}

std::unique_ptr<Optimizer> build_powersgd(const std::string& name, KeyReader& r,
                                          const CommonOptions& c, const ParamLayout& l) {
  PowerSgdOptions o;
  o.rank = r.integer("matrix_approximation_rank");
  o.min_compression_rate = r.number("min_compression_rate");
  o.use_error_feedback = r.flag("use_error_feedback");
  o.warm_start = r.flag("warm_start");
  o.orthogonalization_epsilon = static_cast<float>(r.number("orthogonalization_epsilon"));
  const int64_t start = r.integer("start_powerSGD_iter");
  if (name == "powersgd") return std::make_unique<PowerSgd>(name, l, c, o, start, read_momentum(r));
  return std::make_unique<PowerSgd>(name, l, c, o, start, read_adam(r, true));
}

// PowerSGD's compression step moves, besides the optimizer step of its baseline (counted as
// Adam's, ratio 1, like every baseline's): M = g + e (12), the copy of M that the error needs
// (8), M read for P = MQ and for Q = M^T P (4 + 4), P Q^T written (4) and e = M - PQ^T (12).
constexpr double kPowerSgdStepBytesRatio = (48.0 + 44.0) / 48.0;

void add_powersgd_family(Registry<OptimizerEntry>& reg) {
  StageSpec compression{stage_name(Stage::kCompression), CommPattern::kRing, "",
                        StageOverlap::kAfterBackward};
  compression.step_bytes_ratio = kPowerSgdStepBytesRatio;
  compression.low_rank = 1;  // matrix_approximation_rank's default
  reg.add(with_state(
      entry("powersgd", {}, "rank-r PowerSGD of the gradient (error feedback), then momentum SGD",
            "Vogels et al. 2019, Alg. 1-2", kSgdLr, momentum_keys("0.9") + powersgd_keys(),
            {warmup_stage(), compression}, build_powersgd),
      {2, 0}, "momentum-sgd"));
  reg.add(with_state(
      entry("powersgd-adam", {}, "rank-r PowerSGD of the gradient (error feedback), then Adam",
            "Vogels et al. 2019, Alg. 2", kAdaptiveLr, adam_keys(true) + powersgd_keys(),
            {warmup_stage(), compression}, build_powersgd),
      {3, 0}, "adam"));
}

}  // namespace compopt::optimizer_entries
