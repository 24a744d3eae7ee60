// Running a SequenceProgram (sequence_program.hpp) in the engine: the engine reads the steps in
// place as one straight-line block per rank (Engine::run_steps), and the distinct calls become
// its CommOps with constant arguments. A small model stands beside them only to give the engine
// and the model trace what they read from a model: one function per region (its trace region,
// and the node its computation is charged to) and one leaf per call site and operation (the
// call site of the model trace, the node of a deadlock report).
#include "parjava/interp/sequence_program.hpp"

#include <map>
#include <string>
#include <unordered_map>

#include "engine.hpp"
#include "parjava/error.hpp"
#include "program.hpp"

namespace parjava::interp {

namespace {

using model::NodeIndex;

[[noreturn]] void inconsistent(const SequenceProgram &sp, const std::string &what) {
  throw Error(ErrorKind::Usage, "sequence program '" + sp.name + "': " + what);
}

void check(const SequenceProgram &sp) {
  if (sp.processes < 1) {
    inconsistent(sp, "has no processes");
  }
  if (sp.offsets.size() != static_cast<std::size_t>(sp.processes) + 1 || sp.offsets.front() != 0 ||
      sp.offsets.back() != sp.steps() || sp.ref.size() != sp.steps() ||
      sp.seconds.size() != sp.steps()) {
    inconsistent(sp, "its step columns and rank offsets disagree");
  }
  for (std::size_t r = 1; r < sp.offsets.size(); ++r) {
    if (sp.offsets[r] < sp.offsets[r - 1]) {
      inconsistent(sp, "rank offsets decrease at rank " + std::to_string(r - 1));
    }
  }
  const std::size_t slots = 2 + sp.communicators.size();
  for (std::size_t i = 0; i < sp.calls.size(); ++i) {
    const SequenceCall &c = sp.calls[i];
    if (c.function >= sp.functions.size()) {
      inconsistent(sp, "call " + std::to_string(i) + " names no function");
    }
    if (c.comm >= slots) {
      inconsistent(sp, "call " + std::to_string(i) + " uses communicator slot " +
                           std::to_string(c.comm) + " of " + std::to_string(slots));
    }
    if (c.callsite != kNoSequenceRef && c.callsite >= sp.callsites.size()) {
      inconsistent(sp, "call " + std::to_string(i) + " refers to call site " +
                           std::to_string(c.callsite) + " of " +
                           std::to_string(sp.callsites.size()));
    }
    if (!c.local && model::operation_info(c.op).family != model::OperationFamily::Mpi) {
      inconsistent(sp, "call " + std::to_string(i) + " is not an MPI operation");
    }
  }
  for (const auto &comm : sp.communicators) {
    for (const std::int32_t m : comm.members) {
      if (m < 0 || m >= sp.processes) {
        inconsistent(sp, "communicator '" + comm.name + "' has member " + std::to_string(m) +
                             " outside 0.." + std::to_string(sp.processes - 1));
      }
    }
  }
  // The engine's program counter is 32 bits (one value past each rank's last step included).
  if (sp.steps() + static_cast<std::size_t>(sp.processes) >= kNone) {
    inconsistent(sp, "has " + std::to_string(sp.steps()) + " steps; the engine runs at most " +
                         std::to_string(kNone - 1 - static_cast<std::size_t>(sp.processes)));
  }
}

// The steps themselves are checked as ProgramWriter goes over them (one pass, not two).
void check_step(const SequenceProgram &sp, std::size_t s) {
  const std::uint32_t ref = sp.ref[s];
  const bool ok = sp.kind[s] == StepKind::Leave || sp.kind[s] == StepKind::Compute
                      ? ref == kNoSequenceRef || ref < sp.regions.size()
                  : sp.kind[s] == StepKind::Enter ? ref < sp.regions.size()
                                                  : ref < sp.calls.size();
  if (!ok || !(sp.seconds[s] >= 0.0)) {
    inconsistent(sp, "step " + std::to_string(s) + " refers to nothing or has a negative time");
  }
}

// The model beside the program: function 0 is the entry (never a trace region), function
// 1 + i is region i, then the enclosing functions of call sites that are no region.
class SequenceModel {
public:
  explicit SequenceModel(const SequenceProgram &sp) : sp_(sp) {
    m_.name = sp.name;
    m_.entry = "replay";
    add_function("replay", "", 0, 0);
    for (const auto &r : sp.regions) {
      add_function(r.name, r.file, r.line, r.end_line);
    }
  }

  [[nodiscard]] NodeIndex region_node(std::uint32_t region) const {
    return region == kNoSequenceRef ? body(0) : body(1 + region);
  }
  [[nodiscard]] std::uint32_t region_function(std::uint32_t region) const { return 1 + region; }

