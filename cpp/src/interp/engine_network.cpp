// The network between the nodes (docs/networks.md):
// where ranks run (the machine's placement), the NICs the ranks of a node share, and, on a
// topology with links, every inter-node message as a flow sharing the links of its route
// max-min fairly (flow_network.hpp).
//
// Timing of a flow-level message of n bytes between nodes a and b, network T(n) (Hockney or
// table), route links l with latency lat_l, SimGrid corrections kappa (latency factor) and phi
// (bandwidth factor) from the topology (topology.hpp FlowParameters):
//  * latency  lambda = min(T(0), T(n)) + kappa(n) * sum(lat_l);
//  * the data (n / phi(n) bytes) crosses the route as a flow bounded by the NIC's own rate
//    n / (T(n) - min(T(0), T(n))) (and SimGrid's TCP window bound), sharing every link;
//  * eager: the flow starts when the send does, the sender completes when the flow has left,
//    the envelope arrives lambda after the send, the data lambda after the flow ended;
//  * rendezvous: the flow starts when both sides are there (notes 000 §3.9), both complete
//    lambda after it ended (minus the part of lambda that passed while the start was decided).
// Uncontended, with link latencies 0 and no factors, this is exactly the delay model: the
// envelope at t + T(0), the data at t + T(n), the sender free after T(n) - T(0).
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine.hpp"
#include "parjava/error.hpp"
#include "parjava/machine/units.hpp"

