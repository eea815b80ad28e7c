#pragma once
// How `compopt train` charges a step's local work on the simulated clock
// (docs/training.md, "Time on the simulator"), from the keys
//
//   run.compute             "model" (default on sim) | "measured" | "fixed"
//   run.gpu                 GPU preset (default: the cluster's GPU)
//   run.compute_precision   fp32 | tf32 | fp16 | bf16 | fp8 (default: fp32 for the task,
//                           the workload's own for a stand-in)
//   run.stand_in            workload preset the run stands in for (optional)
//   run.stand_in_batch      the stand-in's batch per GPU (default: the preset's)
//   run.charge_pass_s, run.charge_step_s, run.charge_compression_s
//                           seconds per step of compute = fixed (default 0 each)
//
// - model: every step charges forward + backward of the rank's batch, the optimizer step,
//   and in compression-stage steps encode + decode, as net_models/compute_model.h times a
//   workload on run.gpu. Without a stand-in that workload is the task itself (its FLOPs per
//   sample and layer count from Task::flops, its parameter count, the default per-parameter
//   memory traffic of WorkloadSpec); with one it is the preset. No host clock is read, so
//   the same config gives the same time_s on any machine and under any load.
// - measured: the wall time of this machine's loss/gradient computation (not reproducible).
// - fixed: the given seconds (forward + backward, optimizer step, and encode + decode in
//   compression-stage steps), e.g. local work measured on the machines a simulated network
//   connects (experiments/validation/netns_training_validation.sh); reproducible.
// - stand_in: the simulated wire also charges every message as if the parameter vector had
//   the workload's parameter count: x wire_scale (workload / task parameters) in
//   compression-stage steps, whose bits do not depend on the gradient's precision, and
//   x wire_scale_uncompressed (wire_scale x the workload's gradient bytes / 4, since the
//   task's gradients are fp32) in the other steps. Byte counts in metrics.csv stay the
//   task's own.
// The keys apply to the sim backend only; on another backend each of them is refused.
// Every bad value throws InvalidArgument naming the key.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/tasks/task.h"
#include "core/train/train_loop.h"
#include "core/util/hyper_params.h"
#include "net_models/cluster_spec.h"
#include "net_models/workload.h"

namespace compopt::cli {

struct SimCompute {
  std::string mode;  // "model" | "measured" | "fixed" on sim; "" on other backends (wall clock)
  net::GpuSpec gpu;
  net::Precision precision = net::Precision::kFp32;
  std::optional<net::WorkloadSpec> stand_in;
  int stand_in_batch = 0;
  ComputeCharge charge;  // the charge per step (modes "model" and "fixed")
  double wire_scale = 1, wire_scale_uncompressed = 1;

  // The charge train_rank applies: `charge` for "model" and "fixed", unset otherwise.
  std::optional<ComputeCharge> train_charge() const;
  // The wire scale of a step in `stage`.
  double wire_scale_of(Stage stage) const;
  nlohmann::json to_json() const;
  // One line: "measured", "fixed pass <s> step <s> compression <s>", or
  // "model <gpu> <precision>[ stand-in <workload> batch <b>]".
  std::string describe() const;
};

// Reads the run.compute* / run.gpu / run.stand_in* keys from `hp` for a run of `task` with
// `batch_per_rank` on `backend` (`simulated`: its BackendTraits::simulated; `cluster`: the
// simulated cluster).
SimCompute resolve_sim_compute(HyperParams& hp, const std::string& backend, bool simulated,
                               const net::ClusterSpec& cluster, const Task& task,
                               size_t batch_per_rank);

}  // namespace compopt::cli
