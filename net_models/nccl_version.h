#pragma once
// The NCCL version a cluster runs (ClusterSpec::nccl_version). It matters to the simulator
// because NCCL changed how it picks the allreduce algorithm between versions
// (sim/allreduce_selection.h): a version is "MAJOR.MINOR" or "MAJOR.MINOR.PATCH" of NCCL 2,
// e.g. "2.4.8" or "2.10.3"; empty means a current NCCL.

#include <string_view>
#include <tuple>

namespace compopt::net {

struct NcclVersion {
  int major = 2, minor = 0, patch = 0;
  bool operator==(const NcclVersion&) const = default;
  // Ordered as numbers, part by part (2.4.8 < 2.10).
  bool operator<(const NcclVersion& o) const {
    return std::tie(major, minor, patch) < std::tie(o.major, o.minor, o.patch);
  }
  bool operator<=(const NcclVersion& o) const { return !(o < *this); }
};

// Parses `text`; throws InvalidArgument naming it and the expected form unless it is
// 2.MINOR or 2.MINOR.PATCH with non-negative integer parts.
NcclVersion parse_nccl_version(std::string_view text);

}  // namespace compopt::net
