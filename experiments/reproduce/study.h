#pragma once
// A study of `compopt reproduce`: one of the papers' experiments (or the
// break-even search none of them has) at a quick or full scale. A study writes
// its CSVs into its own folder of the run directory (the columns are listed in
// docs/reproduction.md, and analysis/plot_<name>.py draws them) and returns its
// section of report.md: what was run and a table of our numbers beside the
// published ones where data/published/ has them. The studies form one registry
// (name, aliases, one-line help = report heading, the function that runs it).
//
// Studies that simulate run each SimGrid engine in a forked child
// (forked_jobs.h); studies run one after another in the parent process.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/util/registry.h"

namespace compopt::cli::reproduce {

struct StudyContext {
  std::filesystem::path dir;  // <run>/<study name>/, created
  bool full = false;          // full scale (--full) or quick
  int jobs = 1;               // processes to run at once

  // Writes dir/name atomically (temporary file + rename).
  void write_file(const std::string& name, const std::string& contents) const;
};

// name: folder, figure and CLI name (variance, convergence, ...); help: report heading.
struct Study : RegistryEntry {
  std::function<std::string(const StudyContext&)> run;  // returns the report section body
};

// Every study, in the order reproduce runs them.
const Registry<Study>& study_registry();

// The studies (one function each, in study_<name>.cc).
std::string run_variance_study(const StudyContext& context);
std::string run_convergence_study(const StudyContext& context);
std::string run_profile_study(const StudyContext& context);
std::string run_scalability_study(const StudyContext& context);
std::string run_bandwidth_study(const StudyContext& context);
std::string run_hierarchical_study(const StudyContext& context);
std::string run_lamb_study(const StudyContext& context);
std::string run_volume_study(const StudyContext& context);
std::string run_break_even_study(const StudyContext& context);
std::string run_torch_variance_study(const StudyContext& context);
std::string run_torch_convergence_study(const StudyContext& context);
std::string run_methods_study(const StudyContext& context);

}  // namespace compopt::cli::reproduce
