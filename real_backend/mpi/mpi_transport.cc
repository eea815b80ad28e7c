#include "real_backend/mpi/mpi_transport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "core/util/error.h"

namespace compopt::mpi {
namespace {

constexpr int kTag = 1;
constexpr size_t kPiece = size_t{1} << 30;
// The channel of a goodbye envelope (no payload): the sender's transport is gone, so a rank
// waiting for a message from it fails at once, as over TCP, instead of after op_timeout_s
// (ranks that called collectives of different sizes: one fails, the other waits).
constexpr uint64_t kGoodbyeChannel = ~uint64_t{0};
// How long a closing rank lets its goodbyes leave before freeing the communicator.
constexpr double kGoodbyeWaitS = 1.0;

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw CommError(fmt::format("mpi: {} failed: {}", what, text));
  }
}

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, MpiOptions options) : options_(options) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int* tag_ub = nullptr;
  int has_tag_ub = 0;
  check(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tag_ub, &has_tag_ub),
        "MPI_Comm_get_attr(MPI_TAG_UB)");
  if (has_tag_ub && *tag_ub < kTag) {
    throw CommError(
        fmt::format("mpi: MPI_TAG_UB is {}, below the tag {} this transport uses", *tag_ub, kTag));
  }
  // Node ids: world rank of the lowest rank sharing memory with each rank, made dense.
  MPI_Comm shared;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &shared),
        "MPI_Comm_split_type");
  int leader = rank_;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared);
  MPI_Comm_free(&shared);
  std::vector<int> leaders(static_cast<size_t>(size_));
  check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  nodes_.resize(leaders.size());
  std::map<int, int> dense;
  for (size_t r = 0; r < leaders.size(); ++r) {
    nodes_[r] = options_.gpus_per_node > 0
                    ? static_cast<int>(r) / options_.gpus_per_node
                    : dense.emplace(leaders[r], static_cast<int>(dense.size())).first->second;
  }
  goodbye_.assign(static_cast<size_t>(size_), false);
  MPI_Barrier(comm_);
  start_ = MPI_Wtime();
}

MpiTransport::~MpiTransport() {
  if (comm_ == MPI_COMM_NULL) return;
  say_goodbye();
  MPI_Comm_free(&comm_);
}

void MpiTransport::say_goodbye() {
  static const Envelope kGoodbye{kGoodbyeChannel, 0};  // outlives a send left to MPI
  std::vector<MPI_Request> requests;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    requests.emplace_back();
    MPI_Isend(&kGoodbye, sizeof(Envelope), MPI_BYTE, peer, kTag, comm_, &requests.back());
  }
  const double until = MPI_Wtime() + kGoodbyeWaitS;
  for (MPI_Request& request : requests) {
    int done = 0;
    while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done &&
           MPI_Wtime() < until)
      std::this_thread::yield();
    if (!done) MPI_Request_free(&request);
  }
}

int MpiTransport::node_of(int world_rank) const {
  check_peer(world_rank, "node_of");
  return nodes_[static_cast<size_t>(world_rank)];
}

void MpiTransport::check_peer(int rank, const char* what) const {
  if (rank < 0 || rank >= size_) {
    throw InvalidArgument(
        fmt::format("mpi {}: rank {} out of range, expected 0..{}", what, rank, size_ - 1));
  }
}

void MpiTransport::start_send(int dst, Channel channel, std::span<const std::byte> data,
                              PendingSend& pending) {
  pending.envelope = {channel, data.size()};
  pending.requests.emplace_back();
  check(MPI_Isend(&pending.envelope, sizeof(Envelope), MPI_BYTE, dst, kTag, comm_,
                  &pending.requests.back()),
        "MPI_Isend");
  for (size_t off = 0; off < data.size(); off += kPiece) {
    const size_t n = std::min(kPiece, data.size() - off);
    pending.requests.emplace_back();
    check(MPI_Isend(data.data() + off, static_cast<int>(n), MPI_BYTE, dst, kTag, comm_,
                    &pending.requests.back()),
          "MPI_Isend");
  }
}