  // The leaf of a call: one per (call site, operation or local function).
  NodeIndex call_node(const SequenceCall &c) {
    const std::uint64_t key =
        (static_cast<std::uint64_t>(c.callsite) << 32U) |
        (c.local ? 0x80000000U | c.function : static_cast<std::uint32_t>(c.op));
    const auto it = leaves_.find(key);
    if (it != leaves_.end()) {
      return it->second;
    }
    model::Node leaf;
    leaf.id = static_cast<model::NodeId>(m_.nodes.size());
    std::size_t owner = 0;
    if (c.callsite != kNoSequenceRef) {
      const SequenceCallSite &site = sp_.callsites[c.callsite];
      leaf.source.file = file(site.file);
      leaf.source.line = site.line;
      owner = site.function.empty() ? 0 : function_named(site.function);
    }
    if (c.local) {
      leaf.kind = model::NodeKind::Compute;
      leaf.label = sp_.functions[c.function];
    } else {
      leaf.kind = model::NodeKind::Communication;
      leaf.op = c.op;
      leaf.label = sp_.functions[c.function];
      // The engine reads the CommOp, never these: they only make the leaf a valid one.
      for (const auto &spec : model::operation_info(c.op).args) {
        if (!spec.required) {
          continue;
        }
        model::OperationArg a;
        a.name = std::string(spec.name);
        a.kind = spec.kind;
        if (spec.kind == model::ArgKind::Expr) {
          a.expr = model::Expression::constant(std::int64_t{0});
        } else {
          a.text = spec.kind == model::ArgKind::Comm ? "world" : "replayed";
        }
        leaf.op_args.push_back(std::move(a));
      }
    }
    const NodeIndex n = m_.add(std::move(leaf));
    m_.nodes[m_.functions[owner].body].children.push_back(n);
    leaves_.emplace(key, n);
    return n;
  }

  model::Model &finish() {
    m_.validate();
    return m_;
  }

private:
  [[nodiscard]] NodeIndex body(std::size_t function) const { return m_.functions[function].body; }

  std::int32_t file(const std::string &name) {
    if (name.empty()) {
      return -1;
    }
    const auto [it, fresh] = files_.emplace(name, static_cast<std::int32_t>(m_.files.size()));
    if (fresh) {
      m_.files.push_back(name);
    }
    return it->second;
  }

  std::size_t add_function(const std::string &name, const std::string &file_name,
                           std::uint32_t line, std::uint32_t end_line) {
    // Two regions of one name (in different files) stay two functions.
    std::string unique = name.empty() ? "region" : name;
    for (int k = 2; names_.contains(unique); ++k) {
      unique = name + " #" + std::to_string(k);
    }
    names_.emplace(unique, m_.functions.size());
    model::Node seq;
    seq.id = static_cast<model::NodeId>(m_.nodes.size());
    seq.kind = model::NodeKind::Sequence;
    seq.label = unique;
    seq.source.file = file(file_name);
    seq.source.line = line;
    seq.source.end_line = end_line;
    model::Function f;
    f.name = unique;
    f.body = m_.add(std::move(seq));
    f.source = m_.nodes[f.body].source;
    m_.functions.push_back(std::move(f));
    return m_.functions.size() - 1;
  }

  std::size_t function_named(const std::string &name) {
    const auto it = names_.find(name);
    return it != names_.end() ? it->second : add_function(name, "", 0, 0);
  }

  const SequenceProgram &sp_;
  model::Model m_;
  std::map<std::string, std::size_t> names_;
  std::unordered_map<std::string, std::int32_t> files_;
  std::unordered_map<std::uint64_t, NodeIndex> leaves_;
};

// The engine reads the steps where they are (Program::steps, Engine::run_steps); what is
// written here is per distinct call and per region. Leaves are made in the order of the calls'
// first steps, as when every step became an Instruction, so node indices do not change.
class ProgramWriter {
public:
  ProgramWriter(const SequenceProgram &sp, SequenceModel &model) : sp_(sp), model_(model) {
    p_.processes = sp.processes;
    p_.threads = 1;
    p_.trace_entry = false;
    p_.measured_times = true;
    p_.slot_types = {model::ValueType::Int};
    p_.rng_slot = 0;
    p_.frame_slots = 1;
    p_.comm_names = {"world", "self"};
    for (const auto &c : sp.communicators) {
      p_.comm_names.push_back(c.name);
      p_.initial_comms.push_back(c.members);
    }
    p_.trace_names = sp.functions;
    p_.request_names.emplace_back(""); // id 0: no name
    seen_.assign(sp.calls.size(), 0);
  }

