#include "core/comm/collectives/compressed_allreduce.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/comm/compression_clock.h"
#include "core/comm/phase_log.h"
#include "core/compress/feedback_encode.h"
#include "core/util/error.h"

namespace compopt {

size_t compressed_padded_length(size_t d, int n) {
  const size_t quantum = 8 * static_cast<size_t>(n);
  return (d + quantum - 1) / quantum * quantum;
}

CompressedAllreduceState::CompressedAllreduceState(size_t d, int n)
    : worker(compressed_padded_length(d, n)),
      server(compressed_padded_length(d, n) / static_cast<size_t>(n)) {}

namespace {

void check_state(const CompressedAllreduceState& state, size_t d, int n) {
  const size_t padded = compressed_padded_length(d, n);
  if (state.worker.size() != padded || state.server.size() != padded / static_cast<size_t>(n)) {
    throw InvalidArgument(fmt::format(
        "compressed allreduce: error-feedback state holds {} worker / {} server elements, expected "
        "{} / {} "
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

std::span<const std::byte> payload_of(const Compressor& compressor,
                                      std::span<const std::byte> message) {
  return message.subspan(compressor.has_scale() ? sizeof(float) : 0);
}

}  // namespace

std::vector<std::byte> compressed_allreduce_messages(Communicator& comm,
                                                     std::span<const float> data,
                                                     const Compressor& compressor,
                                                     CompressedAllreduceState& state,
                                                     RandomKey key) {
  if (!compressor.chunkable()) {
    throw InvalidArgument(compressor.name() +
                          " cannot be cut into the chunks of the compressed allreduce; expected "
                          "a compressor with fixed-width fields per element");
  }
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<size_t>(n);
  check_state(state, data.size(), n);
  const size_t padded = state.worker.size(), chunk = padded / un;
  const size_t chunk_payload = compressor.payload_bytes(chunk);
  key.rank = static_cast<uint32_t>(comm.world_rank_of(r));
  const uint64_t base_offset = key.index_offset;

  // 1. Worker: y = pad(x) + e_w, one scale for the whole padded vector; e_w = y - decode.
  std::vector<std::byte> worker_payload(un * chunk_payload);
  key.stream = 0;
  float worker_scale = 1.0f;
  {
    const CompressionScope timed;
    worker_scale = encode_with_feedback(compressor, state.worker, data, worker_payload, key);
  }

  // 2. Exchange bit-chunks and worker scales.
  std::vector<std::byte> received(worker_payload.size());
  {
    const PhaseScope phase(comm, "all-to-all");
    comm.alltoall(worker_payload, received);
  }
  std::vector<float> scales(un, 1.0f);
  if (compressor.has_scale()) {
    const PhaseScope phase(comm, "all-gather scales");
    comm.allgather(std::as_bytes(std::span(&worker_scale, 1)),
                   std::as_writable_bytes(std::span(scales)));
  }

  // 3. Server: average the n decoded chunks in rank order, add server error, re-encode.
  const size_t message_bytes = compressor.wire_bytes(chunk);
  std::vector<std::byte> message(message_bytes);
  const size_t header = message_bytes - chunk_payload;
  key.stream = 1;
  key.index_offset = base_offset + static_cast<uint64_t>(r) * chunk;
  {
    const CompressionScope timed;
    const float server_scale = average_encode_with_feedback(
        compressor, scales, received, state.server, std::span(message).subspan(header), key);
    if (header > 0) std::memcpy(message.data(), &server_scale, sizeof server_scale);
  }

  // 4. All-gather the server messages.
  std::vector<std::byte> all(un * message_bytes);
  const PhaseScope phase(comm, "all-gather");
  comm.allgather(message, all);
  return all;
}

void decode_server_messages(std::span<const std::byte> messages, size_t count, size_t chunk_len,
                            const Compressor& compressor, std::span<float> out) {
  // Every compressor spends at least one bit per element, so a chunk_len above 8 bits per byte
  // given cannot fit (and could overflow payload_bytes): refused before any size arithmetic.
  const bool chunk_fits = count == 0 || chunk_len / 8 <= messages.size();
  const size_t message_bytes = chunk_fits ? compressor.wire_bytes(chunk_len) : 0;
  size_t total_bytes = 0, total_elements = 0;
  if (!chunk_fits || __builtin_mul_overflow(count, message_bytes, &total_bytes) ||
      __builtin_mul_overflow(count, chunk_len, &total_elements) || messages.size() != total_bytes ||
      out.size() > total_elements) {
    throw InvalidArgument(
        fmt::format("decode_server_messages: {} bytes for {} messages of {} elements ({} bytes "
                    "each) into {} outputs",
                    messages.size(), count, chunk_len, message_bytes, out.size()));
  }
  const CompressionScope timed;
  std::vector<float> piece;  // only for a message that out cuts short
  for (size_t j = 0; j < count && j * chunk_len < out.size(); ++j) {
    const auto message = messages.subspan(j * message_bytes, message_bytes);
    const size_t take = std::min(chunk_len, out.size() - j * chunk_len);
    if (take == chunk_len) {
      compressor.decode(read_scale(compressor, message), payload_of(compressor, message),
                        out.subspan(j * chunk_len, chunk_len));
      continue;
    }
    piece.resize(chunk_len);
    compressor.decode(read_scale(compressor, message), payload_of(compressor, message), piece);
    std::copy_n(piece.begin(), take, out.begin() + static_cast<std::ptrdiff_t>(j * chunk_len));
  }
}

void compressed_allreduce_mean(Communicator& comm, std::span<float> data,
                               const Compressor& compressor, CompressedAllreduceState& state,
                               RandomKey key) {
  TrafficCounters::Scope scope(comm.traffic(), "compressed_allreduce");
  const auto messages = compressed_allreduce_messages(comm, data, compressor, state, key);
  const size_t chunk = state.server.size();
  decode_server_messages(messages, static_cast<size_t>(comm.size()), chunk, compressor, data);
}

}  // namespace compopt
