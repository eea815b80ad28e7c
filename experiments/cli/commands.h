#pragma once
// Subcommands of the `compopt` CLI. Each registers itself on the app and sets the
// callback that runs it. Callbacks throw compopt::InvalidArgument for bad input
// (exit code 2, before any work) and other exceptions for failures (exit code 1).

#include <CLI/CLI.hpp>

namespace compopt::cli {

void register_collectives_command(CLI::App& app);
void register_comm_bench_command(CLI::App& app);
void register_predict_collective_command(CLI::App& app);  // nccl-tests table, simulated
void register_launch_command(CLI::App& app);
void register_train_command(CLI::App& app);
void register_profile_command(CLI::App& app);
void register_sweep_command(CLI::App& app);
void register_validate_command(CLI::App& app);   // checks against published measurements
void register_calibrate_command(CLI::App& app);  // fits a cluster to its own logs
void register_reproduce_command(CLI::App& app);
void register_plot_command(CLI::App& app);  // figures of run directories, by their kind
void register_list_command(CLI::App& app);  // hidden: registries as text or docs tables

}  // namespace compopt::cli
