#pragma once
// A simulated clock for runs that train on this machine's own clock (the PyTorch runs): each
// step is charged the step simulator's time of a stand-in workload in the stage the step ran
// in (sim/stage_timing.h), less the stage's exposed communication when the step sent nothing
// (a local step of local SGD), plus one whole collective of the stage when it did.

#include <map>
#include <string>
#include <vector>

#include "core/optim/optimizer_registry.h"
#include "sim/stage_timing.h"

namespace compopt::cli::reproduce {

// One stage of the stand-in: its step without communication, and one collective of it.
struct StageClock {
  double local_s = 0, sync_s = 0;
};
using StageClocks = std::map<std::string, StageClock>;  // by stage name

// From the step simulator's rows of one optimizer: local_s = step_time_s - comm_s, and
// sync_s = comm_s x the registry's period of the stage (comm_s is the exposed
// communication per step, averaged over the period, so one collective takes period times).
StageClocks stage_clocks(const std::vector<sim::StageTiming>& timings,
                         const OptimizerEntry& optimizer);

// The clock after each step of a run: stages[i] is step i's stage and sent[i] the bytes the
// run had sent by then (cumulative); a step sent something when sent[i] > sent[i-1] (or
// sent[0] > 0). Throws std::runtime_error naming `optimizer` and the stage when `clocks` lacks
// it, InvalidArgument when the two vectors differ in length.
std::vector<double> simulated_clock(const std::vector<std::string>& stages,
                                    const std::vector<double>& sent, const StageClocks& clocks,
                                    const std::string& optimizer);

}  // namespace compopt::cli::reproduce
