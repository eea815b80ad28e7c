#pragma once
// Test helper: the message of the compopt::InvalidArgument that `fn` throws, for assertions on
// what a user would read. A call that throws none records a test failure and returns "".

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "core/util/error.h"

namespace compopt::testing_support {

template <typename Fn>
std::string invalid_argument_message(Fn&& fn) {
  try {
    std::forward<Fn>(fn)();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidArgument";
  return "";
}

}  // namespace compopt::testing_support
