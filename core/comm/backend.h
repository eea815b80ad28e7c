#pragma once
// Backend: one way of running a world of ranks (threads of this process, a SimGrid model,
// processes over TCP or MPI, GPUs over NCCL) behind one interface, and the registry entry that
// names it. Every backend folder registers its Backend with a register_<name>_backend function
// (real_backend/backend_registry.h assembles them); commands and tests look backends up by
// name and never name a backend's own entry point.
//
// run(options, fn) runs fn on the world Communicator of every rank this call starts and
// returns when they all returned; the first failure is rethrown (a launched backend's other
// ranks fail with CommError naming it). Two ways to start ranks:
//   options.ranks > 0   the backend starts that many ranks inside this process (threads or
//                       simulated hosts); backends that cannot throw InvalidArgument;
//   options.ranks == 0  this process is one rank of a world started by a launcher
//                       (`compopt launch`, mpirun), which also gives the world size.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/comm/communicator.h"
#include "core/util/registry.h"

namespace compopt {

struct WorldOptions {
  int ranks = 0;          // > 0: in-process ranks; 0: this process is one launched rank
  int gpus_per_node = 0;  // ranks per node: node = rank / gpus_per_node; 0 = one node
  // Seconds a receive (or an NCCL call) may wait before failing; nullopt: backend default.
  std::optional<double> op_timeout_s{};
  // Seconds the rendezvous may take (tcp, hybrid, nccl); nullopt: backend default.
  std::optional<double> connect_timeout_s{};
  // Transport::pipeline_bytes() of every rank (0: whole blocks); nullopt: backend default.
  // The simulator charges whole blocks and ignores it.
  std::optional<size_t> pipeline_bytes{};
  // Seconds a closing rank waits for its peers' goodbyes (tcp, hybrid, nccl); nullopt: default.
  std::optional<double> linger_s{};
  bool quiet = false;  // no log lines about refused connections (tcp, hybrid, nccl)
  // Backend-specific numeric settings by name (sim: link_gbps, latency_us, link_efficiency);
  // a backend rejects names it does not know with InvalidArgument.
  std::map<std::string, double> extras{};
};

using WorldFn = std::function<void(Communicator&)>;

class Backend {
 public:
  virtual ~Backend() = default;
  // Empty when the backend can run here, else why not ("not built: Boost.Asio not found",
  // "no CUDA device: ...").
  virtual std::string available() const = 0;
  // Throws InvalidArgument for options the backend cannot honour (before starting any rank).
  virtual void run(const WorldOptions& options, const WorldFn& fn) const = 0;
  // Throws InvalidArgument when this host cannot hold the ranks `options` asks for (e.g. the
  // open files of options.ranks in-process TCP ranks); commands call it before any work and
  // before their run directory exists. It may raise a soft limit toward the hard one.
  virtual void check_host(const WorldOptions& options) const { (void)options; }
};

// What a backend can do, for the commands that choose one.
struct BackendTraits {
  bool in_process = false;  // run() accepts options.ranks > 0
  bool launched = false;    // run() accepts options.ranks == 0 (one rank per process)
  bool trains = false;      // `compopt train` runs on it
  // Its clock is simulated time on a modelled cluster (SimGrid), not this machine's wall
  // clock: `compopt train` simulates its run.cluster on it and charges compute by run.compute.
  bool simulated = false;
};

struct BackendEntry : RegistryEntry {
  BackendTraits traits;
  std::shared_ptr<const Backend> backend;

  std::string available() const { return backend->available(); }
  // backend->run, after throwing InvalidArgument when the backend is unavailable or does not
  // start ranks the way options ask.
  void run(const WorldOptions& options, const WorldFn& fn) const;
};

using BackendRegistry = Registry<BackendEntry>;

// A backend this build lacks: listed with help and available() "not built: <reason>", refuses
// to run.
BackendEntry unbuilt_backend(std::string name, const std::string& reason);

}  // namespace compopt
