// Phase markers of the collectives (core/comm/phase_log.h): nothing is recorded
// without a PhaseLog, scopes nest with their depth, and the hierarchical scheme's
// phases reach the log attached to the world communicator through its splits.

#include "core/comm/phase_log.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/local/local_world.h"
#include "core/compress/compressor.h"

namespace compopt {
namespace {

using Names = std::vector<std::pair<std::string, int>>;

Names names_of(const PhaseLog& log) {
  Names out;
  for (const PhaseSpan& s : log.spans()) out.emplace_back(s.name, s.depth);
  return out;
}

TEST(PhaseScope, NestedScopesRecordDepthAndTheParentLast) {
  run_local(1, [](Communicator& comm) {
    { const PhaseScope ignored(comm, "no log attached"); }
    PhaseLog log;
    comm.set_phase_log(&log);
    {
      const PhaseScope outer(comm, "outer");
      { const PhaseScope inner(comm, "inner"); }
    }
    comm.set_phase_log(nullptr);
    EXPECT_EQ(names_of(log), (Names{{"inner", 1}, {"outer", 0}}));
    EXPECT_EQ(log.depth(), 0);
    for (const PhaseSpan& s : log.spans()) EXPECT_LE(s.start_s, s.end_s);
  });
}

TEST(PhaseScope, RingAllreduceMarksItsTwoHalvesOnlyWhenALogIsAttached) {
  std::mutex mu;
  std::vector<Names> names(3);
  run_local(3, [&](Communicator& comm) {
    std::vector<float> x(24, 1.0f);
    PhaseLog log;
    comm.allreduce(x);  // no log: nothing recorded anywhere
    comm.set_phase_log(&log);
    comm.allreduce(x);
    comm.set_phase_log(nullptr);
    const std::lock_guard lock(mu);
    names[static_cast<size_t>(comm.rank())] = names_of(log);
    EXPECT_LE(log.spans().at(0).end_s, log.spans().at(1).start_s);
  });
  for (const Names& n : names) EXPECT_EQ(n, (Names{{"reduce-scatter", 0}, {"all-gather", 0}}));
}

TEST(PhaseScope, HierarchicalPhasesReachTheWorldLogThroughTheSplits) {
  std::mutex mu;
  std::vector<Names> names(4);
  run_local(
      4,
      [&](Communicator& comm) {
        HierarchicalGroups groups = HierarchicalGroups::split(comm);
        std::vector<float> x(64, static_cast<float>(comm.rank()));
        CompressedAllreduceState state = hierarchical_state(x.size(), groups);
        const auto codec = make_compressor("sign");
        PhaseLog log;
        comm.set_phase_log(&log);
        comm.hierarchical_compressed_allreduce(groups, x, *codec, state, RandomKey{.seed = 1});
        comm.set_phase_log(nullptr);
        const std::lock_guard lock(mu);
        names[static_cast<size_t>(comm.rank())] = names_of(log);
      },
      2);
  const Names expected = {{"intra-node reduce-scatter", 0},
                          {"all-to-all", 1},
                          {"all-gather scales", 1},
                          {"all-gather", 1},
                          {"inter-node compressed allreduce", 0},
                          {"intra-node all-gather", 0}};
  for (const Names& n : names) EXPECT_EQ(n, expected);
}

}  // namespace
}  // namespace compopt
