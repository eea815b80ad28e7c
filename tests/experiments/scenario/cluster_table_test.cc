// The [cluster] table (experiments/scenario/cluster_table.h): presets with fields replaced,
// clusters described in full, intra-node fabric defaults from the datasheet figures, the sweep's
// gpus_per_node axis and profile's --set cluster.* keys, and bad input naming the key.

#include "experiments/scenario/cluster_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/util/error.h"
#include "experiments/scenario/sweep_config.h"
#include "experiments/train/train_config.h"
#include "net_models/bandwidth_spread.h"
#include "net_models/cluster_presets.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

net::ClusterSpec parse(const std::string& text) {
  const toml::table root = toml::parse(text);
  return cluster_from_config(*root["cluster"].as_table());
}

std::string error_of(const std::string& text) {
  return testing_support::invalid_argument_message([&] { parse(text); });
}

// A file holding `text`, removed with the object.
class TempToml {
 public:
  explicit TempToml(const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("compopt_cluster_" + std::to_string(::getpid()) + "_" + std::to_string(next_id_++) +
               ".toml")) {
    std::ofstream(path_) << text;
  }
  ~TempToml() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  static inline int next_id_ = 0;  // one file per object alive at once
  std::filesystem::path path_;
};

// `compopt train` on sim takes run.cluster = FILE.toml: that file's [cluster] table.
TEST(ClusterConfig, TrainTakesAClusterFile) {
  const TempToml file(
      "[cluster]\nname = \"netns-star\"\ntopology = \"star\"\nnodes = 4\ngpus_per_node = 1\n"
      "inter_node_gbps = 0.1\ninter_node_latency_s = 3e-5\ninter_node_efficiency = 0.95\n");
  const TrainConfig c =
      load_train_config("", {"run.backend=sim", "run.ranks=4", "task.name=quadratic", "run.steps=2",
                             "run.cluster=" + file.path()});
  EXPECT_EQ(c.cluster_spec.name, "netns-star");
  EXPECT_EQ(c.cluster_spec.nodes, 4);
  EXPECT_EQ(c.cluster_spec.gpus_per_node, 1);
  EXPECT_EQ(c.cluster_spec.inter_node_gbps, 0.1);
  EXPECT_EQ(c.cluster_spec.inter_node_efficiency, 0.95);
}

TEST(ClusterConfig, ClusterFileErrorsNameTheFile) {
  const auto train_error = [](const std::string& cluster) {
    return testing_support::invalid_argument_message([&] {
      load_train_config("", {"run.backend=sim", "run.ranks=4", "task.name=quadratic", "run.steps=2",
                             "run.cluster=" + cluster});
    });
  };
  EXPECT_THAT(train_error("/nonexistent/c.toml"), HasSubstr("cluster file '/nonexistent/c.toml'"));
  const TempToml bad_syntax("[cluster\nnodes = 4\n");
  EXPECT_THAT(train_error(bad_syntax.path()),
              HasSubstr("cluster file '" + bad_syntax.path() + "': line 1, column 9"));
  const TempToml no_table("[run]\nsteps = 3\n");
  EXPECT_THAT(train_error(no_table.path()), HasSubstr("no [cluster] table"));
  const TempToml bad_key("[cluster]\nnodes = 4\nlinks = 2\n");
  EXPECT_THAT(train_error(bad_key.path()), HasSubstr("links"));
}

TEST(ClusterConfig, PresetWithFieldsReplaced) {
  const net::ClusterSpec c = parse(
      "[cluster]\npreset = \"dgx-h100\"\nnodes = 4\nnics_per_node = 2\ninter_node_gbps = 200\n");
  const net::ClusterSpec base = net::cluster_preset("dgx-h100");
  EXPECT_EQ(c.name, "dgx-h100");
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.nics_per_node, 2);
  EXPECT_EQ(c.inter_node_gbps, 200);
  EXPECT_EQ(c.gpus_per_node, base.gpus_per_node);
  EXPECT_EQ(c.rail_optimized, base.rail_optimized);
  EXPECT_EQ(c.intra_node_gbps, base.intra_node_gbps);
}

