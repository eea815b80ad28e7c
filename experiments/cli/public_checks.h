#pragma once
// `compopt profile --public-checks`: the out-of-sample checks of docs/validation.md. Every
// public nccl-tests case (data/published/nccl_tests_public.csv) is simulated on its
// compopt cluster (sim/public_checks.h) and compared with the published time and bus
// bandwidth; prints the table with the median |error| and the share within 20%, and writes
// public_checks.csv in the run directory. Nothing is fitted to the cases.

#include <string>

namespace compopt::cli {

void run_public_checks(const std::string& out, bool overwrite);

}  // namespace compopt::cli
