#pragma once
// Hybrid mode: ranks are TCP ranks (real_backend/tcp) that run the compression kernels on a GPU,
// several ranks per GPU if need be (NCCL refuses two ranks of one communicator on one device, so
// this is how one GPU exercises the GPU compression path with many ranks). Collectives move host
// bytes over TCP; the rank's HybridCommunicator (hybrid_communicator.h) runs the compressed
// allreduces with the CUDA kernels, staging the compressed bits through pinned memory.
//
//   run_hybrid_rank(tcp_options_from_env(), fn)  one rank per process (`compopt launch`): device
//                                                $LOCAL_RANK mod device count
//   run_hybrid_threads(n, gpus_per_node, fn)    n ranks as threads (tests): rank r on device
//                                                r mod device count
// Each rank gets its own GpuContext (own stream), its communicator's gpu() while fn runs.
// Failures propagate as in run_tcp_rank / run_tcp_threads. Throws CudaError when no CUDA device
// is usable.

#include <functional>

#include "real_backend/cuda_kernels/gpu_context.h"
#include "real_backend/hybrid/hybrid_communicator.h"
#include "real_backend/tcp/tcp_options.h"

namespace compopt::hybrid {

using HybridFn = std::function<void(HybridCommunicator& comm)>;

void run_hybrid_rank(const tcp::TcpOptions& options, const HybridFn& fn);

void run_hybrid_threads(int ranks, int gpus_per_node, const HybridFn& fn,
                        tcp::TcpOptions base = {});

}  // namespace compopt::hybrid
