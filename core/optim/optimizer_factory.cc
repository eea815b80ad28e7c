#include "core/optim/optimizer_factory.h"

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"

namespace compopt {
namespace {

CommonOptions read_common(HyperParams& hp, double default_lr) {
  KeyReader r(hp, common_optimizer_keys());
  CommonOptions c;
  c.schedule = make_lr_schedule(hp, default_lr);
  c.weight_decay = r.number("weight_decay");
  c.eps = r.number("eps");
  c.wire = r.text("wire") == "fp16" ? WirePrecision::kFp16 : WirePrecision::kFp32;
  c.seed = static_cast<uint64_t>(r.integer("seed"));
  return c;
}

}  // namespace

std::vector<std::string> optimizer_names() { return optimizer_registry().names(); }

std::unique_ptr<Optimizer> make_optimizer(std::string_view name, const HyperParamMap& params,
                                          const ParamLayout& layout) {
  const OptimizerEntry* entry = optimizer_registry().find(name);
  if (entry == nullptr) {
    throw InvalidArgument("make_optimizer: unknown optimizer '" + std::string(name) +
                          "', expected " + optimizer_registry().expected());
  }
  HyperParams hp(entry->name, params);
  CommonOptions common = read_common(hp, entry->default_lr);
  KeyReader keys(hp, entry->keys);
  auto opt = entry->build(entry->name, keys, std::move(common), layout);
  hp.finish();
  return opt;
}

}  // namespace compopt
