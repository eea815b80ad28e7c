#pragma once
// The BM_memcpy/<bytes> baseline of the ratio table (ratio_reporter.h): one memcpy of `bytes`
// bytes between two preallocated, pre-touched buffers per iteration.

#include <cstdint>

namespace compopt::bench {

// Registers BM_memcpy/<bytes> unless already registered. Call before RunSpecifiedBenchmarks,
// e.g. from a namespace-scope initializer next to the op benchmarks that need it.
void ensure_memcpy_baseline(int64_t bytes);

}  // namespace compopt::bench
