#include "net_models/compression_cost.h"

#include <fmt/format.h>

#include <string>

#include "core/util/error.h"

namespace compopt::net {
namespace {

// fp32 bytes per element of each pass, from the kernels (4 B a float, 1/8 B a bit):
//   sign worker: feedback pass reads x and e, writes y and the bits (4 + 4 + 4 + 1/8), then the
//                error pass reads and writes e (8) once the scale (a norm of y) is known;
//   binary worker: one blocked pass reads x and e, draws, writes the bits and e (4 + 4 + 1/8 + 4);
//   server: as the worker's, with the n received bit-chunks (n/8) read instead of x;
//   decode: reads the bits and writes the floats (1/8 + 4).
struct PassBytes {
  std::string_view name;
  double worker, server_without_inputs, decode;
};

constexpr double kBit = 1.0 / 8.0;
constexpr PassBytes kPasses[] = {
    {"sign", 12 + kBit + 8, 4 + 4 + kBit + 8, kBit + 4},
    {"binary", 8 + kBit + 4, 4 + kBit + 4, kBit + 4},
};

// The configuration compress_bytes_per_element was measured on: Birder on 8 GPUs, one node.
constexpr int kReferenceRanks = 8;

const PassBytes& passes_of(std::string_view compressor) {
  for (const PassBytes& p : kPasses) {
    if (p.name == compressor) return p;
  }
  throw InvalidArgument(
      fmt::format("compression cost of '{}': not modelled, expected sign or binary", compressor));
}

}  // namespace

CompressionBytes compression_bytes(std::string_view compressor, int server_ranks, double shard) {
  const PassBytes& p = passes_of(compressor);
  if (server_ranks < 1 || !(shard > 0 && shard <= 1)) {
    throw InvalidArgument(
        fmt::format("compression cost: server_ranks = {}, shard = {}, expected >= 1 and in (0, 1]",
                    server_ranks, shard));
  }
  const double n = server_ranks;
  return {.encode = shard * p.worker,
          .server = shard * (p.server_without_inputs + n * kBit) / n,
          .decode = p.decode};
}

double relative_compression_bytes(std::string_view compressor, int server_ranks, double shard) {
  return compression_bytes(compressor, server_ranks, shard).total() /
         compression_bytes("binary", kReferenceRanks, 1.0).total();
}

}  // namespace compopt::net
