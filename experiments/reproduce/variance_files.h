#pragma once
// The files of the variance-stability studies (variance on the Fashion-MNIST MLP, torch_variance
// on the PyTorch transformer): variance.csv, one row per step of each run, and freeze.csv, the
// step at which 1-bit Adam's automatic detector froze v; one schema each, so analysis/ reads
// both studies alike.

#include "core/util/csv_schema.h"

namespace compopt::cli::reproduce {

// The detector's ratio threshold both studies run with: onebit-adam's default `threshold`.
inline constexpr double kFreezeThreshold = 0.96;

// beta2, step, lr, train_loss, var_norm_l2, var_ratio_l1.
const CsvSchema& variance_schema();
// beta2, delta, threshold, freeze_step (empty when the detector never froze).
const CsvSchema& freeze_schema();

}  // namespace compopt::cli::reproduce
