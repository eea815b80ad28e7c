// The TCP backend's fp32 ring allreduce on loopback against what the host's loopback moves.
// BM_tcp_allreduce/<elements>: 4 TCP ranks as threads of this process (run_tcp_threads), one
// ring allreduce of <elements> fp32 per rank, timed on rank 0 from a barrier to the end of the
// call. BM_tcp_allreduce_baseline/<elements>: 4 concurrent loopback TCP streams in the ring's
// shape (thread i sends to thread i+1 mod 4 while receiving from i-1), each moving the bytes one
// rank of the ring sends, 2 (n-1)/n * 4 * elements, with plain blocking sockets. The ratio table
// prints vs_baseline = baseline time / ring time: the fraction of the loopback's rate the ring
// reaches (CRCs, framing, the reductions and the ring's synchronous steps cost the rest).
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "real_backend/tcp/tcp_world.h"
#include "tests/bench/memcpy_baseline.h"
#include "tests/bench/ratio_reporter.h"

namespace compopt::bench {
namespace {

constexpr int kRanks = 4;
constexpr int64_t kSizes[] = {int64_t{1} << 20, int64_t{1} << 24};

[[maybe_unused]] const bool kBaselines = [] {
  for (const int64_t k : kSizes) ensure_memcpy_baseline(4 * k);
  return true;
}();

void BM_tcp_allreduce(benchmark::State& state) {
  const auto d = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    std::atomic<double> seconds{0};
    tcp::run_tcp_threads(kRanks, 0, [&](Communicator& comm) {
      std::vector<float> x(d);
      for (size_t i = 0; i < d; ++i) x[i] = std::sin(0.01f * static_cast<float>(i + comm.rank()));
      comm.allreduce(x, ReduceOp::kMean);  // warm-up: connections and buffers
      comm.barrier();
      const double start = comm.now();
      comm.allreduce(x, ReduceOp::kMean);
      if (comm.rank() == 0) seconds = comm.now() - start;
    });
    state.SetIterationTime(seconds.load());
  }
  set_input_bytes(state, static_cast<int64_t>(4 * d));
}

int check(int rc, const char* what) {
  if (rc < 0) throw std::runtime_error(what);
  return rc;
}

// A connected loopback pair: [0] sends, [1] receives.
std::pair<int, int> loopback_pair() {
  const int listener = check(::socket(AF_INET, SOCK_STREAM, 0), "socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  check(::bind(listener, reinterpret_cast<sockaddr*>(&addr), len), "bind");
  check(::listen(listener, 1), "listen");
  check(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), "getsockname");
  const int out = check(::socket(AF_INET, SOCK_STREAM, 0), "socket");
  check(::connect(out, reinterpret_cast<sockaddr*>(&addr), len), "connect");
  const int in = check(::accept(listener, nullptr, nullptr), "accept");
  ::close(listener);
  const int one = 1;
  ::setsockopt(out, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return {out, in};
}

// Thread i writes `bytes` to its outgoing socket while reading as many from its incoming one.
void stream_ring(const std::vector<std::pair<int, int>>& links, size_t bytes) {
  std::vector<std::thread> threads;
  for (int i = 0; i < kRanks; ++i) {
    threads.emplace_back([&, i] {
      const int out = links[static_cast<size_t>(i)].first;
      const int in = links[static_cast<size_t>((i + kRanks - 1) % kRanks)].second;
      std::vector<char> send(size_t{1} << 20, 1), recv(size_t{1} << 20);
      std::thread reader([&] {
        for (size_t got = 0; got < bytes;) {
          const ssize_t n = ::read(in, recv.data(), std::min(recv.size(), bytes - got));
          if (n <= 0) return;
          got += static_cast<size_t>(n);
        }
      });
      for (size_t sent = 0; sent < bytes;) {
        const ssize_t n = ::write(out, send.data(), std::min(send.size(), bytes - sent));
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      reader.join();
    });
  }
  for (auto& t : threads) t.join();
}

void BM_tcp_allreduce_baseline(benchmark::State& state) {
  const auto d = static_cast<size_t>(state.range(0));
  const size_t bytes = 2 * (kRanks - 1) * 4 * d / kRanks;
  std::vector<std::pair<int, int>> links;
  for (int i = 0; i < kRanks; ++i) links.push_back(loopback_pair());
  stream_ring(links, bytes);  // warm-up: socket buffers grown
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    stream_ring(links, bytes);
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (const auto& [out, in] : links) {
    ::close(out);
    ::close(in);
  }
  set_input_bytes(state, static_cast<int64_t>(4 * d));
}

BENCHMARK(BM_tcp_allreduce)
    ->Arg(kSizes[0])
    ->Arg(kSizes[1])
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_tcp_allreduce_baseline)
    ->Arg(kSizes[0])
    ->Arg(kSizes[1])
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace compopt::bench
