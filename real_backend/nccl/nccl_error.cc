#include "real_backend/nccl/nccl_error.h"

#include <fmt/format.h>

#include "core/util/error.h"

namespace compopt::nccl {

void check_nccl(ncclResult_t status, const char* op, ncclComm_t comm) {
  if (status == ncclSuccess) return;
  const char* last = ncclGetLastError(comm);
  throw CommError(
      fmt::format("nccl {}: {}{}", op, ncclGetErrorString(status),
                  last != nullptr && *last != '\0' ? fmt::format(" ({})", last) : std::string()));
}

}  // namespace compopt::nccl
