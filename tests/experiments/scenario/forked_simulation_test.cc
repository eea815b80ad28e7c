// The one forked-simulation path (experiments/scenario/forked_simulation.h): what comes back
// from the children is bit for bit what simulate_step and simulate_step_spread give, in the
// requested order; bad input fails before any fork, and an InvalidArgument in a child is one
// in the parent.

#include "experiments/scenario/forked_simulation.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "experiments/scenario/forked_jobs.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

sim::Scenario scenario(const std::string& optimizer, int gpus) {
  sim::Scenario s;
  s.optimizer = optimizer;
  s.gpus = gpus;
  return s;
}

// Every field of the timings as text, the doubles as hex floats (exact), independent of the
// JSON codec under test.
std::string hex(const std::vector<sim::StageTiming>& timings) {
  std::string out;
  for (const sim::StageTiming& t : timings) {
    out += fmt::format("{} {} {:a} {:a} {:a} {:a} {:a} {:a} {:a} {:a} {:a} {:a}\n", t.stage,
                       t.algorithm, t.forward_s, t.backward_compute_s, t.comm_s, t.compress_s,
                       t.step_s, t.step_time_s, t.throughput_samples_s, t.bytes_per_gpu,
                       t.inter_node_bytes, t.compute_utilization);
  }
  return out;
}

std::string hex(const SimulatedStep& step) {
  std::string out = hex(step.timings);
  if (step.spread) {
    for (const sim::InputRuns& r : step.spread->inputs)
      out += r.input + " low\n" + hex(r.low) + r.input + " high\n" + hex(r.high);
  }
  return out + (step.spread ? step.spread->source : "no spread");
}

// What a child of run_forked simulates for `config` (the step, then its spread), as hex().
// SimGrid's results depend in the last bits (about 1e-14 relative) on the engines a process
// ran before, so the reference runs in a child forked from the same state, like the children
// of simulate_forked, and not in this process.
std::string reference(const sim::StepConfig& config) {
  const auto work = [&](size_t) {
    SimulatedStep step{sim::simulate_step(config), std::nullopt};
    step.spread = sim::simulate_step_spread(config);
    return hex(step);
  };
  return run_forked(
             {.count = 1, .parallel = 1, .work = work, .describe = [](size_t) { return "ref"; }})
      .front();
}

TEST(ForkedSimulation, ChildrenSendBackExactlyWhatTheySimulated) {
  const std::vector<sim::Scenario> scenarios = {scenario("adam", 8), scenario("onebit-adam", 16)};
  std::vector<std::string> expected;
  for (const sim::Scenario& s : scenarios) expected.push_back(reference(sim::resolve_scenario(s)));
  std::vector<size_t> finished;
  const std::vector<SimulatedStep> steps = simulate_forked(
      scenarios, {1, 0},
      {.parallel = 2, .spread = true, .on_done = [&](size_t k) { finished.push_back(k); }});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_THAT(finished, ::testing::UnorderedElementsAre(0u, 1u));
  EXPECT_EQ(hex(steps[0]), expected[1]);  // in the order of the indexes
  EXPECT_EQ(hex(steps[1]), expected[0]);
  EXPECT_EQ(steps[0].timings.back().stage, "compression");
  EXPECT_FALSE(steps[0].timings.back().algorithm.empty());
  EXPECT_GT(steps[0].timings.back().compute_utilization, 0);
  ASSERT_FALSE(steps[0].spread->inputs.empty());
  EXPECT_EQ(steps[0].spread->inputs[0].low.size(), 2u);  // onebit-adam: warmup and compression
}

