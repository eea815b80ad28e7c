// The SGD family's registry entries: plain and momentum SGD, then the variants that compress
// the momentum or the gradient and local (momentum) SGD.
#include "core/optim/compressed_momentum_sgd.h"
#include "core/optim/local_sgd.h"
#include "core/optim/momentum_sgd.h"
#include "core/optim/optimizer_entries.h"
#include "core/optim/sgd.h"

namespace compopt::optimizer_entries {

void add_sgd_family(Registry<OptimizerEntry>& reg) {
  reg.add(with_state(entry("sgd", {}, "plain SGD on the ring-averaged gradient", "baseline", kSgdLr,
                           {}, {full_precision_stage()},
                           [](const std::string&, KeyReader&, const CommonOptions& c,
                              const ParamLayout& l) { return std::make_unique<Sgd>(l, c); }),
                     {0, 0}));
  reg.add(with_state(
      entry("momentum-sgd", {"sgdm"}, "momentum SGD on the ring-averaged gradient", "baseline",
            kSgdLr, momentum_keys("0.9"), {full_precision_stage()},
            [](const std::string&, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
              return std::make_unique<MomentumSgd>(l, c, read_momentum(r));
            }),
      {1, 0}));
}

void add_sgd_variants(Registry<OptimizerEntry>& reg) {
  const auto compressed = [](CompressedVector what) {
    return
        [what](const std::string& n, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
          const MomentumOptions m = read_momentum(r);
          return std::make_unique<CompressedMomentumSgd>(n, what, l, c, m, read_compressor(r));
        };
  };
  const OptionKey compressor = compressor_key("sign", "compressor of the allreduce");
  reg.add(with_state(
      entry("ef-momentum-sgd", {}, "local momentum, compressed allreduce of the momentum",
            "Zheng et al. 2019", kSgdLr, momentum_keys("0.9") + std::vector{compressor},
            {sign_compression_stage()}, compressed(CompressedVector::kMomentum)),
      {1, 0}, "momentum-sgd"));
  reg.add(
      with_state(entry("doublesqueeze", {}, "compressed allreduce of the gradient, then momentum",
                       "Tang et al. 2019", kSgdLr, momentum_keys("0") + std::vector{compressor},
                       {sign_compression_stage()}, compressed(CompressedVector::kGradient)),
                 {1, 0}, "momentum-sgd"));
  const auto local = [](bool momentum) {
    return
        [momentum](const std::string&, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
          const int64_t tau = r.integer("tau");
          std::optional<MomentumOptions> m;
          if (momentum) m = read_momentum(r);
          return std::make_unique<LocalSgd>(l, c, tau, m);
        };
  };
  const OptionKey tau = integer_key("tau", "4", 1, "steps between parameter averages");
  StageSpec sync{stage_name(Stage::kLocal), CommPattern::kRing, "", StageOverlap::kAfterBackward};
  sync.period = 4;  // tau's default
  reg.add(with_state(entry("local-sgd", {}, "local SGD, parameters ring-averaged every tau steps",
                           "Stich 2019", kSgdLr, {tau}, {sync}, local(false)),
                     {0, 0}, "sgd"));
  // The momentum is averaged with the parameters: two fp32 vectors per exchange.
  StageSpec sync_with_momentum = sync;
  sync_with_momentum.wire_fraction = 2.0;
  reg.add(with_state(
      entry("local-momentum-sgd", {}, "local momentum SGD, averaged every tau steps", "Stich 2019",
            kSgdLr, std::vector{tau} + momentum_keys("0.9"), {sync_with_momentum}, local(true)),
      {1, 0}, "momentum-sgd"));
}

}  // namespace compopt::optimizer_entries
