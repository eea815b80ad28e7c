#pragma once
// The (method, baseline) pairs of the `methods` study: one row per optimizer family, the
// method's registry name and the optimizer keys a short run needs. The baseline is the
// optimizer registry's `baseline` of the method (core/optim/optimizer_registry.h), so a
// family is added to the side-by-side comparison by one row in method_pairs.cc.
//
// A key's value may end in '%': a percentage of the run's steps (a warmup, a period of
// inner steps), resolved per run length by resolved_keys().

#include <string>
#include <vector>

namespace compopt::cli::reproduce {

struct MethodPair {
  std::string method;             // registry name
  std::vector<std::string> keys;  // "key=value", a value "P%" being P% of the run's steps
};

// Every pair, in the order the study runs and reports them.
const std::vector<MethodPair>& method_pairs();

// The registry's baseline of `method`; throws InvalidArgument naming the method when it is
// not registered or has no baseline (it is a baseline itself).
std::string method_baseline(const std::string& method);

// Every optimizer the pairs train, methods and baselines, each once, in pair order.
std::vector<std::string> method_study_optimizers(const std::vector<MethodPair>& pairs);

// `keys` with each "P%" value replaced by round(P / 100 * steps), at least 1; throws
// InvalidArgument naming the key for an entry without '=' or a percentage outside (0, 100].
std::vector<std::string> resolved_keys(const std::vector<std::string>& keys, int steps);

}  // namespace compopt::cli::reproduce
