#pragma once
// Entry points of the NCCL backend. Ranks first connect over TCP (real_backend/tcp: the same
// rendezvous, environment and `compopt launch` as the TCP backend); rank 0 creates the
// ncclUniqueId and broadcasts it over that connection; every rank then joins the NCCL world on
// its device and runs fn on an NcclCommunicator.
//
//   run_nccl_rank(tcp_options_from_env(), fn)   one rank per process; device $LOCAL_RANK mod the
//                                               device count
//   run_nccl_threads(n, gpus_per_node, fn)     n ranks as threads, rank r on device r (tests;
//                                               needs n <= device count)
//
// fn's Communicator is an NcclCommunicator (nccl_communicator.h); its gpu() context is the one
// its compressed collectives run the kernels of real_backend/cuda_kernels on. Failures propagate as
// in run_tcp_rank / run_tcp_threads.

#include <functional>
#include <string>

#include "core/comm/communicator.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::nccl {

void run_nccl_rank(const tcp::TcpOptions& options, const std::function<void(Communicator&)>& fn);

// Throws InvalidArgument when n exceeds the number of devices (NCCL needs one device per rank).
void run_nccl_threads(int ranks, int gpus_per_node, const std::function<void(Communicator&)>& fn,
                      tcp::TcpOptions base = {});

// "major.minor.patch" of the NCCL library loaded at run time.
std::string nccl_version();

}  // namespace compopt::nccl
