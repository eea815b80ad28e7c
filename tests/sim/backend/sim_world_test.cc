// run_sim's contract: placement, failures, deadlocks, nesting, wire maps.

#include "sim/backend/sim_world.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "core/util/error.h"
#include "sim/backend/sim_transport.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

net::ClusterSpec cluster(int nodes, int gpus_per_node) {
  net::ClusterSpec c;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  return c;
}

template <typename Error>
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return {};
}

TEST(SimWorld, PlacesRanksNodeMajor) {
  std::vector<int> node(6, -1);
  run_sim(cluster(3, 2), 6, 2,
          [&](Communicator& comm) { node[static_cast<size_t>(comm.rank())] = comm.node(); });
  EXPECT_THAT(node, ::testing::ElementsAre(0, 0, 1, 1, 2, 2));
}

TEST(SimWorld, RejectsPlacementsThatDoNotFit) {
  EXPECT_THAT(error_of<InvalidArgument>([] { run_sim(cluster(2, 4), 9, 4, [](Communicator&) {}); }),
              HasSubstr("need 3 nodes, cluster 'custom' has 2"));
  EXPECT_THAT(error_of<InvalidArgument>([] { run_sim(cluster(2, 4), 4, 5, [](Communicator&) {}); }),
              HasSubstr("5 ranks per node, expected 1..4"));
}

TEST(SimWorld, RethrowsTheFirstFailureAndStopsTheOthers) {
  EXPECT_THAT(error_of<std::runtime_error>([] {
                run_sim(cluster(1, 4), 4, 4, [](Communicator& comm) {
                  if (comm.rank() == 2) throw std::runtime_error("boom on rank 2");
                  std::vector<std::byte> data(4);
                  comm.recv((comm.rank() + 1) % 4, 1, data);  // never sent
                });
              }),
              HasSubstr("boom on rank 2"));
}

TEST(SimWorld, MutualWaitIsReportedAsDeadlock) {
  EXPECT_THAT(error_of<CommError>([] {
                run_sim(cluster(1, 2), 2, 2, [](Communicator& comm) {
                  std::vector<std::byte> data(4);
                  comm.recv(1 - comm.rank(), 1, data);
                });
              }),
              HasSubstr("deadlock"));
}

TEST(SimWorld, CannotNest) {
  EXPECT_THAT(error_of<InvalidArgument>([] {
                run_sim(cluster(1, 1), 1, 1,
                        [](Communicator&) { run_sim(cluster(1, 1), 1, 1, [](Communicator&) {}); });
              }),
              HasSubstr("cannot nest"));
}

TEST(SimWorld, SimTransportOfRejectsOtherBackends) {
  run_sim(cluster(1, 1), 1, 1, [](Communicator& comm) { EXPECT_NO_THROW(SimTransport::of(comm)); });
}

TEST(SimWorld, ValidatesTheClusterFirst) {
  net::ClusterSpec c = cluster(2, 2);
  c.inter_node_gbps = -5;
  EXPECT_THAT(error_of<InvalidArgument>([&] { run_sim(c, 4, 2, [](Communicator&) {}); }),
              HasSubstr("inter_node_gbps = -5"));
}

class PlatformFileTest : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(PlatformFileTest, LoadsAUsersPlatform) {
  const auto path = write("compopt_sim_good.xml", R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
<link id="l" bandwidth="1GBps" latency="1ms"/>
<route src="a" dst="b"><link_ctn id="l"/></route></zone></platform>
)");
  net::ClusterSpec c = cluster(2, 1);
  c.platform_file = path.string();
  double arrival = 0;
  run_sim(c, 2, 1, [&](Communicator& comm) {
    std::vector<std::byte> data(1'000'000);
    if (comm.rank() == 0) comm.send(1, 0, data);
    if (comm.rank() == 1) comm.recv(0, 0, data), arrival = comm.now();
  });
  EXPECT_NEAR(arrival, 1e-3 + 1e-3, 1e-9);  // 1 ms latency + 1 MB at 1 GB/s
}

TEST_F(PlatformFileTest, MalformedFileIsInvalidArgument) {
  net::ClusterSpec c = cluster(1, 1);
  c.platform_file =
      write("compopt_sim_bad.xml", "<platform version=\"4.1\"><zone id=\"z\"\n").string();
  EXPECT_THAT(error_of<InvalidArgument>([&] { run_sim(c, 1, 1, [](Communicator&) {}); }),
              HasSubstr("is malformed"));
  c.platform_file = "/nonexistent/platform.xml";
  EXPECT_THAT(error_of<InvalidArgument>([&] { run_sim(c, 1, 1, [](Communicator&) {}); }),
              HasSubstr("'/nonexistent/platform.xml' does not exist"));
}

}  // namespace
}  // namespace compopt::sim
