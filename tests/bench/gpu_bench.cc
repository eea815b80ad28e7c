// compopt_gpu_bench: the CUDA kernels against a device-to-device copy measured in the same run
// (runs only on a machine with a CUDA device; built whenever CUDA is).
//
// Every kernel benchmark reports the bytes its minimal passes must move (counter "bytes"):
//   sign_ef_encode     pass 1 reads x, e, writes y = x + e into e; pass 2 reads e, writes e and
//                      the bits:                                                       20k + k/8
//   sign_encode        one pass (no error feedback): reads x, writes the bits:          4k + k/8
//   binary_ef_encode   one pass: reads x, e, writes e and the bits:                    12k + k/8
//   sign_decode        reads the bits, writes k floats:                                 4k + k/8
//   server_step_sign   n chunks of bits in, e read, z written, z read, e and bits out:
//                                                                              16c + (n+1)c/8
//   server_step_binary n chunks of bits in, e read, e and bits out:            8c + (n+1)c/8
//   decode_messages    n messages of bits in, k floats out:                            4k + k/8
//   adam_update        reads g, m, v, x; writes m, v, x:                                    28k
//   lamb_step          direction: reads g, m, v, x, writes m, v, u; norms: reads x, u;
//                      update: reads x, u, writes x:                                        48k
// and the table at the end divides its effective bandwidth (bytes / time) by the bandwidth of
// BM_gpu_d2d_copy of the same element count (2 x 4k bytes / time). Target: >= 0.8.
// Then a compressed allreduce step is broken down by phase for 1..8 ranks sharing the GPU over
// the in-process local transport (exchanges staged through pinned host memory, as in hybrid mode).
//
// Flags: Google Benchmark's, plus --breakdown_elements=N (default 2^24, 0 skips the breakdown).

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/comm/local/local_world.h"
#include "real_backend/cuda_kernels/device_segments.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"
#include "real_backend/cuda_kernels/kernels.h"
#include "real_backend/cuda_kernels/optimizer_kernels.h"

