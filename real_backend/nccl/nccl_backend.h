#pragma once
// Registers the NCCL backend ("nccl": one GPU per rank, native NCCL collectives and the CUDA
// compressed allreduces; nccl_world.h) in a BackendRegistry: launched ranks (`compopt launch`),
// one per device; unavailable without a CUDA device. In-process NCCL ranks need a device each
// and are for the backend's own tests (run_nccl_threads), not the registry: NCCL's summation
// order differs from the ring's, so it is not in the bit-exact conformance suite.

#include "core/comm/backend.h"

namespace compopt::nccl {

void register_nccl_backend(BackendRegistry& registry);

}  // namespace compopt::nccl
