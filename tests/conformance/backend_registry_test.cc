// The backend registry: every backend listed once in a fixed order, built or not; available()
// reasons; unknown names list every backend; run() refuses what a backend cannot do before
// starting any rank; the in-process backends honour ranks and gpus_per_node; only sim is
// simulated.

#include "real_backend/backend_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "sim/backend/sim_backend.h"
#include "tests/conformance/per_rank.h"

namespace compopt::testing {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kAllBackends = {"local", "sim", "tcp", "mpi", "hybrid", "nccl"};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no InvalidArgument";
}

TEST(BackendRegistry, ListsEveryBackendOnceInOrder) {
  EXPECT_EQ(backend_registry().names(), kAllBackends);
  for (const BackendEntry& b : backend_registry().entries()) {
    EXPECT_FALSE(b.help.empty()) << b.name;
    ASSERT_NE(b.backend, nullptr) << b.name;
  }
  // A second registration of any backend is refused.
  BackendRegistry twice("backend");
  register_built_backends(twice);
  EXPECT_THAT(error_of([&] { register_built_backends(twice); }),
              HasSubstr("'local' registered twice"));
}

TEST(BackendRegistry, AvailabilityIsEmptyOrAReason) {
  EXPECT_EQ(backend_registry().get("local").available(), "");
  EXPECT_EQ(backend_registry().get("sim").available(), "");
  for (const BackendEntry& b : backend_registry().entries()) {
    const std::string why = b.available();
    if (why.empty()) continue;
    EXPECT_TRUE(why.rfind("not built: ", 0) == 0 || why.rfind("no CUDA device: ", 0) == 0)
        << b.name << ": " << why;
    EXPECT_THAT(error_of([&] { b.run({.ranks = 1}, [](Communicator&) {}); }),
                HasSubstr("backend '" + b.name + "' cannot run here: " + why));
  }
}

TEST(BackendRegistry, UnknownNameListsEveryBackend) {
  const std::string what = error_of([] { backend_registry().get("quantum"); });
  EXPECT_THAT(what, HasSubstr("unknown backend 'quantum'"));
  EXPECT_THAT(what, HasSubstr("expected one of local, sim, tcp, mpi, hybrid, nccl"));
}

TEST(BackendRegistry, EveryBuiltBackendTrains) {
  for (const BackendEntry& b : backend_registry().entries()) {
    const bool built = b.help.rfind("not built", 0) != 0;
    EXPECT_EQ(b.traits.trains, built) << b.name << ": " << b.help;
  }
  EXPECT_TRUE(backend_registry().get("local").traits.trains);
  EXPECT_TRUE(backend_registry().get("tcp").traits.trains);
}

// Only sim's clock is simulated: commands ask the trait, and sim registers the name that
// run.json records for the commands simulating a cluster directly.
TEST(BackendRegistry, OnlySimIsSimulated) {
  for (const BackendEntry& b : backend_registry().entries())
    EXPECT_EQ(b.traits.simulated, b.name == "sim") << b.name;
  EXPECT_EQ(backend_registry().get(sim::kSimBackendName).name, "sim");
}

TEST(BackendRegistry, UnbuiltBackendRefusesWithItsReason) {
  const BackendEntry entry = unbuilt_backend("carrier-pigeon", "no pigeons found");
  EXPECT_EQ(entry.available(), "not built: no pigeons found");
  EXPECT_EQ(entry.help, "not built: no pigeons found");
  std::atomic<int> ran{0};
  EXPECT_THAT(error_of([&] { entry.run({.ranks = 2}, [&](Communicator&) { ++ran; }); }),
              HasSubstr("backend 'carrier-pigeon' cannot run here: not built: no pigeons found"));
  EXPECT_EQ(ran.load(), 0);
}