TEST(ClusterConfig, ClusterInFull) {
  const net::ClusterSpec c = parse(R"([cluster]
name = "my-h100"
nodes = 16
gpus_per_node = 8
intra_node_fabric = "pcie"
nics_per_node = 4
rail_optimized = true
inter_node_gbps = 100
inter_node_latency_s = 3e-6
topology = "fat-tree"
nodes_per_switch = 4
oversubscription = 2
network_model = "LV08"
[cluster.gpu]
preset = "H100"
name = "H100-capped"
max_utilization = 0.6
)");
  EXPECT_EQ(c.name, "my-h100");
  EXPECT_EQ(c.gpus(), 128);
  EXPECT_EQ(c.gpu.name, "H100-capped");
  EXPECT_EQ(c.gpu.max_utilization, 0.6);
  EXPECT_EQ(c.gpu.bf16_tflops, net::gpu_preset("H100").bf16_tflops);
  EXPECT_EQ(c.intra_node_fabric, net::IntraNodeFabric::kPcie);
  EXPECT_EQ(c.intra_node_gbps, 63.0 * 8);  // PCIe 5.0 x16: 63 GB/s per direction
  EXPECT_EQ(c.intra_node_latency_s, 10e-6);
  EXPECT_EQ(c.inter_node_efficiency, 1.0);  // ClusterSpec's default, not a preset's fit
  EXPECT_EQ(c.topology, net::Topology::kFatTree);
  EXPECT_EQ(c.nodes_per_switch, 4);
  EXPECT_EQ(c.oversubscription, 2);
  EXPECT_TRUE(c.rail_optimized);
  EXPECT_EQ(c.network_model, "LV08");
}

TEST(ClusterConfig, FabricSetsTheGpuLinkUnlessGiven) {
  // NVLink per direction: V100 6 x 25 GB/s, A100 12 x 25, H100 18 x 25, B200 18 x 50.
  EXPECT_EQ(parse("[cluster]\ngpu = \"V100\"\nintra_node_fabric = \"nvlink\"").intra_node_gbps,
            6 * 25 * 8);
  EXPECT_EQ(parse("[cluster]\ngpu = \"A100\"\nintra_node_fabric = \"nvswitch\"").intra_node_gbps,
            12 * 25 * 8);
  EXPECT_EQ(parse("[cluster]\ngpu = \"H200\"\nintra_node_fabric = \"nvswitch\"").intra_node_gbps,
            18 * 25 * 8);
  EXPECT_EQ(parse("[cluster]\ngpu = \"B200\"\nintra_node_fabric = \"nvlink\"").intra_node_gbps,
            18 * 50 * 8);
  EXPECT_EQ(parse("[cluster]\ngpu = \"V100\"\nintra_node_fabric = \"pcie\"").intra_node_gbps, 126);
  const net::ClusterSpec given = parse(
      "[cluster]\ngpu = \"H100\"\nintra_node_gbps = 1000\nintra_node_fabric = \"nvswitch\"\n");
  EXPECT_EQ(given.intra_node_gbps, 1000);
  EXPECT_EQ(given.intra_node_latency_s, 5e-6);
}

// The fabric's efficiency is NCCL's per-link figure over the nominal rate: NVLink 20 of 25
// GB/s on V100 and A100, 20.6 of 25 on H100, 40.1 of 50 on B200; PCIe 12 of 15.75 GB/s.
// A given efficiency (a preset's fit, or the key) stays.
TEST(ClusterConfig, FabricSetsNcclsLinkEfficiencyUnlessGiven) {
  const auto efficiency = [](const char* gpu, const char* fabric) {
    return parse(std::string("[cluster]\ngpu = \"") + gpu + "\"\nintra_node_fabric = \"" + fabric +
                 "\"")
        .intra_node_efficiency;
  };
  EXPECT_DOUBLE_EQ(efficiency("V100", "nvlink"), 0.8);
  EXPECT_DOUBLE_EQ(efficiency("A100", "nvswitch"), 0.8);
  EXPECT_DOUBLE_EQ(efficiency("H100", "nvswitch"), 20.6 / 25);
  EXPECT_DOUBLE_EQ(efficiency("B200", "nvlink"), 40.1 / 50);
  EXPECT_DOUBLE_EQ(efficiency("A100", "pcie"), 12 / 15.75);
  EXPECT_EQ(parse("[cluster]\ngpu = \"H100\"\nintra_node_fabric = \"nvswitch\"\n"
                  "intra_node_efficiency = 0.5")
                .intra_node_efficiency,
            0.5);
  EXPECT_DOUBLE_EQ(net::cluster_preset("dgx-h100").intra_node_efficiency, 20.6 / 25);
  EXPECT_EQ(net::cluster_preset("infiniband-v100-8").intra_node_efficiency, 0.2828);  // fitted
}

