#include "core/comm/collectives/reduce_scatter.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/comm/collectives/ring_allreduce.h"
#include "core/util/error.h"

namespace compopt {

void ring_reduce_scatter(Communicator& comm, std::span<const float> in, std::span<float> out,
                         ReduceOp op) {
  const auto n = static_cast<size_t>(comm.size());
  if (in.size() != n * out.size()) {
    throw InvalidArgument(
        fmt::format("reduce_scatter: input has {} elements, expected {} ({} ranks x output of {})",
                    in.size(), n * out.size(), n, out.size()));
  }
  std::vector<float> work(in.begin(), in.end());
  ring_reduce_scatter_in_place(comm, work, WirePrecision::kFp32);
  const auto mine = std::span<const float>(work).subspan(
      static_cast<size_t>(comm.rank()) * out.size(), out.size());
  if (op == ReduceOp::kMean) {
    const auto divisor = static_cast<float>(n);
    std::transform(mine.begin(), mine.end(), out.begin(),
                   [divisor](float v) { return v / divisor; });
  } else {
    std::copy(mine.begin(), mine.end(), out.begin());
  }
}

}  // namespace compopt