TEST(BackendRegistry, RefusesRankModesABackendLacks) {
  std::atomic<int> ran{0};
  const WorldFn count = [&](Communicator&) { ++ran; };
  EXPECT_THAT(error_of([&] { backend_registry().get("local").run({.ranks = 0}, count); }),
              HasSubstr("expected ranks >= 1"));
  // A launched-only backend (like mpi) refuses in-process ranks, whether or not mpi is built.
  BackendEntry launched_only = backend_registry().get("local");
  launched_only.name = "launched-only";
  launched_only.traits = {.in_process = false, .launched = true, .trains = false};
  EXPECT_THAT(error_of([&] { launched_only.run({.ranks = 3}, count); }),
              HasSubstr("'launched-only' runs one rank per process started by a launcher, not 3"));
  EXPECT_THAT(error_of([&] { backend_registry().get("sim").run({.ranks = -2}, count); }),
              HasSubstr("-2 ranks, expected >= 1"));
  EXPECT_THAT(error_of([&] {
                backend_registry().get("local").run({.ranks = 2, .gpus_per_node = -1}, count);
              }),
              HasSubstr("gpus_per_node -1"));
  EXPECT_EQ(ran.load(), 0);
}

TEST(BackendRegistry, RejectsUnknownSettings) {
  WorldOptions options{.ranks = 2};
  options.extras = {{"warp_factor", 9.0}};
  const WorldFn nothing = [](Communicator&) {};
  EXPECT_THAT(error_of([&] { backend_registry().get("local").run(options, nothing); }),
              HasSubstr("unknown setting 'warp_factor', expected none"));
  EXPECT_THAT(error_of([&] { backend_registry().get("sim").run(options, nothing); }),
              HasSubstr("unknown setting 'warp_factor', expected link_gbps, latency_us or "
                        "link_efficiency"));
  const BackendEntry& tcp = backend_registry().get("tcp");
  if (tcp.available().empty()) {
    EXPECT_THAT(error_of([&] { tcp.run(options, nothing); }),
                HasSubstr("unknown setting 'warp_factor'"));
  }
}

// ranks 5, gpus_per_node 2: nodes 0, 0, 1, 1, 2 on every available in-process backend.
TEST(BackendRegistry, InProcessBackendsPlaceRanksOnNodes) {
  for (const BackendEntry& backend : backend_registry().entries()) {
    if (!backend.traits.in_process || !backend.available().empty()) continue;
    SCOPED_TRACE(backend.name);
    PerRank<int> node(5), size(5);
    WorldOptions options{.ranks = 5, .gpus_per_node = 2};
    options.op_timeout_s = 20.0;
    options.connect_timeout_s = 20.0;
    options.quiet = true;
    backend.run(options, [&](Communicator& comm) {
      node[comm.rank()] = comm.node();
      size[comm.rank()] = comm.size();
    });
    for (int r = 0; r < 5; ++r) {
      EXPECT_EQ(node[r], r / 2) << "rank " << r;
      EXPECT_EQ(size[r], 5);
    }
  }
}

// The sim star's links follow the settings: one 1 MB message over a 1 Gbit/s link with no
// latency takes at least 8 ms of simulated time; at 8 Gbit/s at least 1 ms but under 8 ms.
TEST(BackendRegistry, SimSettingsShapeTheLinks) {
  const auto transfer_time = [](double gbps) {
    double seconds = 0;
    WorldOptions options{.ranks = 2, .gpus_per_node = 1};
    options.extras = {{"link_gbps", gbps}, {"latency_us", 0.0}, {"link_efficiency", 1.0}};
    backend_registry().get("sim").run(options, [&](Communicator& comm) {
      std::vector<std::byte> data(1'000'000);
      if (comm.rank() == 0) comm.send(1, 0, data);
      if (comm.rank() == 1) {
        comm.recv(0, 0, data);
        seconds = comm.now();
      }
    });
    return seconds;
  };
  const double slow = transfer_time(1.0);
  const double fast = transfer_time(8.0);
  EXPECT_GE(slow, 8e-3);
  EXPECT_GE(fast, 1e-3);
  EXPECT_LT(fast, 8e-3);
}

}  // namespace
}  // namespace compopt::testing
