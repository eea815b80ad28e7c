// DiLoCo's and Streaming DiLoCo's registry entries.
#include "core/optim/diloco.h"
#include "core/optim/optimizer_entries.h"

namespace compopt::optimizer_entries {

// DiLoCo's keys (Douillard et al. 2023, section 3 and Table 5 for the outer rates; PyTorch AdamW
// for the inner ones) and Streaming DiLoCo's additions (Douillard et al. 2025). H defaults to 50,
// not the paper's 500, because compopt's tasks train for hundreds of steps, not 88 000.
constexpr int kDilocoInnerSteps = 50;
constexpr int kStreamingFragments = 5;

std::vector<OptionKey> diloco_keys() {
  return {beta_key("beta1", "0.9", "inner AdamW first-moment coefficient"),
          beta_key("beta2", "0.999", "inner AdamW second-moment coefficient"),
          flag_key("bias_correction", "true", "inner AdamW bias correction (PyTorch AdamW's)"),
          integer_key("inner_steps", std::to_string(kDilocoInnerSteps), 1,
                      "H, inner steps between outer steps"),
          positive_key("outer_lr", "0.7", "outer Nesterov learning rate"),
          beta_key("outer_momentum", "0.9", "outer Nesterov momentum")};
}

std::vector<OptionKey> streaming_keys() {
  return {integer_key("fragments", std::to_string(kStreamingFragments), 1,
                      "F, fragments synchronised in turn (divides H)"),
          integer_key("overlap_steps", "1", 0, "tau, inner steps that hide a fragment's sync"),
          range_key("mixing", "0.5", 0, 1, false, "alpha, weight of the local parameters"),
          integer_key("outer_bits", "4", 2, "bits of the outer gradient (2..16 nbit, 32 fp32)")};
}

DilocoOptions read_diloco(KeyReader& r) {
  DilocoOptions o;
  o.inner = read_adam(r, true);
  o.inner_steps = r.integer("inner_steps");
  o.outer_lr = static_cast<float>(r.number("outer_lr"));
  o.outer_momentum = static_cast<float>(r.number("outer_momentum"));
  return o;
}

std::unique_ptr<Optimizer> build_streaming_diloco(const std::string& name, KeyReader& r,
                                                  const CommonOptions& c, const ParamLayout& l) {
  DilocoOptions o = read_diloco(r);
  o.fragments = r.integer("fragments");
  o.overlap_steps = r.integer("overlap_steps");
  o.mixing = static_cast<float>(r.number("mixing"));
  const int64_t bits = r.integer("outer_bits");
  if (bits > 16 && bits != 32) {
    r.params().fail("key 'outer_bits' = " + std::to_string(bits) +
                    ", expected an integer in 2..16 (nbit) or 32 (fp32)");
  }
  if (bits != 32) o.outer_compressor = "nbit:" + std::to_string(bits);
  return std::make_unique<Diloco>(name, l, c, o);
}

void add_diloco_family(Registry<OptimizerEntry>& reg) {
  reg.add(with_state(
      entry("diloco", {}, "DiLoCo: local AdamW, outer Nesterov on the averaged parameter drift",
            "Douillard et al. 2023, Alg. 1", kAdaptiveLr, diloco_keys(),
            {{.name = stage_name(Stage::kLocal),
              .pattern = CommPattern::kRing,
              .compressor = "",
              .overlap = StageOverlap::kAfterBackward,
              .period = kDilocoInnerSteps}},
            [](const std::string& n, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
              return std::make_unique<Diloco>(n, l, c, read_diloco(r));
            }),
      {5, 0}, "adam"));
  // One fragment of F every H/F steps, as 4-bit fields, sent behind the next tau inner steps.
  reg.add(with_state(
      entry("streaming-diloco", {}, "Streaming DiLoCo: DiLoCo by fragments, 4-bit, overlapped",
            "Douillard et al. 2025, Alg. 2", kAdaptiveLr, diloco_keys() + streaming_keys(),
            {{.name = stage_name(Stage::kLocal),
              .pattern = CommPattern::kCompressedFlat,
              .compressor = "nbit:4",
              .overlap = StageOverlap::kBehindInnerSteps,
              .period = double{kDilocoInnerSteps} / kStreamingFragments,
              .wire_fraction = 1.0 / kStreamingFragments,
              .overlap_steps = 1}},
            build_streaming_diloco),
      {5, 0}, "adam"));
}

}  // namespace compopt::optimizer_entries
