// Bad arguments raise clear errors on every backend and never hang.

#include <gmock/gmock.h>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/local/local_world.h"
#include "core/util/error.h"
#include "tests/conformance/backends.h"

namespace compopt::testing {
namespace {

using ::testing::HasSubstr;

class ErrorConformance : public ::testing::TestWithParam<size_t> {
 protected:
  void run(int ranks, const std::function<void(Communicator&)>& fn, int gpus_per_node = 0) const {
    conformance_backends()[GetParam()].run(ranks, gpus_per_node, fn);
  }
  // Runs fn and returns the message of the error it must raise.
  template <typename Error>
  std::string error_of(int ranks, const std::function<void(Communicator&)>& fn,
                       int gpus_per_node = 0) const {
    try {
      run(ranks, fn, gpus_per_node);
    } catch (const Error& e) {
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type: " << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no exception";
    return {};
  }
};

TEST_P(ErrorConformance, MismatchedSizesAcrossRanks) {
  const auto what = error_of<CommError>(4, [](Communicator& comm) {
    std::vector<float> x(comm.rank() == 2 ? 12 : 10, 1.0f);
    comm.allreduce(x);
  });
  EXPECT_THAT(what, HasSubstr("expected"));
}

TEST_P(ErrorConformance, PeerRankOutOfRange) {
  EXPECT_THAT(error_of<InvalidArgument>(2, [](Communicator& comm) { comm.send(2, 0, {}); }),
              HasSubstr("rank 2 out of range, expected 0..1"));
  EXPECT_THAT(error_of<InvalidArgument>(2, [](Communicator& comm) { comm.recv(-1, 0, {}); }),
              HasSubstr("rank -1 out of range"));
}

TEST_P(ErrorConformance, TagOutOfRange) {
  EXPECT_THAT(error_of<InvalidArgument>(2, [](Communicator& comm) { comm.send(0, -3, {}); }),
              HasSubstr("tag -3 out of range"));
}

TEST_P(ErrorConformance, BroadcastRootOutOfRange) {
  EXPECT_THAT(error_of<InvalidArgument>(3,
                                        [](Communicator& comm) {
                                          std::vector<std::byte> data(4);
                                          comm.broadcast(data, 3);
                                        }),
              HasSubstr("root 3 out of range, expected 0..2"));
}

TEST_P(ErrorConformance, SplitWithInvalidColorFailsOnEveryRank) {
  EXPECT_THAT(error_of<InvalidArgument>(
                  4, [](Communicator& comm) { comm.split(comm.rank() == 1 ? -7 : 0, 0); }),
              HasSubstr("rank 1 passed color -7"));
}

TEST_P(ErrorConformance, CollectiveBufferSizesChecked) {
  EXPECT_THAT(error_of<InvalidArgument>(3,
                                        [](Communicator& comm) {
                                          std::vector<std::byte> mine(4), all(11);
                                          comm.allgather(mine, all);
                                        }),
              HasSubstr("output holds 11 bytes, expected 12"));
  EXPECT_THAT(error_of<InvalidArgument>(3,
                                        [](Communicator& comm) {
                                          std::vector<float> in(10), out(3);
                                          comm.reduce_scatter(in, out);
                                        }),
              HasSubstr("input has 10 elements, expected 9"));
  EXPECT_THAT(error_of<InvalidArgument>(3,
                                        [](Communicator& comm) {
                                          std::vector<std::byte> send(7), recv(7);
                                          comm.alltoall(send, recv);
                                        }),
              HasSubstr("divisible by 3 ranks"));
}

TEST_P(ErrorConformance, CompressedStateSizedForAnotherVector) {
  EXPECT_THAT(error_of<InvalidArgument>(2,
                                        [](Communicator& comm) {
                                          const auto sign = make_compressor("sign");
                                          CompressedAllreduceState state(100, 2);
                                          std::vector<float> x(300);
                                          comm.compressed_allreduce(x, *sign, state, RandomKey{});
                                        }),
              HasSubstr("expected 304 / 152"));
}

TEST_P(ErrorConformance, HierarchicalNeedsEqualRanksPerNode) {
  EXPECT_THAT(error_of<InvalidArgument>(
                  6, [](Communicator& comm) { HierarchicalGroups::split(comm); }, 4),
              HasSubstr("expected the same number of ranks on every node"));
}

TEST_P(ErrorConformance, FailingRankIsReportedAndPeersDoNotHang) {
  try {
    run(4, [](Communicator& comm) {
      if (comm.rank() == 3) throw std::runtime_error("boom on rank 3");
      std::vector<float> x(64, 1.0f);
      comm.allreduce(x);
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom on rank 3");
  }
}

TEST_P(ErrorConformance, WaitingOnARankThatReturnedFails) {
  EXPECT_THAT(error_of<CommError>(2,
                                  [](Communicator& comm) {
                                    if (comm.rank() == 0) {
                                      std::vector<std::byte> data(4);
                                      comm.recv(1, 5, data);
                                    }
                                  }),
              HasSubstr("already returned"));
}

INSTANTIATE_TEST_SUITE_P(Backends, ErrorConformance,
                         ::testing::Range<size_t>(0, conformance_backends().size()),
                         [](const ::testing::TestParamInfo<size_t>& point) {
                           return conformance_backends()[point.param].name;
                         });

TEST(LocalWorldTest, RejectsZeroRanks) {
  EXPECT_THROW(LocalWorld({.ranks = 0}), InvalidArgument);
  try {
    LocalWorld world({.ranks = 0});
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("0 ranks, expected at least 1"));
  }
  EXPECT_THROW(LocalWorld({.ranks = 2, .gpus_per_node = -1}), InvalidArgument);
}

TEST(LocalWorldTest, RecvTimesOutInsteadOfHanging) {
  LocalWorld world({.ranks = 2, .recv_timeout_s = 0.2});
  try {
    world.run([](Communicator& comm) {
      std::vector<std::byte> data(4);
      if (comm.rank() == 0) comm.recv(1, 1, data);
      if (comm.rank() == 1) comm.recv(0, 1, data);
    });
    ADD_FAILURE() << "no exception";
  } catch (const CommError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no message from rank"));
  }
}

}  // namespace
}  // namespace compopt::testing
