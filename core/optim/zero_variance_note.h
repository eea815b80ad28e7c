#pragma once
// The hazard of freezing a variance that holds exact zeros (1-bit Adam, 1-bit LAMB): an element
// whose gradient was 0 at every warmup step (e.g. an input pixel that is always 0) keeps v = 0
// and m = 0; once the momentum is 1-bit compressed it carries its chunk's scale, and the
// element then steps by lr x |m| / eps, 1/eps times a normal Adam step. Named at the freeze
// step so that a later "non-finite" stop has its cause on record.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace compopt {

// A note for `optimizer` frozen at `step` when `variance` has exact zeros: how many, and the
// step size that follows at learning rate `lr` and denominator guard `eps`; nullopt when none.
std::optional<std::string> zero_variance_note(const std::string& optimizer, int64_t step,
                                              std::span<const float> variance, double lr,
                                              double eps);

}  // namespace compopt