namespace parjava::interp {

void Engine::setup_network(const machine::Machine &machine) {
  const machine::Placement &placement = machine.placement();
  const machine::Topology &topology = machine.topology();
  if (placement.kind != machine::PlacementKind::Block) {
    node_of_ = machine::place_ranks(placement, processes_, machine.nodes(),
                                    machine.ranks_per_node(), topology.capacity());
  } else if (topology.capacity() > 0 &&
             (processes_ + ranks_per_node_ - 1) / ranks_per_node_ > topology.capacity()) {
    throw Error(ErrorKind::Usage,
                std::to_string(processes_) + " ranks of " + std::to_string(ranks_per_node_) +
                    " per node need " +
                    std::to_string((processes_ + ranks_per_node_ - 1) / ranks_per_node_) +
                    " nodes, but machine '" + machine.name() + "' has a topology of " +
                    std::to_string(topology.capacity()) +
                    " nodes (use more ranks per node, or a larger topology)");
  }
  const std::int64_t nodes = processes_ == 0 ? 1 : node_of(processes_ - 1) + 1;
  std::int64_t used = nodes;
  for (const std::int32_t n : node_of_) {
    used = std::max<std::int64_t>(used, n + 1);
  }
  nic_send_free_.assign(static_cast<std::size_t>(used), 0.0);
  nic_recv_free_.assign(static_cast<std::size_t>(used), 0.0);
  endpoint_ = options_.endpoint_contention && machine.endpoint_contention();
  if (topology.kind != machine::TopologyKind::Crossbar && machine.has_inter_node() && used > 1) {
    if (machine.inter_node().kind() == machine::NetworkKind::LogGP) {
      throw Error(ErrorKind::Machine,
                  "machine '" + machine.name() +
                      "': a topology with shared links needs a Hockney or table inter-node "
                      "network (LogGP's g and G already model the NIC)");
    }
    double bandwidth = 0.0;
    if (const auto *h = machine.inter_node().as_hockney()) {
      bandwidth = h->bandwidth;
    } else {
      // A table's asymptotic rate: the slope of its last segment.
      const auto &points = machine.inter_node().as_table()->points;
      const auto &a = points[points.size() - 2];
      const auto &b = points.back();
      bandwidth = static_cast<double>(b.bytes - a.bytes) / std::max(1e-30, b.seconds - a.seconds);
    }
    fabric_ = std::make_unique<machine::Fabric>(topology, used, bandwidth);
    flows_.build(*fabric_, endpoint_);
    flow_parameters_ = topology.flow;
    flow_mode_ = true;
    zero_wire_ = true;
    for (std::uint32_t l = 0; l < fabric_->link_count(); ++l) {
      zero_wire_ = zero_wire_ && fabric_->latency(l) == 0.0;
    }
  }
  network_description_ = describe_network(machine);
}

std::string Engine::describe_network(const machine::Machine &machine) const {
  std::string out = "inter-node ";
  out += machine.has_inter_node() ? machine.inter_node().describe() : std::string("none");
  out += "; topology " + machine.topology().describe();
  out += "; placement " + std::string(machine::placement_kind_name(machine.placement().kind));
  out += endpoint_ ? "; NICs shared by the ranks of a node" : "; no endpoint contention";
  if (flow_mode_) {
    out += "; links shared max-min (flow level)";
  }
  return out;
}

double Engine::flow_latency(Message &msg, const NetworkTiming &nt) {
  const double total = nt.transfer_ns(msg.bytes);
  const double latency = std::min(nt.transfer_ns(0), total);
  route_.clear();
  double wire = 0.0;
  // A message that will be no flow on a fabric without wire latency needs no route.
  if (msg.bytes > flow_parameters_.min_bytes || !zero_wire_) {
    fabric_->route(static_cast<std::int32_t>(node_of(msg.source)),
                   static_cast<std::int32_t>(node_of(msg.dest)), message_count_, route_);
    for (const std::uint32_t l : route_) {
      wire += fabric_->latency(l);
    }
  }
  msg.tail = latency + flow_parameters_.latency_factor.at(msg.bytes) * wire * 1e9;
  return msg.tail;
}

// `routed`: flow_latency() was just called for this message (route_ and msg.tail are set).
void Engine::start_flow(std::uint32_t m, double start, double credit, bool routed) {
  Message &msg = messages_[m];
  const NetworkTiming &nt = net(msg.source, msg.dest);
  const double lambda = routed ? msg.tail : flow_latency(msg, nt);
  msg.tail = std::max(0.0, lambda - credit);
  const double total = nt.transfer_ns(msg.bytes);
  const double occupancy = total - std::min(nt.transfer_ns(0), total);
  if (msg.bytes <= flow_parameters_.min_bytes) {
    // Too small to matter on the links (its transfer is a sliver of its latency): no flow, but
    // it still takes its turn on the NICs (docs/networks.md "Small messages").
    double begin = start;
    double data = start + msg.tail + occupancy;
    if (endpoint_) {
      double &out = send_free(msg.source, false);
      double &in = recv_free(msg.dest, false);
      begin = std::max(start, out);
      out = begin + occupancy;
      data = std::max(begin + msg.tail, in) + occupancy;
      in = data;
    }
    deliver(m, begin + occupancy, data);
    return;
  }
  const double bytes =
      static_cast<double>(msg.bytes) / flow_parameters_.bandwidth_factor.at(msg.bytes);
  double bound = occupancy > 0.0 ? static_cast<double>(msg.bytes) / occupancy
                                 : std::numeric_limits<double>::infinity();
  double wire_seconds = 0.0;
  double penalty = 0.0;
  for (const std::uint32_t l : route_) {
    wire_seconds += fabric_->latency(l);
    penalty += flow_parameters_.weight_s / fabric_->bandwidth(l);
  }
  if (flow_parameters_.tcp_gamma > 0.0 && wire_seconds > 0.0) {
    bound = std::min(bound, flow_parameters_.tcp_gamma / (2.0 * wire_seconds) * 1e-9);
  }
  // SimGrid's sharing penalty: latency plus weight_s / bandwidth per link; 1 for equal shares.
  penalty = flow_parameters_.weight_s > 0.0 ? wire_seconds + penalty : 1.0;
  back_route_.clear();
  if (flow_parameters_.crosstraffic) {
    fabric_->route(static_cast<std::int32_t>(node_of(msg.dest)),
                   static_cast<std::int32_t>(node_of(msg.source)), message_count_, back_route_);
  }
  msg.flow = flows_.start(start, bytes, route_.data(), route_.size(), back_route_.data(),
                          back_route_.size(), 0.05, bound, std::max(penalty, 1e-300), m);
  request_settle(start);
}

void Engine::request_settle(double time) {
  if (settle_at_ == time) {
    return;
  }
  settle_at_ = time;
  queue_.push(time, EventKind::Settle, 0);
}

void Engine::schedule_wake() {
  const double next = flows_.next_finish();
  if (std::isfinite(next) && (wake_at_ < 0.0 || next < wake_at_)) {
    wake_at_ = next;
    queue_.push(next, EventKind::FlowDone, 0);
  }
}

void Engine::on_settle(double now) {
  if (settle_at_ == now) {
    settle_at_ = -1.0;
  }
  flows_.settle(now);
  schedule_wake();
}

// The earliest flows are due: their data has left the links.
void Engine::on_flow_wake(double now) {
  if (wake_at_ == now) {
    wake_at_ = -1.0;
  }
  std::uint32_t m = 0;
  while (flows_.pop_finished(now, m)) {
    messages_[m].flow = kNone;
    deliver(m, now, now + messages_[m].tail);
  }
  if (flows_.dirty()) {
    request_settle(now);
  }
  schedule_wake();
}

// The sender's part of the message is done at `sender_done`, the data is at the receiver at
// `data`: complete what waits for either.
void Engine::deliver(std::uint32_t m, double sender_done, double data) {
  Message &msg = messages_[m];
  msg.flow = kNone;
  msg.data_time = data;
  const std::uint32_t send = msg.send_request;
  if (msg.protocol == Protocol::Eager) {
    complete(send, requests_[send].completes_at_delivery ? data : sender_done, msg.error);
    if (msg.waiting_recv != kNone) {
      complete(msg.waiting_recv, data, msg.error);
    }
  } else {
    complete(send, data, msg.error);
    complete(msg.waiting_recv, data, msg.error);
  }
  if (msg.matched) {
    msg.live = false;
    free_messages_.push_back(m);
  }
}

} // namespace parjava::interp
