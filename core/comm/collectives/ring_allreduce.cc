#include "core/comm/collectives/ring_allreduce.h"

#include <cstring>
#include <memory>
#include <vector>

#include "core/comm/collectives/block_partition.h"
#include "core/compress/compressor.h"

namespace compopt {

namespace {

// Values on the wire: raw fp32 bytes, or fp16 through the fp16 compressor.
class WireCodec {
 public:
  explicit WireCodec(WirePrecision precision)
      : fp16_(precision == WirePrecision::kFp16 ? make_compressor("fp16") : nullptr) {}

  size_t bytes(size_t k) const { return fp16_ ? fp16_->wire_bytes(k) : k * sizeof(float); }
  void encode(std::span<const float> x, std::span<std::byte> out) const {
    if (fp16_) {
      fp16_->encode(x, out, RandomKey{});
    } else if (!x.empty()) {
      std::memcpy(out.data(), x.data(), x.size_bytes());
    }
  }
  void decode(std::span<const std::byte> in, std::span<float> out) const {
    if (fp16_) {
      fp16_->decode(1.0f, in, out);
    } else if (!out.empty()) {
      std::memcpy(out.data(), in.data(), out.size_bytes());
    }
  }

 private:
  std::unique_ptr<Compressor> fp16_;
};

int mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace

void ring_reduce_scatter_in_place(Communicator& comm, std::span<float> data, WirePrecision precision) {
  const int n = comm.size(), r = comm.rank();
  const BlockPartition part{data.size(), n};
  const WireCodec codec(precision);
  auto block = [&](int b) { return data.subspan(part.offset(b), part.size(b)); };
  std::vector<std::byte> send_wire(codec.bytes(part.size(0))), recv_wire(send_wire.size());
  std::vector<float> incoming(part.size(0));
  // Step s: send block r-1-s to r+1, receive block r-2-s from r-1 and add our
  // contribution. Block b is summed in the order b+1, b+2, ..., b.
  for (int s = 0; s < n - 1; ++s) {
    const auto out_block = block(mod(r - 1 - s, n));
    const auto in_block = block(mod(r - 2 - s, n));
    const auto send_bytes = std::span(send_wire).first(codec.bytes(out_block.size()));
    const auto recv_bytes = std::span(recv_wire).first(codec.bytes(in_block.size()));
    codec.encode(out_block, send_bytes);
    comm.sendrecv(mod(r + 1, n), send_bytes, mod(r - 1, n), recv_bytes,
                  Communicator::InternalTag::kReduceScatter);
    const auto received = std::span(incoming).first(in_block.size());
    codec.decode(recv_bytes, received);
    for (size_t i = 0; i < in_block.size(); ++i) in_block[i] = received[i] + in_block[i];
  }
}

void ring_allgather_in_place(Communicator& comm, std::span<float> data, WirePrecision precision) {
  const int n = comm.size(), r = comm.rank();
  const BlockPartition part{data.size(), n};
  const WireCodec codec(precision);
  auto block = [&](int b) { return data.subspan(part.offset(b), part.size(b)); };
  // The wire image of every block; ranks forward the bytes they received, so all
  // ranks decode identical bytes (the owner decodes its own encoding too).
  std::vector<std::byte> wire(codec.bytes(data.size()));
  auto wire_block = [&](int b) {
    return std::span(wire).subspan(codec.bytes(part.offset(b)), codec.bytes(part.size(b)));
  };
  codec.encode(block(r), wire_block(r));
  codec.decode(wire_block(r), block(r));
  for (int s = 0; s < n - 1; ++s) {
    const int send_b = mod(r - s, n), recv_b = mod(r - s - 1, n);
    comm.sendrecv(mod(r + 1, n), wire_block(send_b), mod(r - 1, n), wire_block(recv_b),
                  Communicator::InternalTag::kAllgather);
    codec.decode(wire_block(recv_b), block(recv_b));
  }
}

void ring_allreduce(Communicator& comm, std::span<float> data, ReduceOp op, WirePrecision precision) {
  ring_reduce_scatter_in_place(comm, data, precision);
  if (op == ReduceOp::kMean) {
    const BlockPartition part{data.size(), comm.size()};
    const auto divisor = static_cast<float>(comm.size());
    for (float& v : data.subspan(part.offset(comm.rank()), part.size(comm.rank()))) v /= divisor;
  }
  ring_allgather_in_place(comm, data, precision);
}

}  // namespace compopt
