// DeMo's registry entry.
#include "core/optim/demo.h"
#include "core/optim/optimizer_entries.h"

namespace compopt::optimizer_entries {

// DeMo's step moves 36 fp32 bytes per parameter (demo.cc): the momentum pass reads m and g and
// writes m (12); compressing reads and writes m block by block (8), the coefficients staying in
// cache; decoding writes the sign (4); the update reads x and the sign and writes x (12).
constexpr double kDemoStepBytesRatio = 36.0 / 48.0;
// At the default keys each 64 x 64 block of a matrix sends 32 fp32 values with uint16 indices:
// 32 * (4 + 2) bytes for 64 * 64 * 4 bytes of the fp32 vector. Nearly all of a transformer's or
// CNN's parameters are in matrices; a 1-D tensor's 64-element chunks send 0.75 of theirs.
constexpr double kDemoWireFraction = 32.0 * (4 + 2) / (64.0 * 64 * 4);

void add_demo_family(Registry<OptimizerEntry>& reg) {
  const std::vector<OptionKey> keys = {
      beta_key("compression_decay", "0.999", "decay of the local momentum (reference code)"),
      integer_key("compression_topk", "32", 1, "DCT coefficients sent per chunk (reference code)"),
      integer_key("compression_chunk", "64", 1,
                  "target chunk length, at most 256: the largest divisor of the tensor length "
                  "not above it (reference code)")};
  const StageSpec gather{.name = stage_name(Stage::kCompression),
                         .pattern = CommPattern::kAllGather,
                         .compressor = "",
                         .overlap = StageOverlap::kAfterBackward,
                         .step_bytes_ratio = kDemoStepBytesRatio,
                         .period = 1,
                         .wire_fraction = kDemoWireFraction,
                         .low_rank = 0,
                         .overlap_steps = 0};
  reg.add(with_state(
      entry("demo", {}, "DeMo: local momentum, allgather of its top-k DCT coefficients, sign step",
            "Peng et al. 2024, Alg. 1", kAdaptiveLr, keys, {gather},
            [](const std::string&, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
              DemoOptions o;
              o.decay = static_cast<float>(r.number("compression_decay"));
              o.topk = r.integer("compression_topk");
              o.chunk = r.integer("compression_chunk");
              if (o.chunk > DemoOptions::kMaxChunk) {
                r.params().fail("key 'compression_chunk' = " + std::to_string(o.chunk) +
                                ", expected an integer in [1, 256]");
              }
              return std::make_unique<Demo>(l, c, o);
            }),
      {1, 0}, "adam"));
}

}  // namespace compopt::optimizer_entries
