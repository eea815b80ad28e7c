#pragma once
// The simulator's own error, as one term of every predicted time's low..high band
// (docs/whatif.md, "The band"; docs/validation.md, "The band's model-error term").
//
// The measured inputs (input_ranges.h) say how far a prediction moves when an input is off; they
// say nothing of a mechanism the model lacks or gets wrong. That error is measured on the rows
// compopt predicts out of sample: the leave-one-out rows of the network fit (network_fit.h) and
// the public nccl-tests cases (public_checks.h). Its size is their split-conformal quantile
// (Vovk, Gammerman and Shafer 2005; Lei et al. 2018, "Distribution-free predictive inference for
// regression", JASA): with n rows' scores |measured - predicted| / predicted, the
// ceil((n + 1) x coverage)-th smallest. A new case exchangeable with those rows then lands within
// predicted x (1 +- q) with probability at least `coverage`.
//
// The band adds the term to the inputs' deviations by root-sum-square on each side
// (with_model_error). It applies to a predicted time and the figures that are one time's
// inverse (throughput); a ratio of two predictions (a speedup) keeps the inputs' band, because no
// row compopt has measures the model's error on a ratio.

#include <string>
#include <utility>
#include <vector>

#include "sim/band_coverage.h"
#include "sim/input_ranges.h"

namespace compopt::sim {

// The coverage the term is sized for: the share of measured values a band is meant to hold.
inline constexpr double kModelErrorCoverage = 0.8;

// The shipped term: its size, the rows it comes from and where they are (`compopt validate
// model-error` measures it again and says whether it still holds).
struct ModelError {
  double fraction = 0;  // q: the band's +- term as a fraction of the figure
  int rows = 0;         // the out-of-sample rows it was measured on
  std::string source;   // one line for printed headers
};
const ModelError& model_error();

// |measured - expected| / expected: how far the model missed, in units of its own prediction.
double relative_miss(const BandedPrediction& p);

// The ceil((n + 1) x coverage)-th smallest of `scores` (n of them); +infinity when that rank
// exceeds n (too few rows for the coverage). Throws InvalidArgument for coverage outside (0, 1)
// or a negative or non-finite score.
double conformal_quantile(std::vector<double> scores, double coverage);

// `inputs` (the band of `expected` over the measured inputs) widened by +- fraction x expected,
// combined with each side's deviation by root-sum-square; the low end stops at 0.
Band with_model_error(const Band& inputs, double expected, double fraction);

// The band of a predicted time `expected` (or its inverse, or a sum of such times): band_of over
// the measured inputs' `ends`, widened by the shipped term.
Band predicted_time_band(double expected, const std::vector<std::pair<double, double>>& ends);

// Each prediction's band widened by the term it would get were it not among the rows: row i's
// fraction is the conformal quantile of the other rows' relative misses (leave-one-out
// conformal), so its coverage is measured on a row the term never saw.
struct HeldOutBand {
  BandedPrediction band;  // expected and measured as given, low/high widened
  double fraction = 0;    // the term without this row
};
std::vector<HeldOutBand> held_out_model_error_bands(const std::vector<BandedPrediction>& rows,
                                                    double coverage);

}  // namespace compopt::sim