TEST(ClusterConfig, BadInputNamesTheKey) {
  EXPECT_THAT(error_of("[cluster]\nnicss = 2"), HasSubstr("unknown key 'cluster.nicss'"));
  EXPECT_THAT(error_of("[cluster]\nnics_per_node = \"8\""),
              HasSubstr("cluster.nics_per_node at line 2: expected an integer"));
  EXPECT_THAT(error_of("[cluster]\nnics_per_node = 0"), HasSubstr("nics_per_node = 0, expected"));
  EXPECT_THAT(error_of("[cluster]\nrail_optimized = 1"),
              HasSubstr("cluster.rail_optimized at line 2: expected true or false"));
  EXPECT_THAT(error_of("[cluster]\ninter_node_gbps = \"fast\""),
              HasSubstr("cluster.inter_node_gbps at line 2: expected a number"));
  EXPECT_THAT(error_of("[cluster]\n[cluster.gpu]\nmax_utilization = 1.5"),
              HasSubstr("max_utilization = 1.5"));
  EXPECT_THAT(error_of("[cluster]\n[cluster.gpu]\npeak = 1"),
              HasSubstr("unknown key 'cluster.gpu.peak'"));
  EXPECT_THAT(error_of("[cluster]\ngpu = 3"), HasSubstr("cluster.gpu at line 2"));
  EXPECT_THAT(error_of("[cluster]\nintra_node_fabric = \"infinity\""),
              HasSubstr("intra_node_fabric 'infinity': expected pcie, nvlink or nvswitch"));
  EXPECT_THAT(error_of("[cluster]\n[cluster.gpu]\nname = \"X1\"\n[cluster.z]\n"),
              HasSubstr("unknown key 'cluster.z'"));
  EXPECT_THAT(error_of("[cluster]\nintra_node_fabric = \"nvlink\"\n[cluster.gpu]\nname = \"X1\""),
              HasSubstr("no public link figure for GPU 'X1'"));
  EXPECT_THAT(error_of("[cluster]\nnodes = 8\ntopology = \"torus\"\nnics_per_node = 2"),
              HasSubstr("need topology star or fat-tree, not torus"));
  EXPECT_THAT(error_of("[cluster]\noversubscription = 0.5\ntopology = \"fat-tree\""),
              HasSubstr("oversubscription = 0.5, expected 1.."));
  EXPECT_THAT(
      error_of("[cluster]\noversubscription = 2\nuplink_gbps = 10\ntopology = \"fat-tree\""),
      HasSubstr("both set the uplink"));
  EXPECT_THAT(error_of("[cluster]\nnodes = 8\ntopology = \"torus\"\ntorus_dims = [2, \"4\"]"),
              HasSubstr("cluster.torus_dims at line 4: expected an integer"));
  EXPECT_THAT(error_of("[cluster]\npreset = \"dgx-z\""), HasSubstr("dgx-z"));
}

// The bandwidth spread: factors and their source from the table, refused out of range.
TEST(ClusterConfig, SpreadKeys) {
  const net::ClusterSpec c = parse(
      "[cluster]\npreset = \"dgx-h100\"\ninter_node_spread_low = 0.7\n"
      "inter_node_spread_high = 1.2\nintra_node_spread_low = 0.95\nintra_node_spread_high = 1\n");
  EXPECT_EQ(c.inter_node_spread_low, 0.7);
  EXPECT_EQ(c.inter_node_spread_high, 1.2);
  EXPECT_EQ(c.intra_node_spread_low, 0.95);
  EXPECT_EQ(c.intra_node_spread_high, 1.0);
  EXPECT_EQ(c.spread_source, "the cluster config");
  EXPECT_EQ(parse("[cluster]\ninter_node_spread_low = 0.9\nspread_source = \"our iperf runs\"")
                .spread_source,
            "our iperf runs");
  EXPECT_THAT(error_of("[cluster]\ninter_node_spread_low = 1.5"),
              HasSubstr("inter_node_spread_low = 1.5, expected 0.1..1"));
  EXPECT_THAT(error_of("[cluster]\ninter_node_spread_high = 0.5"),
              HasSubstr("inter_node_spread_high = 0.5, expected 1..10"));
  EXPECT_THAT(error_of("[cluster]\nintra_node_spread_low = -1"),
              HasSubstr("intra_node_spread_low = -1"));
  EXPECT_THAT(error_of("[cluster]\nintra_node_spread_high = \"wide\""),
              HasSubstr("cluster.intra_node_spread_high at line 2: expected a number"));
}

