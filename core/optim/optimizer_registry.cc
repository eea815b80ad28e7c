#include "core/optim/optimizer_registry.h"

#include "core/optim/optimizer_entries.h"

namespace compopt {
namespace {

// Every family's entries (optimizer_entries_<family>.cc), in the order `compopt list` shows.
Registry<OptimizerEntry> make_registry() {
  namespace entries = optimizer_entries;
  Registry<OptimizerEntry> reg("optimizer");
  entries::add_sgd_family(reg);
  entries::add_adam_family(reg);
  entries::add_papers_family(reg);
  entries::add_zero_one_adam(reg);
  entries::add_sgd_variants(reg);
  entries::add_diloco_family(reg);
  entries::add_powersgd_family(reg);
  entries::add_demo_family(reg);
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
