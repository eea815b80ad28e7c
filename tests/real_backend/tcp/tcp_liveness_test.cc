// Liveness is not an operation timeout: heartbeats come from each rank's I/O thread,
// so a rank that computes for many silence budgets between collectives, or waits
// while a large frame is on the wire, is never declared dead. Short settings (0.3 s
// budget) stand for the defaults (4 s) so the tests run in seconds.

#include <gmock/gmock.h>

#include <chrono>
#include <thread>

#include "real_backend/tcp/tcp_world.h"

namespace compopt::tcp {
namespace {

TcpOptions short_liveness() {
  TcpOptions o;
  o.peer_silence_timeout_s = 0.3;
  o.heartbeat_interval_s = 0.05;
  o.connect_timeout_s = 15.0;
  o.op_timeout_s = 30.0;
  o.quiet = true;
  return o;
}

TEST(TcpLivenessTest, RankComputingFiveBudgetsBetweenCollectivesIsNotFailed) {
  std::vector<float> results(3, 0.0f);
  run_tcp_threads(
      3, 0,
      [&](Communicator& comm) {
        std::vector<float> x(1000, static_cast<float>(comm.rank() + 1));
        comm.allreduce(x);
        // "Computing": this rank's thread sends nothing for 1.5 s = 5 budgets.
        if (comm.rank() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        comm.allreduce(x);
        results[static_cast<size_t>(comm.rank())] = x[999];
      },
      short_liveness());
  // (1 + 2 + 3) = 6 after the first allreduce, 3 * 6 = 18 after the second.
  EXPECT_THAT(results, ::testing::Each(18.0f));
}

TEST(TcpLivenessTest, ReceiverBusyWhileALargeFrameArrivesIsNotFailed) {
  TcpOptions o = short_liveness();
  o.pipeline_bytes = 0;  // one 64 MiB frame, not 1 MiB pieces
  bool received = false;
  run_tcp_threads(
      2, 0,
      [&](Communicator& comm) {
        std::vector<std::byte> big(size_t{64} << 20);
        if (comm.rank() == 0) {
          for (size_t i = 0; i < big.size(); i += 4096) big[i] = std::byte{7};
          comm.send(1, 5, big);
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(1000));
          comm.recv(0, 5, big);
          received = big[4096 * 100] == std::byte{7} && big[1] == std::byte{0};
        }
        comm.barrier();
      },
      o);
  EXPECT_TRUE(received);
}

TEST(TcpLivenessTest, HeartbeatIntervalMustBeBelowHalfTheBudget) {
  TcpOptions o = short_liveness();
  o.rank = 0;
  o.world_size = 1;
  o.token = "liveness-token-0123456789";
  o.heartbeat_interval_s = 0.2;  // 2 * 0.2 >= 0.3
  EXPECT_THROW(validate(o), InvalidArgument);
  o.heartbeat_interval_s = 0.1;
  EXPECT_NO_THROW(validate(o));
}

}  // namespace
}  // namespace compopt::tcp
