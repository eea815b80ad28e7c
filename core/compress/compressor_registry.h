#pragma once
// The compressor registry: one entry per compressor with its name, aliases, help, the form
// of its optional parameter ("nbit:B") and its builder. make_compressor (compressor.h),
// error messages ("expected one of ..."), --help texts and the table in
// docs/compressors.md all come from it.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/compress/compressor.h"
#include "core/util/registry.h"

namespace compopt {

// Builds the compressor; `parameter` is the text after ':' (nullopt without one). Throws
// InvalidArgument with a reason ("bit width 17 is outside 2..16") for a bad parameter.
using CompressorBuilder =
    std::function<std::unique_ptr<Compressor>(std::optional<std::string_view> parameter)>;

struct CompressorEntry : RegistryEntry {
  std::string parameter;       // the spec form with a parameter ("nbit:B"); empty: none
  std::string parameter_help;  // what the parameter means, its range and default
  std::string wire;            // wire bytes of one message of k elements
  CompressorBuilder build;
};

const Registry<CompressorEntry>& compressor_registry();

// "identity | fp16 | ... | nbit:B (B an integer in 2..16, default 8) | ..." for messages.
std::string compressor_forms();

// The markdown table of docs/compressors.md.
std::string compressor_table_markdown();

}  // namespace compopt
