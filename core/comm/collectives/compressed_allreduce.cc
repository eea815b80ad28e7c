#include "core/comm/collectives/compressed_allreduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/util/error.h"

namespace compopt {

size_t compressed_padded_length(size_t d, int n) {
  const size_t quantum = 8 * static_cast<size_t>(n);
  return (d + quantum - 1) / quantum * quantum;
}

CompressedAllreduceState::CompressedAllreduceState(size_t d, int n)
    : worker(compressed_padded_length(d, n)), server(compressed_padded_length(d, n) / static_cast<size_t>(n)) {}

namespace {

void check_state(const CompressedAllreduceState& state, size_t d, int n) {
  const size_t padded = compressed_padded_length(d, n);
  if (state.worker.size() != padded || state.server.size() != padded / static_cast<size_t>(n)) {
    throw InvalidArgument(fmt::format(
        "compressed allreduce: error-feedback state holds {} worker / {} server elements, expected {} / {} "
        "for {} elements on {} ranks",
        state.worker.size(), state.server.size(), padded, padded / static_cast<size_t>(n), d, n));
  }
}

// Message layout: [scale as 4 bytes, if the compressor has one][payload].
float read_scale(const Compressor& compressor, std::span<const std::byte> message) {
  float scale = 1.0f;
  if (compressor.has_scale()) std::memcpy(&scale, message.data(), sizeof scale);
  return scale;
}

std::span<const std::byte> payload_of(const Compressor& compressor, std::span<const std::byte> message) {
  return message.subspan(compressor.has_scale() ? sizeof(float) : 0);
}

}  // namespace

std::vector<std::byte> compressed_allreduce_messages(Communicator& comm, std::span<const float> data,
                                                     const Compressor& compressor,
                                                     CompressedAllreduceState& state, RandomKey key) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<size_t>(n);
  check_state(state, data.size(), n);
  const size_t padded = state.worker.size(), chunk = padded / un;
  const size_t chunk_payload = compressor.payload_bytes(chunk);
  key.rank = static_cast<uint32_t>(comm.world_rank_of(r));
  const uint64_t base_offset = key.index_offset;

  // 1. Worker: y = pad(x) + e_w, one scale for the whole padded vector.
  std::vector<float> y(padded, 0.0f), decoded(padded);
  std::copy(data.begin(), data.end(), y.begin());
  state.worker.compensate(y, y);
  std::vector<std::byte> worker_payload(un * chunk_payload);
  key.stream = 0;
  const float worker_scale = compressor.encode(y, worker_payload, key);
  compressor.decode(worker_scale, worker_payload, decoded);
  state.worker.update(y, decoded);

  // 2. Exchange bit-chunks and worker scales.
  std::vector<std::byte> received(worker_payload.size());
  comm.alltoall(worker_payload, received);
  std::vector<float> scales(un, 1.0f);
  if (compressor.has_scale()) {
    comm.allgather(std::as_bytes(std::span(&worker_scale, 1)), std::as_writable_bytes(std::span(scales)));
  }

  // 3. Server: average the n decoded chunks in rank order, add server error, re-encode.
  std::vector<float> z(chunk, 0.0f), piece(chunk);
  for (size_t i = 0; i < un; ++i) {
    compressor.decode(scales[i], std::span(received).subspan(i * chunk_payload, chunk_payload), piece);
    for (size_t k = 0; k < chunk; ++k) z[k] += piece[k];
  }
  const auto divisor = static_cast<float>(n);
  for (float& v : z) v /= divisor;
  state.server.compensate(z, z);
  const size_t message_bytes = compressor.wire_bytes(chunk);
  std::vector<std::byte> message(message_bytes);
  const size_t header = message_bytes - chunk_payload;
  key.stream = 1;
  key.index_offset = base_offset + static_cast<uint64_t>(r) * chunk;
  const float server_scale = compressor.encode(z, std::span(message).subspan(header), key);
  if (header > 0) std::memcpy(message.data(), &server_scale, sizeof server_scale);
  compressor.decode(server_scale, std::span(message).subspan(header), piece);
  state.server.update(z, piece);

  // 4. All-gather the server messages.
  std::vector<std::byte> all(un * message_bytes);
  comm.allgather(message, all);
  return all;
}

void decode_server_messages(std::span<const std::byte> messages, size_t count, size_t chunk_len,
                            const Compressor& compressor, std::span<float> out) {
  const size_t message_bytes = compressor.wire_bytes(chunk_len);
  if (messages.size() != count * message_bytes || out.size() > count * chunk_len) {
    throw InvalidArgument(fmt::format(
        "decode_server_messages: {} bytes for {} messages of {} elements ({} bytes each) into {} outputs",
        messages.size(), count, chunk_len, message_bytes, out.size()));
  }
  std::vector<float> piece(chunk_len);
  for (size_t j = 0; j < count && j * chunk_len < out.size(); ++j) {
    const auto message = messages.subspan(j * message_bytes, message_bytes);
    compressor.decode(read_scale(compressor, message), payload_of(compressor, message), piece);
    const size_t take = std::min(chunk_len, out.size() - j * chunk_len);
    std::copy_n(piece.begin(), take, out.begin() + static_cast<std::ptrdiff_t>(j * chunk_len));
  }
}

void compressed_allreduce_mean(Communicator& comm, std::span<float> data, const Compressor& compressor,
                               CompressedAllreduceState& state, RandomKey key) {
  TrafficCounters::Scope scope(comm.traffic(), "compressed_allreduce");
  const auto messages = compressed_allreduce_messages(comm, data, compressor, state, key);
  const size_t chunk = state.server.size();
  decode_server_messages(messages, static_cast<size_t>(comm.size()), chunk, compressor, data);
}

}  // namespace compopt
