#include "core/compress/compressor_registry.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/compress/binary.h"
#include "core/compress/fp16.h"
#include "core/compress/identity.h"
#include "core/compress/nbit.h"
#include "core/compress/sign.h"
#include "core/compress/topk.h"
#include "core/util/error.h"

namespace compopt {
namespace {

template <typename C>
CompressorEntry plain(std::string name, std::string help, std::string wire) {
  CompressorEntry e;
  e.name = std::move(name);
  e.help = std::move(help);
  e.wire = std::move(wire);
  e.build = [](std::optional<std::string_view>) { return std::make_unique<C>(); };
  return e;
}

std::unique_ptr<Compressor> build_nbit(std::optional<std::string_view> digits) {
  if (!digits) return std::make_unique<NbitCompressor>(NbitCompressor::kDefaultBits);
  unsigned bits = 0;
  const auto [end, ec] = std::from_chars(digits->data(), digits->data() + digits->size(), bits);
  if (digits->empty() || ec != std::errc() || end != digits->data() + digits->size()) {
    throw InvalidArgument("bit width is not a decimal integer");
  }
  if (bits < NbitCompressor::kMinBits || bits > NbitCompressor::kMaxBits) {
    throw InvalidArgument(fmt::format("bit width {} is outside {}..{}", bits,
                                      NbitCompressor::kMinBits, NbitCompressor::kMaxBits));
  }
  return std::make_unique<NbitCompressor>(bits);
}

std::unique_ptr<Compressor> build_topk(std::optional<std::string_view> text) {
  if (!text) return std::make_unique<TopkCompressor>(TopkCompressor::kDefaultRatio);
  double ratio = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), ratio);
  if (text->empty() || ec != std::errc() || end != text->data() + text->size() ||
      !std::isfinite(ratio)) {
    throw InvalidArgument("ratio is not a decimal number");
  }
  if (!(ratio > 0.0 && ratio <= 1.0)) {
    throw InvalidArgument(fmt::format("ratio {} is outside (0, 1]", ratio));
  }
  return std::make_unique<TopkCompressor>(ratio);
}

CompressorEntry with_parameter(std::string name, std::string help, std::string parameter,
                               std::string parameter_help, std::string wire,
                               CompressorBuilder build) {
  CompressorEntry e;
  e.name = std::move(name);
  e.help = std::move(help);
  e.parameter = std::move(parameter);
  e.parameter_help = std::move(parameter_help);
  e.wire = std::move(wire);
  e.build = std::move(build);
  return e;
}

Registry<CompressorEntry> make_registry() {
  Registry<CompressorEntry> reg("compressor");
  reg.add(plain<IdentityCompressor>("identity", "fp32 copy (reference runs)", "4k"));
  reg.add(plain<Fp16Compressor>("fp16", "IEEE half precision, round to nearest even", "2k"));
  reg.add(
      plain<SignCompressor>("sign", "1-bit signs with the scale ||x||_2/sqrt(k)", "ceil(k/8) + 4"));
  reg.add(plain<BinaryCompressor>("binary", "Birder's stochastic 1-bit operator, no scale",
                                  "ceil(k/8)"));
  reg.add(with_parameter("nbit", "stochastic B-bit levels with the scale max |x_j|", "nbit:B",
                         "B an integer in 2..16, default 8", "ceil(k*B/8) + 4", build_nbit));
  reg.add(with_parameter("topk", "largest-magnitude R*k elements as (index, value) pairs", "topk:R",
                         "R a number in (0, 1], default 0.01", "4 + 8*ceil(R*k)", build_topk));
  return reg;
}

}  // namespace

const Registry<CompressorEntry>& compressor_registry() {
  static const Registry<CompressorEntry> registry = make_registry();
  return registry;
}

std::string compressor_forms() {
  std::string out;
  for (const auto& e : compressor_registry().entries()) {
    out += (out.empty() ? "" : " | ") + e.name;
    if (!e.parameter.empty()) out += " | " + e.parameter + " (" + e.parameter_help + ")";
  }
  return out;
}

std::string compressor_table_markdown() {
  std::string out = "| spec | parameter | wire bytes for `k` elements | what it sends |\n";
  out += "|---|---|---|---|\n";
  for (const auto& e : compressor_registry().entries()) {
    const std::string parameter =
        e.parameter.empty() ? "—" : "`" + e.parameter + "`: " + e.parameter_help;
    out += fmt::format("| `{}` | {} | `{}` | {} |\n", e.name, parameter, e.wire, e.help);
  }
  return out;
}

std::unique_ptr<Compressor> make_compressor(std::string_view spec) {
  const auto bad = [&](const std::string& why) {
    return InvalidArgument("invalid compressor spec \"" + std::string(spec) + "\"" + why +
                           "; expected one of " + compressor_forms());
  };
  const size_t colon = spec.find(':');
  const CompressorEntry* entry = compressor_registry().find(spec.substr(0, colon));
  if (entry == nullptr) throw bad("");
  std::optional<std::string_view> parameter;
  if (colon != std::string_view::npos) {
    if (entry->parameter.empty()) throw bad(": " + entry->name + " takes no parameter");
    parameter = spec.substr(colon + 1);
  }
  try {
    return entry->build(parameter);
  } catch (const InvalidArgument& e) {
    throw bad(std::string(": ") + e.what());
  }
}

}  // namespace compopt
