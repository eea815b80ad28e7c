#include "experiments/reproduce/study.h"

#include "core/util/file_io.h"

namespace compopt::cli::reproduce {

void StudyContext::write_file(const std::string& name, const std::string& contents) const {
  default_env().create_dirs(dir);
  write_file_atomic(dir / name, contents);
}

const std::vector<Study>& all_studies() {
  static const std::vector<Study> studies = {
      {"variance", "Variance stability of Adam and the freeze detector", run_variance_study},
      {"convergence", "Convergence, sample-wise and time-wise", run_convergence_study},
      {"lamb", "1-bit LAMB layer-wise coefficients and ratios", run_lamb_study},
      {"volume", "Communication volume: formula against measured bytes", run_volume_study},
      {"profile", "Step-time profile of BERT-Large (1-bit Adam Table 1)", run_profile_study},
      {"scalability", "Scalability: throughput against GPU count", run_scalability_study},
      {"bandwidth", "Bandwidth sweep: compression-stage speedup", run_bandwidth_study},
      {"hierarchical", "Hierarchical against flat 1-bit allreduce", run_hierarchical_study},
      {"break_even", "Break-even bandwidth of compression", run_break_even_study},
  };
  return studies;
}

}  // namespace compopt::cli::reproduce
