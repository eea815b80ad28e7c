// `compopt reproduce`, the main job: runs every study of the papers (quick
// scale by default, --full for the papers' scale), writes their CSVs into one
// run directory, draws the figures with analysis/plot_all.py and writes
// report.md (our numbers, the published ones where data/published/ has them, and
// the relative error). A study that fails is reported and the others still
// run; the exit code is then 1. Bad options fail before any work (exit 2).

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/reproduce/study.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/forked_jobs.h"
#include "experiments/scenario/option_ranges.h"
#include "net_models/published_tables.h"

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;
using reproduce::Study;

struct Options {
  bool full = false;
  std::vector<std::string> only;
  std::string out;
  bool overwrite = false;
  int jobs = 0;
  bool figures = true;
  std::string analysis_dir;
};

struct Outcome {
  const Study* study;
  std::string section;
  double seconds = 0;
  bool ok = false;
};

// The studies --only names (by name or alias), in registry order; all without --only.
std::vector<const Study*> selected_studies(const Options& o) {
  const Registry<Study>& registry = reproduce::study_registry();
  std::set<std::string> wanted;
  for (const std::string& name : o.only) {
    try {
      wanted.insert(registry.canonical(name));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("--only '{}': {}", name, e.what()));
    }
  }
  std::vector<const Study*> out;
  for (const Study& s : registry.entries())
    if (o.only.empty() || wanted.contains(s.name)) out.push_back(&s);
  return out;
}

fs::path analysis_dir(const Options& o) {
  if (!o.analysis_dir.empty()) return o.analysis_dir;
  if (const char* env = std::getenv("COMPOPT_ANALYSIS_DIR")) return env;
  return fs::path(COMPOPT_SOURCE_DIR) / "analysis";
}

// Runs analysis/plot_all.py; returns "" or why no figures were drawn.
std::string draw_figures(const Options& o, const fs::path& run) {
  const fs::path script = analysis_dir(o) / "plot_all.py";
  if (!fs::exists(script)) return fmt::format("{} not found (set --analysis-dir)", script.string());
  const std::string command = fmt::format("python3 '{}' '{}'", script.string(), run.string());
  std::fflush(nullptr);
  const int status = std::system(command.c_str());
  if (status != 0) return fmt::format("`{}` failed (status {})", command, status);
  return "";
}

std::string report(const Options& o, const RunDirectory& dir, const std::vector<Outcome>& outcomes,
                   const std::string& figure_problem, double total_seconds) {
  std::string md = fmt::format(
      "# compopt reproduce — {} scale\n\n"
      "Run directory `{}`; {} studies in {:.0f} s. Published numbers come from "
      "`{}` (1-bit Adam, Tang et al., Table 1) and `{}` (Birder, Peng et al., Tables 1-2, single "
      "node), embedded in this binary at build time. Relative error = (ours - published) / "
      "published. Column definitions of every CSV and the discussion of each disagreement: "
      "docs/reproduction.md.\n\n",
      o.full ? "full" : "quick", dir.path().string(), outcomes.size(), total_seconds,
      net::onebit_adam_profile_table().file, net::birder_single_node_table().file);
  if (!figure_problem.empty())
    md += fmt::format("**Figures were not drawn:** {}\n\n", figure_problem);
  md += "| study | status | seconds |\n|---|---|---:|\n";
  for (const Outcome& r : outcomes)
    md += fmt::format("| [{}](#{}) | {} | {:.0f} |\n", r.study->help, r.study->name,
                      r.ok ? "ok" : "FAILED", r.seconds);
  for (const Outcome& r : outcomes) {
    md += fmt::format("\n<a id=\"{}\"></a>\n## {}\n\n", r.study->name, r.study->help);
    md += r.ok ? r.section : fmt::format("**Failed:** {}\n", r.section);
    if (r.ok && figure_problem.empty() &&
        fs::exists(dir.work_path() / "figures" / (r.study->name + ".png")))
      md += fmt::format("\n![{}](figures/{}.png)\n", r.study->help, r.study->name);
    md += fmt::format("\nCSV: `{}/`\n", r.study->name);
  }
  return md;
}

