#pragma once
// Builds a task from string configuration keys (a config file's [task] table):
//   <prefix>name = quadratic | logistic | fashion-mnist
//   quadratic:     dimension, condition_number, noise, heterogeneity, train_size, seed
//   logistic:      dimension, train_size, test_size, separable, label_noise, l2, seed
//   fashion-mnist: data_dir, hidden (comma-separated widths, default "256,256"), eval_chunk
// `ranks` is the number of training ranks (the quadratic draws one optimum per rank).
// Every error is InvalidArgument naming the full key (<prefix><key>); a missing or
// corrupt data set is reported against <prefix>data_dir with the install hint.
// Unknown keys are left for the caller's HyperParams::finish().

#include <memory>
#include <string>
#include <vector>

#include "core/tasks/task.h"
#include "core/util/hyper_params.h"

namespace compopt {

std::unique_ptr<Task> make_task(HyperParams& hp, const std::string& prefix, int ranks);

std::vector<std::string> task_names();

}  // namespace compopt