namespace compopt::cuda::bench {
namespace {

constexpr int64_t kMinElements = int64_t{1} << 20;
constexpr int64_t kMaxElements = int64_t{1} << 28;

GpuContext& gpu() {
  static GpuContext context(0);
  return context;
}

// Times `body` (queued on the context's stream) with CUDA events; one iteration per loop pass.
template <class Body>
void time_on_stream(benchmark::State& state, double bytes, Body&& body) {
  auto stream = static_cast<cudaStream_t>(gpu().stream());
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  body();  // warm-up (allocations, first launch)
  gpu().synchronize();
  for (auto _ : state) {
    cudaEventRecord(start, stream);
    body();
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  state.counters["bytes"] = benchmark::Counter(bytes);
  state.counters["elements"] = benchmark::Counter(static_cast<double>(state.range(0)));
  state.SetBytesProcessed(static_cast<int64_t>(bytes) * state.iterations());
}

// Fills a device float buffer with values in about [-2, 2] (a host pattern copied once).
DeviceBuffer filled(size_t k, float scale) {
  DeviceBuffer buffer(k * sizeof(float));
  std::vector<float> host(std::min<size_t>(k, size_t{1} << 20));
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = scale * static_cast<float>(((i * 2654435761u) >> 8) % 4001) / 1000.0f - 2.0f * scale;
  for (size_t at = 0; at < k; at += host.size()) {
    gpu().copy(buffer.as<float>() + at, host.data(), std::min(host.size(), k - at) * sizeof(float));
  }
  gpu().synchronize();
  return buffer;
}

void BM_gpu_d2d_copy(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  DeviceBuffer src = filled(k, 1.0f), dst(k * sizeof(float));
  time_on_stream(state, 2.0 * 4.0 * static_cast<double>(k),
                 [&] { gpu().copy(dst.data(), src.data(), k * sizeof(float)); });
}

void BM_gpu_sign_ef_encode(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  DeviceBuffer x = filled(k, 1.0f), e = filled(k, 0.01f), payload(payload_bytes(k)),
               scale(sizeof(float));
  time_on_stream(state, 20.0 * static_cast<double>(k) + static_cast<double>(k) / 8, [&] {
    sign_encode(gpu(), x.as<float>(), k, e.as<float>(), k, payload.as<std::byte>(),
                scale.as<float>());
  });
}

void BM_gpu_sign_encode(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  DeviceBuffer x = filled(k, 1.0f), payload(payload_bytes(k)), scale(sizeof(float));
  time_on_stream(state, 4.0 * static_cast<double>(k) + static_cast<double>(k) / 8, [&] {
    sign_encode(gpu(), x.as<float>(), k, nullptr, k, payload.as<std::byte>(), scale.as<float>());
  });
}

void BM_gpu_binary_ef_encode(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  DeviceBuffer x = filled(k, 0.4f), e = filled(k, 0.01f), payload(payload_bytes(k));
  RandomKey key{.seed = 1};
  time_on_stream(state, 12.0 * static_cast<double>(k) + static_cast<double>(k) / 8, [&] {
    binary_encode(gpu(), x.as<float>(), k, e.as<float>(), k, payload.as<std::byte>(), key, nullptr);
    ++key.step;
  });
}

void BM_gpu_sign_decode(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  DeviceBuffer out(k * sizeof(float)), payload(payload_bytes(k)), scale = filled(1, 1.0f);
  gpu().zero(payload.data(), payload.size());
  time_on_stream(state, 4.0 * static_cast<double>(k) + static_cast<double>(k) / 8, [&] {
    sign_decode(gpu(), payload.as<std::byte>(), scale.as<float>(), k, out.as<float>());
  });
}

// range(0) = chunk elements, range(1) = n ranks.
void server_step_benchmark(benchmark::State& state, Codec codec) {
  const auto chunk = static_cast<size_t>(state.range(0));
  const auto n = static_cast<int>(state.range(1));
  DeviceBuffer received(static_cast<size_t>(n) * payload_bytes(chunk)),
      scales = filled(static_cast<size_t>(n), 1.0f);
  DeviceBuffer error = filled(chunk, 0.01f), message(message_bytes(codec, chunk));
  gpu().zero(received.data(), received.size());
  const double c = static_cast<double>(chunk);
  const double bytes = (codec == Codec::kSign ? 16.0 : 8.0) * c + (n + 1) * c / 8;
  RandomKey key{.seed = 2, .stream = 1};
  time_on_stream(state, bytes, [&] {
    server_step(gpu(), codec, received.as<std::byte>(), scales.as<float>(), n, chunk,
                error.as<float>(), message.as<std::byte>(), key);
    ++key.step;
  });
}
void BM_gpu_server_step_sign(benchmark::State& state) {
  server_step_benchmark(state, Codec::kSign);
}
void BM_gpu_server_step_binary(benchmark::State& state) {
  server_step_benchmark(state, Codec::kBinary);
}

// range(0) = k output elements, range(1) = n messages.
void BM_gpu_decode_messages(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  const auto n = static_cast<size_t>(state.range(1));
  const size_t chunk = k / n;
  DeviceBuffer messages(n * message_bytes(Codec::kSign, chunk)), out(k * sizeof(float));
  gpu().zero(messages.data(), messages.size());
  time_on_stream(state, 4.0 * static_cast<double>(k) + static_cast<double>(k) / 8, [&] {
    decode_messages(gpu(), Codec::kSign, messages.as<std::byte>(), n, chunk, out.as<float>(), k);
  });
}

void BM_gpu_adam_update(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  DeviceBuffer x = filled(k, 1.0f), g = filled(k, 0.1f), m = filled(k, 0.01f), v = filled(k, 0.0f);
  gpu().zero(v.data(), v.size());
  const AdamFactors f = adam_factors({0.9f, 0.999f, true}, 10, 1e-8f);
  time_on_stream(state, 28.0 * static_cast<double>(k), [&] {
    adam_update(gpu(), f, m.as<float>(), v.as<float>(), x.as<float>(), g.as<float>(), k, 1e-4f,
                0.01f);
  });
}

// LAMB over tensors of 2^20 elements (BERT-Large's largest are 1024 x 4096 = 2^22).
void BM_gpu_lamb_step(benchmark::State& state) {
  const auto k = static_cast<size_t>(state.range(0));
  std::vector<std::pair<std::string, size_t>> tensors;
  for (size_t at = 0; at < k; at += size_t{1} << 20) {
    tensors.emplace_back(std::to_string(tensors.size()), std::min(k - at, size_t{1} << 20));
  }
  const ParamLayout layout = ParamLayout::from_sizes(tensors);
  DeviceSegments segments(gpu(), layout);
  DeviceBuffer x = filled(k, 1.0f), g = filled(k, 0.1f), m = filled(k, 0.01f), v = filled(k, 0.0f);
  DeviceBuffer coefficients(tensors.size() * sizeof(double)), steps(tensors.size() * sizeof(float));
  gpu().zero(v.data(), v.size());
  const AdamFactors f = adam_factors({0.9f, 0.999f, true}, 10, 1e-6f);
  time_on_stream(state, 48.0 * static_cast<double>(k), [&] {
    lamb_direction(gpu(), f, m.as<float>(), v.as<float>(), x.as<float>(), g.as<float>(),
                   g.as<float>(), k, 0.01f);
    lamb_apply(gpu(), segments.table(), x.as<float>(), g.as<float>(), 1e-4f, 0.01, 10.0,
               coefficients.as<double>(), steps.as<float>());
  });
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int64_t k = kMinElements; k <= kMaxElements; k *= 4) b->Arg(k);
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}
void server_sizes(benchmark::internal::Benchmark* b) {
  for (int64_t k = kMinElements; k <= kMaxElements; k *= 4) {
    for (int64_t n : {4, 8}) b->Args({k / n, n});
  }
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_gpu_d2d_copy)->Apply(sizes);
BENCHMARK(BM_gpu_sign_ef_encode)->Apply(sizes);
BENCHMARK(BM_gpu_sign_encode)->Apply(sizes);
BENCHMARK(BM_gpu_binary_ef_encode)->Apply(sizes);
BENCHMARK(BM_gpu_adam_update)->Apply(sizes);
BENCHMARK(BM_gpu_lamb_step)->Apply(sizes);
BENCHMARK(BM_gpu_sign_decode)->Apply(sizes);
BENCHMARK(BM_gpu_server_step_sign)->Apply(server_sizes);
BENCHMARK(BM_gpu_server_step_binary)->Apply(server_sizes);
BENCHMARK(BM_gpu_decode_messages)->Apply([](benchmark::internal::Benchmark* b) {
  for (int64_t k = kMinElements; k <= kMaxElements; k *= 4) b->Args({k, 8});
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
});

// Prints "fraction of D2D copy" after the usual console output.
class CopyFractionReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    benchmark::ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred || run.iterations == 0) continue;
      const auto bytes = run.counters.find("bytes"), elements = run.counters.find("elements");
      if (bytes == run.counters.end() || elements == run.counters.end()) continue;
      const double seconds = run.real_accumulated_time / static_cast<double>(run.iterations);
      const std::string name = run.benchmark_name();
      const double bandwidth = bytes->second.value / seconds;
      if (name.rfind("BM_gpu_d2d_copy/", 0) == 0) {
        copy_[elements->second.value] = bandwidth;
      } else {
        order_.push_back({name, elements->second.value, bandwidth, seconds});
      }
    }
  }
  void Finalize() override {
    benchmark::ConsoleReporter::Finalize();
    std::ostream& out = GetOutputStream();
    out << "\nfraction of D2D copy = (minimal bytes / time) / (2 x 4 bytes x elements / copy "
           "time), "
           "copy of the same element count (target >= 0.8)\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-40s %12s %10s %12s %10s\n", "benchmark", "time_us", "GB/s",
                  "copy GB/s", "fraction");
    out << line;
    for (const Entry& e : order_) {
      // Server steps run on chunks: compare with the copy of the nearest element count measured.
      auto copy = copy_.lower_bound(e.elements);
      if (copy == copy_.end() && !copy_.empty()) copy = std::prev(copy_.end());
      if (copy == copy_.end()) continue;
      std::snprintf(line, sizeof line, "%-40s %12.1f %10.1f %12.1f %10.2f\n", e.name.c_str(),
                    e.seconds * 1e6, e.bandwidth / 1e9, copy->second / 1e9,
                    e.bandwidth / copy->second);
      out << line;
    }
  }

 private:
  struct Entry {
    std::string name;
    double elements, bandwidth, seconds;
  };
  std::vector<Entry> order_;
  std::map<double, double> copy_;  // elements -> copy bandwidth
};

