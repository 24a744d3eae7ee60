// parjava._core.Trace: the C++ trace (parjava/trace/trace.hpp) seen from Python, wrapped by
// python/parjava/trace.py (parjava.Trace). Thin: reading, writing, filtering and summaries are
// C++ functions; this file only converts.
//
// Ownership: the class is held by std::shared_ptr<parjava::trace::Trace>. Other parts'
// bindings (scan, intervals, the interpreter) take or return that same holder type, so a
// Trace passes between them without a copy: accept `std::shared_ptr<const Trace>` or
// `const Trace &` in their functions, and return `std::shared_ptr<Trace>` for new traces
// (e.g. a model trace). Column views (column()) are NumPy arrays over the C++ memory whose
// base object is this Trace, so the C++ trace lives as long as any view of it; the views are
// read-only because matching indices must stay consistent with the columns.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "parjava/error.hpp"
#include "parjava/trace/clock_condition.hpp"
#include "parjava/trace/filter.hpp"
#include "parjava/trace/otf2.hpp"
#include "parjava/trace/partition.hpp"
#include "parjava/trace/summary.hpp"
#include "parjava/trace/trace.hpp"

namespace py = pybind11;
using parjava::trace::Trace;

namespace {

using TracePtr = std::shared_ptr<Trace>;

// A read-only NumPy view of `size` elements at `data`, keeping `owner` alive.
template <typename T> py::array view(const T *data, std::size_t size, const py::object &owner) {
  py::array a(py::dtype::of<T>(), {size}, {sizeof(T)}, data, owner);
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

py::array column(const py::object &self, const std::string &name) {
  const auto &t = self.cast<const Trace &>();
  const auto &e = t.events;
  const auto n = t.size();
  if (name == "time") {
    return view(e.time.data(), n, self);
  }
  if (name == "kind") {
    return view(reinterpret_cast<const std::uint8_t *>(e.kind.data()), n, self);
  }
  if (name == "location") {
    return view(e.location.data(), n, self);
  }
  if (name == "region") {
    return view(e.region.data(), n, self);
  }
  if (name == "peer") {
    return view(e.peer.data(), n, self);
  }
  if (name == "tag") {
    return view(e.tag.data(), n, self);
  }
  if (name == "comm") {
    return view(e.comm.data(), n, self);
  }
  if (name == "bytes") {
    return view(e.bytes.data(), n, self);
  }
  if (name == "aux") {
    return view(e.aux.data(), n, self);
  }
  if (name == "callsite") {
    return view(e.callsite.data(), n, self);
  }
  if (name == "match") {
    return view(e.match.data(), n, self);
  }
  if (name == "link") {
    return view(e.link.data(), n, self);
  }
  if (name == "location_offsets") {
    return view(t.location_offsets.data(), t.location_offsets.size(), self);
  }
  if (name == "collective_members") {
    return view(t.collective_members.data(), t.collective_members.size(), self);
  }
  throw parjava::Error(parjava::ErrorKind::Usage, "no trace column named '" + name + "'");
}

py::dict to_dict(const parjava::trace::MatchReport &u) {
  py::dict d;
  d["sends"] = u.sends;
  d["receives"] = u.receives;
  d["request_posts"] = u.request_posts;
  d["request_completions"] = u.request_completions;
  d["collectives_incomplete"] = u.collectives_incomplete;
  d["collectives_mismatched"] = u.collectives_mismatched;
  d["collective_ends_unopened"] = u.collective_ends_unopened;
  d["enters_unclosed"] = u.enters_unclosed;
  d["leaves_unopened"] = u.leaves_unopened;
  d["locks_unreleased"] = u.locks_unreleased;
  d["lock_releases_unacquired"] = u.lock_releases_unacquired;
  d["intervals_unclosed"] = u.intervals_unclosed;
  d["intervals_unopened"] = u.intervals_unopened;
  return d;
}

py::dict to_dict(const parjava::trace::ClockViolations &v) {
  py::dict d;
  d["receive_before_send"] = v.receives_before_send;
  d["collective_exit_before_entry"] = v.collective_exits_before_entry;
  return d;
}

template <typename E> int as_int(E e) { return static_cast<int>(e); }

// Takes the column out of `columns` (pop), so the caller's array is freed once copied: the
// received columns then never exist twice (about 70 B a received event).
template <typename T> std::vector<T> to_vector(const py::dict &columns, const char *name) {
  if (!columns.contains(name)) {
    throw parjava::Error(parjava::ErrorKind::Usage,
                         std::string("merge_part: no received column '") + name + "'");
  }
  const auto a =
      py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(columns.attr("pop")(name));
  if (!a) {
    throw parjava::Error(parjava::ErrorKind::Usage,
                         std::string("merge_part: column '") + name + "' is not numeric");
  }
  return std::vector<T>(a.data(), a.data() + a.size());
}

std::vector<char> location_mask(const Trace &trace, const py::array_t<std::uint8_t> &counted) {
  if (static_cast<std::size_t>(counted.size()) != trace.location_count()) {
    throw parjava::Error(parjava::ErrorKind::Usage, "counted must have one entry per location (" +
                                                        std::to_string(trace.location_count()) +
                                                        ")");
  }
  return std::vector<char>(counted.data(), counted.data() + counted.size());
}

// One of a CollectiveReduction's row tables (0 sums, 1 minima, 2 decisive) as a writable
// 2-D view (instances x width) kept alive by the reduction.
template <typename T> py::array rows(const py::object &self, int which) {
  namespace t = parjava::trace;
  auto &r = self.cast<t::CollectiveReduction &>();
  const T *data = nullptr;
  std::size_t width = 0;
  if constexpr (std::is_same_v<T, std::uint64_t>) {
    data = r.decisive.data();
    width = t::kDecisiveColumns;
  } else {
    data = which == 0 ? r.sums.data() : r.minima.data();
    width = which == 0 ? t::kCollectiveSums : t::kCollectiveMinima;
  }
  const auto n = r.spread.size();
  return py::array(py::dtype::of<T>(), {n, width}, {width * sizeof(T), sizeof(T)}, data, self);
}

void set_field(const py::dict &d, const char *name, std::uint64_t &field) {
  if (d.contains(name)) {
    field = d[name].cast<std::uint64_t>();
  }
}

// Parallel analysis (partition.hpp): the part's reading, the replay's selection and merge,
// and the counts of own locations that the parts sum up.
void register_partition(py::module_ &m, py::class_<Trace, TracePtr> &cls) {
  namespace t = parjava::trace;
  cls.def_static(
      "open_part",
      [](const std::string &path, std::uint32_t part, std::uint32_t parts, unsigned threads) {
        return std::make_shared<Trace>(t::open_part(path, part, parts, threads));
      },
      py::arg("path"), py::arg("part"), py::arg("parts"), py::arg("threads") = 0,
      py::call_guard<py::gil_scoped_release>());
  m.def(
      "partition_owners",
      [](const Trace &trace, std::uint32_t parts) {
        const t::PartitionPlan plan(trace.locations, parts);
        py::array_t<std::uint32_t> out(static_cast<py::ssize_t>(trace.location_count()));
        for (std::size_t l = 0; l < trace.location_count(); ++l) {
          out.mutable_at(static_cast<py::ssize_t>(l)) = plan.owner(trace.locations[l]);
        }
        return out;
      },
      py::arg("trace"), py::arg("parts"));
  // The reduction's rows as writable NumPy views over the C++ object (MPI reduces into them).
  py::class_<t::CollectiveReduction, std::shared_ptr<t::CollectiveReduction>>(
      m, "CollectiveReduction",
      "Per collective instance of a part's trace: its sequence and index, whether its "
      "communicator spans parts, and the rows the parts reduce (partition.hpp).")
      .def_property_readonly("sequence",
                             [](const py::object &self) {
                               const auto &r = self.cast<const t::CollectiveReduction &>();
                               return view(r.sequence.data(), r.sequence.size(), self);
                             })
      .def_property_readonly("index",
                             [](const py::object &self) {
                               const auto &r = self.cast<const t::CollectiveReduction &>();
                               return view(r.index.data(), r.index.size(), self);
                             })
      .def_property_readonly("spread",
                             [](const py::object &self) {
                               const auto &r = self.cast<const t::CollectiveReduction &>();
                               return view(r.spread.data(), r.spread.size(), self);
                             })
      .def_property_readonly("sums",
                             [](const py::object &self) { return rows<std::int64_t>(self, 0); })
      .def_property_readonly("minima",
                             [](const py::object &self) { return rows<std::int64_t>(self, 1); })
      .def_property_readonly("decisive",
                             [](const py::object &self) { return rows<std::uint64_t>(self, 2); });
  m.def(
      "collective_reduction",
      [](const Trace &trace, std::uint32_t parts) {
        return std::make_shared<t::CollectiveReduction>(t::collective_reduction(trace, parts));
      },
      py::arg("trace"), py::arg("parts"));
  m.def(
      "decisive_members",
      [](const Trace &trace, t::CollectiveReduction &reduction, int stage) {
        t::decisive_members(trace, reduction, stage);
      },
      py::arg("trace"), py::arg("reduction"), py::arg("stage"));
  m.def(
      "sequence_indices",
      [](const Trace &trace, const py::array_t<std::int64_t, py::array::c_style> &events) {
        std::vector<t::EventIndex> list(static_cast<std::size_t>(events.size()));
        for (std::size_t k = 0; k < list.size(); ++k) {
          list[k] = static_cast<t::EventIndex>(events.data()[k]);
        }
        const auto out = t::sequence_indices(trace, list);
        py::array_t<std::uint32_t> a(static_cast<py::ssize_t>(out.size()));
        std::copy(out.begin(), out.end(), a.mutable_data());
        return a;
      },
      py::arg("trace"), py::arg("events"));
  m.def(
      "replay_selection",
      [](const Trace &trace, std::uint32_t part, std::uint32_t parts, bool mpi_collective_calls,
         const t::CollectiveReduction *reduction) {
        auto selection = t::replay_selection(trace, part, parts, mpi_collective_calls, reduction);
        py::list out;
        for (const auto &events : selection) {
          py::array_t<std::int32_t> a(static_cast<py::ssize_t>(events.size()));
          std::copy(events.begin(), events.end(), a.mutable_data());
          out.append(a);
        }
        return out;
      },
      py::arg("trace"), py::arg("part"), py::arg("parts"), py::arg("mpi_collective_calls") = true,
      py::arg("reduction") = nullptr);
  m.def(
      "merge_part",
      [](Trace &trace, const py::dict &columns, std::uint32_t part, std::uint32_t parts,
         unsigned threads, const t::CollectiveReduction *reduction) {
        t::ReplayEvents r;
        r.time = to_vector<std::int64_t>(columns, "time");
        const auto kinds = to_vector<std::uint8_t>(columns, "kind");
        r.kind.reserve(kinds.size());
        for (const auto k : kinds) {
          if (k >= t::kEventKindCount) {
            throw parjava::Error(parjava::ErrorKind::Usage,
                                 "merge_part: event kind " + std::to_string(k) + " is unknown");
          }
          r.kind.push_back(static_cast<t::EventKind>(k));
        }
        r.location = to_vector<std::uint32_t>(columns, "location");
        r.region = to_vector<std::uint32_t>(columns, "region");
        r.peer = to_vector<std::int32_t>(columns, "peer");
        r.tag = to_vector<std::int32_t>(columns, "tag");
        r.comm = to_vector<std::uint32_t>(columns, "comm");
        r.bytes = to_vector<std::uint64_t>(columns, "bytes");
        r.aux = to_vector<std::uint64_t>(columns, "aux");
        r.callsite = to_vector<std::uint32_t>(columns, "callsite");
        r.position = to_vector<std::uint64_t>(columns, "position");
        if (columns.contains("sequence")) {
          r.sequence = to_vector<std::uint32_t>(columns, "sequence");
        }
        std::vector<std::uint64_t> positions;
        {
          py::gil_scoped_release release;
          t::merge_part(trace, r, part, parts, positions, threads, reduction);
        }
        py::array_t<std::uint64_t> pos(static_cast<py::ssize_t>(positions.size()));
        std::copy(positions.begin(), positions.end(), pos.mutable_data());
        return pos;
      },
      py::arg("trace"), py::arg("columns"), py::arg("part"), py::arg("parts"),
      py::arg("threads") = 1, py::arg("reduction") = nullptr,
      "Add the received events to this part's trace in place (no NumPy view of its columns "
      "may be alive: they are reallocated), taking the columns out of `columns` as it copies "
      "them; returns the received events' positions in their locations, in the merged "
      "trace's order (a location's own events come first, at their own positions).");
  m.def(
      "count_unmatched",
      [](const Trace &trace, const py::array_t<std::uint8_t> &counted) {
        return to_dict(t::count_unmatched(trace, location_mask(trace, counted)));
      },
      py::arg("trace"), py::arg("counted"));
  m.def(
      "count_clock_violations",
      [](const Trace &trace, const py::array_t<std::uint8_t> &counted) {
        const auto v = t::count_clock_violations(trace, location_mask(trace, counted));
        auto d = to_dict(v);
        d["largest_ns"] = v.largest_ns;
        return d;
      },
      py::arg("trace"), py::arg("counted"));
  m.def(
      "set_match_counts",
      [](Trace &trace, const py::dict &unmatched, const py::dict &clock) {
        auto &u = trace.unmatched;
        u = t::MatchReport{};
        set_field(unmatched, "sends", u.sends);
        set_field(unmatched, "receives", u.receives);
        set_field(unmatched, "request_posts", u.request_posts);
        set_field(unmatched, "request_completions", u.request_completions);
        set_field(unmatched, "collectives_incomplete", u.collectives_incomplete);
        set_field(unmatched, "collectives_mismatched", u.collectives_mismatched);
        set_field(unmatched, "collective_ends_unopened", u.collective_ends_unopened);
        set_field(unmatched, "enters_unclosed", u.enters_unclosed);
        set_field(unmatched, "leaves_unopened", u.leaves_unopened);
        set_field(unmatched, "locks_unreleased", u.locks_unreleased);
        set_field(unmatched, "lock_releases_unacquired", u.lock_releases_unacquired);
        set_field(unmatched, "intervals_unclosed", u.intervals_unclosed);
        set_field(unmatched, "intervals_unopened", u.intervals_unopened);
        auto &v = trace.clock_violations;
        v = t::ClockViolations{};
        set_field(clock, "receive_before_send", v.receives_before_send);
        set_field(clock, "collective_exit_before_entry", v.collective_exits_before_entry);
        if (clock.contains("largest_ns")) {
          v.largest_ns = clock["largest_ns"].cast<std::int64_t>();
        }
      },
      py::arg("trace"), py::arg("unmatched"), py::arg("clock"),
      "Set the unmatched and clock-violation counts (the sums over the parts of a parallel "
      "analysis) that a scan's notes report.");
}

} // namespace

void register_trace(py::module_ &m) {
  namespace t = parjava::trace;
  py::class_<Trace, TracePtr> cls(m, "Trace", "The C++ trace (use parjava.Trace)");
  cls.def_static(
         "open",
         [](const std::string &path, unsigned threads, bool correct_clocks) {
           auto trace = std::make_shared<Trace>(t::open(path, threads));
           if (correct_clocks) {
             t::correct_clocks(*trace);
           }
           return trace;
         },
         py::arg("path"), py::arg("threads") = 0, py::arg("correct_clocks") = false,
         py::call_guard<py::gil_scoped_release>())
      .def(
          "write", [](const Trace &self, const std::string &path) { t::write(self, path); },
          py::arg("path"), py::call_guard<py::gil_scoped_release>())
      .def("__len__", &Trace::size)
      .def_property_readonly("location_count", &Trace::location_count)
      .def_property_readonly("process_count", &Trace::process_count)
      .def_property_readonly("memory_bytes", &Trace::memory_bytes)
      .def("column", &column, py::arg("name"))
      .def("locations",
           [](const Trace &self) {
             py::list out;
             for (const auto &l : self.locations) {
               out.append(py::dict(py::arg("id") = l.id, py::arg("name") = l.name,
                                   py::arg("type") = as_int(l.type), py::arg("rank") = l.rank,
                                   py::arg("thread") = l.thread, py::arg("group") = l.group));
             }
             return out;
           })
      .def("location_groups",
           [](const Trace &self) {
             py::list out;
             for (const auto &g : self.location_groups) {
               out.append(py::dict(py::arg("name") = g.name, py::arg("rank") = g.rank,
                                   py::arg("system_node") = g.system_node));
             }
             return out;
           })
      .def("system_nodes",
           [](const Trace &self) {
             py::list out;
             for (const auto &n : self.system_nodes) {
               out.append(py::dict(py::arg("name") = n.name, py::arg("class_name") = n.class_name,
                                   py::arg("parent") = n.parent));
             }
             return out;
           })
      .def("regions",
           [](const Trace &self) {
             py::list out;
             for (const auto &r : self.regions) {
               const auto &info = t::function_info(r.function);
               out.append(py::dict(py::arg("name") = r.name,
                                   py::arg("function") = r.function == t::Function::None
                                                             ? py::object(py::none())
                                                             : py::object(py::str(info.name)),
                                   py::arg("category") = as_int(r.category),
                                   py::arg("paradigm") = as_int(r.paradigm),
                                   py::arg("role") = as_int(r.role),
                                   py::arg("group") = std::string(t::group_name(info.group)),
                                   py::arg("file") = r.file, py::arg("line_begin") = r.line_begin,
                                   py::arg("line_end") = r.line_end));
             }
             return out;
           })
      .def("communicators",
           [](const Trace &self) {
             py::list out;
             for (const auto &c : self.communicators) {
               out.append(py::dict(py::arg("name") = c.name, py::arg("members") = c.members,
                                   py::arg("parent") = c.parent, py::arg("self") = c.self));
             }
             return out;
           })
      .def("callsites",
           [](const Trace &self) {
             py::list out;
             for (const auto &s : self.callsites) {
               out.append(py::dict(py::arg("file") = s.file, py::arg("line") = s.line,
                                   py::arg("function") = s.function));
             }
             return out;
           })
      .def("metrics",
           [](const Trace &self) {
             py::list out;
             for (const auto &x : self.metrics) {
               out.append(py::dict(py::arg("name") = x.name, py::arg("unit") = x.unit,
                                   py::arg("type") = as_int(x.type)));
             }
             return out;
           })
      .def("collectives",
           [](const Trace &self) {
             const auto n = self.collectives.size();
             py::array_t<std::uint32_t> comm(n), first(n), count(n), expected(n);
             py::array_t<std::int32_t> op(n), root(n);
             py::list function;
             for (std::size_t k = 0; k < n; ++k) {
               const auto &c = self.collectives[k];
               comm.mutable_at(k) = c.comm;
               first.mutable_at(k) = c.first_member;
               count.mutable_at(k) = c.member_count;
               expected.mutable_at(k) = c.expected;
               op.mutable_at(k) = c.op;
               root.mutable_at(k) = c.root;
               function.append(std::string(t::function_info(c.function).name));
             }
             return py::dict(py::arg("comm") = comm, py::arg("function") = function,
                             py::arg("op") = op, py::arg("root") = root,
                             py::arg("first_member") = first, py::arg("member_count") = count,
                             py::arg("expected") = expected);
           })
      .def("unmatched", [](const Trace &self) { return to_dict(self.unmatched); })
      .def("clock_violations", [](const Trace &self) { return to_dict(self.clock_violations); })
      .def_property_readonly("clock_violation_largest_ns",
                             [](const Trace &self) { return self.clock_violations.largest_ns; })
      .def("clock_correction",
           [](const Trace &self) -> py::object {
             if (!self.clock_correction) {
               return py::none();
             }
             const auto &c = *self.clock_correction;
             return py::dict(py::arg("violations") = to_dict(c.before),
                             py::arg("largest_violation_ns") = c.before.largest_ns,
                             py::arg("jumps") = c.jumps, py::arg("events_moved") = c.events_moved,
                             py::arg("largest_shift_ns") = c.largest_shift_ns,
                             py::arg("cycles_broken") = c.cycles_broken);
           })
      .def("metadata",
           [](const Trace &self) {
             const auto &md = self.metadata;
             return py::dict(
                 py::arg("path") = md.path, py::arg("creator") = md.creator,
                 py::arg("format_version") = md.format_version,
                 py::arg("timer_resolution") = md.timer_resolution,
                 py::arg("time_origin") = md.time_origin,
                 py::arg("tracer_overhead_ns") = md.tracer_overhead_ns,
                 py::arg("is_model") = md.is_model, py::arg("unknown_events") = md.unknown_events,
                 py::arg("warnings") = md.warnings, py::arg("properties") = md.properties);
           })
      .def(
          "filter",
          [](const Trace &self, std::optional<std::pair<t::Timestamp, t::Timestamp>> window,
             std::vector<std::uint32_t> locations, std::vector<std::uint32_t> regions) {
            t::TraceFilter keep{window, std::move(locations), std::move(regions)};
            return std::make_shared<Trace>(t::filter(self, keep));
          },
          py::arg("time_window"), py::arg("locations"), py::arg("regions"),
          py::call_guard<py::gil_scoped_release>())
      .def("time_by_category", [](const Trace &self) {
        const auto times = t::time_by_category(self);
        py::array_t<std::int64_t> out({times.size(), std::size_t{7}});
        for (std::size_t l = 0; l < times.size(); ++l) {
          for (std::size_t c = 0; c < 7; ++c) {
            out.mutable_at(l, c) = times[l][c];
          }
        }
        return out;
      });

  register_partition(m, cls);

  py::list kinds;
  for (int k = 0; k < t::kEventKindCount; ++k) {
    kinds.append(t::event_kind_name(static_cast<t::EventKind>(k)));
  }
  m.attr("EVENT_KIND_NAMES") = kinds;
  m.def(
      "otf2_record_name",
      [](std::uint64_t record) { return std::string(t::otf2_record_name(record)); },
      py::arg("record"));
}
