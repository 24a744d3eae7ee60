#include "parjava/netbench/netbench.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <thread>

#include "collectives.hpp"
#include "pair_link.hpp"
#include "parjava/error.hpp"
#include "parjava/machine/fit.hpp"
#include "parjava/machine/units.hpp"
#include "parjava/netbench/message_sizes.hpp"
#include "topology.hpp"

#ifndef PARJAVA_VERSION
#define PARJAVA_VERSION "unknown"
#endif

namespace parjava::netbench {

NetbenchOptions NetbenchOptions::quick() {
  NetbenchOptions options;
  options.mode = "quick";
  options.point = {6, 100, 0.05, 0.1};
  options.target_sample_seconds = 50e-6;
  options.eager_bisection_steps = 10;
  options.threads = {3, 8, 100, 10000, 16u << 20};
  return options;
}

NetbenchOptions NetbenchOptions::thorough() {
  NetbenchOptions options;
  options.mode = "thorough";
  options.point = {20, 5000, 0.02, 2.0};
  options.target_sample_seconds = 200e-6;
  options.eager_bisection_steps = 16;
  options.threads = {9, 32, 1000, 100000, 64u << 20};
  return options;
}

namespace {

using machine::MeasuredPoint;
using machine::PingPongSeries;
using machine::TablePoint;

// Waits for every rank without spinning, so ranks that take no part in a measurement leave the
// cores to the ranks that do (Open MPI's blocking calls poll).
void quiet_barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (true) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text.data();
}

std::string mpi_library() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  std::string version(text.data(), static_cast<std::size_t>(length));
  const auto end = version.find_first_of(",\n");
  return version.substr(0, end);
}

// Control variables about eager limits, read through the MPI tool interface (MPI_T): Open MPI
// exports its MCA parameters (btl_vader_eager_limit, ...), MPICH its MPIR_CVAR_* variables.
std::map<std::string, std::int64_t> configured_eager_limits() {
  std::map<std::string, std::int64_t> found;
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    return found;
  }
  int count = 0;
  MPI_T_cvar_get_num(&count);
  for (int index = 0; index < count && found.size() < 24; ++index) {
    std::array<char, 256> name{};
    std::array<char, 1024> description{};
    int name_length = static_cast<int>(name.size());
    int description_length = static_cast<int>(description.size());
    int verbosity = 0;
    int binding = 0;
    int scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumeration = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(index, name.data(), &name_length, &verbosity, &type, &enumeration,
                            description.data(), &description_length, &binding,
                            &scope) != MPI_SUCCESS) {
      continue;
    }
    std::string lower(name.data());
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool about_eager = lower.find("eager_limit") != std::string::npos ||
                             lower.find("eager_max_msg_size") != std::string::npos;
    if (!about_eager || lower.find("rndv") != std::string::npos ||
        binding != MPI_T_BIND_NO_OBJECT) {
      continue;
    }
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int elements = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &elements) != MPI_SUCCESS) {
      continue;
    }
    if (elements == 1) {
      std::array<unsigned char, 16> value{};
      if (MPI_T_cvar_read(handle, value.data()) == MPI_SUCCESS) {
        std::int64_t number = -1;
        if (type == MPI_INT) {
          int v = 0;
          std::memcpy(&v, value.data(), sizeof v);
          number = v;
        } else if (type == MPI_UNSIGNED) {
          unsigned v = 0;
          std::memcpy(&v, value.data(), sizeof v);
          number = v;
        } else if (type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG ||
                   type == MPI_COUNT) {
          unsigned long long v = 0;
          std::memcpy(&v, value.data(), sizeof v);
          number = static_cast<std::int64_t>(v);
        }
        if (number >= 0) {
          found[name.data()] = number;
        }
      }
    }
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return found;
}

std::vector<TablePoint> means(const std::vector<MeasuredPoint> &points) {
  std::vector<TablePoint> table;
  table.reserve(points.size());
  for (const MeasuredPoint &p : points) {
    table.push_back({p.bytes, p.seconds});
  }
  return table;
}

