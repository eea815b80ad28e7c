#include "sim/backend/sim_world.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "sim/backend/sim_transport.h"

namespace compopt::sim {

namespace sg4 = simgrid::s4u;

namespace {

std::mutex& engine_mutex() {
  static std::mutex mutex;
  return mutex;
}

void check_placement(const net::ClusterSpec& cluster, int ranks, int per_node) {
  if (ranks < 1) throw InvalidArgument(fmt::format("sim: {} ranks, expected at least 1", ranks));
  if (per_node < 1 || per_node > cluster.gpus_per_node) {
    throw InvalidArgument(
        fmt::format("sim: {} ranks per node, expected 1..{} (GPUs per node of '{}')", per_node,
                    cluster.gpus_per_node, cluster.name));
  }
  const int nodes = (ranks + per_node - 1) / per_node;
  if (nodes > cluster.nodes) {
    throw InvalidArgument(
        fmt::format("sim: {} ranks at {} per node need {} nodes, cluster '{}' has {}", ranks,
                    per_node, nodes, cluster.name, cluster.nodes));
  }
}

std::string describe_stuck(const SimShared& shared) {
  std::string out;
  int listed = 0;
  for (int r = 0; r < shared.size() && listed < 8; ++r) {
    if (shared.finished[static_cast<size_t>(r)]) continue;
    out += fmt::format("{}rank {} waits for rank {}", listed++ ? ", " : "", r,
                       shared.waiting_on[static_cast<size_t>(r)]);
  }
  return out;
}

// The engine's command line. COMPOPT_SIMGRID_CONTEXTS=thread (set by
// scripts/run_sanitized_tests.sh): ASan and TSan cannot follow SimGrid's default
// hand-made stack switches between actors; thread contexts put every actor on a
// real thread, which they can. The simulated results are the same. Pinned in
// place: `args` points into the strings.
class EngineArgs {
 public:
  EngineArgs() {
    args_.push_back(program_.data());
    if (const char* factory = std::getenv("COMPOPT_SIMGRID_CONTEXTS"); factory && *factory) {
      contexts_ += factory;
      args_.push_back(contexts_.data());
    }
    argc_ = static_cast<int>(args_.size());
    args_.push_back(nullptr);
  }
  EngineArgs(const EngineArgs&) = delete;
  EngineArgs& operator=(const EngineArgs&) = delete;
  int* argc() { return &argc_; }
  char** argv() { return args_.data(); }

 private:
  std::string program_ = "compopt-sim", contexts_ = "--cfg=contexts/factory:";
  std::vector<char*> args_;
  int argc_ = 0;
};

void init_shared(SimShared& shared, int ranks, int per_node) {
  const auto n = static_cast<size_t>(ranks);
  shared.node_of_rank.resize(n);
  shared.finished.assign(n, 0);
  shared.waiting_on.assign(n, -1);
  shared.in_flight.assign(n * n, 0);
  for (int r = 0; r < ranks; ++r) {
    shared.node_of_rank[static_cast<size_t>(r)] = r / per_node;
    shared.mailbox.push_back(sg4::Mailbox::by_name(fmt::format("rank{}", r)));
  }
  shared.start_clock = sg4::Engine::get_clock();
  shared.sync = sg4::Barrier::create(static_cast<unsigned>(ranks));
}

// What the rank actors report back: each one's end time, and the first failure.
struct RankOutcomes {
  std::vector<double> end_time;
  std::exception_ptr failure;
};

// One actor per rank running `fn`; the first rank that throws stops all others.
void create_rank_actors(SimShared& shared, const net::PlatformHosts& hosts, int per_node,
                        const SimRunOptions& options, const std::function<void(Communicator&)>& fn,
                        RankOutcomes& out) {
  for (int r = 0; r < shared.size(); ++r) {
    sg4::Host* host =
        hosts.by_node[static_cast<size_t>(r / per_node)][static_cast<size_t>(r % per_node)];
    sg4::Actor::create(fmt::format("rank{}", r), host, [&, r] {
      try {
        SimTransport transport(shared, r, options.wire);
        Communicator comm(transport);
        fn(comm);
        out.end_time[static_cast<size_t>(r)] = transport.now();
        transport.mark_returned();
      } catch (const simgrid::ForcefulKillException&) {
        throw;  // stopped because another rank failed: SimGrid unwinds this actor
      } catch (...) {
        if (!out.failure) {
          out.failure = std::current_exception();
          sg4::Actor::kill_all();
        }
      }
    });
  }
}

}  // namespace

void run_engine(const net::ClusterSpec& cluster,
                const std::function<void(const net::PlatformHosts&)>& setup,
                const std::function<void()>& finish) {
  std::unique_lock lock(engine_mutex(), std::try_to_lock);
  if (!lock.owns_lock() || sg4::Engine::has_instance()) {
    throw InvalidArgument(
        "sim: another simulation is running in this process (run_sim cannot nest)");
  }
  EngineArgs args;
  sg4::Engine engine(args.argc(), args.argv());
  const net::PlatformHosts hosts = net::build_platform(cluster);  // the actors may keep it
  setup(hosts);
  engine.run();
  if (finish) finish();
}

SimRunResult run_sim(const SimRunOptions& options, const std::function<void(Communicator&)>& fn) {
  const net::ClusterSpec& cluster = options.cluster;
  cluster.validate();
  const int ranks = options.ranks > 0 ? options.ranks : cluster.gpus();
  const int per_node = options.gpus_per_node > 0 ? options.gpus_per_node : cluster.gpus_per_node;
  check_placement(cluster, ranks, per_node);

  SimShared shared;
  RankOutcomes outcomes;
  outcomes.end_time.assign(static_cast<size_t>(ranks), 0.0);
  run_engine(
      cluster,
      [&](const net::PlatformHosts& hosts) {
        init_shared(shared, ranks, per_node);
        shared.cluster = &cluster;
        create_rank_actors(shared, hosts, per_node, options, fn, outcomes);
      },
      [&shared] {
        // a failure stopped their receivers
        for (SimMessage* message : shared.untaken) delete message;
        shared.untaken.clear();
        shared.sync = nullptr;
      });
  if (outcomes.failure) std::rethrow_exception(outcomes.failure);
  if (std::any_of(shared.finished.begin(), shared.finished.end(), [](char f) { return !f; })) {
    throw CommError("sim: ranks wait for messages that are never sent (deadlock): " +
                    describe_stuck(shared));
  }
  return {.makespan_s = *std::max_element(outcomes.end_time.begin(), outcomes.end_time.end())};
}

double run_sim(const net::ClusterSpec& cluster, int ranks, int gpus_per_node,
               const std::function<void(Communicator&)>& fn) {
  return run_sim({.cluster = cluster, .ranks = ranks, .gpus_per_node = gpus_per_node}, fn)
      .makespan_s;
}

}  // namespace compopt::sim
