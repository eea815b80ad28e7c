#include "real_backend/tcp/tcp_world.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <thread>

#include "core/compress/parallel_for.h"
#include "real_backend/tcp/mesh.h"
#include "real_backend/tcp/refusal_log.h"
#include "real_backend/tcp/rendezvous.h"

namespace compopt::tcp {
namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

std::vector<int> node_ids(const TcpOptions& o, const std::vector<RankAddress>& table) {
  std::vector<int> nodes(table.size());
  std::map<std::string, int> ids;
  for (size_t r = 0; r < table.size(); ++r) {
    if (o.gpus_per_node > 0) {
      nodes[r] = static_cast<int>(r) / o.gpus_per_node;
    } else {
      nodes[r] = ids.emplace(table[r].node_name, static_cast<int>(ids.size())).first->second;
    }
  }
  return nodes;
}

rlim_t files_open_now() {
  return static_cast<rlim_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                           std::filesystem::directory_iterator{}));
}

// The full mesh holds one socket per peer on top of the files open now: raise the soft
// open-file limit toward the hard one when the world needs more (often 1024 by default).
void ensure_file_limit(const TcpOptions& o) {
  const auto needed = files_open_now() + static_cast<rlim_t>(o.world_size) + 64;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  const rlimit raised{std::min(needed, limit.rlim_max), limit.rlim_max};
  if (raised.rlim_cur < needed || ::setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    throw CommError(fmt::format(
        "rank {}: a world of {} ranks needs about {} open files (one socket per peer), the "
        "limit is {} (hard {}): raise it with ulimit -n",
        o.rank, o.world_size, needed, limit.rlim_cur, limit.rlim_max));
  }
}

}  // namespace

rlim_t in_process_files_needed(int ranks, rlim_t open_now) {
  const auto n = static_cast<rlim_t>(ranks);
  return open_now + n * (n - 1) + kFilesPerInProcessRank * n + 64;
}

void ensure_in_process_file_limit(int ranks) {
  const rlim_t needed = in_process_files_needed(ranks, files_open_now());
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return;
  const rlimit raised{std::min(needed, limit.rlim_max), limit.rlim_max};
  if (raised.rlim_cur >= needed && ::setrlimit(RLIMIT_NOFILE, &raised) == 0) return;
  throw InvalidArgument(fmt::format(
      "{} in-process TCP ranks need about {} open files (both ends of {} connections in this "
      "process, plus listeners and event descriptors), the limit is {} (hard {}): use fewer "
      "ranks, one process per rank (compopt launch -n {}), or raise the hard limit (ulimit -Hn)",
      ranks, needed, static_cast<rlim_t>(ranks) * static_cast<rlim_t>(ranks - 1) / 2,
      limit.rlim_cur, limit.rlim_max, ranks));
}

std::unique_ptr<TcpTransport> connect_tcp(TcpOptions o,
                                          const std::function<void(uint16_t)>& on_master_port) {
  validate(o);
  if (o.advertise_addr.empty()) {
    if (o.listen_addr == "0.0.0.0" || o.listen_addr == "::") {
      throw InvalidArgument(
          fmt::format("tcp: listening on {} needs an address for peers to dial "
                      "(COMPOPT_ADVERTISE_ADDR)",
                      o.listen_addr));
    }
    o.advertise_addr = o.listen_addr;
  }
  if (o.node_name.empty()) o.node_name = host_name();
  ensure_file_limit(o);
  const auto deadline =
      SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                               std::chrono::duration<double>(o.connect_timeout_s));
  asio::io_context mesh_io;
  tcp::acceptor data(mesh_io);
  const tcp::endpoint endpoint = resolve_endpoint(mesh_io, o.listen_addr, 0);
  ErrorCode ec;
  data.open(endpoint.protocol(), ec);
  if (!ec) data.bind(endpoint, ec);
  if (!ec) data.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw CommError(
        fmt::format("rank {}: cannot listen on {}: {}", o.rank, o.listen_addr, ec.message()));

  struct FlushRefusals {
    int rank;
    ~FlushRefusals() { refusal_log().flush(rank); }
  } flush_refusals{o.rank};  // the summaries of this setup's refusals, however it ends
  Rendezvous rendezvous(o);
  if (o.rank == 0 && on_master_port) on_master_port(rendezvous.port());
  const auto table =
      rendezvous.run({o.advertise_addr, data.local_endpoint().port(), o.node_name}, deadline);
  auto fds = connect_mesh(mesh_io, data, o, table, deadline);
  return std::make_unique<TcpTransport>(o, std::move(fds), node_ids(o, table));
}

