#include "experiments/train/sim_compute.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "core/util/error.h"
#include "net_models/compute_model.h"
#include "net_models/gpu_spec.h"

namespace compopt::cli {
namespace {

const char* const kKeys[] = {
    "run.compute",        "run.gpu",           "run.compute_precision", "run.stand_in",
    "run.stand_in_batch", "run.charge_pass_s", "run.charge_step_s",     "run.charge_compression_s"};
// The keys of compute = fixed, in the order of ComputeCharge's fields.
const char* const kFixedKeys[] = {"run.charge_pass_s", "run.charge_step_s",
                                  "run.charge_compression_s"};

bool is_fixed_key(const std::string& key) {
  return std::find(std::begin(kFixedKeys), std::end(kFixedKeys), key) != std::end(kFixedKeys);
}
constexpr int64_t kMaxStandInBatch = 1 << 20;

// A call that throws InvalidArgument, its message prefixed with the key it read.
template <typename Fn>
auto for_key(HyperParams& hp, const std::string& key, const std::string& value, Fn&& fn) {
  try {
    return fn();
  } catch (const InvalidArgument& e) {
    hp.fail(fmt::format("key '{}' = '{}': {}", key, value, e.what()));
  }
}

// The task as a workload of the compute model: its FLOPs, layers and parameter count, the
// default per-parameter memory traffic of a WorkloadSpec.
net::WorkloadSpec task_workload(const Task& task, net::Precision precision, int batch) {
  const TaskFlops flops = task.flops();
  net::WorkloadSpec w;
  w.name = task.name();
  w.parameters = task.layout().total();
  w.tensors = static_cast<int>(task.layout().num_tensors());
  w.layers = flops.layers;
  w.forward_flops_per_sample = flops.forward_per_sample;
  w.backward_flops_per_sample = flops.backward_per_sample;
  w.compute_precision = precision;
  w.default_batch_per_gpu = batch;
  return w;
}

// Throws for a key of kKeys that `mode` does not take: the model's keys with measured or
// fixed, the fixed charge's keys with model or measured.
void refuse_other_mode_keys(HyperParams& hp, const std::string& mode) {
  for (const char* key : kKeys) {
    const std::string k(key);
    if (k == "run.compute" || !hp.has(k)) continue;
    const std::string key_mode = is_fixed_key(k) ? "fixed" : "model";
    if (key_mode == mode) continue;
    hp.fail(fmt::format("key '{}' applies to run.compute = {} only (run.compute = {})", k, key_mode,
                        mode));
  }
}

// compute = fixed: the given seconds per step.
void fixed_charge(HyperParams& hp, SimCompute& s) {
  const auto seconds = [&hp](const char* key) { return hp.number_in(key, 0.0, 0.0, 86400.0); };
  s.charge = {.pass_s = seconds(kFixedKeys[0]),
              .step_s = seconds(kFixedKeys[1]),
              .compression_s = seconds(kFixedKeys[2])};
}

// run.stand_in and run.stand_in_batch.
void resolve_stand_in(HyperParams& hp, SimCompute& s) {
  const auto name = hp.text("run.stand_in");
  const auto batch = hp.optional_integer("run.stand_in_batch", 1);
  if (!name) {
    if (batch) hp.fail("key 'run.stand_in_batch' is set without run.stand_in");
    return;
  }
  s.stand_in = for_key(hp, "run.stand_in", *name, [&] { return net::workload_preset(*name); });
  if (batch && *batch > kMaxStandInBatch) {
    hp.fail(fmt::format("key 'run.stand_in_batch' = {}, expected at most {}", *batch,
                        kMaxStandInBatch));
  }
  s.stand_in_batch = batch ? static_cast<int>(*batch) : s.stand_in->default_batch_per_gpu;
}

// run.gpu and run.compute_precision (default: fp32, or the stand-in's own precision).
void resolve_gpu(HyperParams& hp, const net::ClusterSpec& cluster, SimCompute& s) {
  const std::string gpu = hp.text("run.gpu", cluster.gpu.name);
  s.gpu = hp.has("run.gpu") ? for_key(hp, "run.gpu", gpu, [&] { return net::gpu_preset(gpu); })
                            : cluster.gpu;
  const std::string fallback(
      net::precision_name(s.stand_in ? s.stand_in->compute_precision : net::Precision::kFp32));
  const std::string precision = hp.text("run.compute_precision", fallback);
  s.precision = for_key(hp, "run.compute_precision", precision,
                        [&] { return net::parse_precision(precision, "run.compute_precision"); });
  for_key(hp, "run.compute_precision", precision, [&] { return s.gpu.peak_flops(s.precision); });
}

// The modeled charge and the wire scales of a stand-in.
void model_charge(HyperParams& hp, const Task& task, size_t batch_per_rank, SimCompute& s) {
  if (batch_per_rank > static_cast<size_t>(INT_MAX)) {
    hp.fail(
        fmt::format("key 'run.batch_per_rank' = {}, expected at most {}", batch_per_rank, INT_MAX));
  }
  net::WorkloadSpec workload =
      s.stand_in ? *s.stand_in : task_workload(task, s.precision, static_cast<int>(batch_per_rank));
  workload.compute_precision = s.precision;
  const int batch = s.stand_in ? s.stand_in_batch : static_cast<int>(batch_per_rank);
  const net::ComputeTimes t = for_key(
      hp, "run.gpu", s.gpu.name, [&] { return net::compute_times(workload, s.gpu, batch, 1); });
  s.charge = {
      .pass_s = t.forward_s + t.backward_s, .step_s = t.step_s, .compression_s = t.compress_s};
  if (!s.stand_in) return;
  s.wire_scale =
      static_cast<double>(s.stand_in->parameters) / static_cast<double>(task.layout().total());
  s.wire_scale_uncompressed = s.wire_scale * s.stand_in->wire_bytes() / 4.0;
}

}  // namespace

std::optional<ComputeCharge> SimCompute::train_charge() const {
  if (mode == "model" || mode == "fixed") return charge;
  return std::nullopt;
}

double SimCompute::wire_scale_of(Stage stage) const {
  return stage == Stage::kCompression ? wire_scale : wire_scale_uncompressed;
}

nlohmann::json SimCompute::to_json() const {
  if (mode == "fixed") {
    return {{"mode", mode},
            {"pass_s", charge.pass_s},
            {"step_s", charge.step_s},
            {"compression_s", charge.compression_s}};
  }
  if (mode != "model") {
    return {{"mode", mode.empty() ? "wall_clock" : mode},
            {"charge", mode.empty() ? "none: time_s is this machine's wall clock"
                                    : "measured wall time of each loss/gradient computation"}};
  }
  nlohmann::json j = {{"mode", mode},
                      {"gpu", gpu.name},
                      {"precision", std::string(net::precision_name(precision))},
                      {"pass_s", charge.pass_s},
                      {"step_s", charge.step_s},
                      {"compression_s", charge.compression_s}};
  j["stand_in"] = stand_in ? nlohmann::json(stand_in->name) : nlohmann::json();
  if (stand_in) {
    j["stand_in_batch"] = stand_in_batch;
    j["stand_in_parameters"] = stand_in->parameters;
    j["wire_scale"] = wire_scale;
    j["wire_scale_uncompressed"] = wire_scale_uncompressed;
  }
  return j;
}

std::string SimCompute::describe() const {
  if (mode == "fixed") {
    return fmt::format("fixed pass {} step {} compression {}", charge.pass_s, charge.step_s,
                       charge.compression_s);
  }
  if (mode != "model") return mode;
  std::string out = fmt::format("model {} {}", gpu.name, net::precision_name(precision));
  if (stand_in) out += fmt::format(" stand-in {} batch {}", stand_in->name, stand_in_batch);
  return out;
}

SimCompute resolve_sim_compute(HyperParams& hp, const std::string& backend, bool simulated,
                               const net::ClusterSpec& cluster, const Task& task,
                               size_t batch_per_rank) {
  SimCompute s;
  if (!simulated) {
    for (const char* key : kKeys) {
      if (hp.has(key)) {
        hp.fail(fmt::format(
            "key '{}' applies to run.backend = sim only (on '{}' time_s is this machine's wall "
            "clock)",
            key, backend));
      }
    }
    return s;
  }
  s.mode = hp.choice("run.compute", "model", {"model", "measured", "fixed"});
  refuse_other_mode_keys(hp, s.mode);
  if (s.mode == "fixed") fixed_charge(hp, s);
  if (s.mode != "model") return s;
  resolve_stand_in(hp, s);
  resolve_gpu(hp, cluster, s);
  model_charge(hp, task, batch_per_rank, s);
  return s;
}

}  // namespace compopt::cli
