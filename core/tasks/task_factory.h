#pragma once
// The task registry and make_task: builds a task from string configuration keys (a config
// file's [task] table), <prefix>name = quadratic | logistic | fashion-mnist, each entry
// declaring its keys with defaults and ranges (core/util/option_key.h; tabulated in
// docs/training.md by task_table_markdown). `ranks` is the number of training ranks (the
// quadratic draws one optimum per rank).
// Every error is InvalidArgument naming the full key (<prefix><key>); a missing or
// corrupt data set is reported against <prefix>data_dir with the install hint.
// Unknown keys are left for the caller's HyperParams::finish().

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tasks/task.h"
#include "core/util/hyper_params.h"
#include "core/util/option_key.h"
#include "core/util/registry.h"

namespace compopt {

using TaskBuilder = std::function<std::unique_ptr<Task>(KeyReader& keys, int ranks)>;

struct TaskEntry : RegistryEntry {
  std::vector<OptionKey> keys;
  TaskBuilder build;
};

const Registry<TaskEntry>& task_registry();

std::unique_ptr<Task> make_task(HyperParams& hp, const std::string& prefix, int ranks);

std::vector<std::string> task_names();

// One markdown key table per task, under a "#### `name`" line each.
std::string task_table_markdown();

}  // namespace compopt
