#pragma once
// Error types used at compopt's boundaries (CLI, config, files, collectives' arguments).
// Messages name the bad value and what was expected.

#include <stdexcept>
#include <string>

namespace compopt {

// A caller passed a value outside the contract (bad size, rank, name, range).
class InvalidArgument : public std::invalid_argument {
 public:
  explicit InvalidArgument(const std::string& what) : std::invalid_argument(what) {}
};

// A peer failed or a message could not be delivered (dead rank, timeout, corrupt frame).
class CommError : public std::runtime_error {
 public:
  explicit CommError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace compopt
