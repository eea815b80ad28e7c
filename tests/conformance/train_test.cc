// "Train 20 steps on every built backend": every optimizer trains a logistic
// regression for 20 steps on 4 ranks (2 nodes of 2, so the hierarchical schemes
// cross a node boundary) on each in-process backend of the conformance suite,
// and its step records (every column but the clocks) and every rank's final
// parameters equal the Local backend's bit for bit. The backends share the
// collective algorithms (core/comm/collectives/), so only their transports differ;
// the suite's 20-byte ring pieces show that pipelining changes nothing either.
// (mpirun runs the same comparison for MPI: tests/real_backend/mpi/
// mpi_train_conformance_test.cc.)

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/comm/local/local_world.h"
#include "tests/conformance/backends.h"
#include "tests/conformance/train_reference.h"

namespace compopt::testing {
namespace {

class TrainConformance : public ::testing::TestWithParam<size_t> {};

const RankLauncher kOnLocal = [](const WorldFn& fn) {
  LocalWorld({.ranks = kTrainRanks, .gpus_per_node = kTrainRanksPerNode}).run(fn);
};

// The reference itself: two Local runs of every optimizer agree bit for bit, so a difference
// on another backend is that backend's.
TEST(TrainConformanceReference, LocalTrainsEveryOptimizerDeterministically) {
  for (const std::string& optimizer : optimizer_names()) {
    SCOPED_TRACE(optimizer);
    const Trained first = train_reference_run(kOnLocal, optimizer);
    const Trained second = train_reference_run(kOnLocal, optimizer);
    expect_same_records(second.records, first.records);
    for (int r = 0; r < kTrainRanks; ++r) {
      expect_same_params(second.params[static_cast<size_t>(r)],
                         first.params[static_cast<size_t>(r)], r);
    }
  }
}

// Every built backend other than Local against Local.
TEST_P(TrainConformance, EveryOptimizerTrainsBitForBitAsOnLocal) {
  const ConformanceBackend& backend = conformance_backends()[GetParam()];
  const RankLauncher on_backend = [&](const WorldFn& fn) {
    backend.run(kTrainRanks, kTrainRanksPerNode, fn);
  };
  for (const std::string& optimizer : optimizer_names()) {
    SCOPED_TRACE(optimizer + " on " + backend.name);
    const Trained want = train_reference_run(kOnLocal, optimizer);
    const Trained got = train_reference_run(on_backend, optimizer);
    expect_same_records(got.records, want.records);
    for (int r = 0; r < kTrainRanks; ++r) {
      expect_same_params(got.params[static_cast<size_t>(r)], want.params[static_cast<size_t>(r)],
                         r);
    }
  }
}

std::string backend_name(const ::testing::TestParamInfo<size_t>& info) {
  return conformance_backends()[info.param].name;
}

std::vector<size_t> non_local_backend_indices() {
  std::vector<size_t> out;
  for (size_t b = 0; b < conformance_backends().size(); ++b)
    if (conformance_backends()[b].name != "local") out.push_back(b);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainConformance,
                         ::testing::ValuesIn(non_local_backend_indices()), backend_name);

}  // namespace
}  // namespace compopt::testing