TEST(ClusterConfig, ANewNameStartsFromDefaultsNotTheScenariosPreset) {
  // No preset and no name: the scenario's preset (ethernet-v100-4, fitted efficiencies).
  const SweepConfig changed = parse_sweep_config("[cluster]\ngpus_per_node = 2\n", "s.toml", {});
  EXPECT_EQ(changed.scenarios.at(0).cluster, "ethernet-v100-4");
  EXPECT_EQ(changed.scenarios.at(0).cluster_spec->inter_node_efficiency,
            net::cluster_preset("ethernet-v100-4").inter_node_efficiency);
  // A name that is no preset: a new cluster, links at their nominal rates.
  const SweepConfig fresh =
      parse_sweep_config("[cluster]\nname = \"mine\"\nnodes = 4\n", "s.toml", {});
  EXPECT_EQ(fresh.scenarios.at(0).cluster, "mine");
  EXPECT_EQ(fresh.scenarios.at(0).cluster_spec->inter_node_efficiency, 1.0);
  EXPECT_EQ(fresh.scenarios.at(0).cluster_spec->intra_node_efficiency, 1.0);
  // A name that is a preset: that preset.
  EXPECT_EQ(parse("[cluster]\nname = \"dgx-a100\"").inter_node_gbps, 200);
}

TEST(ClusterConfig, SweepAxisOverGpusPerNode) {
  const SweepConfig c = parse_sweep_config(
      "[cluster]\npreset = \"dgx-h100\"\n[sweep]\ngpus = 32\ngpus_per_node = [4, 8]\n", "s.toml",
      {});
  ASSERT_EQ(c.scenarios.size(), 2u);
  const sim::StepConfig four = sim::resolve_scenario(c.scenarios[0]);
  const sim::StepConfig eight = sim::resolve_scenario(c.scenarios[1]);
  EXPECT_EQ(four.cluster.gpus_per_node, 4);
  EXPECT_EQ(four.cluster.nodes, 8);
  EXPECT_EQ(eight.cluster.gpus_per_node, 8);
  EXPECT_EQ(eight.cluster.nodes, 4);
  EXPECT_EQ(eight.cluster.nics_per_node, 8);
}

// Cluster keys without a preset or name describe a new cluster from ClusterSpec's plain
// defaults (efficiencies 1), not the scenario's preset with its fitted efficiencies; profile's
// --cluster (ProfileScenario tests) or cluster.preset names a base.
TEST(ClusterConfig, KeysWithoutAPresetStartFromThePlainDefaults) {
  sim::Scenario flags;  // the default cluster: ethernet-v100-4, NIC efficiency 0.1208
  const sim::Scenario s = apply_scenario_sets(
      flags, {"cluster.nics_per_node=2", "cluster.gpus_per_node=8", "cluster.nodes=3"});
  ASSERT_TRUE(s.cluster_spec.has_value());
  const net::ClusterSpec plain;
  EXPECT_EQ(s.cluster_spec->preset, "");
  EXPECT_EQ(s.cluster_spec->name, plain.name);
  EXPECT_EQ(s.cluster_spec->inter_node_efficiency, 1.0);
  EXPECT_EQ(s.cluster_spec->intra_node_efficiency, 1.0);
  EXPECT_EQ(s.cluster_spec->gpu.name, plain.gpu.name);
  EXPECT_EQ(s.cluster_spec->nics_per_node, 2);
  EXPECT_THAT(cluster_origin(*s.cluster_spec, true),
              HasSubstr("described by its keys, from the plain defaults"));
  const sim::Scenario named =
      apply_scenario_sets(flags, {"cluster.preset=\"dgx-a100\"", "cluster.nics_per_node=2"});
  EXPECT_EQ(named.cluster_spec->preset, "dgx-a100");
  EXPECT_THAT(cluster_origin(*named.cluster_spec, true), HasSubstr("built on preset dgx-a100"));
  EXPECT_EQ(cluster_origin(net::cluster_preset("dgx-a100"), false), "cluster: preset dgx-a100");
}