double median_relative_ci(const std::vector<MeasuredPoint> &points) {
  std::vector<double> relative;
  for (const MeasuredPoint &p : points) {
    if (p.seconds > 0.0) {
      relative.push_back(p.ci95 / p.seconds);
    }
  }
  if (relative.empty()) {
    return 0.0;
  }
  std::nth_element(relative.begin(), relative.begin() + relative.size() / 2, relative.end());
  return relative[relative.size() / 2];
}

// Reports progress on rank 0; `total` is the plan and may be corrected as the run learns more.
class ProgressReporter {
public:
  ProgressReporter(const ProgressCallback &callback, int total)
      : callback_(callback), total_(total) {}
  void step(const std::string &label, int steps = 1) {
    done_ += steps;
    if (callback_) {
      callback_(done_, std::max(total_, done_), label);
    }
  }
  void replan(int change) { total_ += change; }

private:
  const ProgressCallback &callback_;
  int total_ = 0;
  int done_ = 0;
};

// Send-overhead sizes assumed when planning the progress total (corrected once known).
constexpr int planned_overhead_sizes = 8;

// Eager probes of a bisection over [0, max_bytes] (each counted once however often repeated).
int planned_probes(const NetbenchOptions &options) {
  int probes = 2;
  for (std::uint64_t span = options.max_bytes; span > 1; span = (span + 1) / 2) {
    ++probes;
  }
  return probes;
}

// Everything rank 0 measures against one partner.
struct PairPlan {
  std::string pair;
  int partner = -1;
  bool with_sendrecv = false;
};

// A rank that loses its core for a while (another job on a shared node) makes every sample of
// a size slow, and the confidence interval cannot tell: the samples agree. Larger messages
// never take less time than smaller ones by much, so a size slower than 1.3 times some larger
// size is suspect and measured again (up to eight rounds, pausing a little longer before each,
// 3.6 s in all, as such slow spells last seconds); what still looks wrong is noted.
void remeasure_interference(PairLink &link, PingPongSeries &series, const NetbenchOptions &options,
                            std::vector<std::string> &notes) {
  auto &points = series.points;
  const auto suspects = [&] {
    std::vector<std::size_t> found;
    double fastest_larger = std::numeric_limits<double>::infinity();
    for (std::size_t i = points.size(); i-- > 0;) {
      if (points[i].seconds > 1.3 * fastest_larger) {
        found.push_back(i);
      }
      fastest_larger = std::min(fastest_larger, points[i].seconds);
    }
    return found;
  };
  int remeasured = 0;
  std::vector<std::size_t> found = suspects();
  for (int round = 1; round <= 8 && !found.empty(); ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 * round));
    for (std::size_t i : found) {
      // Interference only ever slows a measurement down, so of two the faster is kept.
      const MeasuredPoint again = link.measure(PairOperation::PingPong, points[i].bytes,
                                               options.point, options.target_sample_seconds);
      if (again.seconds < points[i].seconds) {
        points[i] = again;
      }
      ++remeasured;
    }
    found = suspects();
  }
  if (remeasured > 0) {
    notes.push_back(series.pair + ": " + std::to_string(remeasured) +
                    " measurement(s) repeated because a size was slower than a larger one "
                    "(interference from other processes)" +
                    (found.empty()
                         ? ""
                         : "; " + std::to_string(found.size()) + " size(s) still are, e.g. " +
                               machine::format_size(points[found[0]].bytes)));
  }
}

// A table whose last segment does not rise cannot be extrapolated (Network::table). On a busy
// node the largest sizes are the noisiest, so they are measured once more, and if the table
// still ends flat the trailing points are left out of the network (they stay in the
// measurement) until it rises.
void settle_largest_sizes(PairLink &link, PingPongSeries &series, const NetbenchOptions &options,
                          std::vector<std::string> &notes) {
  auto &points = series.points;
  const auto falling = [&] {
    return points.size() >= 2 && points.back().seconds <= points[points.size() - 2].seconds;
  };
  if (!falling()) {
    return;
  }
  for (std::size_t k = points.size() - 2; k < points.size(); ++k) {
    points[k] = link.measure(PairOperation::PingPong, points[k].bytes, options.point,
                             options.target_sample_seconds);
  }
  if (falling()) {
    notes.push_back(series.pair + ": the two largest sizes did not rise even when measured "
                                  "again (a busy node?); see the network table");
  }
}

