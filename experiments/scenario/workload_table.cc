#include "experiments/scenario/workload_table.h"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include "core/util/error.h"
#include "experiments/scenario/toml_values.h"
#include "net_models/model_shapes.h"

namespace compopt::cli {
namespace {

using net::WorkloadSpec;

// One scalar key of [workload] and how it sets the spec.
struct ScalarKey {
  const char* name;
  std::function<void(WorkloadSpec&, const toml::node&, const std::string&)> set;
};

// measured_<pass>_ms: a time in milliseconds, finite and > 0, stored in seconds.
ScalarKey measured_ms(const char* name, double WorkloadSpec::*field) {
  return {name, [field](WorkloadSpec& w, const toml::node& n, const std::string& k) {
            const double ms = number_of(n, k);
            if (!(ms > 0) || !std::isfinite(ms) || ms > 1e9) {
              throw InvalidArgument(
                  fmt::format("{} = {}, expected a finite time in milliseconds > 0", k, ms));
            }
            w.*field = ms / 1e3;
          }};
}

const std::vector<ScalarKey>& scalar_keys() {
  static const std::vector<ScalarKey> keys = {
      {"parameters",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         const double v = number_of(n, k);
         if (!(v >= 1 && v <= 1e14))
           throw InvalidArgument(fmt::format("{} = {}, expected 1..1e14", k, v));
         w.parameters = static_cast<uint64_t>(v);
       }},
      {"tensors", [](WorkloadSpec& w, const toml::node& n,
                     const std::string& k) { w.tensors = integer_of(n, k); }},
      {"layers", [](WorkloadSpec& w, const toml::node& n,
                    const std::string& k) { w.layers = integer_of(n, k); }},
      {"default_batch_per_gpu",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.default_batch_per_gpu = integer_of(n, k);
       }},
      {"forward_gflops_per_sample",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.forward_flops_per_sample = 1e9 * number_of(n, k);
       }},
      {"backward_gflops_per_sample",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.backward_flops_per_sample = 1e9 * number_of(n, k);
       }},
      {"compute_precision",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.compute_precision = net::parse_precision(text_of(n, k), k);
       }},
      {"gradient_precision",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.gradient_precision = net::parse_precision(text_of(n, k), k);
       }},
      {"step_bytes_per_param",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.step_bytes_per_param = number_of(n, k);
         w.step_bytes_stated = true;
       }},
      {"compress_bytes_per_element",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.compress_bytes_per_element = number_of(n, k);
       }},
      {"activation_bytes_per_sample",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.activation_bytes_per_sample = number_of(n, k);
         w.attention_score_bytes_per_sample = 0;  // a total of one's own: its parts unknown
         w.layer_input_bytes_per_sample = 0;
       }},
      {"attention",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         w.attention = net::parse_attention_kind(text_of(n, k), k);
       }},
      {"activation_checkpointing",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         const auto v = n.value<bool>();
         if (!v || !n.is_boolean())
           throw InvalidArgument(fmt::format("{} {}: expected true or false", k, where(n)));
         w.activation_checkpointing = *v;
       }},
      measured_ms("measured_forward_ms", &WorkloadSpec::measured_forward_s),
      measured_ms("measured_backward_ms", &WorkloadSpec::measured_backward_s),
      measured_ms("measured_step_ms", &WorkloadSpec::measured_step_s),
      {"measured_batch_per_gpu",
       [](WorkloadSpec& w, const toml::node& n, const std::string& k) {
         const int batch = integer_of(n, k);
         if (batch < 1)
           throw InvalidArgument(fmt::format("{} = {}, expected an integer >= 1", k, batch));
         w.measured_batch_per_gpu = batch;
       }},
  };
  return keys;
}

const std::set<std::string> kTransformerKeys = {"layers",     "hidden",  "sequence",
                                                "vocabulary", "lm_head", "heads"};
const std::set<std::string> kLayerKeys = {"kind", "in", "out", "kernel", "output"};

net::TransformerShape transformer_of(const toml::table& t) {
  check_table_keys(t, kTransformerKeys, "workload.transformer");
  net::TransformerShape shape;
  const std::string p = "workload.transformer.";
  auto get = [&](const char* key) {
    const toml::node* n = t.get(key);
    if (n == nullptr) throw InvalidArgument(fmt::format("{}{} is missing", p, key));
    return integer_of(*n, p + key);
  };
  shape.layers = get("layers");
  shape.hidden = get("hidden");
  shape.sequence = get("sequence");
  shape.vocabulary = get("vocabulary");
  if (t.contains("heads")) shape.heads = get("heads");
  if (const toml::node* n = t.get("lm_head")) {
    const auto v = n->value<bool>();
    if (!v || !n->is_boolean())
      throw InvalidArgument(fmt::format("{}lm_head {}: expected true or false", p, where(*n)));
    shape.lm_head = *v;
  }
  return shape;
}

