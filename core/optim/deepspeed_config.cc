#include "core/optim/deepspeed_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/util/error.h"
#include "core/util/file_io.h"

namespace compopt {
namespace {

using Json = nlohmann::json;

// What one DeepSpeed key becomes: a registry key (kKey), beta1 and beta2 (kBetas), nothing
// (kIgnored), or nothing when it has the one value compopt's math agrees with (kOnly).
enum class Rule { kKey, kBetas, kIgnored, kOnly };

struct KeyRule {
  std::string key;
  Rule rule;
  std::string target;  // kKey: registry key; kOnly: the accepted value
  std::string why;     // kIgnored / kOnly: the reason, for docs and errors
};

struct TypeRule {
  std::string type;       // DeepSpeed's name, compared case-insensitively
  std::string optimizer;  // registry name
  std::vector<KeyRule> keys;
  HyperParamMap defaults;  // DeepSpeed's defaults where they differ from the registry's
};

std::vector<KeyRule> operator+(std::vector<KeyRule> a, const std::vector<KeyRule>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<KeyRule>& adam_keys() {
  static const std::vector<KeyRule> keys = {
      {"lr", Rule::kKey, "lr", ""},
      {"betas", Rule::kBetas, "", ""},
      {"eps", Rule::kKey, "eps", ""},
      {"weight_decay", Rule::kKey, "weight_decay", ""},
      {"amsgrad", Rule::kOnly, "false", "compopt's Adam keeps no AMSGrad maximum of v"},
      {"eps_inside_sqrt", Rule::kOnly, "false", "eps is added outside the square root"},
      {"max_grad_norm", Rule::kOnly, "0", "compopt's optimizers do not clip gradients"}};
  return keys;
}

const std::vector<KeyRule>& coeff_keys() {
  static const std::vector<KeyRule> keys = {{"max_coeff", Rule::kKey, "c_max", ""},
                                            {"min_coeff", Rule::kKey, "c_min", ""}};
  return keys;
}

// The keys of DeepSpeed's compressed optimizers (1-bit Adam/LAMB, 0/1 Adam) that change nothing.
const std::vector<KeyRule>& compressed_keys() {
  static const std::vector<KeyRule> keys = {
      {"bias_correction", Rule::kIgnored, "", "DeepSpeed's 1-bit optimizers do not apply it"},
      {"cuda_aware", Rule::kIgnored, "", "the World's backend does the communication"},
      {"comm_backend_name", Rule::kIgnored, "", "the World's backend does the communication"}};
  return keys;
}

const std::vector<KeyRule>& onebit_keys() {
  static const std::vector<KeyRule> keys =
      std::vector<KeyRule>{{"freeze_step", Rule::kKey, "freeze_step", ""}} + compressed_keys();
  return keys;
}

const std::vector<TypeRule>& type_rules() {
  const std::vector<KeyRule> adam_only = {
      {"bias_correction", Rule::kKey, "bias_correction", ""},
      {"adam_w_mode", Rule::kOnly, "true", "weight decay is decoupled (AdamW) in compopt"},
      {"torch_adam", Rule::kIgnored, "", "it chooses DeepSpeed's kernel"}};
  const std::vector<KeyRule> lamb_ratio = {{"coeff_beta", Rule::kKey, "beta3", ""},
                                           {"factor_max", Rule::kKey, "r_max", ""},
                                           {"factor_min", Rule::kKey, "r_min", ""},
                                           {"factor_threshold", Rule::kKey, "r_threshold", ""}};
  const HyperParamMap corrected = {{"bias_correction", "true"}};
  const HyperParamMap frozen = {{"freeze_step", "100000"}};
  const std::vector<KeyRule> zero_one = {
      {"var_freeze_step", Rule::kKey, "var_freeze_step", ""},
      {"var_update_scaler", Rule::kKey, "var_update_scaler", ""},
      {"local_step_scaler", Rule::kKey, "local_step_scaler", ""},
      {"local_step_clipper", Rule::kKey, "local_step_clipper", ""}};
  static const std::vector<TypeRule> rules = {
      {"Adam", "adam", adam_keys() + adam_only, corrected},
      {"AdamW", "adam", adam_keys() + adam_only, corrected},
      {"Lamb", "lamb", adam_keys() + coeff_keys() + std::vector<KeyRule>{adam_only[0]}, corrected},
      {"OneBitAdam", "onebit-adam", adam_keys() + onebit_keys(), frozen},
      {"OneBitLamb", "onebit-lamb", adam_keys() + onebit_keys() + coeff_keys() + lamb_ratio,
       frozen},
      {"ZeroOneAdam", "zero-one-adam", adam_keys() + compressed_keys() + zero_one, {}}};
  return rules;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string expected_types() {
  std::string out;
  for (const TypeRule& t : type_rules()) out += (out.empty() ? "" : ", ") + t.type;
  return out;
}

const TypeRule& type_rule(const std::string& type) {
  for (const TypeRule& t : type_rules()) {
    if (lower(t.type) == lower(type)) return t;
  }
  throw InvalidArgument("DeepSpeed optimizer type '" + type + "' has no compopt equivalent, " +
                        "expected one of " + expected_types());
}

// A scalar as make_optimizer's text: numbers as JSON writes them, booleans true/false.
std::string scalar_text(const Json& value, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean() || value.is_number()) return value.dump();
  throw InvalidArgument(where + " = " + value.dump() + ", expected a number, bool or string");
}

bool same_value(const Json& value, const std::string& accepted) {
  if (value.is_number()) return value.get<double>() == std::stod(accepted);
  return value.is_boolean() && value.dump() == accepted;
}

void apply_rule(const KeyRule& rule, const Json& value, const std::string& where,
                DeepSpeedOptimizer& out) {
  switch (rule.rule) {
    case Rule::kKey:
      out.keys[rule.target] = scalar_text(value, where);
      return;
    case Rule::kBetas:
      if (!value.is_array() || value.size() != 2) {
        throw InvalidArgument(where + " = " + value.dump() + ", expected [beta1, beta2]");
      }
      out.keys["beta1"] = scalar_text(value[0], where + "[0]");
      out.keys["beta2"] = scalar_text(value[1], where + "[1]");
      return;
    case Rule::kIgnored:
      out.ignored.push_back(rule.key);
      return;
    case Rule::kOnly:
      if (!same_value(value, rule.target)) {
        throw InvalidArgument(where + " = " + value.dump() + " is refused: " + rule.why +
                              "; expected " + rule.target + " or the key left out");
      }
      return;
  }
}

std::string expected_keys(const TypeRule& t) {
  std::string out;
  for (const KeyRule& k : t.keys) out += (out.empty() ? "" : ", ") + k.key;
  return out;
}

DeepSpeedOptimizer map_params(const TypeRule& t, const Json& params) {
  DeepSpeedOptimizer out;
  out.optimizer = t.optimizer;
  out.keys = t.defaults;
  for (const auto& item : params.items()) {
    const std::string& key = item.key();
    const std::string where = "DeepSpeed " + t.type + " params." + key;
    const auto rule =
        std::find_if(t.keys.begin(), t.keys.end(), [&](const KeyRule& k) { return k.key == key; });
    if (rule == t.keys.end()) {
      throw InvalidArgument(where + " has no compopt equivalent, expected one of " +
                            expected_keys(t));
    }
    apply_rule(*rule, item.value(), where, out);
  }
  return out;
}

// The block {"type", "params"} of a whole config or the block itself.
const Json& optimizer_block(const Json& config) {
  const Json& block = config.contains("optimizer") ? config.at("optimizer") : config;
  if (!block.is_object() || !block.contains("type") || !block.at("type").is_string()) {
    throw InvalidArgument(
        "DeepSpeed config: expected an \"optimizer\" block {\"type\": ..., \"params\": {...}}");
  }
  for (const auto& [key, value] : block.items()) {
    if (key != "type" && key != "params") {
      throw InvalidArgument("DeepSpeed optimizer block: key '" + key +
                            "' is not read, expected only \"type\" and \"params\"");
    }
  }
  return block;
}

// The table's last column for one key.
std::string mapped_text(const TypeRule& t, const KeyRule& k) {
  switch (k.rule) {
    case Rule::kKey:
      return "`" + k.target + "`" +
             (t.defaults.count(k.target) ? ", default " + t.defaults.at(k.target) : "");
    case Rule::kBetas:
      return "`beta1`, `beta2`";
    case Rule::kIgnored:
      return "accepted, no effect: " + k.why;
    case Rule::kOnly:
      return "only `" + k.target + "`: " + k.why;
  }
  return "";
}

// The config as JSON; a parse error names its byte and, for Python's NaN / Infinity (which
// json.dumps writes but JSON has not), the value.
Json parse_config(std::string_view json) {
  try {
    Json config = Json::parse(json);
    if (!config.is_object()) throw InvalidArgument("DeepSpeed config: not a JSON object");
    return config;
  } catch (const Json::parse_error& e) {
    const size_t at = e.byte > 0 ? e.byte - 1 : 0;
    for (const size_t start : {at > 0 ? at - 1 : at, at}) {
      for (const std::string_view token : {"-Infinity", "NaN", "Infinity"}) {
        if (start < json.size() && json.substr(start).starts_with(token)) {
          throw InvalidArgument(fmt::format(
              "DeepSpeed config: {} at byte {} is not a JSON number, expected a finite number "
              "(JSON has no NaN or infinity)",
              token, start + 1));
        }
      }
    }
    throw InvalidArgument(
        fmt::format("DeepSpeed config: not a JSON object (invalid JSON at byte {})", e.byte));
  }
}

}  // namespace

DeepSpeedOptimizer deepspeed_optimizer(std::string_view json) {
  const Json config = parse_config(json);
  const Json& block = optimizer_block(config);
  const TypeRule& type = type_rule(block.at("type").get<std::string>());
  const Json params = block.contains("params") ? block.at("params") : Json::object();
  if (!params.is_object()) {
    throw InvalidArgument("DeepSpeed " + type.type + " params = " + params.dump() +
                          ", expected an object");
  }
  return map_params(type, params);
}

DeepSpeedOptimizer deepspeed_optimizer_file(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const std::exception& e) {
    throw InvalidArgument("DeepSpeed config '" + path + "': " + e.what());
  }
  try {
    return deepspeed_optimizer(text);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("DeepSpeed config '" + path + "': " + e.what());
  }
}

std::string deepspeed_table_markdown() {
  // One row per DeepSpeed key and meaning, listing the types it has that meaning in.
  std::vector<std::pair<std::string, std::string>> rows;  // ("`key` | mapped", types)
  for (const TypeRule& t : type_rules()) {
    for (const KeyRule& k : t.keys) {
      const std::string row = "`" + k.key + "` | " + mapped_text(t, k);
      const auto it =
          std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.first == row; });
      if (it == rows.end()) {
        rows.emplace_back(row, t.type);
      } else {
        it->second += ", " + t.type;
      }
    }
  }
  std::string out = "| DeepSpeed key | compopt | types |\n|---|---|---|\n";
  for (const auto& [row, types] : rows) out += "| " + row + " | " + types + " |\n";
  return out;
}

}  // namespace compopt
