#include "core/comm/collectives/ring_allreduce.h"

#include <memory>
#include <vector>

#include "core/comm/collectives/block_partition.h"
#include "core/comm/collectives/ring_shift.h"
#include "core/comm/phase_log.h"
#include "core/compress/compressor.h"

namespace compopt {

namespace {

// Values on the wire: raw fp32 bytes, or fp16 through the fp16 compressor.
// Element-wise, so any piece of a block encodes to the same bytes as that piece
// of the whole block's encoding.
class WireCodec {
 public:
  explicit WireCodec(WirePrecision precision)
      : fp16_(precision == WirePrecision::kFp16 ? make_compressor("fp16") : nullptr) {}

  // fp32 travels as the values' own bytes: no encode, no decode, no staging copy.
  bool is_raw() const { return fp16_ == nullptr; }
  size_t element_bytes() const { return bytes(1); }
  size_t bytes(size_t k) const { return fp16_ ? fp16_->wire_bytes(k) : k * sizeof(float); }
  size_t elements(size_t wire_bytes) const { return wire_bytes / element_bytes(); }
  // fp16 only.
  void encode(std::span<const float> x, std::span<std::byte> out) const {
    fp16_->encode(x, out, RandomKey{});
  }
  void decode(std::span<const std::byte> in, std::span<float> out) const {
    fp16_->decode(1.0f, in, out);
  }

 private:
  std::unique_ptr<Compressor> fp16_;
};

int mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace

void ring_reduce_scatter_in_place(Communicator& comm, std::span<float> data,
                                  WirePrecision precision) {
  const int n = comm.size(), r = comm.rank();
  const BlockPartition part{data.size(), n};
  const WireCodec codec(precision);
  const size_t piece = ring_piece_bytes(comm.transport().pipeline_bytes(), codec.element_bytes());
  auto block = [&](int b) { return data.subspan(part.offset(b), part.size(b)); };
  std::vector<std::byte> send_wire(codec.is_raw() ? 0 : codec.bytes(part.size(0)));
  std::vector<std::byte> recv_wire(codec.is_raw() ? 0 : codec.bytes(part.size(0)));
  std::vector<float> incoming(part.size(0));  // fp32 is received straight into it
  // Step s: send block r-1-s to r+1, receive block r-2-s from r-1 and add our
  // contribution, piece by piece. Block b is summed in the order b+1, b+2, ..., b.
  for (int s = 0; s < n - 1; ++s) {
    const auto out_block = block(mod(r - 1 - s, n));
    const auto in_block = block(mod(r - 2 - s, n));
    const auto received = std::span(incoming).first(in_block.size());
    const auto send_bytes =
        codec.is_raw() ? as_bytes(std::span<const float>(out_block))
                       : std::span<const std::byte>(send_wire).first(codec.bytes(out_block.size()));
    const auto recv_bytes = codec.is_raw()
                                ? as_writable_bytes(received)
                                : std::span(recv_wire).first(codec.bytes(in_block.size()));
    auto encode_piece = [&](size_t offset, size_t size) {
      codec.encode(out_block.subspan(codec.elements(offset), codec.elements(size)),
                   std::span(send_wire).subspan(offset, size));
    };
    auto add_piece = [&](size_t offset, size_t size) {
      const size_t first = codec.elements(offset), count = codec.elements(size);
      const auto piece_in = received.subspan(first, count);
      if (!codec.is_raw()) codec.decode(recv_bytes.subspan(offset, size), piece_in);
      const auto target = in_block.subspan(first, count);
      for (size_t i = 0; i < count; ++i) target[i] = piece_in[i] + target[i];
    };
    ring_shift(comm, mod(r + 1, n), send_bytes, mod(r - 1, n), recv_bytes, piece,
               Communicator::InternalTag::kReduceScatter,
               codec.is_raw() ? RingPieceFn{} : RingPieceFn(encode_piece), add_piece);
  }
}

namespace {

// The allgather half: block r of `data` on rank r is copied to every rank.
void ring_allgather_in_place(Communicator& comm, std::span<float> data, WirePrecision precision) {
  const int n = comm.size(), r = comm.rank();
  const BlockPartition part{data.size(), n};
  const WireCodec codec(precision);
  const size_t piece = ring_piece_bytes(comm.transport().pipeline_bytes(), codec.element_bytes());
  auto block = [&](int b) { return data.subspan(part.offset(b), part.size(b)); };
  // The wire image of every block; ranks forward the bytes they received, so all
  // ranks decode identical bytes (the owner decodes its own encoding too). fp32's
  // wire image is `data` itself.
  std::vector<std::byte> encoded(codec.is_raw() ? 0 : codec.bytes(data.size()));
  const std::span<std::byte> wire = codec.is_raw() ? as_writable_bytes(data) : std::span(encoded);
  auto wire_block = [&](int b) {
    return wire.subspan(codec.bytes(part.offset(b)), codec.bytes(part.size(b)));
  };
  if (!codec.is_raw()) {
    codec.encode(block(r), wire_block(r));
    codec.decode(wire_block(r), block(r));
  }
  for (int s = 0; s < n - 1; ++s) {
    const int send_b = mod(r - s, n), recv_b = mod(r - s - 1, n);
    auto decode_piece = [&](size_t offset, size_t size) {
      codec.decode(wire_block(recv_b).subspan(offset, size),
                   block(recv_b).subspan(codec.elements(offset), codec.elements(size)));
    };
    ring_shift(comm, mod(r + 1, n), wire_block(send_b), mod(r - 1, n), wire_block(recv_b), piece,
               Communicator::InternalTag::kAllgather, {},
               codec.is_raw() ? RingPieceFn{} : RingPieceFn(decode_piece));
  }
}

}  // namespace

void ring_allreduce(Communicator& comm, std::span<float> data, ReduceOp op,
                    WirePrecision precision) {
  {
    const PhaseScope phase(comm, "reduce-scatter");
    ring_reduce_scatter_in_place(comm, data, precision);
  }
  if (op == ReduceOp::kMean) {
    const BlockPartition part{data.size(), comm.size()};
    const auto divisor = static_cast<float>(comm.size());
    for (float& v : data.subspan(part.offset(comm.rank()), part.size(comm.rank()))) v /= divisor;
  }
  const PhaseScope phase(comm, "all-gather");
  ring_allgather_in_place(comm, data, precision);
}

}  // namespace compopt
