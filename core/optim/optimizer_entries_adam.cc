// The Adam family's registry entries: Adam, BERT's Adam and LAMB.
#include "core/optim/lamb.h"
#include "core/optim/optimizer_entries.h"

namespace compopt::optimizer_entries {

void add_adam_family(Registry<OptimizerEntry>& reg) {
  const auto adam = [](bool bias_correction) {
    return [=](const std::string& n, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
      return std::make_unique<Adam>(n, l, c, read_adam(r, bias_correction));
    };
  };
  reg.add(with_state(entry("adam", {}, "Adam on the ring-averaged gradient", "Kingma & Ba 2015",
                           kAdaptiveLr, adam_keys(true), {full_precision_stage()}, adam(true)),
                     {2, 0}));
  reg.add(
      with_state(entry("bertadam", {}, "Adam as BERT's recipe configures it: no bias correction",
                       "Devlin et al. 2019", kAdaptiveLr, adam_keys(false),
                       {full_precision_stage()}, adam(false)),
                 {2, 0}));
  reg.add(with_state(
      entry("lamb", {}, "LAMB on the ring-averaged gradient", "You et al. 2020", kAdaptiveLr,
            adam_keys(true) + clip_keys("c_min", "0.01", "c_max", "10", "c_t"),
            {lamb_step(full_precision_stage())},
            [](const std::string&, KeyReader& r, const CommonOptions& c, const ParamLayout& l) {
              LambOptions o;
              o.adam = read_adam(r, true);
              read_clip(r, o.c_min, o.c_max, "c_min", "c_max");
              return std::make_unique<Lamb>(l, c, o);
            }),
      {2, 0}));
}

}  // namespace compopt::optimizer_entries
