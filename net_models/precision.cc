#include "net_models/precision.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/util/error.h"

namespace compopt::net {
namespace {

struct PrecisionRow {
  Precision precision;
  std::string_view name;
  int bytes;
};
constexpr std::array<PrecisionRow, 5> kPrecisions = {{{Precision::kFp32, "fp32", 4},
                                                      {Precision::kTf32, "tf32", 4},
                                                      {Precision::kFp16, "fp16", 2},
                                                      {Precision::kBf16, "bf16", 2},
                                                      {Precision::kFp8, "fp8", 1}}};

const PrecisionRow& row_of(Precision precision) {
  for (const PrecisionRow& row : kPrecisions)
    if (row.precision == precision) return row;
  return kPrecisions.front();
}

}  // namespace

Precision parse_precision(std::string_view name, std::string_view what) {
  for (const PrecisionRow& row : kPrecisions)
    if (row.name == name) return row.precision;
  throw InvalidArgument(
      fmt::format("{} = '{}', expected fp32, tf32, fp16, bf16 or fp8", what, name));
}

std::string_view precision_name(Precision precision) { return row_of(precision).name; }

int precision_bytes(Precision precision) { return row_of(precision).bytes; }

}  // namespace compopt::net