PingPongSeries measure_pair(PairLink &link, const PairPlan &plan, const NetbenchOptions &options,
                            std::vector<MeasuredPoint> &sendrecv, ProgressReporter &progress,
                            std::vector<std::string> &notes) {
  PingPongSeries series;
  series.pair = plan.pair;
  series.rank_a = 0;
  series.rank_b = plan.partner;
  for (std::uint64_t bytes : ping_pong_sizes(options.max_bytes)) {
    series.points.push_back(
        link.measure(PairOperation::PingPong, bytes, options.point, options.target_sample_seconds));
    progress.step(plan.pair + " ping-pong " + machine::format_size(bytes));
  }

  remeasure_interference(link, series, options, notes);
  settle_largest_sizes(link, series, options, notes);
  const auto imprecise =
      std::count_if(series.points.begin(), series.points.end(), [&](const MeasuredPoint &p) {
        return p.seconds > 0.0 && p.ci95 / p.seconds > options.point.target_relative_ci;
      });
  if (imprecise > 0) {
    notes.push_back(series.pair + ": " + std::to_string(imprecise) + " of " +
                    std::to_string(series.points.size()) +
                    " sizes stopped at the sample cap or time budget above the " +
                    std::to_string(static_cast<int>(options.point.target_relative_ci * 100)) +
                    " % CI target (a busy node?); see each point's ci95, or rerun on an idle "
                    "node" +
                    (options.mode == "quick" ? std::string(" or with --thorough") : std::string()));
  }

  // The curve's jump (a protocol or buffer switch), pinned by measuring sizes inside the gap.
  const std::vector<TablePoint> table = means(series.points);
  series.eager_detection = machine::detect_eager_limit(table, median_relative_ci(series.points));
  int bisection_steps = 0;
  if (series.eager_detection.detected) {
    std::uint64_t before = series.eager_detection.last_eager_bytes;
    std::uint64_t after = series.eager_detection.first_rendezvous_bytes;
    while (after - before > 1 && bisection_steps < options.eager_bisection_steps) {
      const std::uint64_t middle = before + (after - before) / 2;
      const MeasuredPoint point = link.measure(PairOperation::PingPong, middle, options.point,
                                               options.target_sample_seconds);
      series.eager_bisection.push_back(point);
      if (machine::closer_to_eager_side(table, series.eager_detection, middle, point.seconds)) {
        before = middle;
      } else {
        after = middle;
      }
      ++bisection_steps;
      progress.step(plan.pair + " jump bisection " + machine::format_size(middle));
    }
    notes.push_back(plan.pair + ": the ping-pong time jumps by " +
                    machine::format_time(series.eager_detection.jump_seconds) + " between " +
                    std::to_string(before) + " and " + std::to_string(after) + " bytes");
  } else {
    notes.push_back(plan.pair + ": no jump shows in the ping-pong curve");
  }
  progress.step(plan.pair + " curve jump", options.eager_bisection_steps - bisection_steps);

  // The eager limit proper, by what it means: the largest size whose send completes while the
  // receiver has not posted its receive. The jump above need not be it (Open MPI's
  // shared-memory transport changes buffers below its eager limit), and a switch can be
  // invisible in the times; the probe is fooled by neither.
  const auto blocked = [&](std::uint64_t bytes) {
    const double seconds = link.probe_send(bytes);
    series.eager_probes.push_back({bytes, std::fabs(seconds), seconds < 0.0});
    progress.step(plan.pair + " eager probe " + machine::format_size(bytes));
    return seconds < 0.0;
  };
  int probes = 0;
  if (!blocked(options.max_bytes)) {
    series.eager_limit = options.max_bytes;
    series.eager_limit_source = "probed: sends complete before the receive is posted up to "
                                "the largest size measured";
    probes = 1;
  } else if (blocked(0)) {
    series.eager_limit = 0;
    series.eager_limit_source = "probed: even an empty send waits for the receive";
    probes = 2;
  } else {
    std::uint64_t eager = 0;
    std::uint64_t rendezvous = options.max_bytes;
    probes = 2;
    while (rendezvous - eager > 1) {
      const std::uint64_t middle = eager + (rendezvous - eager) / 2;
      (blocked(middle) ? rendezvous : eager) = middle;
      ++probes;
    }
    series.eager_limit = eager;
    series.eager_limit_source = "probed: a send of " + std::to_string(eager) +
                                " bytes completes before the receive is posted, of " +
                                std::to_string(rendezvous) + " bytes it waits for it";
  }
  progress.step(plan.pair + " eager limit", std::max(planned_probes(options) - probes, 0));

  // LogGP observations: the blocking-send overhead at eager sizes and the streaming gap.
  const std::uint64_t overhead_limit = std::min<std::uint64_t>(series.eager_limit, 64u << 10);
  std::vector<std::uint64_t> overhead_sizes;
  for (std::uint64_t bytes = 1; bytes <= overhead_limit; bytes *= 4) {
    overhead_sizes.push_back(bytes);
  }
  if (overhead_limit > 1 && overhead_sizes.back() != overhead_limit) {
    overhead_sizes.push_back(overhead_limit);
  }
  progress.replan(static_cast<int>(overhead_sizes.size()) - planned_overhead_sizes);
  for (std::uint64_t bytes : overhead_sizes) {
    series.send_overhead.push_back(link.measure(PairOperation::SendOverhead, bytes, options.point,
                                                options.target_sample_seconds));
    progress.step(plan.pair + " send overhead " + machine::format_size(bytes));
  }
  series.gap =
      link.measure(PairOperation::Gap, 1, options.point, options.target_sample_seconds).seconds;
  progress.step(plan.pair + " gap");

  try {
    series.hockney = machine::fit_hockney(table, series.eager_limit);
  } catch (const Error &error) {
    notes.push_back(plan.pair + ": Hockney fit failed: " + error.what());
  }
  try {
    const std::vector<TablePoint> overhead = means(series.send_overhead);
    series.loggp = machine::fit_loggp({table, overhead, series.gap, series.eager_limit});
  } catch (const Error &error) {
    notes.push_back(plan.pair + ": LogGP fit failed: " + error.what());
  }

  if (plan.with_sendrecv) {
    for (std::uint64_t bytes : sparse_sizes(options.max_bytes)) {
      sendrecv.push_back(link.measure(PairOperation::Sendrecv, bytes, options.point,
                                      options.target_sample_seconds));
      progress.step("sendrecv " + machine::format_size(bytes));
    }
  }
  link.finish();
  return series;
}

