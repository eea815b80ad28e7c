#pragma once
// The main of an MPI test driver (a binary ctest starts under mpirun): every rank runs the
// tests on the world's MpiTransport (g_transport), rank 0 alone prints the report (the other
// ranks print only their failed assertions, naming their rank), and every rank exits with the
// worst result of any rank.
//
//   int main(int argc, char** argv) { return compopt::testing::run_mpi_tests(argc, argv, {}); }

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <memory>

#include "real_backend/mpi/mpi_transport.h"
#include "real_backend/mpi/mpi_world.h"

namespace compopt::testing {

inline std::unique_ptr<mpi::MpiTransport> g_transport;

// Prints failed assertions of ranks other than 0, which have no result printer.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed()) {
      std::fprintf(stderr, "rank %d: %s:%d: %s\n", rank_,
                   result.file_name() ? result.file_name() : "?", result.line_number(),
                   result.message());
    }
  }

 private:
  int rank_;
};

// MPI started with MPI_THREAD_MULTIPLE (what run_mpi asks for, for the liveness thread);
// `options` as mpi_options_from_env completes them.
inline int run_mpi_tests(int argc, char** argv, const mpi::MpiOptions& options) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {  // one report: the other ranks print only their failures
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  g_transport =
      std::make_unique<mpi::MpiTransport>(MPI_COMM_WORLD, mpi::mpi_options_from_env(options));
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any != 0 && failed == 0)
    std::fprintf(stderr, "rank %d: tests passed here, failed on another rank\n", rank);
  g_transport.reset();
  MPI_Finalize();
  return any;
}

}  // namespace compopt::testing
