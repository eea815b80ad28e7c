#include "sim/training_phases.h"

#include <fmt/format.h>

#include <cmath>

#include "core/util/error.h"

namespace compopt::sim {
namespace {

std::string phase_key(size_t i, const char* key) {
  return fmt::format("training.phases[{}].{}", i + 1, key);
}

// Each phase gives exactly one of fraction and steps, and all phases the same one.
void check_shares(const std::vector<TrainingPhase>& phases) {
  for (size_t i = 0; i < phases.size(); ++i) {
    const TrainingPhase& p = phases[i];
    if (p.fraction.has_value() == p.steps.has_value()) {
      throw InvalidArgument(fmt::format(
          "training.phases[{}] ({}) gives {}: expected one of fraction (a share of the run) "
          "and steps",
          i + 1, p.workload.name,
          p.fraction ? "both fraction and steps" : "neither fraction nor steps"));
    }
    if (p.fraction.has_value() != phases.front().fraction.has_value()) {
      throw InvalidArgument(fmt::format(
          "training.phases[{}] gives {} where training.phases[1] gives {}: expected fraction in "
          "every phase or steps in every phase",
          i + 1, p.fraction ? "fraction" : "steps", p.fraction ? "steps" : "fraction"));
    }
    if (p.fraction && !(*p.fraction > 0 && *p.fraction <= 1)) {
      throw InvalidArgument(fmt::format("{} = {}, expected a share of the run in (0, 1]",
                                        phase_key(i, "fraction"), *p.fraction));
    }
    if (p.steps && *p.steps < 1) {
      throw InvalidArgument(
          fmt::format("{} = {}, expected an integer >= 1", phase_key(i, "steps"), *p.steps));
    }
  }
}

void check_fraction_sum(const std::vector<TrainingPhase>& phases) {
  double sum = 0;
  std::string terms;
  for (const TrainingPhase& p : phases) {
    sum += *p.fraction;
    terms += fmt::format("{}{}", terms.empty() ? "" : " + ", *p.fraction);
  }
  if (std::abs(sum - 1) > kPhaseFractionTolerance) {
    throw InvalidArgument(
        fmt::format("training.phases: the fractions sum to {} = {:.12g}, expected 1 (within {})",
                    terms, sum, kPhaseFractionTolerance));
  }
}

void check_step_sum(const std::vector<TrainingPhase>& phases, int64_t total_steps,
                    int64_t total_samples) {
  if (total_samples > 0) {
    throw InvalidArgument(fmt::format(
        "training.phases give steps with training.total_samples = {}: expected fraction in each "
        "phase (the run's steps follow from the samples and the global batch), or "
        "training.total_steps",
        total_samples));
  }
  int64_t sum = 0;
  for (const TrainingPhase& p : phases) sum += *p.steps;
  if (sum != total_steps) {
    throw InvalidArgument(
        fmt::format("training.phases: the steps sum to {}, expected training.total_steps = {}", sum,
                    total_steps));
  }
}

}  // namespace

void check_phases(const std::vector<TrainingPhase>& phases, int64_t total_steps,
                  int64_t total_samples) {
  if (phases.empty()) return;
  if (total_steps <= 0 && total_samples <= 0) {
    throw InvalidArgument(
        "training.phases without training.total_steps or training.total_samples: expected the "
        "run's length, which the phases share");
  }
  check_shares(phases);
  if (phases.front().fraction) {
    check_fraction_sum(phases);
  } else {
    check_step_sum(phases, total_steps, total_samples);
  }
}

std::vector<int64_t> phase_steps(const std::vector<TrainingPhase>& phases, int64_t total_steps) {
  if (phases.empty()) return {total_steps};
  std::vector<int64_t> out;
  out.reserve(phases.size());
  double share = 0;  // of the phases so far
  int64_t start = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const TrainingPhase& p = phases[i];
    if (p.steps) {
      out.push_back(*p.steps);
      continue;
    }
    share += *p.fraction;
    const int64_t end = i + 1 == phases.size()
                            ? total_steps
                            : std::llround(share * static_cast<double>(total_steps));
    out.push_back(end - start);
    start = end;
  }
  return out;
}

}  // namespace compopt::sim
