#pragma once
// DeviceSegments: the device tables of a SegmentTable (optimizer_kernels.h) for a ParamLayout:
// each tensor cut into chunks of at most kSegmentChunk elements, plus the per-chunk workspace of
// the segment sums. Built once (synchronous upload); the view stays valid while it lives.

#include "core/util/param_layout.h"
#include "real_backend/cuda_kernels/gpu_context.h"
#include "real_backend/cuda_kernels/optimizer_kernels.h"

namespace compopt::cuda {

class DeviceSegments {
 public:
  DeviceSegments(GpuContext& gpu, const ParamLayout& layout);

  const SegmentTable& table() const { return table_; }

 private:
  DeviceBuffer begin_, end_, segment_, first_, partials_;
  SegmentTable table_;
};

}  // namespace compopt::cuda
