#include "experiments/scenario/sensitivity_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "experiments/scenario/sensitivity_inputs.h"
#include "sim/model_error.h"

namespace compopt::cli {
namespace {

// Two decimals, four where two would show 1.00 for a speedup that is not 1 (its verdict
// would not show).
std::string times(double speedup) {
  const std::string text = fmt::format("{:.2f}x", speedup);
  return text == "1.00x" && speedup != 1 ? fmt::format("{:.4f}x", speedup) : text;
}

std::string span(double low, double high) { return times(low) + " .. " + times(high); }

// A CSV field, quoted when it holds a comma or a quote.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// One line of the printed table, without trailing blanks.
std::string table_line(const std::string& input, const std::string& low, const std::string& high,
                       const std::string& at_low, const std::string& at_high,
                       const std::string& flips) {
  const std::string line = fmt::format("{:<23} {:>12} .. {:<12} {:>14} .. {:<8} {}", input, low,
                                       high, at_low, at_high, flips);
  return line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
}

// "measured" (in the band of every prediction) or "choice" (a what-if only).
const char* input_kind(bool measured) { return measured ? "measured" : "choice"; }

std::vector<std::string> sources_of(const Sensitivity& s) {
  std::vector<std::string> out;
  for (const SensitivityRow& r : s.rows) out.push_back(r.input + ": " + r.source);
  return out;
}

// The names of the rows of one kind.
std::string names_of(const Sensitivity& s, bool measured) {
  std::vector<std::string> names;
  for (const SensitivityRow& r : s.rows)
    if (r.measured == measured) names.push_back(r.input);
  return fmt::format("{}", fmt::join(names, ", "));
}

bool pays_everywhere(const Sensitivity& s) { return s.min_speedup > 1; }
bool pays_nowhere(const Sensitivity& s) { return s.max_speedup <= 1; }

}  // namespace

std::string sensitivity_verdict(const Sensitivity& s) {
  const std::string range = span(s.min_speedup, s.max_speedup);
  if (pays_everywhere(s)) return fmt::format("{} pays in every case ({})", s.optimizer, range);
  if (pays_nowhere(s)) return fmt::format("{} pays in no case ({})", s.optimizer, range);
  std::vector<std::string> flips;
  for (const SensitivityRow& r : s.rows) {
    if (!r.flips) continue;
    flips.push_back(
        fmt::format("{} ({})", r.input,
                    span(std::min({r.speedup_low, r.speedup_high, s.expected_speedup}),
                         std::max({r.speedup_low, r.speedup_high, s.expected_speedup}))));
  }
  return fmt::format("{}: {}, depends on: {}", s.optimizer, range, fmt::join(flips, ", "));
}

std::string sensitivity_table(const Sensitivity& s) {
  std::string text = fmt::format(
      "what the answer depends on ({}): speedup of {} over {} (step time of each one's last "
      "stage) with one input at a time at its low and high end, the others as given\n",
      s.label, s.optimizer, s.baseline);
  text += table_line("input", "low end", "high end", "speedup at low", "at high", "flips");
  for (const SensitivityRow& r : s.rows) {
    text += table_line(r.input, r.low_value, r.high_value, times(r.speedup_low),
                       times(r.speedup_high), r.flips ? "yes" : "");
  }
  text +=
      fmt::format("expected speedup {} (ranges: docs/whatif.md, \"What the answer depends on\")\n",
                  times(s.expected_speedup));
  text += fmt::format(
      "measured, in the low..high band of every prediction: {} (a time's band also holds the "
      "model's error, +-{:.1f}%); choices, what-ifs only: {}\n",
      names_of(s, true), 100 * sim::model_error().fraction, names_of(s, false));
  return text + sensitivity_verdict(s) + "\n";
}

std::string sensitivity_csv(const std::vector<Sensitivity>& analyses) {
  std::string csv =
      "scenario,optimizer,baseline,input,low_value,high_value,speedup_low,speedup_high,"
      "expected_speedup,flips,source,kind\n";
  for (const Sensitivity& s : analyses) {
    for (const SensitivityRow& r : s.rows) {
      csv += fmt::format("{},{},{},{},{},{},{:.4f},{:.4f},{:.4f},{},{},{}\n", csv_field(s.label),
                         s.optimizer, s.baseline, csv_field(r.input), csv_field(r.low_value),
                         csv_field(r.high_value), r.speedup_low, r.speedup_high, s.expected_speedup,
                         r.flips ? "true" : "false", csv_field(r.source), input_kind(r.measured));
    }
  }
  return csv;
}

nlohmann::json sensitivity_json(const std::vector<Sensitivity>& analyses) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const UncertainInput& input : uncertain_inputs())
    inputs.push_back(
        {{"name", input.name}, {"changes", input.changes}, {"kind", input_kind(input.measured)}});
  nlohmann::json out = nlohmann::json::array();
  for (const Sensitivity& s : analyses) {
    out.push_back({{"scenario", s.label},
                   {"optimizer", s.optimizer},
                   {"baseline", s.baseline},
                   {"expected_speedup", s.expected_speedup},
                   {"min_speedup", s.min_speedup},
                   {"max_speedup", s.max_speedup},
                   {"sources", sources_of(s)},
                   {"verdict", sensitivity_verdict(s)}});
  }
  return {{"file", "sensitivity.csv"}, {"inputs", inputs}, {"analyses", out}};
}

}  // namespace compopt::cli