// Phase breakdown of the compressed allreduce, n ranks sharing the GPU over the local transport.
void print_step_breakdown(size_t k) {
  std::printf(
      "\ncompressed allreduce step, %zu elements per rank, ranks sharing GPU 0 over the local "
      "transport (exchanges staged through pinned host memory); mean ms per phase of rank 0\n",
      k);
  std::printf("%-8s %6s %9s %9s %9s %9s %9s %9s\n", "codec", "ranks", "encode", "alltoall",
              "server", "allgather", "decode", "total");
  constexpr int kWarmup = 2, kIterations = 10;
  for (Codec codec : {Codec::kSign, Codec::kBinary}) {
    for (int n : {1, 2, 4, 8}) {
      CompressedStepTimes sum;
      LocalWorld({.ranks = n}).run([&](Communicator& comm) {
        GpuContext context(0);
        GpuCompressedState ef(context, k, n);
        DeviceBuffer x(k * sizeof(float));
        context.zero(x.data(), x.size());
        CompressedStepTimes times, mine;
        for (int it = 0; it < kWarmup + kIterations; ++it) {
          comm.barrier();
          compressed_allreduce_mean(context, comm, x.as<float>(), k, codec, ef.view(),
                                    RandomKey{.seed = 1, .step = static_cast<uint64_t>(it)},
                                    &times);
          if (it < kWarmup) continue;
          mine.encode += times.encode, mine.alltoall += times.alltoall, mine.server += times.server;
          mine.allgather += times.allgather, mine.decode += times.decode;
        }
        if (comm.rank() == 0) sum = mine;
      });
      const double total = sum.encode + sum.alltoall + sum.server + sum.allgather + sum.decode;
      const double ms = 1e3 / kIterations;
      std::printf("%-8s %6d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n",
                  codec == Codec::kSign ? "sign" : "binary", n, sum.encode * ms, sum.alltoall * ms,
                  sum.server * ms, sum.allgather * ms, sum.decode * ms, total * ms);
    }
  }
}

}  // namespace
}  // namespace compopt::cuda::bench

int main(int argc, char** argv) {
  size_t breakdown_elements = size_t{1} << 24;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    constexpr const char kFlag[] = "--breakdown_elements=";
    if (std::strncmp(argv[i], kFlag, sizeof kFlag - 1) == 0) {
      breakdown_elements = std::strtoull(argv[i] + sizeof kFlag - 1, nullptr, 10);
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  if (compopt::cuda::device_count() == 0) {
    std::fprintf(stderr, "compopt_gpu_bench: skipped: %s\n",
                 compopt::cuda::unavailable_reason().c_str());
    return 0;
  }
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  compopt::cuda::bench::CopyFractionReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (breakdown_elements > 0) compopt::cuda::bench::print_step_breakdown(breakdown_elements);
  return 0;
}
