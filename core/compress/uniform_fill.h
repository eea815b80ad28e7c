#pragma once
// Bulk draws from a RandomKey: u[i] = key.uniform(first + i), bit-identical to calling
// RandomKey::uniform per element, but with one Philox call per 4 consecutive global indices.

#include <cstdint>
#include <span>

#include "core/compress/random_key.h"

namespace compopt {

void fill_uniforms(const RandomKey& key, uint64_t first, std::span<float> u);

}  // namespace compopt