  Program write() {
    ReplaySteps &st = p_.steps;
    st.used = true;
    st.kind = sp_.kind.data();
    st.ref = sp_.ref.data();
    st.seconds = sp_.seconds.data();
    st.call.resize(sp_.calls.size());
    st.region_node.push_back(model_.region_node(kNoSequenceRef));
    for (std::uint32_t r = 0; r < sp_.regions.size(); ++r) {
      st.region_node.push_back(model_.region_node(r));
    }
    for (std::int64_t r = 0; r < sp_.processes; ++r) {
      const auto first = static_cast<std::size_t>(sp_.offsets[static_cast<std::size_t>(r)]);
      const auto last = static_cast<std::size_t>(sp_.offsets[static_cast<std::size_t>(r) + 1]);
      p_.process_entry.push_back(static_cast<std::uint32_t>(first));
      st.end.push_back(static_cast<std::uint32_t>(last));
      for (std::size_t s = first; s < last; ++s) {
        check_step(sp_, s);
        if (sp_.kind[s] == StepKind::Call && seen_[sp_.ref[s]] == 0) {
          first_call(sp_.ref[s]);
        }
      }
    }
    p_.entry_pc = p_.process_entry.empty() ? 0 : p_.process_entry.front();
    p_.function_entry.assign(1 + sp_.regions.size(), p_.entry_pc);
    p_.interval_ids.assign(1 + sp_.regions.size(), -1);
    for (std::size_t r = 0; r < sp_.regions.size(); ++r) {
      if (sp_.regions[r].interval) {
        p_.interval_ids[1 + r] = static_cast<std::int64_t>(sp_.regions[r].interval_id);
      }
    }
    while (p_.request_names.size() <= max_group_) {
      p_.request_names.push_back("group " + std::to_string(p_.request_names.size()));
    }
    return std::move(p_);
  }

private:
  // The instruction a call's steps run: its leaf, and its CommOp or local function.
  void first_call(std::uint32_t ref) {
    seen_[ref] = 1;
    const SequenceCall &c = sp_.calls[ref];
    const NodeIndex node = model_.call_node(c);
    p_.steps.call[ref] = c.local ? Instruction{Code::LocalCall, node, c.function, 0}
                                 : Instruction{Code::Comm, node, comm_op(c, node), 0};
  }

  std::int32_t constant(std::int64_t v) {
    const auto [it, fresh] = constants_.emplace(v, static_cast<std::int32_t>(p_.exprs.size()));
    if (fresh) {
      p_.exprs.push_back(model::CompiledExpression::of_constant(model::Value::of_int(v)));
    }
    return it->second;
  }

  std::uint32_t comm_op(const SequenceCall &c, NodeIndex node) {
    CommOp op;
    op.op = c.op;
    op.node = node;
    op.expr.fill(-1);
    op.measured.fill(-1);
    op.comm = c.comm;
    op.trace_name = c.function + 1;
    const auto set = [&](Arg a, std::int64_t v) {
      op.expr[static_cast<std::size_t>(a)] = constant(v);
    };
    using model::Operation;
    switch (c.op) {
    case Operation::Send:
    case Operation::Bsend:
    case Operation::Ssend:
    case Operation::Rsend:
    case Operation::Isend:
    case Operation::Ibsend:
    case Operation::Issend:
    case Operation::Irsend:
      set(Arg::Dest, c.peer);
      set(Arg::Tag, c.tag);
      set(Arg::Bytes, static_cast<std::int64_t>(c.bytes));
      break;
    case Operation::Recv:
    case Operation::Irecv:
      set(Arg::Source, c.peer);
      set(Arg::Tag, c.tag);
      set(Arg::Bytes, static_cast<std::int64_t>(c.bytes));
      break;
    case Operation::Sendrecv:
      set(Arg::Dest, c.peer);
      set(Arg::Source, c.source);
      set(Arg::SendTag, c.tag);
      set(Arg::RecvTag, c.recv_tag);
      set(Arg::SendBytes, static_cast<std::int64_t>(c.bytes));
      set(Arg::RecvBytes, static_cast<std::int64_t>(c.recv_bytes));
      break;
    default:
      set(Arg::Root, c.root);
      set(Arg::Bytes, static_cast<std::int64_t>(c.bytes));
      break;
    }
    op.request = c.group;
    max_group_ = std::max(max_group_, static_cast<std::size_t>(c.group));
    p_.comms.push_back(op);
    return static_cast<std::uint32_t>(p_.comms.size() - 1);
  }

  const SequenceProgram &sp_;
  SequenceModel &model_;
  Program p_;
  std::vector<std::uint8_t> seen_; // per call: its instruction is written
  std::unordered_map<std::int64_t, std::int32_t> constants_;
  std::size_t max_group_ = 0;
};

} // namespace

Prediction interpret_sequences(const SequenceProgram &sp, const machine::Machine &machine,
                               const InterpretOptions &options) {
  check(sp);
  SequenceModel model(sp);
  ProgramWriter writer(sp, model);
  const Program program = writer.write();
  const model::Model &m = model.finish();
  InterpretOptions o = options;
  o.processes = sp.processes;
  o.threads = 1;
  o.entry.clear();
  std::vector<std::string> warnings;
  Engine engine(m, program, machine, o, warnings);
  return engine.run();
}

} // namespace parjava::interp
