#pragma once
// The registry of every backend this program knows (core/comm/backend.h), in the order local,
// sim, tcp, mpi, hybrid, nccl. Backends this build lacks are listed too: their available()
// says "not built: <reason>" and run() refuses. Commands and tests take backends from here:
//
//   backend_registry().get(name).run(options, fn);   // unknown name: InvalidArgument listing all
//
// Filled on first use from built_backends.cc, which CMake generates from the backends it built.

#include "core/comm/backend.h"

namespace compopt {

const BackendRegistry& backend_registry();

// Adds every backend in registry order: built ones through their register_<name>_backend,
// unbuilt ones with unbuilt_backend() (defined in the generated file).
void register_built_backends(BackendRegistry& registry);

}  // namespace compopt
