#pragma once
// Reduction and wire-precision options shared by the full-precision collectives.

namespace compopt {

enum class ReduceOp { kSum, kMean };

// Precision of values on the wire for full-precision allreduce (docs/algorithms.md "Optimizers"
// allreduce_mean): fp16 rounds each sent value to half, accumulates in fp32.
enum class WirePrecision { kFp32, kFp16 };

}  // namespace compopt
