#include "experiments/reproduce/compression_pairs.h"

#include "net_models/cluster_presets.h"

namespace compopt::cli::reproduce {

// 1-bit Adam ran on DeepSpeed's engine with the MPI compressed backend, 1-bit LAMB on the same
// engine with the NCCL one; Birder's comparison on PyTorch 1.11 with its collectives issued after
// backward (docs/implementations.md, "The papers' setups").
constexpr const char* kDeepSpeed = "deepspeed-2020";
constexpr const char* kDeepSpeedNccl = "deepspeed-2021";
constexpr const char* kBirder = "pytorch-2022";

const std::vector<CompressionPair>& compression_pairs() {
  static const std::vector<CompressionPair> pairs = {
      {"bert-large-seq128", "ethernet-v100-4", "adam", "onebit-adam", kDeepSpeed},
      {"bert-large-seq128", "ethernet-v100-4", "lamb", "onebit-lamb", kDeepSpeedNccl},
      {"resnet152-imagenet", "ethernet-v100-4", "momentum-sgd", "onebit-adam", kDeepSpeed},
      {"resnet50-imagenet", "ethernet-a100-8", "momentum-sgd", "onebit-adam", kBirder},
      {"resnet50-imagenet", "ethernet-a100-8", "momentum-sgd", "birder", kBirder},
      {"bert-base-squad", "ethernet-a100-8", "bertadam", "onebit-adam", kBirder},
      {"bert-base-squad", "ethernet-a100-8", "bertadam", "birder", kBirder},
  };
  return pairs;
}

sim::Scenario pair_scenario(const CompressionPair& pair, const std::string& optimizer, int gpus,
                            double effective_inter_node_gbps) {
  sim::Scenario s;
  s.workload = pair.workload;
  s.cluster = pair.cluster;
  s.optimizer = optimizer;
  s.implementation = pair.implementation;
  s.gpus = gpus;
  s.inter_node_gbps =
      effective_inter_node_gbps / net::cluster_preset(pair.cluster).inter_node_efficiency;
  return s;
}

}  // namespace compopt::cli::reproduce
