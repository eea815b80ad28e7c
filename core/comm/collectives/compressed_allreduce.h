#pragma once
// The 3-phase compressed allreduce of [1BA] §6 (docs/algorithms.md), with worker and server
// error feedback, for any Compressor (sign for 1-bit Adam/LAMB, binary for Birder).
//
//  1. worker: y = pad(x) + e_w; encode all of y with one scale; e_w = y - decode.
//  2. all-to-all of the n bit-chunks; all-gather of the n worker scales.
//  3. server (rank j owns chunk j): z = (sum_i decode_i(chunk j)) / n + e_s;
//     msg_j = encode(z); e_s = z - decode(msg_j).
//  4. all-gather of the server messages; every rank decodes the average.
//
// The vector is zero-padded to a multiple of 8n elements (compressed_padded_length);
// the padded tail takes part in error feedback like any element (as in
// DeepSpeed) but never leaves this function. Stochastic compressors draw from
// RandomKey{seed, step, world rank, stream 0 (worker) / 1 (server), global index}.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/comm/communicator.h"
#include "core/compress/compressor.h"
#include "core/compress/error_feedback.h"
#include "core/compress/random_key.h"

namespace compopt {

// Smallest multiple of 8n that is >= d.
size_t compressed_padded_length(size_t d, int n);

// Worker EF (padded length) and server EF (padded length / n) of one vector.
struct CompressedAllreduceState {
  ErrorFeedback worker;
  ErrorFeedback server;

  CompressedAllreduceState() = default;
  CompressedAllreduceState(size_t d, int n);
};

// Replaces data (length d, identical d on every rank) by the compressed average.
// `key` carries the seed and step; rank, stream and offset are set here.
// Throws InvalidArgument when state was sized for another (d, n).
void compressed_allreduce_mean(Communicator& comm, std::span<float> data,
                               const Compressor& compressor, CompressedAllreduceState& state,
                               RandomKey key);

// Phases 1-3 and the all-gather of phase 4, without the final decode: returns the
// n server messages, message j = [scale (if any)][payload of chunk j], each
// compressor.wire_bytes(padded / n) bytes. Used by the hierarchical scheme.
std::vector<std::byte> compressed_allreduce_messages(Communicator& comm,
                                                     std::span<const float> data,
                                                     const Compressor& compressor,
                                                     CompressedAllreduceState& state,
                                                     RandomKey key);

// Decodes `count` consecutive server messages of chunk_len elements each into out
// (out.size() <= count * chunk_len; the tail beyond out is dropped).
void decode_server_messages(std::span<const std::byte> messages, size_t count, size_t chunk_len,
                            const Compressor& compressor, std::span<float> out);

}  // namespace compopt
