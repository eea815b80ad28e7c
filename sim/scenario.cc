#include "sim/scenario.h"

#include <fmt/format.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"

namespace compopt::sim {

StepConfig resolve_scenario(const Scenario& s) {
  StepConfig config;
  config.workload = net::workload_preset(s.workload);
  net::ClusterSpec cluster = net::cluster_preset(s.cluster);
  if (!s.topology.empty()) cluster.topology = net::parse_topology(s.topology);
  if (s.inter_node_gbps != 0) cluster.inter_node_gbps = s.inter_node_gbps;
  if (s.gpus_per_node < 0)
    throw InvalidArgument(fmt::format("gpus_per_node = {}, expected >= 1", s.gpus_per_node));
  if (s.gpus_per_node != 0) cluster.gpus_per_node = s.gpus_per_node;
  if (s.gpus < 0 || s.gpus > kMaxScenarioGpus)
    throw InvalidArgument(
        fmt::format("gpus = {}, expected 1..{} (0 = the preset's)", s.gpus, kMaxScenarioGpus));
  if (s.gpus != 0) cluster = net::with_gpus(cluster, s.gpus);
  cluster.platform_file = s.platform_file;
  cluster.validate();
  check_step_optimizer(s.optimizer);
  if (s.batch_per_gpu < 0 || s.batch_per_gpu > kMaxScenarioBatch)
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, expected 1..{} (0 = the workload's)",
                                      s.batch_per_gpu, kMaxScenarioBatch));
  if (s.grad_accum < 1 || s.grad_accum > kMaxScenarioGradAccum)
    throw InvalidArgument(
        fmt::format("grad_accum = {}, expected 1..{}", s.grad_accum, kMaxScenarioGradAccum));
  if (s.buckets < 0 || s.buckets > kMaxScenarioBuckets)
    throw InvalidArgument(fmt::format("buckets = {}, expected 0..{} (0 = 25 MB buckets)", s.buckets,
                                      kMaxScenarioBuckets));
  config.cluster = cluster;
  config.optimizer = s.optimizer;
  config.batch_per_gpu =
      s.batch_per_gpu > 0 ? s.batch_per_gpu : config.workload.default_batch_per_gpu;
  config.grad_accum = s.grad_accum;
  config.overlap = s.overlap;
  config.buckets = s.buckets;
  return config;
}

std::string scenario_csv_header() {
  return "workload,cluster,topology,optimizer,stage,nodes,gpus_per_node,gpus,inter_node_gbps,batch_"
         "per_gpu,"
         "grad_accum,overlap,forward_s,backward_compute_s,comm_s,compress_s,step_s,step_time_s,"
         "throughput_samples_s,allreduce_pct,bytes_per_gpu,inter_node_bytes\n";
}

std::string scenario_csv_row(const Scenario& s, const StepConfig& c, const StageTiming& t) {
  return fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{:.3f},{:.2f},"
      "{:.0f},{:.0f}\n",
      c.workload.name, s.cluster, net::topology_name(c.cluster.topology), c.optimizer, t.stage,
      c.cluster.nodes, c.cluster.gpus_per_node, c.cluster.gpus(), c.cluster.inter_node_gbps,
      c.batch_per_gpu, c.grad_accum, c.overlap ? 1 : 0, t.forward_s, t.backward_compute_s, t.comm_s,
      t.compress_s, t.step_s, t.step_time_s, t.throughput_samples_s, t.allreduce_pct(),
      t.bytes_per_gpu, t.inter_node_bytes);
}

}  // namespace compopt::sim