// The network is the measured table itself, with the sizes the bisection measured merged in:
// they pin the eager/rendezvous switch, which interpolation between the regular sizes would
// smear over the whole gap around it.
machine::Network series_network(const PingPongSeries &series, std::vector<std::string> &notes) {
  std::vector<MeasuredPoint> all = series.points;
  all.insert(all.end(), series.eager_bisection.begin(), series.eager_bisection.end());
  std::sort(all.begin(), all.end(),
            [](const MeasuredPoint &a, const MeasuredPoint &b) { return a.bytes < b.bytes; });
  all.erase(std::unique(
                all.begin(), all.end(),
                [](const MeasuredPoint &a, const MeasuredPoint &b) { return a.bytes == b.bytes; }),
            all.end());
  std::size_t dropped = 0;
  while (all.size() > 2 && all.back().seconds <= all[all.size() - 2].seconds) {
    all.pop_back();
    ++dropped;
  }
  if (dropped > 0) {
    notes.push_back(series.pair + ": the network table ends at " +
                    machine::format_size(all.back().bytes) + "; " + std::to_string(dropped) +
                    " larger size(s) measured faster than a smaller one and are left out, so "
                    "larger messages are extrapolated from the last rising segment");
  }
  try {
    return machine::Network::table({means(all), series.eager_limit}, series.pair);
  } catch (const Error &error) {
    notes.push_back(series.pair + ": the measured table cannot serve as the network (" +
                    error.what() + "); the Hockney fit is used instead");
    return machine::Network::hockney(series.hockney.parameters, series.pair);
  }
}

struct CollectivePlan {
  Collective collective;
  std::uint64_t bytes;
};

std::vector<CollectivePlan> collective_plan() {
  return {{Collective::Barrier, 0},       {Collective::Bcast, 8},     {Collective::Bcast, 1024},
          {Collective::Bcast, 65536},     {Collective::Allreduce, 8}, {Collective::Allreduce, 1024},
          {Collective::Allreduce, 65536}, {Collective::Alltoall, 8},  {Collective::Alltoall, 1024}};
}

} // namespace

