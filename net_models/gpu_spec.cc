#include "net_models/gpu_spec.h"

#include <fmt/format.h>

#include <cmath>

#include "core/util/error.h"

namespace compopt::net {

double GpuSpec::peak_flops(Precision precision) const {
  double tflops = 0;
  switch (precision) {
    case Precision::kFp32:
      tflops = fp32_tflops;
      break;
    case Precision::kTf32:
      tflops = tf32_tflops;
      break;
    case Precision::kFp16:
      tflops = fp16_tflops;
      break;
    case Precision::kBf16:
      tflops = bf16_tflops;
      break;
    case Precision::kFp8:
      tflops = fp8_tflops;
      break;
  }
  if (!(tflops > 0)) {
    throw InvalidArgument(fmt::format("GPU '{}' has no {} unit ({}_tflops = 0)", name,
                                      precision_name(precision), precision_name(precision)));
  }
  return tflops * 1e12;
}

namespace {

void require_finite_at_least(double value, double lo, const char* field, const std::string& gpu) {
  if (!std::isfinite(value) || value < lo || value > 1e9) {
    throw InvalidArgument(
        fmt::format("GPU '{}': {} = {}, expected a finite value >= {}", gpu, field, value, lo));
  }
}

}  // namespace

void GpuSpec::validate() const {
  for (const auto& [value, field] : {std::pair{fp32_tflops, "fp32_tflops"},
                                     {tf32_tflops, "tf32_tflops"},
                                     {fp16_tflops, "fp16_tflops"},
                                     {bf16_tflops, "bf16_tflops"},
                                     {fp8_tflops, "fp8_tflops"},
                                     {layer_overhead_s, "layer_overhead_s"}})
    require_finite_at_least(value, 0, field, name);
  if (!(fp32_tflops > 0)) {
    throw InvalidArgument(
        fmt::format("GPU '{}': fp32_tflops = {}, expected > 0", name, fp32_tflops));
  }
  require_finite_at_least(hbm_gb, 1e-3, "hbm_gb", name);
  require_finite_at_least(hbm_gbps, 1e-3, "hbm_gbps", name);
  if (!(max_utilization > 0 && max_utilization <= 1)) {
    throw InvalidArgument(fmt::format(
        "GPU '{}': max_utilization = {}, expected above 0 and at most 1 (a larger value would "
        "compute faster than the GPU's peak)",
        name, max_utilization));
  }
}

namespace {

// Fits of docs/calibration.md ("Compute"): V100 on the 13 rows of 1-bit Adam's Table 1
// (BERT-Large, fp16), A100 on Birder's single-node rows (ResNet-50 and BERT-Base, tf32).
constexpr double kV100Utilization = 0.5539, kV100LayerOverhead = 0.8809e-3;
constexpr double kA100Utilization = 0.1128, kA100LayerOverhead = 0.2347e-3;
constexpr const char* kV100Fit = "fitted: 1-bit Adam Table 1 (BERT-Large on V100)";
constexpr const char* kA100Fit = "fitted: Birder Tables 1-2, single node (A100)";
constexpr const char* kCarriedA100 = "A100 fit carried over (no published rows for this GPU)";

GpuEntry entry(std::vector<std::string> aliases, std::string help, GpuSpec spec) {
  GpuEntry e;
  e.name = spec.name;
  e.aliases = std::move(aliases);
  e.help = std::move(help);
  e.spec = std::move(spec);
  return e;
}

// A800, H800, H20 and GB200; no published step profile for any: the A100 fit is carried over.
void add_export_and_grace_gpus(Registry<GpuEntry>& r) {
  r.add(entry({"A800"},
              "NVIDIA A800 SXM4 80 GB (Ampere, export variant): A100 compute, NVLink 400 GB/s",
              {"A800-80GB", 19.5, 156, 312, 312, 0, 80, 2039, kA100Utilization, kA100LayerOverhead,
               kCarriedA100}));
  r.add(entry({}, "NVIDIA H800 SXM5 80 GB (Hopper, export variant): H100 compute, NVLink 400 GB/s",
              {"H800", 67, 494.7, 989.4, 989.4, 1978.9, 80, 3350, kA100Utilization,
               kA100LayerOverhead, kCarriedA100}));
  r.add(entry({},
              "NVIDIA H20 96 GB (Hopper, export variant): 74 tf32 / 148 bf16 / 296 fp8, 4000 GB/s",
              {"H20", 44, 74, 148, 148, 296, 96, 4000, kA100Utilization, kA100LayerOverhead,
               kCarriedA100}));
  r.add(entry(
      {},
      "NVIDIA GB200 (Grace Blackwell, per GPU) 186 GB: 1250 tf32 / 2500 bf16 / 5000 fp8, 8 TB/s",
      {"GB200", 80, 1250, 2500, 2500, 5000, 186, 8000, kA100Utilization, kA100LayerOverhead,
       kCarriedA100}));
}

// Datasheet figures (dense, no sparsity): NVIDIA V100 (SXM2), A100 (SXM4), H100 (SXM5),
// H200 (SXM) and DGX/HGX B200 product pages. The export variants and GB200 (sources with
// dates in docs/calibration.md, "GPU presets"): A800 and H800 are A100 and H100 silicon with
// the same compute and memory and NVLink cut to 400 GB/s (cluster_fabric.cc); H20 is Hopper
// with its compute cut (148 fp16 / 74 tf32 / 44 fp32 / 296 fp8 TFLOP/s) and 96 GB at 4.0 TB/s;
// GB200's Blackwell GPU runs at 1200 W (2500 bf16 / 1250 tf32 / 5000 fp8, 186 GB, 8 TB/s).
Registry<GpuEntry> make_registry() {
  Registry<GpuEntry> r("GPU");
  r.add(entry(
      {}, "NVIDIA V100 SXM2 16 GB (Volta): 15.7 fp32 / 125 fp16 TFLOP/s, 900 GB/s",
      {"V100-16GB", 15.7, 0, 125, 0, 0, 16, 900, kV100Utilization, kV100LayerOverhead, kV100Fit}));
  r.add(entry(
      {"V100"}, "NVIDIA V100 SXM2 32 GB (Volta): 15.7 fp32 / 125 fp16 TFLOP/s, 900 GB/s",
      {"V100-32GB", 15.7, 0, 125, 0, 0, 32, 900, kV100Utilization, kV100LayerOverhead, kV100Fit}));
  r.add(entry({}, "NVIDIA A100 SXM4 40 GB (Ampere): 156 tf32 / 312 fp16 TFLOP/s, 1555 GB/s",
              {"A100-40GB", 19.5, 156, 312, 312, 0, 40, 1555, kA100Utilization, kA100LayerOverhead,
               kA100Fit}));
  r.add(entry({"A100"}, "NVIDIA A100 SXM4 80 GB (Ampere): 156 tf32 / 312 fp16 TFLOP/s, 2039 GB/s",
              {"A100-80GB", 19.5, 156, 312, 312, 0, 80, 2039, kA100Utilization, kA100LayerOverhead,
               kA100Fit}));
  r.add(entry({"H100-SXM"},
              "NVIDIA H100 SXM5 80 GB (Hopper): 495 tf32 / 989 bf16 / 1979 fp8 TFLOP/s, 3350 GB/s",
              {"H100", 67, 494.7, 989.4, 989.4, 1978.9, 80, 3350, kA100Utilization,
               kA100LayerOverhead, kCarriedA100}));
  r.add(entry({}, "NVIDIA H200 SXM 141 GB (Hopper): H100 compute, 4800 GB/s",
              {"H200", 67, 494.7, 989.4, 989.4, 1978.9, 141, 4800, kA100Utilization,
               kA100LayerOverhead, kCarriedA100}));
  add_export_and_grace_gpus(r);
  r.add(entry({}, "NVIDIA B200 (HGX, Blackwell) 180 GB: 1100 tf32 / 2250 bf16 / 4500 fp8, 8 TB/s",
              {"B200", 80, 1100, 2250, 2250, 4500, 180, 8000, kA100Utilization, kA100LayerOverhead,
               kCarriedA100}));
  return r;
}

}  // namespace

const Registry<GpuEntry>& gpu_registry() {
  static const Registry<GpuEntry> registry = make_registry();
  return registry;
}

GpuSpec gpu_preset(std::string_view name) { return gpu_registry().get(name).spec; }

}  // namespace compopt::net
