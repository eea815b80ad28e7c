#include "net_models/compression_cost.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "core/util/error.h"

namespace compopt::net {
namespace {

// fp32 bytes per element of each pass, from the kernels (4 B a float, 1/8 B a bit):
//   sign worker: feedback pass reads x and e, writes y and the bits (4 + 4 + 4 + 1/8), then the
//                error pass reads and writes e (8) once the scale (a norm of y) is known;
//   binary worker: one blocked pass reads x and e, draws, writes the bits and e (4 + 4 + 1/8 + 4);
//   nbit:B worker (b = B/8 bytes a field): compensation reads x and e and writes y into e (12),
//                the scale pass reads y (4), the field pass reads y and writes the fields (4 + b),
//                the error update reads the fields and e and writes e (b + 8);
//   server: as the worker's, with the n received chunks (n*b) read instead of x;
//   decode: reads the fields and writes the floats (b + 4).
struct PassBytes {
  std::string_view name;
  double worker, server_without_inputs, decode;
  double field = 1.0 / 8.0;  // bytes a received element's field takes
};

constexpr double kBit = 1.0 / 8.0;
constexpr PassBytes kPasses[] = {
    {"sign", 12 + kBit + 8, 4 + 4 + kBit + 8, kBit + 4},
    {"binary", 8 + kBit + 4, 4 + kBit + 4, kBit + 4},
};

// The configuration compress_bytes_per_element was measured on: Birder on 8 GPUs, one node.
constexpr int kReferenceRanks = 8;

// "nbit:B" with B in 2..16 (the `nbit` compressor of core/compress/nbit.h), else nullopt.
std::optional<PassBytes> nbit_passes(std::string_view compressor) {
  constexpr std::string_view kPrefix = "nbit:";
  if (!compressor.starts_with(kPrefix)) return std::nullopt;
  const std::string digits(compressor.substr(kPrefix.size()));
  if (digits.empty() || digits.size() > 2 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const int bits = std::stoi(digits);
  if (bits < 2 || bits > 16) return std::nullopt;
  const double b = bits / 8.0;
  return PassBytes{compressor, 12 + 4 + 4 + b + b + 8, 8 + 4 + 4 + b + b + 8, b + 4, b};
}

PassBytes passes_of(std::string_view compressor) {
  for (const PassBytes& p : kPasses) {
    if (p.name == compressor) return p;
  }
  if (auto nbit = nbit_passes(compressor)) return *nbit;
  throw InvalidArgument(fmt::format(
      "compression cost of '{}': not modelled, expected sign, binary or nbit:B", compressor));
}

}  // namespace

CompressionBytes compression_bytes(std::string_view compressor, int server_ranks, double shard) {
  const PassBytes p = passes_of(compressor);
  if (server_ranks < 1 || !(shard > 0 && shard <= 1)) {
    throw InvalidArgument(
        fmt::format("compression cost: server_ranks = {}, shard = {}, expected >= 1 and in (0, 1]",
                    server_ranks, shard));
  }
  const double n = server_ranks;
  return {.encode = shard * p.worker,
          .server = shard * (p.server_without_inputs + n * p.field) / n,
          .decode = p.decode};
}

double relative_compression_bytes(std::string_view compressor, int server_ranks, double shard) {
  return compression_bytes(compressor, server_ranks, shard).total() /
         compression_bytes("binary", kReferenceRanks, 1.0).total();
}

}  // namespace compopt::net
