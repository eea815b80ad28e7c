#pragma once
// Communicator: a group of ranks over a Transport, the only thing optimizers see.
// Ranks here are group ranks (0..size()-1); the world communicator of a transport
// has every world rank, split() makes sub-groups with MPI semantics.
//
// Collectives are implemented once in core/comm/collectives/ on top of send/recv;
// a backend may subclass and override one with a native call that gives
// identical results. The compressed allreduces (flat and hierarchical) are
// collectives too: optimizers call them through this class, so a backend with
// GPU kernels (real_backend/hybrid, real_backend/nccl) runs its version in
// production code. All ranks of the group must call a collective in the same
// order with matching sizes; mismatches raise CommError or InvalidArgument.
// Not thread-safe: each rank drives its own Communicator from one thread.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/comm/phase_log.h"
#include "core/comm/reduce_op.h"
#include "core/comm/traffic.h"
#include "core/comm/transport.h"
#include "core/compress/random_key.h"

namespace compopt {

class Compressor;
struct CompressedAllreduceState;
struct HierarchicalGroups;

// Runs on a rank's shard inside the hierarchical compressed allreduce (see
// collectives/hierarchical_allreduce.h); `offset` is the shard's first element.
using ShardTransform = std::function<void(std::span<float> shard, size_t offset)>;

class Communicator {
 public:
  static constexpr int kUndefinedColor = -1;  // split(): this rank joins no group
  static constexpr int kMaxUserTag = (1 << 30) - 1;

  // The world group of `transport` (which must outlive it and its splits).
  explicit Communicator(Transport& transport);
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(members_.size()); }
  int world_rank_of(int rank) const;
  int node_of(int rank) const { return transport_.node_of(world_rank_of(rank)); }
  int node() const { return node_of(rank_); }
  // Number of distinct nodes hosting this group's ranks.
  int num_nodes() const { return num_nodes_; }

  // Point-to-point on user tags 0..kMaxUserTag. Sizes must match exactly.
  void send(int dst, int tag, std::span<const std::byte> data);
  void recv(int src, int tag, std::span<std::byte> data);
  void sendrecv(int dst, std::span<const std::byte> send_data, int src,
                std::span<std::byte> recv_data, int tag);

  // In place over data; every rank ends bit-identical.
  virtual void allreduce(std::span<float> data, ReduceOp op = ReduceOp::kSum,
                         WirePrecision precision = WirePrecision::kFp32);
  // in.size() == size() * out.size(); rank r receives the reduced block r.
  virtual void reduce_scatter(std::span<const float> in, std::span<float> out,
                              ReduceOp op = ReduceOp::kSum);
  // all.size() == size() * mine.size(); block r of `all` is rank r's `mine`.
  virtual void allgather(std::span<const std::byte> mine, std::span<std::byte> all);
  // Equal blocks: block j of send_data goes to rank j, block i of recv_data comes from rank i.
  virtual void alltoall(std::span<const std::byte> send_data, std::span<std::byte> recv_data);
  virtual void broadcast(std::span<std::byte> data, int root);
  virtual void barrier();

  // data := the compressed mean over this group, with error feedback in `state`
  // (contract of collectives/compressed_allreduce.h). Default: the CPU algorithm;
  // overrides must give bit-identical results, state and traffic.
  virtual void compressed_allreduce(std::span<float> data, const Compressor& compressor,
                                    CompressedAllreduceState& state, RandomKey key);
  // data := the hierarchical compressed mean over every rank of `groups`, which were
  // split from this communicator (contract of collectives/hierarchical_allreduce.h).
  virtual void hierarchical_compressed_allreduce(HierarchicalGroups& groups, std::span<float> data,
                                                 const Compressor& compressor,
                                                 CompressedAllreduceState& state, RandomKey key,
                                                 const ShardTransform& transform = {});

  // Collective over this group. Ranks passing the same color >= 0 form a new
  // group ordered by (key, rank); kUndefinedColor returns nullptr.
  virtual std::unique_ptr<Communicator> split(int color, int key);

  double now() const { return transport_.now(); }
  void advance(double seconds) { transport_.advance(seconds); }
  TrafficCounters& traffic() { return rank_state_->traffic; }
  const TrafficCounters& traffic() const { return rank_state_->traffic; }
  Transport& transport() { return transport_; }
  // Where this rank's collectives record their phases (phase_log.h); nullptr (the
  // default): not recorded. Shared by all communicators of this rank.
  PhaseLog* phase_log() const { return rank_state_->phase_log; }
  void set_phase_log(PhaseLog* log) { rank_state_->phase_log = log; }

  // Internal channel for collectives: tags above kMaxUserTag, one per algorithm.
  enum class InternalTag : uint32_t {
    kReduceScatter = (1u << 30),
    kAllgather,
    kAlltoall,
    kBroadcast,
    kBarrier,
    kSplit,
    kCompressed,
    kHierarchical
  };
  void send(int dst, InternalTag tag, std::span<const std::byte> data);
  void recv(int src, InternalTag tag, std::span<std::byte> data);
  void sendrecv(int dst, std::span<const std::byte> send_data, int src,
                std::span<std::byte> recv_data, InternalTag tag);

 protected:
  // State shared by all communicators of one world rank.
  struct RankState {
    TrafficCounters traffic;
    uint32_t next_context = 1;  // lowest context id this rank has not seen
    PhaseLog* phase_log = nullptr;
  };
  Communicator(Transport& transport, std::vector<int> members, uint32_t context,
               std::shared_ptr<RankState> rank_state);

  // The bookkeeping of split(), shared by every backend: exchanges every rank's (color, key,
  // next free context) with allgather(), validates it identically on every rank (so a bad color
  // fails everywhere instead of hanging the others) and advances `next_context` past the new
  // groups. `members` (world ranks ordered by (key, rank)) is empty for kUndefinedColor.
  struct SplitPlan {
    std::vector<int> members;
    uint32_t context = 0;
  };
  SplitPlan plan_split(int color, int key, uint32_t& next_context);

 private:
  Channel channel(uint32_t tag) const { return (static_cast<Channel>(context_) << 32) | tag; }
  int checked_peer(int rank, const char* what) const;
  void do_send(int dst, uint32_t tag, std::span<const std::byte> data);
  void do_recv(int src, uint32_t tag, std::span<std::byte> data);
  void do_sendrecv(int dst, std::span<const std::byte> send_data, int src,
                   std::span<std::byte> recv_data, uint32_t tag);

  Transport& transport_;
  std::vector<int> members_;  // world rank of each group rank
  int rank_ = 0;
  int num_nodes_ = 1;
  uint32_t context_ = 0;
  std::shared_ptr<RankState> rank_state_;
};

// Byte views of float spans, for the byte-level collectives.
inline std::span<const std::byte> as_bytes(std::span<const float> x) { return std::as_bytes(x); }
inline std::span<std::byte> as_writable_bytes(std::span<float> x) {
  return std::as_writable_bytes(x);
}

}  // namespace compopt
