#include "core/util/job_token.h"

#include <fmt/format.h>

#include <cstdint>
#include <random>

#include "core/util/error.h"

namespace compopt {
namespace {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

uint64_t fnv1a(std::string_view text, uint64_t hash = kFnvOffsetBasis) {
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

}  // namespace

std::string random_job_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", static_cast<uint32_t>(device()));
  return token;
}

std::string job_token_from_run_id(std::string_view run_id) {
  if (run_id.empty()) throw InvalidArgument("empty run id, expected a non-empty job identifier");
  const uint64_t once = fnv1a(run_id);
  return fmt::format("{:016x}{:016x}", once, fnv1a(run_id, once));
}

}  // namespace compopt
