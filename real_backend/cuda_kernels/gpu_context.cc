#include "real_backend/cuda_kernels/gpu_context.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <utility>

#include "real_backend/cuda_kernels/cuda_error.h"

namespace compopt::cuda {

void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  throw CudaError(
      fmt::format("{}: {}: {}", what, cudaGetErrorName(status), cudaGetErrorString(status)));
}

namespace {

// cudaGetDeviceCount's status, queried once (it initializes the runtime).
std::pair<int, cudaError_t> query_devices() {
  static const std::pair<int, cudaError_t> result = [] {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky error of a failed query
      return std::pair<int, cudaError_t>{0, status};
    }
    return std::pair<int, cudaError_t>{count, cudaSuccess};
  }();
  return result;
}

}  // namespace

int device_count() { return query_devices().first; }

std::string unavailable_reason() {
  const auto [count, status] = query_devices();
  if (count > 0) return "";
  if (status == cudaErrorInsufficientDriver) {
    return "no CUDA device: no NVIDIA driver is loaded, or it is older than this CUDA runtime "
           "(cudaErrorInsufficientDriver)";
  }
  if (status != cudaSuccess) {
    return fmt::format("no CUDA device: {} ({})", cudaGetErrorString(status),
                       cudaGetErrorName(status));
  }
  return "no CUDA device: the driver reports 0 devices";
}

int default_device() {
  const int count = device_count();
  if (count == 0) throw CudaError(unavailable_reason());
  int local_rank = 0;
  if (const char* env = std::getenv("LOCAL_RANK"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 0) {
      throw CudaError(fmt::format("LOCAL_RANK='{}': expected a non-negative integer", env));
    }
    local_rank = static_cast<int>(v % count);
  }
  return local_rank % count;
}

template <MemoryKind kKind>
CudaBuffer<kKind>::CudaBuffer(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  if constexpr (kKind == MemoryKind::kDevice) {
    check_cuda(cudaMalloc(&data_, bytes), fmt::format("cudaMalloc({} bytes)", bytes).c_str());
  } else {
    check_cuda(cudaMallocHost(&data_, bytes),
               fmt::format("cudaMallocHost({} bytes)", bytes).c_str());
  }
}

template <MemoryKind kKind>
void CudaBuffer<kKind>::release() noexcept {
  if (data_ == nullptr) return;
  if constexpr (kKind == MemoryKind::kDevice) {
    (void)cudaFree(data_);
  } else {
    (void)cudaFreeHost(data_);
  }
  data_ = nullptr;
}

template class CudaBuffer<MemoryKind::kDevice>;
template class CudaBuffer<MemoryKind::kPinnedHost>;

GpuContext::GpuContext(int device) {
  const int count = device_count();
  if (count == 0) throw CudaError(unavailable_reason());
  device_ = device < 0 ? default_device() : device;
  if (device_ >= count) {
    throw CudaError(
        fmt::format("GPU device {} requested, but only devices 0..{} exist", device_, count - 1));
  }
  activate();
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags");
  stream_ = stream;
}

GpuContext::~GpuContext() {
  if (stream_ != nullptr) {
    (void)cudaSetDevice(device_);
    (void)cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
    // Scratch buffers are freed by their destructors, after the stream drained.
    device_scratch_ = {};
    host_scratch_ = {};
    (void)cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  }
}

void GpuContext::activate() const {
  check_cuda(cudaSetDevice(device_), fmt::format("cudaSetDevice({})", device_).c_str());
}

void GpuContext::synchronize() const {
  check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize");
}

void* GpuContext::device_scratch(Slot slot, size_t bytes) {
  DeviceBuffer& buffer = device_scratch_[static_cast<size_t>(slot)];
  if (buffer.size() < bytes) {
    synchronize();  // queued work may still use the old buffer
    buffer = DeviceBuffer();
    buffer = DeviceBuffer(bytes);
    zero(buffer.data(), bytes);
  }
  return buffer.data();
}

void* GpuContext::host_scratch(Slot slot, size_t bytes) {
  PinnedBuffer& buffer = host_scratch_[static_cast<size_t>(slot)];
  if (buffer.size() < bytes) {
    synchronize();
    buffer = PinnedBuffer();
    buffer = PinnedBuffer(bytes);
  }
  return buffer.data();
}

void GpuContext::copy(void* dst, const void* src, size_t bytes) const {
  if (bytes == 0) return;
  check_cuda(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream_)),
      "cudaMemcpyAsync");
}

void GpuContext::zero(void* device_dst, size_t bytes) const {
  if (bytes == 0) return;
  check_cuda(cudaMemsetAsync(device_dst, 0, bytes, static_cast<cudaStream_t>(stream_)),
             "cudaMemsetAsync");
}

bool is_device_pointer(const void* p) {
  if (p == nullptr) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

}  // namespace compopt::cuda
