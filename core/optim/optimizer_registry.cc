#include "core/optim/optimizer_registry.h"

#include "core/compress/compressor.h"
#include "core/optim/adam.h"
#include "core/optim/birder.h"
#include "core/optim/birder_hierarchical.h"
#include "core/optim/compressed_momentum_sgd.h"
#include "core/optim/demo.h"
#include "core/optim/diloco.h"
#include "core/optim/lamb.h"
#include "core/optim/local_sgd.h"
#include "core/optim/momentum_sgd.h"
#include "core/optim/onebit_adam.h"
#include "core/optim/onebit_lamb.h"
#include "core/optim/powersgd.h"
#include "core/optim/sgd.h"
#include "core/optim/zero_one_adam.h"
#include "core/util/error.h"

namespace compopt {
namespace {

constexpr double kSgdLr = 0.01;
constexpr double kAdaptiveLr = 1e-3;

// The gradient's ring allreduce goes out in buckets as backward produces them (PyTorch DDP);
// every other vector is formed in the optimizer step from the whole gradient (stage_spec.h).
const StageSpec kFull{stage_name(Stage::kFullPrecision), CommPattern::kRing, "",
                      StageOverlap::kBehindBackward};
const StageSpec kWarmup{stage_name(Stage::kWarmup), CommPattern::kRing, "",
                        StageOverlap::kBehindBackward};
const StageSpec kSignFlat{stage_name(Stage::kCompression), CommPattern::kCompressedFlat, "sign",
                          StageOverlap::kAfterBackward};

// Adam's step moves 48 fp32 bytes per parameter (adam.cc: the two moment EMAs, the direction and
// the update, each reading two vectors and writing one). LAMB's and 1-bit LAMB's warmup move 68:
// the same four passes plus, per layer, the weight decay added to the update (12) and the norms
// of x and of the update (4 + 4). 1-bit LAMB's compression step also moves 68: it copies m (8),
// does the EMA (12), scales and unscales m per layer (8 + 8), reads m, m_prev, v and v_fresh for
// the ratio (16) and updates x from m and v (16).
constexpr double kLambStepBytesRatio = 68.0 / 48.0;

// The stage with LAMB's per-layer step (kLambStepBytesRatio).
StageSpec lamb_step(StageSpec stage) {
  stage.step_bytes_ratio = kLambStepBytesRatio;
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

// A compressor for the compressed allreduce: it must cut into chunks (compressor.h).
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

// The entry with its state footprint and baseline (optimizer_registry.h).
OptimizerEntry with_state(OptimizerEntry e, StateFootprint state, std::string baseline = "") {
  e.state = state;
  e.baseline = std::move(baseline);
  return e;
}

void add_sgd_basics(Registry<OptimizerEntry>& reg) {
  reg.add(with_state(
      entry("sgd", {}, "plain SGD on the ring-averaged gradient", "baseline", kSgdLr, {}, {kFull},
            [](const std::string&, KeyReader&, const CommonOptions& c, const ParamLayout& l) {
              return std::make_unique<Sgd>(l, c);
            }),
      {0, 0}));
  reg.add(with_state(
      entry("momentum-sgd", {"sgdm"}, "momentum SGD on the ring-averaged gradient", "baseline",
            kSgdLr, momentum_keys("0.9"), {kFull},
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
            {kSignFlat}, compressed(CompressedVector::kMomentum)),
      {1, 0}, "momentum-sgd"));
  reg.add(
      with_state(entry("doublesqueeze", {}, "compressed allreduce of the gradient, then momentum",
                       "Tang et al. 2019", kSgdLr, momentum_keys("0") + std::vector{compressor},
                       {kSignFlat}, compressed(CompressedVector::kGradient)),
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

void add_adam_family(Registry<OptimizerEntry>& reg) {
  const auto adam = [](bool bias_correction) {
    return [=](const std::string& n, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
      return std::make_unique<Adam>(n, l, c, read_adam(r, bias_correction));
    };
  };
  reg.add(with_state(entry("adam", {}, "Adam on the ring-averaged gradient", "Kingma & Ba 2015",
                           kAdaptiveLr, adam_keys(true), {kFull}, adam(true)),
                     {2, 0}));
  reg.add(
      with_state(entry("bertadam", {}, "Adam as BERT's recipe configures it: no bias correction",
                       "Devlin et al. 2019", kAdaptiveLr, adam_keys(false), {kFull}, adam(false)),
                 {2, 0}));
  reg.add(with_state(
      entry("lamb", {}, "LAMB on the ring-averaged gradient", "You et al. 2020", kAdaptiveLr,
            adam_keys(true) + clip_keys("c_min", "0.01", "c_max", "10", "c_t"), {lamb_step(kFull)},
            [](const std::string&, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
              LambOptions o;
              o.adam = read_adam(r, true);
              read_clip(r, o.c_min, o.c_max, "c_min", "c_max");
              return std::make_unique<Lamb>(l, c, o);
            }),
      {2, 0}));
}

std::unique_ptr<Optimizer> build_onebit_adam(const std::string& name, KeyReader& r,
                                             const CommonOptions& c, const ParamLayout& l) {
  OnebitAdamOptions o;
  const AdamOptions a = read_adam(r, false);
  o.beta1 = a.beta1;
  o.beta2 = a.beta2;
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
  const AdamOptions a = read_adam(r, false);
  o.beta1 = a.beta1;
  o.beta2 = a.beta2;
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

void add_compressed_family(Registry<OptimizerEntry>& reg) {
  const auto freeze = integer_key("freeze_step", "auto", 1, "warmup length T_w, or auto");
  const auto threshold =
      open_low_key("threshold", "0.96", 0, 1, "variance-ratio threshold (freeze_step=auto)");
  const OptionKey sign = compressor_key("sign", "momentum compressor");
  reg.add(with_state(entry("onebit-adam", {}, "1-bit Adam: Adam warmup, then compressed momentum",
                           "Tang et al. 2021, Alg. 1", kAdaptiveLr,
                           adam_keys(false) + std::vector{freeze, threshold, sign},
                           {kWarmup, kSignFlat}, build_onebit_adam),
                     {2, 0}, "adam"));
  reg.add(with_state(
      entry(
          "onebit-adam-32bit", {}, "1-bit Adam with an uncompressed momentum average",
          "Tang et al. 2021 (ablation)", kAdaptiveLr,
          adam_keys(false) + std::vector{freeze, threshold},
          {kWarmup,
           {stage_name(Stage::kCompression), CommPattern::kRing, "", StageOverlap::kAfterBackward}},
          build_onebit_adam),
      {2, 0}, "adam"));
  reg.add(with_state(
      entry("naive-onebit-adam", {}, "Adam on a compressed gradient average, never frozen",
            "Tang et al. 2021, section 3.2", kAdaptiveLr,
            adam_keys(true) + std::vector{compressor_key("sign", "gradient compressor")},
            {kSignFlat}, build_naive_onebit_adam),
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
            {lamb_step(kWarmup), lamb_step(kSignFlat)}, build_onebit_lamb),
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

std::unique_ptr<Optimizer> build_zero_one_adam(const std::string&, KeyReader& r,
                                               const CommonOptions& c, const ParamLayout& l) {
  ZeroOneAdamOptions o;
  const AdamOptions a = read_adam(r, false);
  o.beta1 = a.beta1;
  o.beta2 = a.beta2;
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
            {kWarmup, zero_one_adam_compressed_stage()}, build_zero_one_adam),
      {3, 0}, "adam"));
}

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
            {kWarmup, compression}, build_powersgd),
      {2, 0}, "momentum-sgd"));
  reg.add(with_state(
      entry("powersgd-adam", {}, "rank-r PowerSGD of the gradient (error feedback), then Adam",
            "Vogels et al. 2019, Alg. 2", kAdaptiveLr, adam_keys(true) + powersgd_keys(),
            {kWarmup, compression}, build_powersgd),
      {3, 0}, "adam"));
}

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

Registry<OptimizerEntry> make_registry() {
  Registry<OptimizerEntry> reg("optimizer");
  add_sgd_basics(reg);
  add_adam_family(reg);
  add_compressed_family(reg);
  add_zero_one_adam(reg);
  add_sgd_variants(reg);
  add_diloco_family(reg);
  add_powersgd_family(reg);
  add_demo_family(reg);
  return reg;
}

}  // namespace

const Registry<OptimizerEntry>& optimizer_registry() {
  static const Registry<OptimizerEntry> registry = make_registry();
  return registry;
}

const std::vector<OptionKey>& common_optimizer_keys() {
  static const std::vector<OptionKey> keys = {
      non_negative_key("weight_decay", "0", "lambda, added to the update as lambda*x"),
      positive_key("eps", "1e-8", "eta, the denominator guard"),
      choice_key("wire", {"fp32", "fp16"}, "precision of the full-precision allreduce"),
      integer_key("seed", "0", 0, "seed of stochastic compressors")};
  return keys;
}

}  // namespace compopt
