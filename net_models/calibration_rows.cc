#include "net_models/calibration_rows.h"

namespace compopt::net {

const std::vector<ProfileRow>& onebit_adam_profile_rows() {
  static const std::vector<ProfileRow> rows = {
      {"ethernet-v100-4", 16, 64, 1, 1, 36.65, 2205.86, 33.63, 74.96, 94},
      {"ethernet-v100-4", 16, 64, 16, 1, 35.71, 2275.43, 60.81, 75.59, 93},
      {"ethernet-v100-4", 16, 64, 16, 4, 137.80, 2259.36, 243.72, 74.92, 83},
      {"ethernet-v100-4", 8, 32, 16, 1, 37.91, 2173.35, 60.71, 75.63, 93},
      {"ethernet-v100-4", 4, 16, 16, 1, 36.94, 2133.24, 62.82, 76.85, 92},
      {"ethernet-v100-4", 2, 8, 16, 1, 34.95, 1897.21, 61.23, 75.26, 92},
      {"ethernet-v100-4", 1, 4, 16, 1, 35.99, 239.76, 59.95, 74.21, 58},
      {"infiniband-v100-8", 8, 64, 1, 1, 25.36, 316.18, 23.25, 58.49, 75},
      {"infiniband-v100-8", 8, 64, 16, 1, 32.81, 336.40, 59.99, 57.79, 69},
      {"infiniband-v100-8", 8, 64, 16, 4, 131.04, 339.52, 237.92, 56.91, 44},
      {"infiniband-v100-8", 4, 32, 16, 1, 33.45, 297.28, 56.81, 57.98, 67},
      {"infiniband-v100-8", 2, 16, 16, 1, 32.86, 183.74, 56.49, 58.60, 55},
      {"infiniband-v100-8", 1, 8, 16, 1, 32.74, 28.18, 59.73, 57.29, 16},
  };
  return rows;
}

const std::vector<ThroughputRow>& birder_single_node_rows() {
  static const std::vector<ThroughputRow> rows = {
      {"resnet50-imagenet", "sgdm", 8, 32, 3693},
      {"resnet50-imagenet", "onebit-adam", 8, 32, 3243},
      {"resnet50-imagenet", "birder", 8, 32, 3462},
      {"resnet50-imagenet", "sgdm", 8, 128, 5272},
      {"resnet50-imagenet", "onebit-adam", 8, 128, 5229},
      {"resnet50-imagenet", "birder", 8, 128, 5251},
      {"bert-base-squad", "bertadam", 8, 3, 413},
      {"bert-base-squad", "onebit-adam", 8, 3, 358},
      {"bert-base-squad", "birder", 8, 3, 412},
  };
  return rows;
}

}  // namespace compopt::net
