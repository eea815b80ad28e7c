#pragma once
// GpuSpec: what the simulator knows about one GPU: peak dense FLOP/s per compute precision
// (public datasheets, no sparsity), HBM capacity and bandwidth, and the utilisation curve
// that turns a pass of W FLOPs over L layers into time (docs/whatif.md, "Compute model"):
//
//   pass time = L x layer_overhead_s + W / (peak(precision) x max_utilization)
//
// so the achieved utilisation W / (time x peak) rises with the micro-batch towards
// max_utilization and never exceeds the peak. A GPU may carry a second max_utilization for its
// tensor-core precisions (fp16, bf16, fp8), where the public sources on large transformer
// training give one; each figure names its source (docs/calibration.md, "Compute"), and a
// figure borrowed from another GPU says so in that text. The presets form one registry (name,
// aliases, help, the spec).

#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"
#include "net_models/precision.h"

namespace compopt::net {

// One utilisation curve of a GPU and where its figures come from.
struct UtilizationCurve {
  double max_utilization = 0;
  double layer_overhead_s = 0;
  std::string source;
};

struct GpuSpec {
  std::string name = "custom";
  // Peak dense TFLOP/s per precision; 0 = the GPU has no such unit.
  double fp32_tflops = 0, tf32_tflops = 0, fp16_tflops = 0, bf16_tflops = 0, fp8_tflops = 0;
  double hbm_gb = 0;             // memory capacity, 1e9 bytes
  double hbm_gbps = 0;           // memory bandwidth, GB/s (1e9 bytes per second)
  double max_utilization = 0.5;  // fraction of the peak large micro-batches reach, (0, 1]
  double layer_overhead_s = 0;   // fixed time per layer and pass (launches, small-batch fill)
  std::string calibration;       // where max_utilization and layer_overhead_s come from
  // fp16, bf16 and fp8 passes: their own max_utilization (0: max_utilization above) and its
  // source; they share layer_overhead_s.
  double tensor_max_utilization = 0;
  std::string tensor_calibration;

  // The curve a pass at `precision` runs on.
  UtilizationCurve curve(Precision precision) const;
  // Peak FLOP/s of `precision`; throws InvalidArgument when the GPU has no such unit.
  double peak_flops(Precision precision) const;
  // Throws InvalidArgument naming the first bad field (a utilisation above 1 implies more
  // than the peak; tensor_max_utilization may be 0).
  void validate() const;
};

struct GpuEntry : RegistryEntry {
  GpuSpec spec;  // its `name` is the entry's canonical name
};

const Registry<GpuEntry>& gpu_registry();
// The spec of a GPU name or alias; throws InvalidArgument listing the known GPUs.
GpuSpec gpu_preset(std::string_view name);

}  // namespace compopt::net
