#include "experiments/reproduce/study.h"

#include "core/util/file_io.h"

namespace compopt::cli::reproduce {

void StudyContext::write_file(const std::string& name, const std::string& contents) const {
  default_env().create_dirs(dir);
  write_file_atomic(dir / name, contents);
}

namespace {

Registry<Study> make_registry() {
  Registry<Study> r("study");
  r.add(
      {{"variance", {}, "Variance stability of Adam and the freeze detector"}, run_variance_study});
  r.add({{"convergence", {}, "Convergence, sample-wise and time-wise"}, run_convergence_study});
  r.add({{"lamb", {}, "1-bit LAMB layer-wise coefficients and ratios"}, run_lamb_study});
  r.add({{"volume", {}, "Communication volume: formula against measured bytes"}, run_volume_study});
  r.add(
      {{"profile", {}, "Step-time profile of BERT-Large (1-bit Adam Table 1)"}, run_profile_study});
  r.add({{"scalability", {}, "Scalability: throughput against GPU count"}, run_scalability_study});
  r.add({{"bandwidth", {}, "Bandwidth sweep: compression-stage speedup"}, run_bandwidth_study});
  r.add(
      {{"hierarchical", {}, "Hierarchical against flat 1-bit allreduce"}, run_hierarchical_study});
  r.add({{"break_even", {}, "Break-even bandwidth of compression"}, run_break_even_study});
  r.add({{"torch_variance", {}, "Variance stability of 1-bit Adam on a PyTorch transformer"},
         run_torch_variance_study});
  r.add({{"torch_convergence", {}, "Convergence of real PyTorch models per optimizer pair"},
         run_torch_convergence_study});
  r.add({{"methods", {}, "Methods side by side: each optimizer family against its baseline"},
         run_methods_study});
  return r;
}

}  // namespace

const Registry<Study>& study_registry() {
  static const Registry<Study> registry = make_registry();
  return registry;
}

}  // namespace compopt::cli::reproduce
