#pragma once
// IoError: a file-system operation failed. Carries the errno value and the path,
// and reads like "cannot write runs/x/metrics.csv: No space left on device".

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace compopt {

class IoError : public std::runtime_error {
 public:
  // `action` is the verb phrase ("write", "rename runs/a to"), `error` an errno value.
  IoError(std::string_view action, const std::filesystem::path& path, int error);

  int error_code() const { return error_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  int error_;
  std::filesystem::path path_;
};

}  // namespace compopt
