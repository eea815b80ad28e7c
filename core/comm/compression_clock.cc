#include "core/comm/compression_clock.h"

#include <chrono>

namespace compopt {
namespace {

thread_local double total_s = 0;

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

double compression_seconds() { return total_s; }

CompressionScope::CompressionScope() : start_s_(wall_seconds()) {}

CompressionScope::~CompressionScope() { total_s += wall_seconds() - start_s_; }

}  // namespace compopt
