#include "core/comm/communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "core/comm/collectives/allgather.h"
#include "core/comm/collectives/alltoall.h"
#include "core/comm/collectives/barrier.h"
#include "core/comm/collectives/broadcast.h"
#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/collectives/reduce_scatter.h"
#include "core/comm/collectives/ring_allreduce.h"
#include "core/util/error.h"

namespace compopt {

namespace {
std::vector<int> iota_ranks(int n) {
  std::vector<int> ranks(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<size_t>(i)] = i;
  return ranks;
}
}  // namespace

Communicator::Communicator(Transport& transport)
    : Communicator(transport, iota_ranks(transport.world_size()), 0,
                   std::make_shared<RankState>()) {}

Communicator::Communicator(Transport& transport, std::vector<int> members, uint32_t context,
                           std::shared_ptr<RankState> rank_state)
    : transport_(transport),
      members_(std::move(members)),
      context_(context),
      rank_state_(std::move(rank_state)) {
  const auto me = std::find(members_.begin(), members_.end(), transport_.world_rank());
  if (me == members_.end()) {
    throw InvalidArgument(fmt::format("communicator: world rank {} is not a member of the group",
                                      transport_.world_rank()));
  }
  rank_ = static_cast<int>(me - members_.begin());
  std::set<int> nodes;
  for (int world : members_) nodes.insert(transport_.node_of(world));
  num_nodes_ = static_cast<int>(nodes.size());
}

int Communicator::world_rank_of(int rank) const {
  return members_[static_cast<size_t>(checked_peer(rank, "world_rank_of"))];
}

int Communicator::checked_peer(int rank, const char* what) const {
  if (rank < 0 || rank >= size()) {
    throw InvalidArgument(
        fmt::format("{}: rank {} out of range, expected 0..{}", what, rank, size() - 1));
  }
  return rank;
}

namespace {
uint32_t checked_user_tag(int tag) {
  if (tag < 0 || tag > Communicator::kMaxUserTag) {
    throw InvalidArgument(
        fmt::format("tag {} out of range, expected 0..{}", tag, Communicator::kMaxUserTag));
  }
  return static_cast<uint32_t>(tag);
}
}  // namespace

void Communicator::do_send(int dst, uint32_t tag, std::span<const std::byte> data) {
  checked_peer(dst, "send");
  traffic().record(data.size(), node_of(dst) != node());
  transport_.send(world_rank_of(dst), channel(tag), data);
}

void Communicator::do_recv(int src, uint32_t tag, std::span<std::byte> data) {
  checked_peer(src, "recv");
  transport_.recv(world_rank_of(src), channel(tag), data);
}

void Communicator::do_sendrecv(int dst, std::span<const std::byte> send_data, int src,
                               std::span<std::byte> recv_data, uint32_t tag) {
  checked_peer(dst, "sendrecv");
  checked_peer(src, "sendrecv");
  traffic().record(send_data.size(), node_of(dst) != node());
  transport_.sendrecv(world_rank_of(dst), channel(tag), send_data, world_rank_of(src), channel(tag),
                      recv_data);
}

void Communicator::send(int dst, int tag, std::span<const std::byte> data) {
  do_send(dst, checked_user_tag(tag), data);
}
void Communicator::recv(int src, int tag, std::span<std::byte> data) {
  do_recv(src, checked_user_tag(tag), data);
}
void Communicator::sendrecv(int dst, std::span<const std::byte> send_data, int src,
                            std::span<std::byte> recv_data, int tag) {
  do_sendrecv(dst, send_data, src, recv_data, checked_user_tag(tag));
}
void Communicator::send(int dst, InternalTag tag, std::span<const std::byte> data) {
  do_send(dst, static_cast<uint32_t>(tag), data);
}
void Communicator::recv(int src, InternalTag tag, std::span<std::byte> data) {
  do_recv(src, static_cast<uint32_t>(tag), data);
}
void Communicator::sendrecv(int dst, std::span<const std::byte> send_data, int src,
                            std::span<std::byte> recv_data, InternalTag tag) {
  do_sendrecv(dst, send_data, src, recv_data, static_cast<uint32_t>(tag));
}

void Communicator::allreduce(std::span<float> data, ReduceOp op, WirePrecision precision) {
  TrafficCounters::Scope scope(traffic(), "allreduce");
  ring_allreduce(*this, data, op, precision);
}

void Communicator::reduce_scatter(std::span<const float> in, std::span<float> out, ReduceOp op) {
  TrafficCounters::Scope scope(traffic(), "reduce_scatter");
  ring_reduce_scatter(*this, in, out, op);
}

void Communicator::allgather(std::span<const std::byte> mine, std::span<std::byte> all) {
  TrafficCounters::Scope scope(traffic(), "allgather");
  ring_allgather(*this, mine, all);
}

void Communicator::alltoall(std::span<const std::byte> send_data, std::span<std::byte> recv_data) {
  TrafficCounters::Scope scope(traffic(), "alltoall");
  pairwise_alltoall(*this, send_data, recv_data);
}

void Communicator::broadcast(std::span<std::byte> data, int root) {
  TrafficCounters::Scope scope(traffic(), "broadcast");
  binomial_broadcast(*this, data, root);
}

void Communicator::barrier() {
  TrafficCounters::Scope scope(traffic(), "barrier");
  dissemination_barrier(*this);
}

void Communicator::compressed_allreduce(std::span<float> data, const Compressor& compressor,
                                        CompressedAllreduceState& state, RandomKey key) {
  compressed_allreduce_mean(*this, data, compressor, state, key);
}

void Communicator::hierarchical_compressed_allreduce(HierarchicalGroups& groups,
                                                     std::span<float> data,
                                                     const Compressor& compressor,
                                                     CompressedAllreduceState& state, RandomKey key,
                                                     const ShardTransform& transform) {
  hierarchical_compressed_allreduce_mean(groups, data, compressor, state, key, transform);
}

Communicator::SplitPlan Communicator::plan_split(int color, int key, uint32_t& next_context) {
  using Entry = std::array<int64_t, 3>;
  const Entry mine = {color, key, next_context};
  std::vector<Entry> all(static_cast<size_t>(size()));
  allgather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(all)));

  std::set<int64_t> colors;
  int64_t base_context = 0;
  for (int r = 0; r < size(); ++r) {
    const Entry& e = all[static_cast<size_t>(r)];
    if (e[0] < kUndefinedColor) {
      throw InvalidArgument(fmt::format(
          "split: rank {} passed color {}, expected a color >= 0 or kUndefinedColor ({})", r, e[0],
          kUndefinedColor));
    }
    if (e[0] != kUndefinedColor) colors.insert(e[0]);
    base_context = std::max(base_context, e[2]);
  }
  const int64_t next = base_context + static_cast<int64_t>(colors.size());
  if (next > static_cast<int64_t>(UINT32_MAX))
    throw CommError("split: communicator context ids exhausted");
  next_context = static_cast<uint32_t>(next);
  if (color == kUndefinedColor) return {};

  std::vector<std::pair<int64_t, int>> order;  // (key, parent rank) of my color
  for (int r = 0; r < size(); ++r) {
    if (all[static_cast<size_t>(r)][0] == color)
      order.emplace_back(all[static_cast<size_t>(r)][1], r);
  }
  std::sort(order.begin(), order.end());
  SplitPlan plan;
  plan.members.reserve(order.size());
  for (const auto& [k, r] : order) plan.members.push_back(world_rank_of(r));
  const auto color_index = std::distance(colors.begin(), colors.find(color));
  plan.context = static_cast<uint32_t>(base_context + color_index);
  return plan;
}

std::unique_ptr<Communicator> Communicator::split(int color, int key) {
  TrafficCounters::Scope scope(traffic(), "split");
  SplitPlan plan = plan_split(color, key, rank_state_->next_context);
  if (color == kUndefinedColor) return nullptr;
  return std::unique_ptr<Communicator>(
      new Communicator(transport_, std::move(plan.members), plan.context, rank_state_));
}

}  // namespace compopt
