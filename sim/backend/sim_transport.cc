#include "sim/backend/sim_transport.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <simgrid/s4u.hpp>

#include "core/util/error.h"
#include "sim/flow_costs.h"

namespace compopt::sim {

namespace sg4 = simgrid::s4u;

namespace {
uint64_t rounded_bytes(double simulated) { return static_cast<uint64_t>(std::llround(simulated)); }
void delete_message(void* message) { delete static_cast<SimMessage*>(message); }
}  // namespace

SimTransport::SimTransport(SimShared& shared, int rank, WireMap wire)
    : shared_(shared),
      rank_(rank),
      wire_(std::move(wire)),
      peer_seen_(static_cast<size_t>(shared.size()), 0) {}

SimTransport& SimTransport::of(Communicator& comm) {
  auto* sim = dynamic_cast<SimTransport*>(&comm.transport());
  if (sim == nullptr) {
    throw InvalidArgument("this communicator does not run on the Sim backend (expected run_sim)");
  }
  return *sim;
}

int SimTransport::node_of(int world_rank) const {
  return shared_.node_of_rank.at(static_cast<size_t>(world_rank));
}

std::pair<SimMessage*, uint64_t> SimTransport::post(int dst, Channel channel,
                                                    std::span<const std::byte> data) {
  auto* message = new SimMessage{rank_, channel, {data.begin(), data.end()}, false};
  ++shared_.pending(rank_, dst);
  const uint64_t bytes = rounded_bytes(wire_.simulated_bytes(data.size()));
  wire_bytes_sent_ += static_cast<double>(bytes);
  if (node_of(dst) != node_of(rank_)) wire_inter_node_bytes_ += static_cast<double>(bytes);
  return {message, bytes};
}

sg4::CommPtr SimTransport::start_comm(int dst, SimMessage* message, uint64_t bytes) {
  const net::TransportProfile& profile =
      transport_between(*shared_.cluster, node_of(dst) != node_of(rank_));
  char& seen = peer_seen_[static_cast<size_t>(dst)];
  const double overhead = send_overhead_s(profile, 1, seen ? 0 : 1);
  seen = 1;
  if (overhead > 0) sg4::this_actor::sleep_for(overhead);
  sg4::CommPtr comm = shared_.mailbox[static_cast<size_t>(dst)]->put_init(message, bytes);
  if (const double cap = flow_rate_cap(profile); cap > 0) comm->set_rate(cap);
  return comm;
}

void SimTransport::send(int dst, Channel channel, std::span<const std::byte> data) {
  const auto [message, bytes] = post(dst, channel, data);
  start_comm(dst, message, bytes)->detach(delete_message);
}

std::unique_ptr<SimMessage> SimTransport::take(int src, Channel channel) {
  const auto key = std::make_pair(src, channel);
  while (true) {
    if (auto it = early_.find(key); it != early_.end() && !it->second.empty()) {
      std::unique_ptr<SimMessage> message = std::move(it->second.front());
      it->second.pop_front();
      return message;
    }
    if (shared_.finished[static_cast<size_t>(src)] && shared_.pending(src, rank_) == 0) {
      throw CommError(fmt::format(
          "rank {}: waiting for a message from rank {}, which already returned (mismatched "
          "collectives?)",
          rank_, src));
    }
    shared_.waiting_on[static_cast<size_t>(rank_)] = src;
    std::unique_ptr<SimMessage> message(
        shared_.mailbox[static_cast<size_t>(rank_)]->get<SimMessage>());
    shared_.untaken.erase(message.get());
    shared_.waiting_on[static_cast<size_t>(rank_)] = -1;
    if (message->peer_returned) continue;
    --shared_.pending(message->src, rank_);
    if (message->src == src && message->channel == channel) return message;
    early_[{message->src, message->channel}].push_back(std::move(message));
  }
}

void SimTransport::recv(int src, Channel channel, std::span<std::byte> data) {
  const std::unique_ptr<SimMessage> message = take(src, channel);
  if (message->data.size() != data.size()) {
    throw CommError(fmt::format(
        "rank {} received {} bytes from rank {} (channel {:#x}), expected {}: ranks called a "
        "collective with different sizes",
        rank_, message->data.size(), src, channel, data.size()));
  }
  if (!data.empty()) std::memcpy(data.data(), message->data.data(), data.size());
}

void SimTransport::sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data,
                            int src, Channel recv_channel, std::span<std::byte> recv_data) {
  const auto [message, bytes] = post(dst, send_channel, send_data);
  shared_.untaken.insert(message);
  sg4::CommPtr sending = start_comm(dst, message, bytes);
  sending->start();
  recv(src, recv_channel, recv_data);
  sending->wait();
}

double SimTransport::now() const { return sg4::Engine::get_clock() - shared_.start_clock; }

void SimTransport::advance(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) {
    throw InvalidArgument(
        fmt::format("advance({}): expected a finite number of seconds >= 0", seconds));
  }
  if (seconds > 0) sg4::this_actor::sleep_for(seconds);
}

void SimTransport::sync() { shared_.sync->wait(); }

void SimTransport::mark_returned() {
  shared_.finished[static_cast<size_t>(rank_)] = 1;
  for (int k = 0; k < shared_.size(); ++k) {
    if (shared_.waiting_on[static_cast<size_t>(k)] != rank_) continue;
    auto* note = new SimMessage{rank_, 0, {}, true};
    shared_.mailbox[static_cast<size_t>(k)]->put_init(note, 0)->detach(delete_message);
  }
}

}  // namespace compopt::sim