// runs/latest-reproduce -> the default run directory just written (best effort).
void link_latest(const fs::path& run) {
  const fs::path link = run.parent_path() / "latest-reproduce";
  std::error_code ignored;
  fs::remove(link, ignored);
  fs::create_directory_symlink(run.filename(), link, ignored);
}

// An --analysis-dir given without plot_all.py in it is refused before any study runs (the
// default folder, absent from an installed binary's tree, only costs the figures at the end).
void check_analysis_dir(const Options& o) {
  if (!o.figures || o.analysis_dir.empty()) return;
  const fs::path script = fs::path(o.analysis_dir) / "plot_all.py";
  if (!fs::is_regular_file(script)) {
    throw InvalidArgument(fmt::format(
        "--analysis-dir {}: no plot_all.py in it, expected compopt's analysis/ folder (or "
        "--no-figures)",
        o.analysis_dir));
  }
}

void run(const Options& o) {
  const std::vector<const Study*> studies = selected_studies(o);
  check_analysis_dir(o);
  RunDirectory dir("reproduce", o.out, out_mode(o.overwrite));
  dir.run([&] {
    fmt::print("compopt reproduce ({} scale): {} studies into {}\n", o.full ? "full" : "quick",
               studies.size(), dir.path().string());
    const auto start = std::chrono::steady_clock::now();
    const auto seconds_since = [](auto t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    std::vector<Outcome> outcomes;
    bool all_ok = true;
    for (size_t i = 0; i < studies.size(); ++i) {
      const Study& study = *studies[i];
      fmt::print("[{}/{}] {} ...\n", i + 1, studies.size(), study.help);
      std::fflush(stdout);
      const auto t0 = std::chrono::steady_clock::now();
      Outcome outcome{&study, "", 0, false};
      try {
        reproduce::StudyContext context{dir.work_path() / study.name, o.full,
                                        parallel_jobs(o.jobs)};
        fs::create_directories(context.dir);
        outcome.section = study.run(context);
        outcome.ok = true;
      } catch (const std::exception& e) {
        outcome.section = e.what();
        all_ok = false;
        fmt::print(stderr, "study {} failed: {}\n", study.name, e.what());
      }
      outcome.seconds = seconds_since(t0);
      fmt::print("      {} in {:.1f} s\n", outcome.ok ? "done" : "FAILED", outcome.seconds);
      outcomes.push_back(std::move(outcome));
    }
    const std::string figure_problem =
        o.figures ? draw_figures(o, dir.work_path()) : "--no-figures given";
    dir.write_file("report.md", report(o, dir, outcomes, figure_problem, seconds_since(start)));
    std::vector<std::string> names;
    names.reserve(studies.size());
    for (const Study* s : studies) names.push_back(s->name);
    dir.write_run_json({{"scale", o.full ? "full" : "quick"},
                        {"studies", names},
                        {"jobs", parallel_jobs(o.jobs)},
                        {"seconds", seconds_since(start)}});
    if (!figure_problem.empty() && o.figures) fmt::print(stderr, "figures: {}\n", figure_problem);
    if (!all_ok) throw std::runtime_error("some studies failed (see report.md)");
  });
  if (o.out.empty()) link_latest(dir.path());
  fmt::print("\nreport: {}\n", (dir.path() / "report.md").string());
}

}  // namespace

void register_reproduce_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "reproduce",
      "Run the papers' studies (quick by default), draw the figures and write report.md");
  cmd->add_flag("--full", o->full, "the papers' scale (slower) instead of the quick scale");
  cmd->add_option("--only", o->only,
                  "run only these studies (repeatable or comma-separated): " +
                      reproduce::study_registry().expected())
      ->delimiter(',');
  cmd->add_option("--out", o->out, "run directory (default runs/reproduce-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->add_option("--jobs", o->jobs, "processes at once (0 = all cores)")
      ->check(in_range("--jobs", 0, kMaxJobs, "processes at once, 0 = all cores"))
      ->capture_default_str();
  cmd->add_flag("!--no-figures", o->figures, "skip the matplotlib figures");
  cmd->add_option("--analysis-dir", o->analysis_dir,
                  "folder of plot_all.py (default: the source tree's analysis/)");
  cmd->footer("Studies (in the order they run):\n" + reproduce::study_registry().help_lines());
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
