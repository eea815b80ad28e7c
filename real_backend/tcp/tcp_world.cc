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

// The full mesh holds one socket per peer on top of the files open now: raise the soft
// open-file limit toward the hard one when the world needs more (often 1024 by default).
void ensure_file_limit(const TcpOptions& o) {
  const auto open_now = static_cast<rlim_t>(std::distance(
      std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{}));
  const auto needed = open_now + static_cast<rlim_t>(o.world_size) + 64;
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
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      Failure& failure = failures[static_cast<size_t>(r)];
      try {
        run_thread_rank(r, base, master, fn);
      } catch (const PeerFailed&) {
        failure = {std::current_exception(), sequence++, true};
      } catch (...) {
        failure = {std::current_exception(), sequence++, false};
        if (r == 0) master.fail(std::current_exception());
      }
    });
  }
  for (auto& t : threads) t.join();
  rethrow_root_failure(failures);
}

}  // namespace compopt::tcp
