// The rendezvous table is not tied to the 4 KiB control-frame limit: it goes out in
// pieces. Node names of the maximum 255 characters make each entry ~300 bytes, so the
// table of 20 ranks (~6 KB) needs 2 pieces; a longer name is refused before any connection.

#include <gmock/gmock.h>

#include <string>

#include "real_backend/tcp/tcp_world.h"

namespace compopt::tcp {
namespace {

TEST(RendezvousTableTest, TwentyRanksWithLongNodeNamesNeedSeveralPiecesAndConnect) {
  TcpOptions base;
  base.node_name = std::string(255, 'n');
  base.advertise_addr = "127.0.0.1";
  base.quiet = true;
  std::vector<float> sums(20, 0.0f);
  run_tcp_threads(
      20, 1,
      [&](Communicator& comm) {
        std::vector<float> x{static_cast<float>(comm.rank())};
        comm.allreduce(x);
        sums[static_cast<size_t>(comm.rank())] = x[0];
      },
      base);
  EXPECT_THAT(sums, ::testing::Each(190.0f));  // 0 + 1 + ... + 19
}

TEST(RendezvousTableTest, NodeNameOver255CharactersIsRefused) {
  TcpOptions o;
  o.rank = 0;
  o.world_size = 1;
  o.token = "rendezvous-token-0123456789";
  o.node_name = std::string(256, 'n');
  try {
    connect_tcp(o);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("node name of 256 characters, expected at most 255"));
  }
}

}  // namespace
}  // namespace compopt::tcp
