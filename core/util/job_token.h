#pragma once
// The job token: the shared secret every rank of a TCP job presents at the
// rendezvous and on each mesh connection. Either random (one launch on one
// machine) or derived from a run id that every node already shares (torchrun's
// TORCHELASTIC_RUN_ID, `compopt launch --run-id`): a derived token is exactly as
// secret as the run id it comes from.

#include <string>
#include <string_view>

namespace compopt {

// A random token of 32 hex digits from std::random_device.
std::string random_job_token();

// 32 hex digits, the same for the same run id on every machine: the FNV-1a 64-bit
// hashes of the run id and of the run id twice over. Throws InvalidArgument for an
// empty run id.
std::string job_token_from_run_id(std::string_view run_id);

}  // namespace compopt
