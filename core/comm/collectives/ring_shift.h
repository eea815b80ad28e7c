#pragma once
// One step of a ring collective: send `out` to `next` while receiving `in` from
// `prev`, both cut into pieces of `piece_bytes` (the last one may be shorter;
// 0 sends each range whole). The send runs one piece ahead of the receive: on a
// backend whose sends return once the bytes are queued (TCP), piece k+1 is on the
// wire while the caller handles piece k, so the link does not idle for the
// caller's per-step work (checksum, copy, reduction) the way whole-block steps do.
//
// Both ends cut a range by its size alone, so pieces pair up when the receiver's
// `in` has the size of the sender's `out`. Relies on the Transport contract that
// send() never waits for the receiver's recv(): it cannot deadlock.

#include <cstddef>
#include <functional>
#include <span>

#include "core/comm/communicator.h"

namespace compopt {

// (offset, size) in bytes of one piece of a ring step's range.
using RingPieceFn = std::function<void(size_t offset, size_t size)>;

// Largest piece of at most `pipeline_bytes` that holds whole elements of
// `element_bytes`; 0 (no pipelining) stays 0.
size_t ring_piece_bytes(size_t pipeline_bytes, size_t element_bytes);

// Number of pieces (messages) ring_shift cuts `bytes` into: an empty range is one
// empty piece.
size_t ring_piece_count(size_t bytes, size_t piece_bytes);

// `before_send(offset, size)` runs before each piece of `out` is sent (to encode it
// into `out`); `received(offset, size)` after each piece of `in` arrived. Either may
// be empty. `out` must stay unchanged by `received`.
void ring_shift(Communicator& comm, int next, std::span<const std::byte> out, int prev,
                std::span<std::byte> in, size_t piece_bytes, Communicator::InternalTag tag,
                const RingPieceFn& before_send, const RingPieceFn& received);

}  // namespace compopt
