#pragma once
// GpuContext: one rank's handle on a CUDA device: the device, one stream on which every compopt
// kernel and copy of that rank is queued, and grow-only scratch buffers (device memory and
// pinned host memory) reused across calls. The header needs no CUDA headers, so plain C++ code
// (CLI, tests, benchmarks) can hold contexts and buffers.
//
// Several contexts may share one device (hybrid mode: many ranks, one GPU). A context is driven
// by one thread at a time. CUDA runtime failures throw CudaError naming the call.

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace compopt::cuda {

// A CUDA runtime call failed, or no usable device exists.
class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const std::string& what) : std::runtime_error(what) {}
};

// Number of usable CUDA devices; 0 without a driver or a device. Never throws.
int device_count();
// Empty when device_count() > 0, else why no device can be used (the CUDA runtime's words).
std::string unavailable_reason();
// The device a rank of this process should use: $LOCAL_RANK modulo device_count() (0 without
// LOCAL_RANK). Throws CudaError when there is no device.
int default_device();

// Owning CUDA allocation of device memory (cudaMalloc) or of page-locked host memory
// (cudaMallocHost, for fast asynchronous copies); contents uninitialized. Movable, not copyable.
enum class MemoryKind { kDevice, kPinnedHost };

template <MemoryKind kKind>
class CudaBuffer {
 public:
  CudaBuffer() = default;
  explicit CudaBuffer(size_t bytes);
  ~CudaBuffer() { release(); }
  CudaBuffer(CudaBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  CudaBuffer& operator=(CudaBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void release() noexcept;  // frees data_ (if any) and sets it to nullptr

  void* data_ = nullptr;
  size_t size_ = 0;
};
using DeviceBuffer = CudaBuffer<MemoryKind::kDevice>;
using PinnedBuffer = CudaBuffer<MemoryKind::kPinnedHost>;

// Scratch slots of a context: each user of scratch memory names its own slot.
enum class Slot : int {
  kKernel,      // kernels' internal workspace (chunk sums, counters, scales)
  kPayload,     // worker payload
  kReceived,    // received payloads and scales
  kMessage,     // this rank's server message
  kMessages,    // all server messages
  kGathered,    // hierarchical: every node rank's server messages
  kData,        // an uploaded input vector
  kWorkerEf,    // uploaded worker error feedback
  kServerEf,    // uploaded server error feedback
  kFull,        // hierarchical: padded full vector
  kShard,       // hierarchical: this rank's shard
  kStagingIn,   // NCCL collectives: device copy of host input
  kStagingOut,  // NCCL collectives: device copy of host output
  kCount
};

class GpuContext {
 public:
  // device < 0 picks default_device(). Throws CudaError when the device cannot be used.
  explicit GpuContext(int device = -1);
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  int device() const { return device_; }
  // The cudaStream_t, as void* so that this header stays free of CUDA headers.
  void* stream() const { return stream_; }
  // Makes this context's device current on the calling thread.
  void activate() const;
  // Waits for all work queued on the stream; throws CudaError if some of it failed.
  void synchronize() const;

  // At least `bytes` of scratch in `slot`; grows (old contents lost, new device memory
  // zero-filled on the stream) but never shrinks. A pointer stays valid until the next request
  // for the same slot with more bytes.
  void* device_scratch(Slot slot, size_t bytes);
  void* host_scratch(Slot slot, size_t bytes);

  // Asynchronous copy / fill on the stream (either side may be host or device memory).
  void copy(void* dst, const void* src, size_t bytes) const;
  void zero(void* device_dst, size_t bytes) const;

 private:
  static constexpr size_t kSlots = static_cast<size_t>(Slot::kCount);
  int device_ = 0;
  void* stream_ = nullptr;
  std::array<DeviceBuffer, kSlots> device_scratch_;
  std::array<PinnedBuffer, kSlots> host_scratch_;
};

// True when p points to device (or managed) memory of some device, false for host memory.
bool is_device_pointer(const void* p);

}  // namespace compopt::cuda
