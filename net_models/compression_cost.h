#pragma once
// The compression work of one compressed allreduce on a rank, per phase, as the fp32 bytes
// each phase's kernels move per element of the vector (counted from core/compress and
// core/comm/collectives, docs/calibration.md "Compression"):
//   encode  worker error feedback + encode of the rank's vector (its shard, hierarchical)
//   server  decode of the `server_ranks` chunks it receives, their mean, error feedback and
//           encode of its chunk (1/server_ranks of what it encoded)
//   decode  decode of the whole result vector
// Costs are relative to Birder's `binary` compressed allreduce on 8 GPUs, the configuration
// whose compression time a workload's compress_bytes_per_element was measured on: a
// workload's measured figure times relative_bytes gives the stage's effective bytes. None of
// the implementations modelled overlaps its compression with the wire (compressed_allreduce.cc,
// DeepSpeed's 1-bit Adam), so the phases add.

#include <string_view>

namespace compopt::net {

struct CompressionBytes {
  double encode = 0, server = 0, decode = 0;  // fp32 bytes per element of the whole vector
  double total() const { return encode + server + decode; }
};

// `compressor`: "sign" (one norm pass for the scale, then the error update), "binary"
// (one pass with a counter-based random draw per element, no scale) or "nbit:B" (a max pass for
// the scale, a field pass with a random draw per element, then the error update). `server_ranks` >=
// 1 ranks share the server step; each rank encodes `shard` in (0, 1] of the vector (1 flat, 1 /
// GPUs per node hierarchical). Throws InvalidArgument for another compressor or a bad size.
CompressionBytes compression_bytes(std::string_view compressor, int server_ranks, double shard);

// compression_bytes(...).total() over that of binary on 8 ranks, flat.
double relative_compression_bytes(std::string_view compressor, int server_ranks, double shard);

}  // namespace compopt::net