void MpiTransport::finish_send(int dst, PendingSend& pending, double until) {
  for (;;) {
    int done = 0;
    check(MPI_Testall(static_cast<int>(pending.requests.size()), pending.requests.data(), &done,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (done) return;
    if (MPI_Wtime() > until) {
      throw CommError(fmt::format("mpi rank {}: sending to rank {} did not finish within {} s",
                                  rank_, dst, options_.op_timeout_s));
    }
    if (!drain()) std::this_thread::yield();
  }
}

void MpiTransport::receive_payload(int src, std::span<std::byte> into, double until) {
  for (size_t off = 0; off < into.size(); off += kPiece) {
    const size_t n = std::min(kPiece, into.size() - off);
    MPI_Request request;
    check(MPI_Irecv(into.data() + off, static_cast<int>(n), MPI_BYTE, src, kTag, comm_, &request),
          "MPI_Irecv");
    for (int done = 0; !done;) {
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) break;
      if (MPI_Wtime() > until) {
        MPI_Cancel(&request);
        throw CommError(fmt::format("mpi rank {}: payload from rank {} did not arrive within {} s",
                                    rank_, src, options_.op_timeout_s));
      }
      std::this_thread::yield();
    }
  }
}

bool MpiTransport::drain() {
  bool any = false;
  for (;;) {
    int flag = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kTag, comm_, &flag, &status), "MPI_Iprobe");
    if (!flag) return any;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count != static_cast<int>(sizeof(Envelope))) {
      throw CommError(fmt::format(
          "mpi rank {}: message of {} bytes from rank {} where an envelope was expected", rank_,
          count, status.MPI_SOURCE));
    }
    Envelope envelope;
    check(MPI_Recv(&envelope, sizeof(Envelope), MPI_BYTE, status.MPI_SOURCE, kTag, comm_,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (envelope.channel == kGoodbyeChannel) {
      goodbye_[static_cast<size_t>(status.MPI_SOURCE)] = true;
      any = true;
      continue;
    }
    std::vector<std::byte> payload(envelope.length);
    receive_payload(status.MPI_SOURCE, payload, deadline());
    inbox_[{status.MPI_SOURCE, envelope.channel}].push_back(std::move(payload));
    any = true;
  }
}

void MpiTransport::take(int src, Channel channel, std::span<std::byte> data) {
  auto& queue = inbox_[{src, channel}];
  const double until = deadline();
  while (queue.empty()) {
    if (goodbye_[static_cast<size_t>(src)]) {
      throw CommError(
          fmt::format("mpi rank {}: waiting for a message from rank {}, which already returned "
                      "(mismatched collectives?)",
                      rank_, src));
    }
    if (MPI_Wtime() > until) {
      throw CommError(fmt::format("mpi rank {}: no message from rank {} after {} s (channel {:#x})",
                                  rank_, src, options_.op_timeout_s, channel));
    }
    if (!drain()) std::this_thread::yield();
  }
  std::vector<std::byte> message = std::move(queue.front());
  queue.pop_front();
  if (message.size() != data.size()) {
    throw CommError(fmt::format(
        "rank {} received {} bytes from rank {} (channel {:#x}), expected {}: ranks called "
        "a collective with different sizes",
        rank_, message.size(), src, channel, data.size()));
  }
  if (!message.empty()) std::memcpy(data.data(), message.data(), message.size());
}

void MpiTransport::send(int dst, Channel channel, std::span<const std::byte> data) {
  check_peer(dst, "send");
  PendingSend pending;
  start_send(dst, channel, data, pending);
  finish_send(dst, pending, deadline());
}

void MpiTransport::recv(int src, Channel channel, std::span<std::byte> data) {
  check_peer(src, "recv");
  take(src, channel, data);
}

void MpiTransport::sendrecv(int dst, Channel send_channel, std::span<const std::byte> send_data,
                            int src, Channel recv_channel, std::span<std::byte> recv_data) {
  check_peer(dst, "sendrecv");
  check_peer(src, "sendrecv");
  PendingSend pending;
  start_send(dst, send_channel, send_data, pending);
  take(src, recv_channel, recv_data);
  finish_send(dst, pending, deadline());
}

}  // namespace compopt::mpi
