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

namespace compopt::testing {
namespace {

std::unique_ptr<mpi::MpiTransport> g_transport;

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
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {  // one report: the other ranks print only their failures
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  compopt::testing::g_transport = std::make_unique<compopt::mpi::MpiTransport>(
      MPI_COMM_WORLD,
      compopt::mpi::mpi_options_from_env(compopt::mpi::MpiOptions{
          .op_timeout_s = 60, .gpus_per_node = compopt::testing::kTrainRanksPerNode}));
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any != 0 && failed == 0)
    std::fprintf(stderr, "rank %d: tests passed here, failed on another rank\n", rank);
  compopt::testing::g_transport.reset();
  MPI_Finalize();
  return any;
}
