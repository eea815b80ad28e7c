#pragma once
// What `compopt sweep` adds once every scenario has finished: the columns end_to_end_speedup
// and speedup_baseline (speedup_baseline.h: each scenario against its group's baseline) and,
// on stdout, the count and list of the scenarios whose memory per GPU exceeds the GPU's
// (sim/gpu_memory.h), with their numbers.

#include <string>

#include "sim/time_to_train.h"

namespace compopt::cli {

struct FinishedSweep {
  std::string csv;      // the text of sweep.csv
  std::string warning;  // the scenarios that do not fit in memory (lines ending in '\n'), or ""
};

// `csv`: the sweep's header and rows (sim/scenario.h).
FinishedSweep finish_sweep(const std::string& csv, const sim::TrainingSpec& training);
// finish_sweep's csv, with its warning printed on stdout.
std::string finish_sweep_csv(const std::string& csv, const sim::TrainingSpec& training);

}  // namespace compopt::cli
