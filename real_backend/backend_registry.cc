#include "real_backend/backend_registry.h"

namespace compopt {

const BackendRegistry& backend_registry() {
  static const BackendRegistry registry = [] {
    BackendRegistry r("backend");
    register_built_backends(r);
    return r;
  }();
  return registry;
}

}  // namespace compopt