std::optional<machine::Machine> run_netbench(MPI_Comm comm, const NetbenchOptions &options,
                                             const ProgressCallback &callback) {
  const double started = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const Topology topology = discover_topology(comm);
  if (topology.ranks < 2) {
    throw Error(ErrorKind::Run, "netbench needs at least 2 ranks; run it with `mpirun -np 2` "
                                "(or `parjava netbench -np 2`)");
  }
  if (topology.intra_partner < 0) {
    throw Error(ErrorKind::Run,
                "netbench needs two ranks on one node to measure the intra-node network, but "
                "every node has one rank; place at least two ranks per node (e.g. `mpirun -np "
                "4 --map-by slot` on two nodes)");
  }

  std::vector<PairPlan> plans{{"intra_node", topology.intra_partner, true}};
  if (topology.inter_partner >= 0) {
    plans.push_back({"inter_node", topology.inter_partner, false});
  }
  const int sizes = static_cast<int>(ping_pong_sizes(options.max_bytes).size());
  const int sparse = static_cast<int>(sparse_sizes(options.max_bytes).size());
  const int per_pair = sizes + options.eager_bisection_steps + 1 + planned_probes(options) + 1 +
                       planned_overhead_sizes + 1;
  ProgressReporter progress(callback, static_cast<int>(plans.size()) * per_pair + sparse +
                                          static_cast<int>(collective_plan().size()) + 1);

  machine::Measurement measurement;
  std::map<std::string, std::int64_t> configured;
  if (rank == 0) {
    configured = configured_eager_limits();
  }
  for (const PairPlan &plan : plans) {
    if (rank == 0) {
      PairLink link(comm, plan.partner, options.max_bytes);
      measurement.ping_pong.push_back(
          measure_pair(link, plan, options, measurement.sendrecv, progress, measurement.notes));
    } else if (rank == plan.partner) {
      PairLink link(comm, 0, options.max_bytes);
      link.serve();
    }
    quiet_barrier(comm);
  }

  for (const CollectivePlan &item : collective_plan()) {
    machine::CollectiveTiming timing = time_collective(
        comm, item.collective, item.bytes, options.point, options.target_sample_seconds);
    if (rank == 0) {
      measurement.collectives.push_back(timing);
      progress.step(timing.operation + " " + machine::format_size(item.bytes));
    }
  }

  // Thread costs on rank 0's node while every other rank sleeps.
  machine::ThreadCosts threads;
  if (rank == 0) {
    threads = measure_thread_costs(options.threads);
    progress.step("thread primitives");
  }
  quiet_barrier(comm);
  if (rank != 0) {
    return std::nullopt;
  }

  measurement.tool = std::string("netbench ") + PARJAVA_VERSION;
  measurement.mode = options.mode;
  measurement.host = topology.host;
  measurement.mpi_library = mpi_library();
  measurement.date = utc_now();
  measurement.ranks = topology.ranks;
  measurement.target_relative_ci = options.point.target_relative_ci;
  measurement.configured = configured;
  if (!topology.block_placement) {
    measurement.notes.push_back("ranks are not placed in blocks per node; the machine assumes "
                                "block placement (ranks_per_node consecutive ranks per node)");
  }

  machine::NodeLayout layout{topology.nodes, topology.cores_per_node, topology.ranks_per_node};
  machine::Network intra = series_network(measurement.ping_pong[0], measurement.notes);
  std::optional<machine::Network> inter;
  if (measurement.ping_pong.size() > 1) {
    inter = series_network(measurement.ping_pong[1], measurement.notes);
  }
  measurement.duration_seconds = MPI_Wtime() - started;
  machine::Machine result(options.name.empty() ? "measured-" + topology.host : options.name, layout,
                          intra, inter, threads, 1.0);
  result.set_description("Measured by netbench (" + options.mode + ") on " + topology.host +
                         " with " + measurement.mpi_library + ", " +
                         std::to_string(topology.ranks) + " ranks on " +
                         std::to_string(topology.nodes) + " node(s)");
  result.set_sources({"netbench measurement, " + measurement.date});
  result.set_measurement(std::move(measurement));
  return result;
}

} // namespace parjava::netbench
