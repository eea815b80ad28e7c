#pragma once
// Ranges of the numeric command-line flags. in_range() is a CLI11 check that refuses a value
// outside [lo, hi] while the command line is parsed, before any work starts, by throwing
// InvalidArgument "<flag> <value>: expected lo..hi (<why>)" (exit code 2). Text that is not a
// number passes through to CLI11's own conversion error. The limits are named here so
// docs/robustness.md ("Limits on input") and the tests can cite them.

#include <CLI/CLI.hpp>
#include <string>

namespace compopt::cli {

// Forked processes at once (sweep, reproduce): more than this only queues on the CPU.
inline constexpr int kMaxJobs = 512;
// Timed and untimed calls of comm-bench per size, and calls of collectives per variant.
inline constexpr int kMaxIterations = 100000;
// Seconds `compopt launch` waits for the other ranks after one failed.
inline constexpr double kMaxGraceSeconds = 3600;
// One-way link latency of comm-bench's simulated star, microseconds (1 s).
inline constexpr double kMaxLatencyUs = 1e6;
// Link rates in Gbit/s: below 1 Mbit/s a benchmark or step takes hours of simulated time and
// far smaller rates overflow the simulated clock; no link carries more than 100 Tbit/s.
inline constexpr double kMinLinkGbps = 1e-3;
inline constexpr double kMaxLinkGbps = 1e5;

CLI::Validator in_range(const std::string& flag, double lo, double hi, const std::string& why);

// A check for a flag read into an unsigned integer: refuses a negative value as the user wrote
// it ("--seed -1: expected an integer >= 0"), which the conversion would wrap to 2^64 - 1.
CLI::Validator non_negative(const std::string& flag);

}  // namespace compopt::cli
