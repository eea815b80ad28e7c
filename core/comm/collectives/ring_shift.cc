#include "core/comm/collectives/ring_shift.h"

#include <algorithm>

namespace compopt {

size_t ring_piece_bytes(size_t pipeline_bytes, size_t element_bytes) {
  if (pipeline_bytes == 0) return 0;
  return std::max(element_bytes, pipeline_bytes / element_bytes * element_bytes);
}

size_t ring_piece_count(size_t bytes, size_t piece_bytes) {
  if (bytes == 0 || piece_bytes == 0) return 1;
  return (bytes + piece_bytes - 1) / piece_bytes;
}

void ring_shift(Communicator& comm, int next, std::span<const std::byte> out, int prev,
                std::span<std::byte> in, size_t piece_bytes, Communicator::InternalTag tag,
                const RingPieceFn& before_send, const RingPieceFn& received) {
  const size_t out_pieces = ring_piece_count(out.size(), piece_bytes);
  const size_t in_pieces = ring_piece_count(in.size(), piece_bytes);
  const size_t step = piece_bytes == 0 ? std::max({out.size(), in.size(), size_t{1}}) : piece_bytes;
  // Piece k of a range: [k * step, min((k + 1) * step, size)).
  auto cut = [step](auto range, size_t k) {
    const size_t offset = k * step;
    return range.subspan(offset, std::min(step, range.size() - offset));
  };
  auto out_piece = [&](size_t k) {
    const auto piece = cut(out, k);
    if (before_send) before_send(k * step, piece.size());
    return piece;
  };
  auto finish = [&](size_t k) {
    if (received) received(k * step, cut(in, k).size());
  };
  if (out_pieces == 1 && in_pieces == 1) {  // nothing to overlap: one exchange, as unpipelined
    comm.sendrecv(next, out_piece(0), prev, cut(in, 0), tag);
    finish(0);
    return;
  }
  size_t sent = 0;
  comm.send(next, tag, out_piece(sent++));
  for (size_t k = 0; k < in_pieces; ++k) {
    if (sent < out_pieces) {
      comm.sendrecv(next, out_piece(sent++), prev, cut(in, k), tag);
    } else {
      comm.recv(prev, tag, cut(in, k));
    }
    finish(k);
  }
  while (sent < out_pieces) comm.send(next, tag, out_piece(sent++));
}

}  // namespace compopt