// GPUs per node, the GPU and a platform file are what profile's flags pick for its cluster: a
// table of only these refines the scenario's preset, as the flags do.
TEST(ClusterConfig, ScenarioKeysAloneRefineTheScenarioPreset) {
  sim::Scenario flags;
  flags.cluster = "dgx-a100";
  flags.gpus_per_node = 4;
  const sim::Scenario s = apply_scenario_sets(flags, {"cluster.gpus_per_node=8"});
  ASSERT_TRUE(s.cluster_spec.has_value());
  EXPECT_EQ(s.cluster, "dgx-a100");
  EXPECT_EQ(s.cluster_spec->preset, "dgx-a100");
  EXPECT_EQ(s.gpus_per_node, 8);  // --set replaces the flag
  EXPECT_EQ(sim::resolve_scenario(s).cluster.gpu.name, net::cluster_preset("dgx-a100").gpu.name);
}

TEST(ClusterConfig, TransportsByNameWithFieldsReplaced) {
  const net::ClusterSpec c = parse(R"(
    [cluster]
    preset = "dgx-h100"
    inter_node_transport = "tcp"
    inter_node_stream_gbps = 12.5
    inter_node_streams_per_peer = 4
    inter_node_incast_flows = 8
    inter_node_incast_loss = 0.05
    intra_node_message_overhead_s = 3e-6
  )");
  EXPECT_EQ(c.inter_node_transport.name, "tcp");
  EXPECT_DOUBLE_EQ(c.inter_node_transport.message_overhead_s,
                   net::transport_profile("tcp").message_overhead_s);  // kept
  EXPECT_DOUBLE_EQ(c.inter_node_transport.flow_cap_gbps(), 50);
  EXPECT_EQ(c.inter_node_transport.incast_flows, 8);
  EXPECT_DOUBLE_EQ(c.inter_node_transport.incast_loss, 0.05);
  EXPECT_EQ(c.intra_node_transport.name, "nvlink");
  EXPECT_DOUBLE_EQ(c.intra_node_transport.message_overhead_s, 3e-6);
  // The fabric picks the intra-node transport unless the config names one.
  EXPECT_EQ(parse("[cluster]\nintra_node_fabric = \"pcie\"").intra_node_transport.name, "pcie");
  EXPECT_EQ(parse("[cluster]\nintra_node_fabric = \"pcie\"\nintra_node_transport = \"nvlink\"")
                .intra_node_transport.name,
            "nvlink");
}

// A described cluster's default spread follows the transport it names, whatever its latency.
TEST(ClusterConfig, SpreadClassFollowsTheNamedTransport) {
  const net::LinkSpreads tcp = net::link_spreads(parse(R"(
    [cluster]
    name = "my-tcp"
    inter_node_transport = "tcp"
    inter_node_latency_s = 1e-6
  )"));
  EXPECT_EQ(tcp.inter_node.low, 0.85);
  EXPECT_EQ(tcp.inter_node.high, 1.04);
  EXPECT_THAT(tcp.source, HasSubstr("Ethernet/TCP default for transport tcp"));
  const net::LinkSpreads rdma = net::link_spreads(parse(R"(
    [cluster]
    name = "my-rdma"
    inter_node_transport = "rdma"
    inter_node_latency_s = 50e-6
  )"));
  EXPECT_EQ(rdma.inter_node.low, 0.95);
  EXPECT_EQ(rdma.inter_node.high, 1.07);
  EXPECT_THAT(rdma.source, HasSubstr("InfiniBand/RDMA default for transport rdma"));
}

TEST(ClusterConfig, BadTransportInputNamesTheKey) {
  EXPECT_THAT(error_of("[cluster]\ninter_node_transport = \"udp\""),
              HasSubstr("cluster.inter_node_transport: unknown transport 'udp'"));
  EXPECT_THAT(error_of("[cluster]\ninter_node_streams_per_peer = 2.5"),
              HasSubstr("cluster.inter_node_streams_per_peer"));
  EXPECT_THAT(error_of("[cluster]\ninter_node_incast_loss = 2"), HasSubstr("incast_loss = 2"));
  EXPECT_THAT(error_of("[cluster]\nintra_node_message_overhead_s = -1"),
              HasSubstr("intra_node_transport: message_overhead_s = -1"));
}

}  // namespace
}  // namespace compopt::cli
