#pragma once
// NCCL status checks of real_backend/nccl: a failed call throws CommError
// "nccl <op>: <ncclGetErrorString> (<ncclGetLastError>)", so a user sees which collective failed
// and NCCL's own explanation.

#include <nccl.h>

namespace compopt::nccl {

// Throws CommError naming `op` unless status is ncclSuccess; comm (may be null) adds NCCL's
// last error message.
void check_nccl(ncclResult_t status, const char* op, ncclComm_t comm = nullptr);

}  // namespace compopt::nccl
