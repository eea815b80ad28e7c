#include "core/util/io_error.h"

#include <fmt/format.h>

#include <cstring>

namespace compopt {

IoError::IoError(std::string_view action, const std::filesystem::path& path, int error)
    : std::runtime_error(
          fmt::format("cannot {} {}: {}", action, path.string(), std::strerror(error))),
      error_(error),
      path_(path) {}

}  // namespace compopt
