#pragma once
// Registers the hybrid backend ("hybrid": TCP ranks whose compressed allreduces run the CUDA
// kernels, several ranks per GPU allowed; hybrid_world.h) in a BackendRegistry. Launched ranks
// (`compopt launch`) or in-process ranks; unavailable without a CUDA device.

#include "core/comm/backend.h"

namespace compopt::hybrid {

void register_hybrid_backend(BackendRegistry& registry);

}  // namespace compopt::hybrid
