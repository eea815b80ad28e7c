// The JSON codec of StageTiming (sim/stage_timing.h), the form in which timings leave the
// forked process that simulated them: every field survives bit for bit, whatever the double
// (decimals without an exact binary form, denormals, signed zero, the extremes, inf, nan), and
// JSON missing a field is refused.

#include "sim/stage_timing.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/step_spread.h"

namespace compopt::sim {
namespace {

// The double fields of a timing, in declaration order.
std::vector<double StageTiming::*> double_fields() {
  return {&StageTiming::forward_s,
          &StageTiming::backward_compute_s,
          &StageTiming::comm_s,
          &StageTiming::compress_s,
          &StageTiming::step_s,
          &StageTiming::step_time_s,
          &StageTiming::throughput_samples_s,
          &StageTiming::bytes_per_gpu,
          &StageTiming::inter_node_bytes,
          &StageTiming::compute_utilization};
}

// A timing whose every double differs from the others and from the defaults.
StageTiming awkward_timing(double offset) {
  const std::vector<double> values = {0.1,
                                      1.0 / 3.0,
                                      std::numeric_limits<double>::denorm_min(),
                                      5e-310,  // another denormal
                                      -0.0,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::min(),
                                      1e9 + 1,
                                      2.0 / 3.0 + offset,
                                      std::nextafter(1.0, 2.0)};
  StageTiming t;
  t.stage = "compression";
  t.algorithm = "compressed-hierarchical";
  t.buckets = 37;
  const auto fields = double_fields();
  for (size_t i = 0; i < fields.size(); ++i) t.*fields[i] = values[i];
  return t;
}

void expect_bit_equal(const StageTiming& a, const StageTiming& b) {
  EXPECT_EQ(a.stage, b.stage);
  EXPECT_EQ(a.algorithm, b.algorithm);
  EXPECT_EQ(a.buckets, b.buckets);
  for (double StageTiming::*field : double_fields()) {
    EXPECT_EQ(std::bit_cast<uint64_t>(a.*field), std::bit_cast<uint64_t>(b.*field))
        << a.*field << " came back as " << b.*field;
  }
}

StageTiming through_text(const StageTiming& t) {
  return nlohmann::json::parse(nlohmann::json(t).dump()).get<StageTiming>();
}

TEST(StageTimingJson, EveryFieldSurvivesBitExactly) {
  const StageTiming t = awkward_timing(0.0);
  expect_bit_equal(t, through_text(t));
  EXPECT_TRUE(std::signbit(through_text(t).step_s));  // -0.0 stays negative
}

TEST(StageTimingJson, WritesOneKeyPerField) {
  const nlohmann::json j = awkward_timing(0.0);
  EXPECT_EQ(j.size(), 13u);  // stage, algorithm, buckets and the ten doubles
  EXPECT_EQ(j.at("algorithm"), "compressed-hierarchical");
  EXPECT_EQ(j.at("buckets"), 37);
  EXPECT_EQ(j.at("forward_s").get<double>(), 0.1);
}

TEST(StageTimingJson, InfinitiesAndNanSurvive) {
  StageTiming t = awkward_timing(0.0);
  t.comm_s = std::numeric_limits<double>::infinity();
  t.step_s = -std::numeric_limits<double>::infinity();
  t.throughput_samples_s = std::numeric_limits<double>::quiet_NaN();
  const StageTiming back = through_text(t);
  EXPECT_EQ(back.comm_s, t.comm_s);
  EXPECT_EQ(back.step_s, t.step_s);
  EXPECT_TRUE(std::isnan(back.throughput_samples_s));
  EXPECT_EQ(back.forward_s, 0.1);
}

TEST(StageTimingJson, AMissingFieldIsAnError) {
  const nlohmann::json full = awkward_timing(0.0);
  for (const auto& [key, value] : full.items()) {
    nlohmann::json partial = full;
    partial.erase(key);
    try {
      partial.get<StageTiming>();
      ADD_FAILURE() << "no error without " << key;
    } catch (const nlohmann::json::out_of_range& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

TEST(StageTimingJson, AWrongTypeIsAnError) {
  nlohmann::json j = awkward_timing(0.0);
  j["comm_s"] = "fast";
  EXPECT_THROW(j.get<StageTiming>(), std::exception);
  j["comm_s"] = true;
  EXPECT_THROW(j.get<StageTiming>(), std::exception);
}

TEST(StepSpreadJson, EveryInputsRunsAndTheSourceSurvive) {
  StepSpread spread{{{"network latency", {awkward_timing(1.0)}, {awkward_timing(2.0)}},
                     {"compute utilisation", {awkward_timing(3.0), awkward_timing(4.0)}, {}}},
                    "fit"};
  const StepSpread back = nlohmann::json::parse(nlohmann::json(spread).dump()).get<StepSpread>();
  ASSERT_EQ(back.inputs.size(), 2u);
  EXPECT_EQ(back.inputs[1].input, "compute utilisation");
  ASSERT_EQ(back.inputs[1].low.size(), 2u);
  EXPECT_TRUE(back.inputs[1].high.empty());
  expect_bit_equal(spread.inputs[0].high[0], back.inputs[0].high[0]);
  expect_bit_equal(spread.inputs[1].low[1], back.inputs[1].low[1]);
  EXPECT_EQ(back.source, "fit");
  nlohmann::json partial = spread;
  partial["inputs"][0].erase("low");
  EXPECT_THROW(partial.get<StepSpread>(), nlohmann::json::out_of_range);
}

}  // namespace
}  // namespace compopt::sim
