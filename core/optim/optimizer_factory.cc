#include "core/optim/optimizer_factory.h"

#include "core/compress/compressor.h"
#include "core/optim/adam.h"
#include "core/optim/birder.h"
#include "core/optim/birder_hierarchical.h"
#include "core/optim/double_squeeze.h"
#include "core/optim/ef_momentum_sgd.h"
#include "core/optim/lamb.h"
#include "core/optim/local_sgd.h"
#include "core/optim/momentum_sgd.h"
#include "core/optim/onebit_adam.h"
#include "core/optim/onebit_lamb.h"
#include "core/optim/sgd.h"
#include "core/util/error.h"

namespace compopt {
namespace {

CommonOptions read_common(HyperParams& hp, double default_lr) {
  CommonOptions c;
  c.schedule = make_lr_schedule(hp, default_lr);
  c.weight_decay = hp.non_negative("weight_decay", 0.0);
  c.eps = hp.positive("eps", 1e-8);
  c.wire = hp.choice("wire", "fp32", {"fp32", "fp16"}) == "fp16" ? WirePrecision::kFp16
                                                                 : WirePrecision::kFp32;
  c.seed = static_cast<uint64_t>(hp.integer("seed", 0, 0));
  return c;
}

std::string read_compressor(HyperParams& hp, const std::string& fallback) {
  const std::string spec = hp.text("compressor", fallback);
  try {
    make_compressor(spec);
  } catch (const InvalidArgument& e) {
    hp.fail("key 'compressor' = '" + spec + "': " + e.what());
  }
  return spec;
}

MomentumOptions read_momentum(HyperParams& hp, double default_beta) {
  MomentumOptions m;
  m.beta = static_cast<float>(hp.beta("beta", default_beta));
  m.form = hp.choice("form", "paper", {"paper", "pytorch"}) == "pytorch" ? MomentumForm::kPyTorch
                                                                         : MomentumForm::kPaper;
  m.nesterov = hp.flag("nesterov", false);
  return m;
}

AdamOptions read_adam(HyperParams& hp, bool with_bias_correction) {
  AdamOptions a;
  a.beta1 = static_cast<float>(hp.beta("beta1", 0.9));
  a.beta2 = static_cast<float>(hp.beta("beta2", 0.999));
  if (with_bias_correction) a.bias_correction = hp.flag("bias_correction", false);
  return a;
}

void read_clip(HyperParams& hp, double& lo, double& hi, const std::string& lo_key,
               const std::string& hi_key, double lo_default, double hi_default) {
  lo = hp.positive(lo_key, lo_default);
  hi = hp.positive(hi_key, hi_default);
  if (lo > hi) {
    hp.fail("key '" + lo_key + "' = " + std::to_string(lo) + " exceeds '" + hi_key +
            "' = " + std::to_string(hi) + ", expected " + lo_key + " <= " + hi_key);
  }
}

std::unique_ptr<Optimizer> build(const std::string& name, HyperParams& hp,
                                 const ParamLayout& layout) {
  const bool sgd_family = name == "sgd" || name == "momentum-sgd" || name == "ef-momentum-sgd" ||
                          name == "doublesqueeze" || name == "local-sgd" ||
                          name == "local-momentum-sgd";
  CommonOptions common = read_common(hp, sgd_family ? 0.01 : 1e-3);
  if (name == "sgd") return std::make_unique<Sgd>(layout, common);
  if (name == "momentum-sgd") {
    return std::make_unique<MomentumSgd>(layout, common, read_momentum(hp, 0.9));
  }
  if (name == "adam") return std::make_unique<Adam>(layout, common, read_adam(hp, true));
  if (name == "lamb") {
    LambOptions o;
    o.adam = read_adam(hp, true);
    read_clip(hp, o.c_min, o.c_max, "c_min", "c_max", 0.01, 10.0);
    return std::make_unique<Lamb>(layout, common, o);
  }
  if (name == "onebit-adam" || name == "onebit-adam-32bit") {
    OnebitAdamOptions o;
    const AdamOptions a = read_adam(hp, false);
    o.beta1 = a.beta1;
    o.beta2 = a.beta2;
    o.uncompressed_momentum = name == "onebit-adam-32bit";
    if (!o.uncompressed_momentum) o.compressor = read_compressor(hp, "sign");
    const std::string freeze = hp.text("freeze_step", "auto");
    if (freeze == "auto") {
      o.threshold = hp.number_in("threshold", 0.96, 0.0, 1.0);
      if (o.threshold == 0.0) hp.fail("key 'threshold' = 0, expected a number in (0, 1]");
    } else {
      o.freeze_step = hp.integer("freeze_step", 1, 1);
      if (hp.has("threshold")) {
        hp.fail("key 'threshold' only applies with freeze_step=auto, but freeze_step = " + freeze);
      }
    }
    return std::make_unique<OnebitAdam>(layout, common, o);
  }
  if (name == "naive-onebit-adam") {
    const AdamOptions a = read_adam(hp, true);
    return std::make_unique<Adam>(layout, common, a, read_compressor(hp, "sign"));
  }
  if (name == "onebit-lamb") {
    OnebitLambOptions o;
    const AdamOptions a = read_adam(hp, false);
    o.beta1 = a.beta1;
    o.beta2 = a.beta2;
    o.beta3 = hp.beta("beta3", 0.9);
    const auto freeze = hp.optional_integer("freeze_step", 1);
    if (!freeze) hp.fail("key 'freeze_step' is required: the warmup length T_w, an integer >= 1");
    o.freeze_step = *freeze;
    read_clip(hp, o.c_min, o.c_max, "c_min", "c_max", 0.01, 10.0);
    read_clip(hp, o.r_min, o.r_max, "r_min", "r_max", 0.5, 4.0);
    o.r_threshold = hp.number_in("r_threshold", 0.1, 0.0, 1.0, true);
    o.compressor = read_compressor(hp, "sign");
    return std::make_unique<OnebitLamb>(layout, common, o);
  }
  if (name == "birder" || name == "birder-hierarchical") {
    BirderOptions o;
    o.beta = static_cast<float>(hp.beta("beta", 0.95));
    o.amsgrad_max = hp.flag("amsgrad_max", false);
    if (hp.has("amsgrad_start") && !o.amsgrad_max) {
      hp.fail("key 'amsgrad_start' needs amsgrad_max=true");
    }
    o.amsgrad_start = hp.integer("amsgrad_start", 0, 0);
    o.compressor = read_compressor(hp, "binary");
    if (name == "birder") return std::make_unique<Birder>(layout, common, o);
    return std::make_unique<BirderHierarchical>(layout, common, o);
  }
  if (name == "ef-momentum-sgd") {
    const MomentumOptions m = read_momentum(hp, 0.9);
    return std::make_unique<EfMomentumSgd>(layout, common, m, read_compressor(hp, "sign"));
  }
  if (name == "doublesqueeze") {
    const MomentumOptions m = read_momentum(hp, 0.0);
    return std::make_unique<DoubleSqueeze>(layout, common, m, read_compressor(hp, "sign"));
  }
  if (name == "local-sgd" || name == "local-momentum-sgd") {
    const int64_t tau = hp.integer("tau", 4, 1);
    std::optional<MomentumOptions> m;
    if (name == "local-momentum-sgd") m = read_momentum(hp, 0.9);
    return std::make_unique<LocalSgd>(layout, common, tau, m);
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> optimizer_names() {
  return {"sgd",
          "momentum-sgd",
          "adam",
          "lamb",
          "onebit-adam",
          "onebit-adam-32bit",
          "naive-onebit-adam",
          "onebit-lamb",
          "birder",
          "birder-hierarchical",
          "ef-momentum-sgd",
          "doublesqueeze",
          "local-sgd",
          "local-momentum-sgd"};
}

std::unique_ptr<Optimizer> make_optimizer(std::string_view name, const HyperParamMap& params,
                                          const ParamLayout& layout) {
  const std::string n(name);
  bool known = false;
  std::string all;
  for (const auto& k : optimizer_names()) {
    known = known || k == n;
    all += (all.empty() ? "" : ", ") + k;
  }
  if (!known) {
    throw InvalidArgument("make_optimizer: unknown optimizer '" + n + "', expected one of " + all);
  }
  HyperParams hp(n, params);
  auto opt = build(n, hp, layout);
  hp.finish();
  return opt;
}

}  // namespace compopt
