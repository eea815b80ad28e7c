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
  if (!(tensor_max_utilization >= 0 && tensor_max_utilization <= 1)) {
    throw InvalidArgument(
        fmt::format("GPU '{}': tensor_max_utilization = {}, expected 0 (none) to 1", name,
                    tensor_max_utilization));
  }
}

UtilizationCurve GpuSpec::curve(Precision precision) const {
  const bool tensor = precision == Precision::kFp16 || precision == Precision::kBf16 ||
                      precision == Precision::kFp8;
  if (tensor && tensor_max_utilization > 0)
    return {tensor_max_utilization, layer_overhead_s, tensor_calibration};
  return {max_utilization, layer_overhead_s, calibration};
}

namespace {

// Fits of docs/calibration.md ("Compute"): V100 on the 13 rows of 1-bit Adam's Table 1
// (BERT-Large, fp16), A100 on Birder's single-node rows (ResNet-50 and BERT-Base, tf32).
constexpr double kV100Utilization = 0.5539, kV100LayerOverhead = 0.8809e-3;
constexpr double kA100Utilization = 0.1123, kA100LayerOverhead = 0.2305e-3;
constexpr const char* kV100Fit =
    "fitted: 1-bit Adam Table 1 (BERT-Large, fp16, on V100); no other V100 source, so fp32 "
    "takes it too";
constexpr const char* kA100Fit = "fitted: Birder Tables 1-2, single node (A100, tf32)";
constexpr const char* kCarriedA100 =
    "borrowed: A100's tf32 fit (Birder), no public tf32 training figure for this GPU";

// Tensor-core (fp16 / bf16 / fp8) utilisation from public large-transformer training runs
// (docs/calibration.md, "Public utilisation figures"): the achieved model-FLOPs utilisation,
// which includes exposed communication, so the compute-only figure is at least this.
constexpr double kA100Tensor = 0.33, kH100Tensor = 0.40, kB200Tensor = 0.35, kGB200Tensor = 0.324;
constexpr const char* kA100TensorSource =
    "public: Narayanan et al. SC'21 Table 1, GPT 1.7B on 32 A100: 44% of the fp16 peak counting "
    "recomputation, 33% in model FLOPs";
constexpr const char* kH100TensorSource =
    "public: Llama 3 paper (Meta, 2024) Table 4, 38-43% bf16 MFU on H100; 0.40 taken";
constexpr const char* kH100TensorBorrowed =
    "borrowed: H100's 0.40 (Llama 3 paper, 38-43% bf16 MFU), same Hopper GPU, no public "
    "training figure for this one";
constexpr const char* kA100TensorBorrowed =
    "borrowed: A100's 0.33 (Narayanan et al. SC'21), same Ampere GPU, no public training "
    "figure for this one";
constexpr const char* kB200TensorSource =
    "public: Megatron-Bridge 25.11 performance summary, Llama3 8B fp8 on 8 B200, 1576 model "
    "TFLOP/s = 0.35 of the fp8 peak (no dense bf16 row; taken for bf16 too)";
constexpr const char* kGB200TensorSource =
    "public: Megatron-Bridge 25.11 performance summary, Llama3 8B fp8 on 8 GB200, 1622 model "
    "TFLOP/s = 0.324 of the fp8 peak (no dense bf16 row; taken for bf16 too)";

GpuEntry entry(std::vector<std::string> aliases, std::string help, GpuSpec spec) {
  GpuEntry e;
  e.name = spec.name;
  e.aliases = std::move(aliases);
  e.help = std::move(help);
  e.spec = std::move(spec);
  return e;
}

// A GPU's spec from its datasheet figures and its two curves.
struct Datasheet {
  const char* name;
  double fp32, tf32, fp16, bf16, fp8, hbm_gb, hbm_gbps;
};

GpuSpec spec(const Datasheet& d, double utilization, double overhead, const char* calibration,
             double tensor_utilization, const char* tensor_calibration) {
  return {d.name,
          d.fp32,
          d.tf32,
          d.fp16,
          d.bf16,
          d.fp8,
          d.hbm_gb,
          d.hbm_gbps,
          utilization,
          overhead,
          calibration,
          tensor_utilization,
          tensor_calibration};
}

// Hopper and Blackwell GPUs: A100's tf32 fit and layer overhead borrowed, their own or a
// borrowed tensor-core figure.
GpuSpec newer(const Datasheet& d, double tensor_utilization, const char* tensor_calibration) {
  return spec(d, kA100Utilization, kA100LayerOverhead, kCarriedA100, tensor_utilization,
              tensor_calibration);
}

// A800, H800, H20 and GB200: no training figure of their own for A800, H800 and H20 (their
// generation's is borrowed, and the text says so).
void add_export_and_grace_gpus(Registry<GpuEntry>& r) {
  r.add(entry({"A800"},
              "NVIDIA A800 SXM4 80 GB (Ampere, export variant): A100 compute, NVLink 400 GB/s",
              spec({"A800-80GB", 19.5, 156, 312, 312, 0, 80, 2039}, kA100Utilization,
                   kA100LayerOverhead, kCarriedA100, kA100Tensor, kA100TensorBorrowed)));
  r.add(entry({}, "NVIDIA H800 SXM5 80 GB (Hopper, export variant): H100 compute, NVLink 400 GB/s",
              newer({"H800", 67, 494.7, 989.4, 989.4, 1978.9, 80, 3350}, kH100Tensor,
                    kH100TensorBorrowed)));
  r.add(entry({},
              "NVIDIA H20 96 GB (Hopper, export variant): 74 tf32 / 148 bf16 / 296 fp8, 4000 GB/s",
              newer({"H20", 44, 74, 148, 148, 296, 96, 4000}, kH100Tensor, kH100TensorBorrowed)));
  r.add(entry(
      {},
      "NVIDIA GB200 (Grace Blackwell, per GPU) 186 GB: 1250 tf32 / 2500 bf16 / 5000 fp8, 8 TB/s",
      newer({"GB200", 80, 1250, 2500, 2500, 5000, 186, 8000}, kGB200Tensor, kGB200TensorSource)));
}

// Datasheet figures (dense, no sparsity): NVIDIA V100 (SXM2), A100 (SXM4), H100 (SXM5),
// H200 (SXM) and DGX/HGX B200 product pages. The export variants and GB200 (sources with
// dates in docs/calibration.md, "GPU presets"): A800 and H800 are A100 and H100 silicon with
// the same compute and memory and NVLink cut to 400 GB/s (cluster_fabric.cc); H20 is Hopper
// with its compute cut (148 fp16 / 74 tf32 / 44 fp32 / 296 fp8 TFLOP/s) and 96 GB at 4.0 TB/s;
// GB200's Blackwell GPU runs at 1200 W (2500 bf16 / 1250 tf32 / 5000 fp8, 186 GB, 8 TB/s).
Registry<GpuEntry> make_registry() {
  Registry<GpuEntry> r("GPU");
  r.add(entry({}, "NVIDIA V100 SXM2 16 GB (Volta): 15.7 fp32 / 125 fp16 TFLOP/s, 900 GB/s",
              spec({"V100-16GB", 15.7, 0, 125, 0, 0, 16, 900}, kV100Utilization, kV100LayerOverhead,
                   kV100Fit, 0, "")));
  r.add(entry({"V100"}, "NVIDIA V100 SXM2 32 GB (Volta): 15.7 fp32 / 125 fp16 TFLOP/s, 900 GB/s",
              spec({"V100-32GB", 15.7, 0, 125, 0, 0, 32, 900}, kV100Utilization, kV100LayerOverhead,
                   kV100Fit, 0, "")));
  r.add(entry({}, "NVIDIA A100 SXM4 40 GB (Ampere): 156 tf32 / 312 fp16 TFLOP/s, 1555 GB/s",
              spec({"A100-40GB", 19.5, 156, 312, 312, 0, 40, 1555}, kA100Utilization,
                   kA100LayerOverhead, kA100Fit, kA100Tensor, kA100TensorSource)));
  r.add(entry({"A100"}, "NVIDIA A100 SXM4 80 GB (Ampere): 156 tf32 / 312 fp16 TFLOP/s, 2039 GB/s",
              spec({"A100-80GB", 19.5, 156, 312, 312, 0, 80, 2039}, kA100Utilization,
                   kA100LayerOverhead, kA100Fit, kA100Tensor, kA100TensorSource)));
  r.add(entry(
      {"H100-SXM"},
      "NVIDIA H100 SXM5 80 GB (Hopper): 495 tf32 / 989 bf16 / 1979 fp8 TFLOP/s, 3350 GB/s",
      newer({"H100", 67, 494.7, 989.4, 989.4, 1978.9, 80, 3350}, kH100Tensor, kH100TensorSource)));
  r.add(entry({}, "NVIDIA H200 SXM 141 GB (Hopper): H100 compute, 4800 GB/s",
              newer({"H200", 67, 494.7, 989.4, 989.4, 1978.9, 141, 4800}, kH100Tensor,
                    kH100TensorBorrowed)));
  add_export_and_grace_gpus(r);
  r.add(entry(
      {}, "NVIDIA B200 (HGX, Blackwell) 180 GB: 1100 tf32 / 2250 bf16 / 4500 fp8, 8 TB/s",
      newer({"B200", 80, 1100, 2250, 2250, 4500, 180, 8000}, kB200Tensor, kB200TensorSource)));
  return r;
}

}  // namespace

const Registry<GpuEntry>& gpu_registry() {
  static const Registry<GpuEntry> registry = make_registry();
  return registry;
}

GpuSpec gpu_preset(std::string_view name) { return gpu_registry().get(name).spec; }

}  // namespace compopt::net
