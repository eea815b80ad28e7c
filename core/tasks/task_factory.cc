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

std::vector<size_t> parse_widths(HyperParams& hp, const std::string& key) {
  const std::string text = hp.text(key, "256,256");
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

size_t bounded(HyperParams& hp, const std::string& key, int64_t fallback, int64_t limit) {
  const int64_t v = hp.integer(key, fallback, 1);
  if (v > limit) {
    hp.fail("key '" + key + "' = " + std::to_string(v) + ", expected at most " +
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

}  // namespace

std::vector<std::string> task_names() { return {"quadratic", "logistic", "fashion-mnist"}; }

std::unique_ptr<Task> make_task(HyperParams& hp, const std::string& prefix, int ranks) {
  const std::string name = hp.choice(prefix + "name", "fashion-mnist", task_names());
  auto key = [&](const char* k) { return prefix + k; };
  try {
    if (name == "quadratic") {
      NoisyQuadraticOptions o;
      o.dimension = bounded(hp, key("dimension"), 1000, kMaxValues);
      check_product(hp, "key '" + key("dimension") + "' x ranks", o.dimension,
                    static_cast<size_t>(std::max(ranks, 1)));
      o.condition_number = hp.number_in(key("condition_number"), 100.0, 1.0, 1e12);
      o.noise = hp.non_negative(key("noise"), 1.0);
      o.heterogeneity = hp.non_negative(key("heterogeneity"), 0.0);
      o.train_size = bounded(hp, key("train_size"), 1 << 20, kMaxExamples);
      o.seed = static_cast<uint64_t>(hp.integer(key("seed"), 1, 0));
      o.ranks = ranks;
      return std::make_unique<NoisyQuadraticTask>(o);
    }
    if (name == "logistic") {
      LogisticRegressionOptions o;
      o.dimension = bounded(hp, key("dimension"), 20, kMaxValues);
      o.train_size = bounded(hp, key("train_size"), 8192, kMaxExamples);
      o.test_size = bounded(hp, key("test_size"), 2048, kMaxExamples);
      check_product(hp, "keys '" + key("dimension") + "' x (train_size + test_size)", o.dimension,
                    o.train_size + o.test_size);
      o.separable = hp.flag(key("separable"), true);
      if (o.separable && hp.has(key("label_noise"))) {
        hp.fail("key '" + key("label_noise") + "' only applies with " + key("separable") +
                " = false");
      }
      o.label_noise = hp.number_in(key("label_noise"), 0.1, 0.0, 0.5);
      o.l2 = hp.non_negative(key("l2"), 0.0);
      o.seed = static_cast<uint64_t>(hp.integer(key("seed"), 1, 0));
      return std::make_unique<LogisticRegressionTask>(o);
    }
    FashionMnistOptions o;
    o.data_dir = hp.text(key("data_dir"), kFashionMnistDefaultDir);
    o.hidden = parse_widths(hp, key("hidden"));
    o.eval_chunk = static_cast<size_t>(hp.integer(key("eval_chunk"), 500, 1));
    try {
      return std::make_unique<FashionMnistMlp>(o);
    } catch (const DatasetError& e) {
      hp.fail("key '" + key("data_dir") + "' = '" + o.data_dir.string() + "': " + e.what());
    }
  } catch (const InvalidArgument& e) {
    if (std::string(e.what()).rfind(hp.context(), 0) == 0) throw;
    hp.fail(std::string("task '") + name + "': " + e.what());
  }
}

}  // namespace compopt
