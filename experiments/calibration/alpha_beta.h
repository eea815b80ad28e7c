#pragma once
// The closed-form latency-bandwidth (alpha-beta) fit of one log's rows, t = alpha + bytes x
// beta, by least squares on the relative error (each row weighted by 1 / its time, so small
// and large sizes count alike). It describes the collectives the simulator does not time
// (all_gather, reduce_scatter, alltoall, sendrecv) and checks the allreduce fit by a second,
// independent route. Hand-checkable: rows made from a known alpha and beta give them back.

#include <vector>

#include "experiments/calibration/measurement.h"

namespace compopt::calibration {

struct AlphaBeta {
  double alpha_s = 0;  // latency, s (0 when the fit asks for less)
  double beta_s_per_byte = 0;
  double busbw_gbps = 0;  // bus bandwidth at large sizes, bus factor / beta, GB/s; 0: none seen
  double median_error_pct = 0;
};

// Fits `rows` (one log: one collective and shape, at least 2 distinct sizes). Throws
// InvalidArgument for fewer than 2 distinct sizes.
AlphaBeta fit_alpha_beta(const std::vector<const Measurement*>& rows);

}  // namespace compopt::calibration
