// compopt_peer_bench: the per-peer cost of compopt's TCP backend, apart from its per-message
// cost (docs/calibration.md, "Transport profiles"; experiments/validation/netns_peer_cost.sh runs
// it between network namespaces).
//
// A round is S = cycles x (n - 1) dependent steps; in each step every rank sends one message
// of --bytes to the rank `shift` ahead and receives one from the rank `shift` behind
// (sendrecv), as a ring step does. Two patterns with the same messages and dependencies:
//   ring    shift 1 at every step: each rank talks to 1 peer
//   spread  shift 1, 2, .., n-1, 1, 2, ..: each rank talks to n-1 peers (a pairwise all-to-all)
// so spread - ring is the cost of talking to n-2 more peers in a round (0 by construction
// at n = 2: the control). Blocks of --rounds rounds alternate the two patterns (ring first in
// even blocks, spread first in odd ones) so that a drifting machine load hits both alike;
// --pattern ring or spread runs one of them alone.
//
// Ranks: one per process from the environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
// COMPOPT_JOB_TOKEN, COMPOPT_LISTEN_ADDR; real_backend/tcp/tcp_options.h), or --threads N
// in-process ranks on 127.0.0.1. Rank 0 writes --out, a CSV with one row per block and
// pattern: ranks,pattern,peers,cycles,steps,bytes,block,rounds,round_us where round_us is
// the slowest rank's mean wall time of one round in microseconds.
//
// Bad arguments: exit status 2 naming the value; a failed run: exit status 1.

#include <fmt/format.h>
#include <fmt/os.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "core/comm/communicator.h"
#include "core/util/error.h"
#include "real_backend/tcp/tcp_world.h"

namespace {

struct Options {
  int threads = 0;  // 0: one rank per process, from the environment
  int cycles = 1;   // a round is cycles x (n - 1) steps
  int rounds = 200;
  int blocks = 20;
  int bytes = 64;
  std::string pattern = "both";  // or one of kPatterns' names
  std::string out;
};

struct Pattern {
  const char* name;
  bool spread;  // false: every step to the next rank
};
constexpr Pattern kPatterns[] = {{"ring", false}, {"spread", true}};

int shift_of(const Pattern& p, int step, int ranks) {
  return p.spread ? 1 + step % (ranks - 1) : 1;
}

// Mean wall seconds of one round of `p` on this rank.
double time_rounds(compopt::Communicator& c, const Pattern& p, const Options& o) {
  const int n = c.size(), steps = o.cycles * (n - 1);
  std::vector<std::byte> out(static_cast<size_t>(o.bytes)), in(out.size());
  c.barrier();
  const double start = c.now();
  for (int r = 0; r < o.rounds; ++r) {
    for (int s = 0; s < steps; ++s) {
      const int shift = shift_of(p, s, n);
      c.sendrecv((c.rank() + shift) % n, out, (c.rank() - shift + n) % n, in, 0);
    }
  }
  return (c.now() - start) / o.rounds;
}

// The slowest rank's figure, on every rank.
double slowest(compopt::Communicator& c, double mine) {
  std::vector<double> all(static_cast<size_t>(c.size()));
  c.allgather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(all)));
  return *std::max_element(all.begin(), all.end());
}

// Every rank times; rank 0 writes `out` (nullptr elsewhere).
void bench(compopt::Communicator& c, const Options& o, fmt::ostream* out) {
  if (c.size() < 2) throw compopt::InvalidArgument("WORLD_SIZE = 1, expected at least 2 ranks");
  const int n = c.size();
  std::vector<std::string> rows;
  std::vector<const Pattern*> run;
  for (const Pattern& p : kPatterns)
    if (o.pattern == "both" || o.pattern == p.name) run.push_back(&p);
  const size_t k = run.size();
  for (const Pattern* p : run) time_rounds(c, *p, o);  // warm-up: first use of every socket
  for (int b = 0; b < o.blocks; ++b) {
    for (size_t i = 0; i < k; ++i) {
      const Pattern& p = *run[(i + static_cast<size_t>(b)) % k];
      const double round_s = slowest(c, time_rounds(c, p, o));
      rows.push_back(fmt::format("{},{},{},{},{},{},{},{},{:.3f}", n, p.name, p.spread ? n - 1 : 1,
                                 o.cycles, o.cycles * (n - 1), o.bytes, b, o.rounds,
                                 round_s * 1e6));
    }
  }
  if (c.rank() != 0) return;
  out->print("ranks,pattern,peers,cycles,steps,bytes,block,rounds,round_us\n");
  for (const std::string& row : rows) out->print("{}\n", row);
  out->close();
}

// Connects the ranks and runs the bench; the output file is opened (by rank 0) first, so a
// path that cannot be written fails before any work.
void run(const Options& o) {
  if (o.threads > 0) {
    auto out = fmt::output_file(o.out);
    compopt::tcp::run_tcp_threads(o.threads, 0, [&](compopt::Communicator& c) {
      bench(c, o, c.rank() == 0 ? &out : nullptr);
    });
    return;
  }
  const compopt::tcp::TcpOptions tcp = compopt::tcp::tcp_options_from_env();
  compopt::tcp::validate(tcp);
  std::optional<fmt::ostream> out;
  if (tcp.rank == 0) out.emplace(fmt::output_file(o.out));
  compopt::tcp::run_tcp_rank(tcp,
                             [&](compopt::Communicator& c) { bench(c, o, out ? &*out : nullptr); });
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--threads", o.threads,
                 "run N ranks as threads of this process on 127.0.0.1 (default: one rank per "
                 "process, from RANK, WORLD_SIZE, MASTER_ADDR, ...)")
      ->check(CLI::Range(2, 64));
  app.add_option("--cycles", o.cycles, "a round is CYCLES x (ranks - 1) steps")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--rounds", o.rounds, "rounds per timed block")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app.add_option("--blocks", o.blocks, "timed blocks per pattern")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--bytes", o.bytes, "bytes of every message")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--pattern", o.pattern,
                 "both (alternating blocks), or only ring or spread (e.g. to count packets)")
      ->capture_default_str()
      ->check(CLI::IsMember({"both", "ring", "spread"}));
  app.add_option("--out", o.out, "CSV written by rank 0")->required();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"compopt_peer_bench: TCP round time with 1 peer (ring) vs n-1 peers (spread)"};
  Options o;
  add_options(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    fmt::print(stderr, "compopt_peer_bench: error: {}\nRun with --help for the accepted options.\n",
               e.what());
    return 2;
  }
  try {
    run(o);
  } catch (const compopt::InvalidArgument& e) {
    fmt::print(stderr, "compopt_peer_bench: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "compopt_peer_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
