#include "core/tasks/task_factory.h"

#include <algorithm>
#include <sstream>

#include "core/tasks/fashion_mnist_mlp.h"
#include "core/tasks/idx_reader.h"
#include "core/tasks/logistic_regression.h"
#include "core/tasks/noisy_quadratic.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// Sizes beyond one machine's memory are bad input (exit code 2 naming the key), not a crash in
// the allocator: the samplers hold train_size indices, the tasks dimension x ranks values.
constexpr int64_t kMaxExamples = int64_t{1} << 27;
constexpr int64_t kMaxValues = int64_t{1} << 28;

std::vector<size_t> parse_widths(KeyReader& r, const std::string& name) {
  const std::string key = r.full(name);
  const std::string text = r.text(name);
  HyperParams& hp = r.params();
  std::vector<size_t> widths;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v < 1) {
      hp.fail("key '" + key + "' = '" + text +
              "', expected comma-separated widths >= 1 (e.g. 256,256)");
    }
    widths.push_back(static_cast<size_t>(v));
  }
  // Each layer's weights (784 inputs first) within the memory bound of the other tasks.
  size_t fan_in = 784;
  for (const size_t w : widths) {
    if (w > static_cast<size_t>(kMaxValues) / fan_in) {
      hp.fail("key '" + key + "' = '" + text + "': a layer of " + std::to_string(w) + " x " +
              std::to_string(fan_in) + " weights, expected at most " + std::to_string(kMaxValues) +
              " (memory)");
    }
    fan_in = w;
  }
  return widths;
}

size_t bounded(KeyReader& r, const std::string& name, int64_t limit) {
  const int64_t v = r.integer(name);
  if (v > limit) {
    r.params().fail("key '" + r.full(name) + "' = " + std::to_string(v) + ", expected at most " +
                    std::to_string(limit) + " (memory)");
  }
  return static_cast<size_t>(v);
}

void check_product(HyperParams& hp, const std::string& what, size_t a, size_t b) {
  if (a > static_cast<size_t>(kMaxValues) / b) {
    hp.fail(what + " = " + std::to_string(a) + " x " + std::to_string(b) +
            " values, expected at most " + std::to_string(kMaxValues) + " (memory)");
  }
}

std::unique_ptr<Task> build_quadratic(KeyReader& r, int ranks) {
  NoisyQuadraticOptions o;
  o.dimension = bounded(r, "dimension", kMaxValues);
  check_product(r.params(), "key '" + r.full("dimension") + "' x ranks", o.dimension,
                static_cast<size_t>(std::max(ranks, 1)));
  o.condition_number = r.number("condition_number");
  o.noise = r.number("noise");
  o.heterogeneity = r.number("heterogeneity");
  o.train_size = bounded(r, "train_size", kMaxExamples);
  o.seed = static_cast<uint64_t>(r.integer("seed"));
  o.ranks = ranks;
  return std::make_unique<NoisyQuadraticTask>(o);
}

std::unique_ptr<Task> build_logistic(KeyReader& r, int) {
  LogisticRegressionOptions o;
  o.dimension = bounded(r, "dimension", kMaxValues);
  o.train_size = bounded(r, "train_size", kMaxExamples);
  o.test_size = bounded(r, "test_size", kMaxExamples);
  check_product(r.params(), "keys '" + r.full("dimension") + "' x (train_size + test_size)",
                o.dimension, o.train_size + o.test_size);
  o.separable = r.flag("separable");
  if (o.separable && r.has("label_noise")) {
    r.params().fail("key '" + r.full("label_noise") + "' only applies with " + r.full("separable") +
                    " = false");
  }
  o.label_noise = r.number("label_noise");
  o.l2 = r.number("l2");
  o.seed = static_cast<uint64_t>(r.integer("seed"));
  return std::make_unique<LogisticRegressionTask>(o);
}

std::unique_ptr<Task> build_fashion_mnist(KeyReader& r, int) {
  FashionMnistOptions o;
  o.data_dir = r.text("data_dir");
  o.hidden = parse_widths(r, "hidden");
  o.eval_chunk = static_cast<size_t>(r.integer("eval_chunk"));
  try {
    return std::make_unique<FashionMnistMlp>(o);
  } catch (const DatasetError& e) {
    r.params().fail("key '" + r.full("data_dir") + "' = '" + o.data_dir.string() +
                    "': " + e.what());
  }
}

TaskEntry task(std::string name, std::string help, std::vector<OptionKey> keys, TaskBuilder build) {
  TaskEntry e;
  e.name = std::move(name);
  e.help = std::move(help);
  e.keys = std::move(keys);
  e.build = std::move(build);
  return e;
}

Registry<TaskEntry> make_registry() {
  const std::string values = " (at most 2^28 values in all, memory)";
  const std::string examples = " (at most 2^27, memory)";
  const OptionKey seed = integer_key("seed", "1", 0, "data and optimum seed");
  Registry<TaskEntry> reg("task");
  reg.add(task("quadratic", "noisy quadratic with one optimum per rank",
               {integer_key("dimension", "1000", 1, "parameters" + values),
                range_key("condition_number", "100", 1, 1e12, false, "Hessian condition number"),
                non_negative_key("noise", "1", "gradient noise scale"),
                non_negative_key("heterogeneity", "0", "spread of the per-rank optima"),
                integer_key("train_size", "1048576", 1, "examples per epoch" + examples), seed},
               build_quadratic));
  reg.add(task("logistic", "logistic regression on synthetic data",
               {integer_key("dimension", "20", 1, "features" + values),
                integer_key("train_size", "8192", 1, "training examples" + examples),
                integer_key("test_size", "2048", 1, "test examples" + examples),
                flag_key("separable", "true", "linearly separable labels"),
                range_key("label_noise", "0.1", 0, 0.5, false, "flipped labels (separable=false)"),
                non_negative_key("l2", "0", "L2 regularization"), seed},
               build_logistic));
  reg.add(task("fashion-mnist", "MLP classifier on Fashion-MNIST",
               {text_key("data_dir", kFashionMnistDefaultDir, "directory of the IDX files"),
                text_key("hidden", "256,256", "comma-separated hidden widths"),
                integer_key("eval_chunk", "500", 1, "examples per evaluation batch")},
               build_fashion_mnist));
  return reg;
}

}  // namespace

const Registry<TaskEntry>& task_registry() {
  static const Registry<TaskEntry> registry = make_registry();
  return registry;
}

std::vector<std::string> task_names() { return task_registry().names(); }

std::unique_ptr<Task> make_task(HyperParams& hp, const std::string& prefix, int ranks) {
  const std::string name = hp.text(prefix + "name", "fashion-mnist");
  const TaskEntry* entry = task_registry().find(name);
  if (entry == nullptr) {
    hp.fail("key '" + prefix + "name' = '" + name + "', expected " + task_registry().expected());
  }
  KeyReader keys(hp, entry->keys, prefix);
  try {
    return entry->build(keys, ranks);
  } catch (const InvalidArgument& e) {
    if (std::string(e.what()).rfind(hp.context(), 0) == 0) throw;
    hp.fail("task '" + entry->name + "': " + e.what());
  }
}

std::string task_table_markdown() {
  std::string out;
  for (const auto& e : task_registry().entries()) {
    out += "#### `" + e.name + "`: " + e.help + "\n\n" + markdown_key_table(e.keys) + "\n";
  }
  return out;
}

}  // namespace compopt
