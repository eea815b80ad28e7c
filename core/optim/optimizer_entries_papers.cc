// The seed papers' compressed optimizers: 1-bit Adam and its ablations, 1-bit LAMB, Birder.
#include "core/optim/birder.h"
#include "core/optim/birder_hierarchical.h"
#include "core/optim/lamb.h"
#include "core/optim/onebit_adam.h"
#include "core/optim/onebit_lamb.h"
#include "core/optim/optimizer_entries.h"

namespace compopt::optimizer_entries {

std::unique_ptr<Optimizer> build_onebit_adam(const std::string& name, KeyReader& r,
                                             const CommonOptions& c, const ParamLayout& l) {
  OnebitAdamOptions o;
  read_adam_betas(r, o);
  o.uncompressed_momentum = name == "onebit-adam-32bit";
  if (!o.uncompressed_momentum) o.compressor = read_compressor(r);
  const std::string freeze = r.text("freeze_step");
  if (freeze == "auto") {
    o.threshold = r.number("threshold");
  } else {
    o.freeze_step = r.integer("freeze_step");
    if (r.has("threshold")) {
      r.params().fail("key 'threshold' only applies with freeze_step=auto, but freeze_step = " +
                      freeze);
    }
  }
  return std::make_unique<OnebitAdam>(l, c, o);
}

std::unique_ptr<Optimizer> build_naive_onebit_adam(const std::string& name, KeyReader& r,
                                                   const CommonOptions& c, const ParamLayout& l) {
  const AdamOptions a = read_adam(r, true);
  return std::make_unique<Adam>(name, l, c, a, read_compressor(r));
}

std::unique_ptr<Optimizer> build_onebit_lamb(const std::string&, KeyReader& r,
                                             const CommonOptions& c, const ParamLayout& l) {
  OnebitLambOptions o;
  read_adam_betas(r, o);
  o.beta3 = r.number("beta3");
  o.freeze_step = r.integer("freeze_step");
  read_clip(r, o.c_min, o.c_max, "c_min", "c_max");
  read_clip(r, o.r_min, o.r_max, "r_min", "r_max");
  o.r_threshold = r.number("r_threshold");
  o.compressor = read_compressor(r);
  return std::make_unique<OnebitLamb>(l, c, o);
}

std::unique_ptr<Optimizer> build_birder(const std::string& name, KeyReader& r,
                                        const CommonOptions& c, const ParamLayout& l) {
  BirderOptions o;
  o.beta = static_cast<float>(r.number("beta"));
  o.amsgrad_max = r.flag("amsgrad_max");
  if (r.has("amsgrad_start") && !o.amsgrad_max) {
    r.params().fail("key 'amsgrad_start' needs amsgrad_max=true");
  }
  o.amsgrad_start = r.integer("amsgrad_start");
  o.compressor = read_compressor(r);
  if (name == "birder") return std::make_unique<Birder>(l, c, o);
  return std::make_unique<BirderHierarchical>(l, c, o);
}

void add_papers_family(Registry<OptimizerEntry>& reg) {
  const auto freeze = integer_key("freeze_step", "auto", 1, "warmup length T_w, or auto");
  const auto threshold =
      open_low_key("threshold", "0.96", 0, 1, "variance-ratio threshold (freeze_step=auto)");
  const OptionKey sign = compressor_key("sign", "momentum compressor");
  reg.add(with_state(entry("onebit-adam", {}, "1-bit Adam: Adam warmup, then compressed momentum",
                           "Tang et al. 2021, Alg. 1", kAdaptiveLr,
                           adam_keys(false) + std::vector{freeze, threshold, sign},
                           {warmup_stage(), sign_compression_stage()}, build_onebit_adam),
                     {2, 0}, "adam"));
  reg.add(with_state(
      entry(
          "onebit-adam-32bit", {}, "1-bit Adam with an uncompressed momentum average",
          "Tang et al. 2021 (ablation)", kAdaptiveLr,
          adam_keys(false) + std::vector{freeze, threshold},
          {warmup_stage(),
           {stage_name(Stage::kCompression), CommPattern::kRing, "", StageOverlap::kAfterBackward}},
          build_onebit_adam),
      {2, 0}, "adam"));
  reg.add(with_state(
      entry("naive-onebit-adam", {}, "Adam on a compressed gradient average, never frozen",
            "Tang et al. 2021, section 3.2", kAdaptiveLr,
            adam_keys(true) + std::vector{compressor_key("sign", "gradient compressor")},
            {sign_compression_stage()}, build_naive_onebit_adam),
      {2, 0}, "adam"));
  reg.add(with_state(
      entry("onebit-lamb", {},
            "1-bit LAMB: LAMB warmup, then compressed momentum with frozen ratios",
            "Li et al. 2022, Alg. 1", kAdaptiveLr,
            adam_keys(false) +
                std::vector{beta_key("beta3", "0.9", "coefficient of the ratio average"),
                            integer_key("freeze_step", "", 1, "the warmup length T_w")} +
                clip_keys("c_min", "0.01", "c_max", "10", "c_t") +
                clip_keys("r_min", "0.5", "r_max", "4", "r_t") +
                std::vector{range_key("r_threshold", "0.1", 0, 1, true, "ratio update threshold"),
                            sign},
            {lamb_step(warmup_stage()), lamb_step(sign_compression_stage())}, build_onebit_lamb),
      {4, 0}, "lamb"));
  const std::vector<OptionKey> birder_keys = {
      beta_key("beta", "0.95", "moment coefficient"),
      flag_key("amsgrad_max", "false", "keep the running maximum of b"),
      integer_key("amsgrad_start", "0", 0, "step T0 after which the maximum applies"),
      compressor_key("binary", "update compressor")};
  reg.add(
      with_state(entry("birder", {}, "Birder: binary-compressed m/(b+eps) over a flat allreduce",
                       "Peng et al. 2023, Alg. 1", kAdaptiveLr, birder_keys,
                       {{stage_name(Stage::kCompression), CommPattern::kCompressedFlat, "binary",
                         StageOverlap::kAfterBackward}},
                       build_birder),
                 {2, 0}, "adam"));
  reg.add(with_state(
      entry("birder-hierarchical", {}, "Birder with the hierarchical compressed allreduce",
            "Peng et al. 2023, section 4", kAdaptiveLr, birder_keys,
            {{stage_name(Stage::kCompression), CommPattern::kCompressedHierarchical, "binary",
              StageOverlap::kAfterBackward}},
            build_birder),
      {0, 2}, "adam"));
}

}  // namespace compopt::optimizer_entries
