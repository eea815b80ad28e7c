// "Train 20 steps on every built backend", MPI part: under `mpirun -n 4` every
// rank trains each optimizer for 20 steps over MPI (4 ranks on 2 nodes of 2)
// and, in the same process, the Local reference on 4 threads
// (tests/conformance/train_reference.h); each rank's final parameters, and rank
// 0's step records, must equal the reference bit for bit.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "core/comm/local/local_world.h"
#include "real_backend/mpi/mpi_transport.h"
#include "real_backend/mpi/mpi_world.h"
#include "tests/conformance/train_reference.h"
#include "tests/real_backend/mpi/mpi_test_main.h"

namespace compopt::testing {
namespace {

class MpiTrainConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(MpiTrainConformance, TrainsBitForBitAsOnLocal) {
  ASSERT_EQ(g_transport->world_size(), kTrainRanks) << "run under mpirun -n " << kTrainRanks;
  const int rank = g_transport->world_rank();
  const RankLauncher on_mpi = [](const std::function<void(Communicator&)>& fn) {
    Communicator comm(*g_transport);
    fn(comm);
  };
  const RankLauncher on_local = [](const std::function<void(Communicator&)>& fn) {
    LocalWorld({.ranks = kTrainRanks, .gpus_per_node = kTrainRanksPerNode}).run(fn);
  };
  const Trained want = train_reference_run(on_local, GetParam());
  const Trained got = train_reference_run(on_mpi, GetParam());
  expect_same_params(got.params[static_cast<size_t>(rank)], want.params[static_cast<size_t>(rank)],
                     rank);
  if (rank == 0) expect_same_records(got.records, want.records);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Optimizers, MpiTrainConformance, ::testing::ValuesIn(optimizer_names()),
                         test_name);

}  // namespace
}  // namespace compopt::testing

int main(int argc, char** argv) {
  return compopt::testing::run_mpi_tests(
      argc, argv, {.op_timeout_s = 60, .gpus_per_node = compopt::testing::kTrainRanksPerNode});
}
