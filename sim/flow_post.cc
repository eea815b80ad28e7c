#include "sim/flow_post.h"

#include <algorithm>
#include <map>
#include <simgrid/s4u.hpp>

#include "sim/flow_costs.h"

namespace compopt::sim {

namespace sg4 = simgrid::s4u;

double time_flows(const net::ClusterSpec& cluster, const std::vector<PlannedFlow>& flows) {
  // Start offsets: the sender's messages so far, each after its transport's cost.
  std::vector<std::pair<double, size_t>> order;
  std::map<int, double> posted_until;
  for (size_t i = 0; i < flows.size(); ++i) {
    const net::TransportProfile& profile = transport_between(cluster, flows[i].crosses_nodes);
    double& until = posted_until[flows[i].sender];
    until += send_overhead_s(profile, 1, 0);
    order.emplace_back(until, i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  for (const auto& [offset, i] : order) {
    if (offset > 0) sg4::this_actor::sleep_until(start + offset);
    const PlannedFlow& f = flows[i];
    sg4::CommPtr comm = sg4::Comm::sendto_init(f.src, f.dst);
    comm->set_payload_size(f.bytes);
    if (const double cap = flow_rate_cap(transport_between(cluster, f.crosses_nodes)); cap > 0)
      comm->set_rate(cap);
    comm->start();
    comms.push_back(comm);
  }
  sg4::Comm::wait_all(comms);
  return sg4::Engine::get_clock() - start;
}

}  // namespace compopt::sim
