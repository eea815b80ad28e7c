#include "core/comm/local/local_world.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "core/comm/transport.h"
#include "core/compress/parallel_for.h"
#include "core/util/error.h"

namespace compopt {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

// Shared state of one run: a mailbox per destination rank, guarded by one mutex
// (the local backend favours simplicity; messages are copied once in, once out). Each rank
// waits on its own condition variable, so a message wakes its receiver only, not all ranks
// (with thousands of ranks, waking all of them for every message made runs quadratic).
class LocalWorld::Impl {
 public:
  explicit Impl(const LocalWorldOptions& options)
      : options_(options),
        finished_(static_cast<size_t>(options.ranks), false),
        wakeups_(static_cast<size_t>(options.ranks)),
        mailboxes_(static_cast<size_t>(options.ranks)),
        start_(Clock::now()) {}

  int node_of(int rank) const {
    return options_.gpus_per_node > 0 ? rank / options_.gpus_per_node : 0;
  }

  void post(int src, int dst, Channel channel, std::span<const std::byte> data) {
    std::lock_guard lock(mutex_);
    mailboxes_[static_cast<size_t>(dst)][{src, channel}].emplace_back(data.begin(), data.end());
    wakeups_[static_cast<size_t>(dst)].notify_all();
  }

  void take(int me, int src, Channel channel, std::span<std::byte> data) {
    std::unique_lock lock(mutex_);
    auto& queue = mailboxes_[static_cast<size_t>(me)][{src, channel}];
    const auto deadline = Clock::now() + std::chrono::duration<double>(options_.recv_timeout_s);
    const bool ready = wakeups_[static_cast<size_t>(me)].wait_until(lock, deadline, [&] {
      return !queue.empty() || failed_rank_ >= 0 || finished_[static_cast<size_t>(src)];
    });
    if (!queue.empty()) {
      std::vector<std::byte> message = std::move(queue.front());
      queue.pop_front();
      if (message.size() != data.size()) {
        throw CommError(fmt::format(
            "rank {} received {} bytes from rank {} (channel {:#x}), expected {}: ranks called a "
            "collective with different sizes",
            me, message.size(), src, channel, data.size()));
      }
      if (!message.empty()) std::memcpy(data.data(), message.data(), message.size());
      return;
    }
    if (failed_rank_ >= 0) {
      throw CommError(fmt::format("rank {}: peer rank {} failed: {}", me, failed_rank_, failure_));
    }
    if (ready) {
      throw CommError(
          fmt::format("rank {}: waiting for a message from rank {}, which already returned "
                      "(mismatched collectives?)",
                      me, src));
    }
    throw CommError(fmt::format("rank {}: no message from rank {} after {} s (channel {:#x})", me,
                                src, options_.recv_timeout_s, channel));
  }

  void mark_finished(int rank) {
    std::lock_guard lock(mutex_);
    finished_[static_cast<size_t>(rank)] = true;
    wake_all();
  }

  // Records the first failure; later ones are consequences of it.
  void mark_failed(int rank, const std::string& what) {
    std::lock_guard lock(mutex_);
    if (failed_rank_ < 0) {
      failed_rank_ = rank;
      failure_ = what;
    }
    wake_all();
  }

  int failed_rank() const { return failed_rank_; }
  double now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  void wake_all() {
    for (auto& wakeup : wakeups_) wakeup.notify_all();
  }

  LocalWorldOptions options_;
  std::mutex mutex_;
  std::vector<bool> finished_;
  std::vector<std::condition_variable> wakeups_;  // one per receiving rank
  int failed_rank_ = -1;
  std::string failure_;
  std::vector<std::map<std::pair<int, Channel>, std::deque<std::vector<std::byte>>>> mailboxes_;
  Clock::time_point start_;
};

namespace {

class LocalTransport final : public Transport {
 public:
  LocalTransport(LocalWorld::Impl& world, int rank, int size, size_t pipeline_bytes)
      : world_(world), rank_(rank), size_(size), pipeline_bytes_(pipeline_bytes) {}

  int world_rank() const override { return rank_; }
  int world_size() const override { return size_; }
  int node_of(int world_rank) const override { return world_.node_of(world_rank); }

  void send(int dst, Channel channel, std::span<const std::byte> data) override {
    world_.post(rank_, dst, channel, data);  // eager: never waits for the receiver
  }
  void recv(int src, Channel channel, std::span<std::byte> data) override {
    world_.take(rank_, src, channel, data);
  }
  void sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data, int src,
                Channel recv_channel, std::span<std::byte> recv_data) override {
    send(dst, send_channel, send_data);
    recv(src, recv_channel, recv_data);
  }
  size_t pipeline_bytes() const override { return pipeline_bytes_; }
  double now() const override { return world_.now(); }
  void advance(double /*seconds*/) override {}

 private:
  LocalWorld::Impl& world_;
  int rank_;
  int size_;
  size_t pipeline_bytes_;
};

}  // namespace

LocalWorld::LocalWorld(LocalWorldOptions options) : options_(options) {
  if (options_.ranks < 1) {
    throw InvalidArgument(
        fmt::format("local world: {} ranks, expected at least 1", options_.ranks));
  }
  if (options_.gpus_per_node < 0) {
    throw InvalidArgument(fmt::format("local world: gpus_per_node {}, expected >= 0 (0 = one node)",
                                      options_.gpus_per_node));
  }
  if (!(options_.recv_timeout_s > 0)) {
    throw InvalidArgument(
        fmt::format("local world: recv timeout {} s, expected > 0", options_.recv_timeout_s));
  }
}

LocalWorld::~LocalWorld() = default;

void LocalWorld::run(const std::function<void(Communicator&)>& fn) {
  impl_ = std::make_unique<Impl>(options_);
  const auto n = static_cast<size_t>(options_.ranks);
  const LocalRanksScope cores_per_rank(n);  // the compression pool sizes jobs by cores per rank
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  const auto rank_body = [this, &fn, &errors](int r) {
    try {
      LocalTransport transport(*impl_, r, options_.ranks, options_.pipeline_bytes);
      Communicator comm(transport);
      fn(comm);
      impl_->mark_finished(r);
    } catch (const std::exception& e) {
      errors[static_cast<size_t>(r)] = std::current_exception();
      impl_->mark_failed(r, e.what());
    } catch (...) {
      errors[static_cast<size_t>(r)] = std::current_exception();
      impl_->mark_failed(r, "unknown exception");
    }
  };
  std::exception_ptr start_failure;
  for (int r = 0; r < options_.ranks && !start_failure; ++r) {
    try {
      threads.emplace_back(rank_body, r);
    } catch (const std::exception& e) {  // std::system_error: out of threads or memory
      start_failure = std::make_exception_ptr(CommError(fmt::format(
          "local world: could not start the thread of rank {} of {}: {} (out of threads, or of "
          "memory for their stacks; use fewer ranks)",
          r, options_.ranks, e.what())));
      impl_->mark_failed(r, "its thread did not start");
    }
  }
  for (auto& t : threads) t.join();
  if (start_failure) std::rethrow_exception(start_failure);
  if (impl_->failed_rank() >= 0)
    std::rethrow_exception(errors[static_cast<size_t>(impl_->failed_rank())]);
}

void run_local(int ranks, const std::function<void(Communicator&)>& fn, int gpus_per_node) {
  LocalWorld world({.ranks = ranks, .gpus_per_node = gpus_per_node});
  world.run(fn);
}

}  // namespace compopt
