#pragma once
// How a transformer's attention keeps its activations for backward: `unfused` (the scores,
// softmax and dropout mask of every head stored, a*s^2 values per layer and sample) or `flash`
// (FlashAttention, Dao et al. 2022, arXiv 2205.14135: recomputes them in backward from the
// saved softmax statistics, so none of the a*s^2 terms is stored). The memory estimate
// (net_models/workload.h, activation_bytes) uses it; docs/implementations.md has the figures.

#include <string_view>

namespace compopt::net {

enum class AttentionKind { kUnfused, kFlash };

const char* attention_kind_name(AttentionKind kind);
// Throws InvalidArgument ("workload.attention = 'x', expected unfused or flash").
AttentionKind parse_attention_kind(std::string_view name, std::string_view what);

}  // namespace compopt::net