// The band's runs of one scenario spread over children are those one child runs in a row (to
// the last bits, which depend on the engines a process ran before).
TEST(ForkedSimulation, ASpreadForkedPerInputEndIsTheSpreadSimulatedInARow) {
  const sim::StepConfig config = sim::resolve_scenario(scenario("onebit-adam", 8));
  const auto work = [&](size_t) {
    return nlohmann::json(sim::simulate_step_spread(config)).dump();
  };
  const sim::StepSpread in_a_row =
      nlohmann::json::parse(run_forked({.count = 1,
                                        .parallel = 1,
                                        .work = work,
                                        .describe = [](size_t) { return "in a row"; }})
                                .front())
          .get<sim::StepSpread>();
  const sim::StepSpread forked = simulate_spread_forked(config, 2);
  EXPECT_EQ(forked.source, in_a_row.source);
  ASSERT_EQ(forked.inputs.size(), in_a_row.inputs.size());
  EXPECT_GE(forked.inputs.size(), 4u);  // ethernet-v100-4: only what one node lacks is pinned
  for (size_t k = 0; k < forked.inputs.size(); ++k) {
    EXPECT_EQ(forked.inputs[k].input, in_a_row.inputs[k].input);
    for (const auto end : {&sim::InputRuns::low, &sim::InputRuns::high}) {
      const std::vector<sim::StageTiming>&a = forked.inputs[k].*end, &b = in_a_row.inputs[k].*end;
      ASSERT_EQ(a.size(), 2u);
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i].step_time_s, b[i].step_time_s, 1e-12 * b[i].step_time_s);
    }
  }
}

TEST(ForkedSimulation, WithoutSpreadOnlyTheStep) {
  const std::vector<SimulatedStep> steps = simulate_forked({scenario("birder", 8)}, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_FALSE(steps[0].spread.has_value());
  EXPECT_EQ(steps[0].timings.size(), 1u);
}

TEST(ForkedSimulation, BadInputFailsBeforeAnyFork) {
  int done = 0;
  const std::string message = testing_support::invalid_argument_message([&] {
    simulate_forked({scenario("adam", 8), scenario("adamw", 8)},
                    {.on_done = [&](size_t) { ++done; }});
  });
  EXPECT_THAT(message, HasSubstr("adamw"));
  EXPECT_EQ(done, 0);
}

// A platform file of 2 hosts: 2 GPUs resolve and simulate, 4 GPUs resolve but the simulator
// refuses the placement in the child.
TEST(ForkedSimulation, InvalidArgumentInAChildComesBackAsOne) {
  const std::filesystem::path xml = std::filesystem::temp_directory_path() /
                                    ("compopt_two_hosts_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(xml) << "<?xml version='1.0'?>\n"
                        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                        "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
                        "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
                        "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1ms\"/>\n"
                        "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route></zone>"
                        "</platform>\n";
  std::vector<sim::Scenario> scenarios = {scenario("adam", 2), scenario("adam", 4)};
  for (sim::Scenario& s : scenarios) {
    s.platform_file = xml.string();
    s.gpus_per_node = 1;
  }
  const std::string message =
      testing_support::invalid_argument_message([&] { simulate_forked(scenarios, {}); });
  EXPECT_THAT(message, StartsWith("scenario 2 (adam on 4 GPUs) failed: "));
  EXPECT_THAT(message, HasSubstr("has 2 hosts"));
  std::filesystem::remove(xml);
}

TEST(ForkedSimulation, StepsSurviveTheirText) {
  sim::StageTiming t;
  t.stage = "warmup";
  t.comm_s = 1.0 / 3.0;
  t.algorithm = "tree";
  const SimulatedStep with{{t}, sim::StepSpread{{{"network latency", {t}, {t, t}}}, "preset"}};
  const SimulatedStep back = decode_simulated_step(encode_simulated_step(with));
  EXPECT_EQ(hex(back), hex(with));
  EXPECT_FALSE(decode_simulated_step(encode_simulated_step({{t}, std::nullopt})).spread);
  EXPECT_ANY_THROW(decode_simulated_step("garbage"));
  EXPECT_ANY_THROW(decode_simulated_step(R"({"spread": null})"));
}

}  // namespace
}  // namespace compopt::cli
