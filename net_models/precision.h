#pragma once
// Number formats of GPU compute and of gradients on the wire: their names in TOML and CSVs
// ("fp32", "tf32", "fp16", "bf16", "fp8") and their size in bytes.

#include <string_view>

namespace compopt::net {

enum class Precision { kFp32, kTf32, kFp16, kBf16, kFp8 };

// Throws InvalidArgument naming `name` and the known precisions.
Precision parse_precision(std::string_view name, std::string_view what);
std::string_view precision_name(Precision precision);
// Bytes of one value (tf32 is stored as fp32).
int precision_bytes(Precision precision);

}  // namespace compopt::net
