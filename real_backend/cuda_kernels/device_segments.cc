#include "real_backend/cuda_kernels/device_segments.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace compopt::cuda {
namespace {

template <typename T>
DeviceBuffer upload(GpuContext& gpu, const std::vector<T>& host) {
  DeviceBuffer buffer(host.size() * sizeof(T));
  gpu.copy(buffer.data(), host.data(), host.size() * sizeof(T));
  return buffer;
}

}  // namespace

DeviceSegments::DeviceSegments(GpuContext& gpu, const ParamLayout& layout) {
  std::vector<uint64_t> begin, end;
  std::vector<uint32_t> segment, first;
  for (size_t s = 0; s < layout.num_tensors(); ++s) {
    const TensorSpec& t = layout.tensor(s);
    first.push_back(static_cast<uint32_t>(begin.size()));
    for (size_t at = 0; at < t.size; at += kSegmentChunk) {
      begin.push_back(t.offset + at);
      end.push_back(t.offset + std::min(t.size, at + kSegmentChunk));
      segment.push_back(static_cast<uint32_t>(s));
    }
  }
  first.push_back(static_cast<uint32_t>(begin.size()));
  begin_ = upload(gpu, begin);
  end_ = upload(gpu, end);
  segment_ = upload(gpu, segment);
  first_ = upload(gpu, first);
  partials_ = DeviceBuffer(2 * begin.size() * sizeof(double));
  gpu.synchronize();  // the host vectors die here
  table_.chunk_begin = begin_.as<uint64_t>();
  table_.chunk_end = end_.as<uint64_t>();
  table_.chunk_segment = segment_.as<uint32_t>();
  table_.first_chunk = first_.as<uint32_t>();
  table_.chunks = begin.size();
  table_.segments = layout.num_tensors();
  table_.partials = partials_.as<double>();
}

}  // namespace compopt::cuda
