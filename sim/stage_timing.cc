#include "sim/stage_timing.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace compopt::sim {
namespace {

// A field added to StageTiming needs its line in to_json and from_json below.
// (the int `buckets` takes a double's place with its padding)
static_assert(sizeof(StageTiming) == 2 * sizeof(std::string) + 11 * sizeof(double),
              "StageTiming changed: update its JSON codec");

// JSON numbers cannot hold inf or nan; they travel as strings.
nlohmann::json number(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

double number_of(const nlohmann::json& j, const char* key) {
  const nlohmann::json& value = j.at(key);
  if (value.is_number()) return value.get<double>();
  if (value == "inf") return std::numeric_limits<double>::infinity();
  if (value == "-inf") return -std::numeric_limits<double>::infinity();
  if (value == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw std::runtime_error(std::string("stage timing: ") + key + " = " + value.dump() +
                           ", expected a number, \"inf\", \"-inf\" or \"nan\"");
}

}  // namespace

void to_json(nlohmann::json& j, const StageTiming& t) {
  j = nlohmann::json{{"stage", t.stage},
                     {"forward_s", number(t.forward_s)},
                     {"backward_compute_s", number(t.backward_compute_s)},
                     {"comm_s", number(t.comm_s)},
                     {"compress_s", number(t.compress_s)},
                     {"step_s", number(t.step_s)},
                     {"step_time_s", number(t.step_time_s)},
                     {"throughput_samples_s", number(t.throughput_samples_s)},
                     {"bytes_per_gpu", number(t.bytes_per_gpu)},
                     {"inter_node_bytes", number(t.inter_node_bytes)},
                     {"compute_utilization", number(t.compute_utilization)},
                     {"algorithm", t.algorithm},
                     {"buckets", t.buckets}};
}

void from_json(const nlohmann::json& j, StageTiming& t) {
  t.stage = j.at("stage").get<std::string>();
  t.forward_s = number_of(j, "forward_s");
  t.backward_compute_s = number_of(j, "backward_compute_s");
  t.comm_s = number_of(j, "comm_s");
  t.compress_s = number_of(j, "compress_s");
  t.step_s = number_of(j, "step_s");
  t.step_time_s = number_of(j, "step_time_s");
  t.throughput_samples_s = number_of(j, "throughput_samples_s");
  t.bytes_per_gpu = number_of(j, "bytes_per_gpu");
  t.inter_node_bytes = number_of(j, "inter_node_bytes");
  t.compute_utilization = number_of(j, "compute_utilization");
  t.algorithm = j.at("algorithm").get<std::string>();
  t.buckets = j.at("buckets").get<int>();
}

}  // namespace compopt::sim