std::vector<net::CnnLayer> cnn_layers_of(const toml::node& node) {
  const toml::array* array = node.as_array();
  if (array == nullptr)
    throw InvalidArgument(
        "workload.cnn_layers: expected an array of tables ([[workload.cnn_layers]])");
  std::vector<net::CnnLayer> layers;
  for (const toml::node& item : *array) {
    const toml::table* t = item.as_table();
    const std::string p = fmt::format("workload.cnn_layers[{}]", layers.size());
    if (t == nullptr) throw InvalidArgument(p + ": expected a table");
    check_table_keys(*t, kLayerKeys, p);
    net::CnnLayer layer;
    if (const toml::node* kind = t->get("kind"))
      layer.kind = net::parse_cnn_layer_kind(text_of(*kind, p + ".kind"));
    auto get = [&](const char* key, int fallback) {
      const toml::node* n = t->get(key);
      return n == nullptr ? fallback : integer_of(*n, p + "." + key);
    };
    layer.in = get("in", 0);
    layer.out = get("out", 0);
    layer.kernel = get("kernel", 1);
    layer.output_side = get("output", 1);
    layers.push_back(layer);
  }
  return layers;
}

// The base spec: `preset`, else `name` when it is a preset, else an empty custom workload.
WorkloadSpec base_of(const toml::table& table, bool& custom) {
  const toml::node* preset = table.get("preset");
  const toml::node* name = table.get("name");
  const std::string name_text = name ? text_of(*name, "workload.name") : "";
  custom = true;
  if (preset != nullptr) {
    WorkloadSpec w = net::workload_preset(text_of(*preset, "workload.preset"));
    if (!name_text.empty()) w.name = name_text;
    return w;
  }
  if (name_text.empty() || net::workload_registry().contains(name_text)) {
    custom = false;
    return net::workload_preset(name_text.empty() ? "bert-large-seq128" : name_text);
  }
  WorkloadSpec w;
  w.name = name_text;
  return w;
}

void apply_shape(WorkloadSpec& w, const net::ShapeTotals& totals) {
  w.parameters = totals.parameters;
  w.tensors = totals.tensors;
  w.layers = totals.layers;
  w.forward_flops_per_sample = totals.forward_flops_per_sample;
  w.activation_bytes_per_sample = totals.activation_bytes_per_sample;
  w.attention_score_bytes_per_sample = totals.attention_score_bytes_per_sample;
  w.layer_input_bytes_per_sample = totals.layer_input_bytes_per_sample;
}

}  // namespace

const std::set<std::string>& workload_config_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> out = {"name", "preset", "transformer", "cnn_layers"};
    for (const ScalarKey& k : scalar_keys()) out.insert(k.name);
    return out;
  }();
  return keys;
}

net::WorkloadSpec workload_from_config(const toml::table& table) {
  check_table_keys(table, workload_config_keys(), "workload");
  bool custom = false;
  WorkloadSpec w = base_of(table, custom);
  std::optional<net::ShapeTotals> shape;
  if (const toml::node* t = table.get("transformer")) {
    if (!t->is_table()) throw InvalidArgument("workload.transformer: expected a table");
    shape = net::transformer_totals(transformer_of(*t->as_table()));
  }
  if (const toml::node* layers = table.get("cnn_layers"))
    shape = net::cnn_totals(cnn_layers_of(*layers));
  if (shape) apply_shape(w, *shape);
  for (const ScalarKey& key : scalar_keys()) {
    if (const toml::node* n = table.get(key.name))
      key.set(w, *n, std::string("workload.") + key.name);
  }
  // The shape's 16-bit activations in the precision the keys above settled on.
  if (shape && !table.contains("activation_bytes_per_sample")) w.set_activations(*shape);
  if (custom && w.parameters == 0) {
    throw InvalidArgument(fmt::format(
        "workload '{}' is not a preset ({}): describe it with parameters and "
        "forward_gflops_per_sample, [workload.transformer] or [[workload.cnn_layers]], or set "
        "workload.preset",
        w.name, net::workload_registry().expected()));
  }
  w.validate();
  return w;
}

}  // namespace compopt::cli
