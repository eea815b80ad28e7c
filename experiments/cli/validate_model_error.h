#pragma once
// `compopt validate model-error` (validate_model_error.cc).

#include "experiments/run_directory/run_directory.h"

namespace compopt::cli {

// Measures the band's model-error term again and reports each row's coverage under the term
// measured without it: prints the table, writes model_error.csv and run.json into `dir`.
void run_model_error(RunDirectory& dir);

}  // namespace compopt::cli
