// The shared building blocks of the optimizer registry's entries (optimizer_entries.h).
#include "core/optim/optimizer_entries.h"

#include "core/compress/compressor.h"
#include "core/util/error.h"

namespace compopt::optimizer_entries {

StageSpec full_precision_stage() {
  return {stage_name(Stage::kFullPrecision), CommPattern::kRing, "", StageOverlap::kBehindBackward};
}

StageSpec warmup_stage() {
  return {stage_name(Stage::kWarmup), CommPattern::kRing, "", StageOverlap::kBehindBackward};
}

StageSpec sign_compression_stage() {
  return {stage_name(Stage::kCompression), CommPattern::kCompressedFlat, "sign",
          StageOverlap::kAfterBackward};
}

// Adam's step moves 48 fp32 bytes per parameter (adam.cc: the two moment EMAs, the direction and
// the update, each reading two vectors and writing one). LAMB's and 1-bit LAMB's warmup move 68:
// the same four passes plus, per layer, the weight decay added to the update (12) and the norms
// of x and of the update (4 + 4). 1-bit LAMB's compression step also moves 68: it copies m (8),
// does the EMA (12), scales and unscales m per layer (8 + 8), reads m, m_prev, v and v_fresh for
// the ratio (16) and updates x from m and v (16).
StageSpec lamb_step(StageSpec stage) {
  stage.step_bytes_ratio = 68.0 / 48.0;
  return stage;
}

std::vector<OptionKey> operator+(std::vector<OptionKey> a, const std::vector<OptionKey>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<OptionKey> momentum_keys(const std::string& beta) {
  return {beta_key("beta", beta, "momentum coefficient"),
          choice_key("form", {"paper", "pytorch"},
                     "paper: m = beta*m + (1-beta)*g; pytorch: m = beta*m + g"),
          flag_key("nesterov", "false", "Nesterov momentum")};
}

std::vector<OptionKey> adam_keys(bool bias_correction) {
  std::vector<OptionKey> keys = {beta_key("beta1", "0.9", "first-moment coefficient"),
                                 beta_key("beta2", "0.999", "second-moment coefficient")};
  if (bias_correction) keys.push_back(flag_key("bias_correction", "false", "Adam bias correction"));
  return keys;
}

std::vector<OptionKey> clip_keys(const std::string& lo, const std::string& lo_default,
                                 const std::string& hi, const std::string& hi_default,
                                 const std::string& what) {
  return {positive_key(lo, lo_default, "lower clip of " + what),
          positive_key(hi, hi_default, "upper clip of " + what)};
}

MomentumOptions read_momentum(KeyReader& r) {
  MomentumOptions m;
  m.beta = static_cast<float>(r.number("beta"));
  m.form = r.text("form") == "pytorch" ? MomentumForm::kPyTorch : MomentumForm::kPaper;
  m.nesterov = r.flag("nesterov");
  return m;
}

AdamOptions read_adam(KeyReader& r, bool with_bias_correction) {
  AdamOptions a;
  a.beta1 = static_cast<float>(r.number("beta1"));
  a.beta2 = static_cast<float>(r.number("beta2"));
  if (with_bias_correction) a.bias_correction = r.flag("bias_correction");
  return a;
}

void read_clip(KeyReader& r, double& lo, double& hi, const std::string& lo_key,
               const std::string& hi_key) {
  lo = r.number(lo_key);
  hi = r.number(hi_key);
  if (lo > hi) {
    r.params().fail("key '" + lo_key + "' = " + std::to_string(lo) + " exceeds '" + hi_key +
                    "' = " + std::to_string(hi) + ", expected " + lo_key + " <= " + hi_key);
  }
}

std::string read_compressor(KeyReader& r) {
  std::string spec = r.text("compressor");
  try {
    if (!make_compressor(spec)->chunkable()) {
      throw InvalidArgument(spec +
                            " messages have no fixed width per element, so they cannot be cut "
                            "into the chunks of the compressed allreduce; expected one of "
                            "identity, fp16, sign, binary, nbit:B");
    }
  } catch (const InvalidArgument& e) {
    r.params().fail("key 'compressor' = '" + spec + "': " + e.what());
  }
  return spec;
}

OptimizerEntry entry(std::string name, std::vector<std::string> aliases, std::string help,
                     std::string source, double lr, std::vector<OptionKey> keys,
                     std::vector<StageSpec> stages, OptimizerBuilder build) {
  OptimizerEntry e;
  e.name = std::move(name);
  e.aliases = std::move(aliases);
  e.help = std::move(help);
  e.source = std::move(source);
  e.default_lr = lr;
  e.keys = std::move(keys);
  e.stages = std::move(stages);
  e.build = std::move(build);
  return e;
}

OptimizerEntry with_state(OptimizerEntry e, StateFootprint state, std::string baseline) {
  e.state = state;
  e.baseline = std::move(baseline);
  return e;
}

}  // namespace compopt::optimizer_entries