namespace {

void run_on(TcpTransport& transport, const std::function<void(Communicator&)>& fn) {
  try {
    Communicator comm(transport);
    fn(comm);
  } catch (const std::exception& e) {
    transport.abort(e.what());
    throw;
  } catch (...) {
    transport.abort(
        fmt::format("rank {} failed with a non-standard exception", transport.world_rank()));
    throw;
  }
  transport.close();
}

// Rank 0's rendezvous port, handed to the other rank threads once it listens (or
// rank 0's failure to get there).
class MasterPort {
 public:
  void publish(uint16_t port) {
    if (!set_.exchange(true)) promise_.set_value(port);
  }
  void fail(std::exception_ptr error) {
    if (!set_.exchange(true)) promise_.set_exception(std::move(error));
  }
  uint16_t wait(int rank, double timeout_s) const {
    const std::shared_future<uint16_t> port = port_;  // one copy per thread
    if (port.wait_for(std::chrono::duration<double>(timeout_s)) != std::future_status::ready) {
      throw CommError(
          fmt::format("rank {}: rank 0 did not start listening within {} s", rank, timeout_s));
    }
    return port.get();
  }

 private:
  std::promise<uint16_t> promise_;
  std::shared_future<uint16_t> port_ = promise_.get_future().share();
  std::atomic<bool> set_ = false;
};

void run_thread_rank(int rank, const TcpOptions& base, MasterPort& master,
                     const std::function<void(Communicator&)>& fn) {
  TcpOptions o = base;
  o.rank = rank;
  if (rank != 0) o.master_port = master.wait(rank, o.connect_timeout_s);
  auto transport = connect_tcp(o, [&](uint16_t p) { master.publish(p); });
  run_on(*transport, fn);
}

struct Failure {
  std::exception_ptr error;
  int order = -1;
  bool consequence = false;  // a PeerFailed: this rank stopped because another one failed
};

// Rethrows the failure that started it all: the first that is not a consequence of another
// rank's, else the first of all.
void rethrow_root_failure(const std::vector<Failure>& failures) {
  const Failure* root = nullptr;
  for (const Failure& f : failures) {
    if (!f.error) continue;
    const bool better = root == nullptr || (root->consequence && !f.consequence) ||
                        (root->consequence == f.consequence && f.order < root->order);
    if (better) root = &f;
  }
  if (root != nullptr) std::rethrow_exception(root->error);
}

}  // namespace

void run_tcp_rank(const TcpOptions& options, const std::function<void(Communicator&)>& fn) {
  auto transport = connect_tcp(options);
  run_on(*transport, fn);
}

void run_tcp_threads(int ranks, int gpus_per_node, const std::function<void(Communicator&)>& fn,
                     TcpOptions base) {
  if (ranks < 1)
    throw InvalidArgument(fmt::format("tcp threads: {} ranks, expected at least 1", ranks));
  if (gpus_per_node < 0) {
    throw InvalidArgument(
        fmt::format("tcp threads: gpus_per_node {}, expected >= 0", gpus_per_node));
  }
  ensure_in_process_file_limit(ranks);
  if (base.token.empty()) base.token = random_job_token();
  base.world_size = ranks;
  base.gpus_per_node = gpus_per_node;
  if (gpus_per_node == 0) base.node_name = "node0";
  base.master_port = 0;

  MasterPort master;
  const LocalRanksScope cores_per_rank(static_cast<size_t>(ranks));  // pool jobs: cores per rank
  std::atomic<int> sequence = 0;
  std::vector<Failure> failures(static_cast<size_t>(ranks));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(ranks));
  const auto rank_body = [&](int r) {
    Failure& failure = failures[static_cast<size_t>(r)];
    try {
      run_thread_rank(r, base, master, fn);
    } catch (const PeerFailed&) {
      failure = {std::current_exception(), sequence++, true};
    } catch (...) {
      failure = {std::current_exception(), sequence++, false};
      if (r == 0) master.fail(std::current_exception());
    }
  };
  std::exception_ptr start_failure;
  for (int r = 0; r < ranks && !start_failure; ++r) {
    try {
      threads.emplace_back(rank_body, r);
    } catch (const std::exception& e) {  // std::system_error: out of threads or memory
      start_failure = std::make_exception_ptr(CommError(
          fmt::format("tcp threads: could not start the thread of rank {} of {}: {} (use fewer "
                      "ranks); the started ranks fail their rendezvous",
                      r, ranks, e.what())));
      if (r == 0) master.fail(start_failure);
    }
  }
  for (auto& t : threads) t.join();
  if (start_failure) std::rethrow_exception(start_failure);
  rethrow_root_failure(failures);
}

}  // namespace compopt::tcp
