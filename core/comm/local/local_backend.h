#pragma once
// Registers the Local backend ("local": ranks as threads of this process, local_world.h) in a
// BackendRegistry. In-process only; exact and deterministic; `compopt train` runs on it.

#include "core/comm/backend.h"

namespace compopt {

void register_local_backend(BackendRegistry& registry);

}  // namespace compopt
