#include "probe_planner.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "loop_shape.hpp"
#include "parjava/model/bytecode.hpp"
#include "sized_calls.hpp"
#include "steered_loops.hpp"

namespace parjava::frontend {

namespace {

class Planner {
public:
  explicit Planner(AnalysedSources &a) : a_(a), p_(a.program) {}

  EstimationPlan run() {
    steered_ = steered_loops(p_);
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body != kNoStruct) {
        analyse_loops(p_.functions[f].body, kNoStruct, f);
      }
    }
    find_nest_only_functions();
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body != kNoStruct) {
        timing_ = !nest_only_.contains(f);
        counting_ = kept_nest_callees_.contains(f);
        quiet_ = quiet_functions_.contains(f);
        walk(p_.functions[f].body, kNoStruct, f);
      }
    }
    timing_ = true;
    plan_prologues();
    for (const ValueProbeSite &v : a_.value_probes) {
      Probe probe;
      probe.slot = plan_.slots++;
      probe.kind = ProbeKind::Value;
      probe.node = v.node;
      probe.argument = v.argument;
      probe.unit = v.unit;
      plan_.probes.push_back(probe);
      for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
        if (p_.nodes[n].model_id == v.node) {
          a_.probe_sites.push_back(
              {probe.slot, static_cast<std::uint8_t>(ProbeKind::Value), n, v.expr});
          break;
        }
      }
    }
    plan_inputs();
    return plan_;
  }

private:
  // Program inputs (issue 12 item 3): the value each named input has where the program reads
  // it, so that the model's parameter takes the estimation run's value instead of 0 or a
  // default the run did not use. Numbers only: a probe that does not compile would cost the
  // function all its probes (self-repair).
  void plan_inputs() {
    for (const InputSite &site : p_.inputs) {
      // A broadcast of what rank 0 computes (InputSite::broadcast_value) is no parameter.
      if (!site.setup || site.parameter.empty() || site.broadcast_value != nullptr ||
          site.statement == nullptr || site.spelling.empty() || site.var == kNoVar ||
          (p_.variables[site.var].type != VarType::Integer &&
           p_.variables[site.var].type != VarType::Floating)) {
        continue;
      }
      StructIndex holder = kNoStruct;
      for (StructIndex n = 0; n < p_.nodes.size() && holder == kNoStruct; ++n) {
        const StructNode &node = p_.nodes[n];
        if (node.function == site.function &&
            (node.stmt == site.statement || node.call == site.statement ||
             std::find(node.stmts.begin(), node.stmts.end(), site.statement) != node.stmts.end())) {
          holder = n;
        }
      }
      if (holder == kNoStruct) {
        holder = call_within(site);
      }
      if (holder == kNoStruct) {
        continue;
      }
      Probe probe;
      probe.slot = plan_.slots++;
      probe.kind = ProbeKind::Input;
      probe.argument = site.parameter;
      plan_.probes.push_back(probe);
      ProbeSite where{probe.slot, static_cast<std::uint8_t>(ProbeKind::Input), holder, nullptr};
      where.after = site.statement;
      where.spelling = site.spelling;
      a_.probe_sites.push_back(std::move(where));
    }
  }

  // A statement whose value comes from a program function's call (PENNANT's `cstop =
  // inp->getInt("cstop", 999999);`) keeps its effects in a block of their own; the call's node,
  // inside the statement, carries the probe that reads the value after the statement.
  StructIndex call_within(const InputSite &site) const {
    const clang::SourceManager &sm = p_.functions[site.function].context->getSourceManager();
    const clang::SourceRange range = site.statement->getSourceRange();
    for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
      const StructNode &node = p_.nodes[n];
      if (node.function == site.function && node.kind == StructKind::UserCall &&
          node.call != nullptr &&
          sm.isPointWithin(node.call->getBeginLoc(), range.getBegin(), range.getEnd())) {
        return n;
      }
    }
    return kNoStruct;
  }

  struct LoopFacts {
    StructIndex parent_loop = kNoStruct;
    bool timed = false;
    bool imperfect = false; // holds a timed loop at its own level
    bool perfect = false;   // the whole body of a loop without communication
  };

  bool comm_free_loop(StructIndex n) const {
    return n != kNoStruct && is_loop(p_.nodes[n].kind) && !p_.nodes[n].interpreted;
  }

  // Does the model count the loop's trips (an expression of control variables), so that its
  // time scales with the inputs?
  bool counted(StructIndex n, FunctionId f) const {
    const StructNode &node = p_.nodes[n];
    if (node.kind != StructKind::For || node.opaque) {
      return false;
    }
    if (node.range_for) {
      return node.counter != kNoVar;
    }
    return !loop_shape(p_, *a_.writer, node.stmt, f).trips.empty();
  }

  // A counted loop whose trip count is a constant (`for (m = 0; m < 3; m++)`): its time per
  // execution is a constant share of the enclosing loop's, so timing it apart adds nothing to
  // the model and costs a probe pair per execution, in the hottest place (CoMD's force loop
  // ran 3x slower for that).
  bool constant_trips(StructIndex n, FunctionId f) const {
    const StructNode &node = p_.nodes[n];
    if (node.kind != StructKind::For || node.opaque || node.range_for) {
      return false;
    }
    const std::string trips = loop_shape(p_, *a_.writer, node.stmt, f).trips;
    if (trips.empty()) {
      return false;
    }
    try {
      return model::Expression::parse(trips).names().empty();
    } catch (const std::exception &) {
      return false;
    }
  }

  // A loop whose trip count names only numbers of the compile line and comes to at most this
  // with theirs is timed with its enclosing loop (few_trips_of_the_compile). Thread and vector
  // widths fixed at build time (minisweep's NTHREAD_M = 8 and NTHREAD_A = 32 from -DNM_VALUE)
  // are below it; grid sizes given on the compile line (miniWeather's -D_NX=...) are above it
  // and keep their own time, which scales with them.
  static constexpr std::int64_t kFoldedTrips = 64;

  // A counted loop whose trip count names only numbers of the compile line (minisweep's
  // `iu_per_thread < NU_PER_THREAD`, an enumerator computed from -DNM_VALUE=4) and is at most
  // kFoldedTrips with their values: one iteration there, executed 268 million times per run in
  // the sweep kernel, and timed apart at 5.6 ns per execution, probes included, its parts
  // summed to twice the kernel's own measured time; the 8-trip loops over NTHREAD_M, executed
  // 8 million times with a time sample per iteration, made the estimation code 1.30x the
  // program's instructions where it is 1.08x without them. Such a loop runs as few times in every
  // execution as a constant-trip one, and is folded like one; a note says that a prediction
  // at other numbers of the compile line keeps its share of the enclosing loop's time.
  bool few_trips_of_the_compile(StructIndex n, FunctionId f) {
    const StructNode &node = p_.nodes[n];
    if (node.kind != StructKind::For || node.opaque || node.range_for) {
      return false;
    }
    const std::string trips = loop_shape(p_, *a_.writer, node.stmt, f).trips;
    std::vector<std::string> inputs;
    const auto resolve = [&](std::string_view name) -> std::optional<model::Symbol> {
      const auto it = p_.compile_time_inputs.find(std::string(name));
      if (it == p_.compile_time_inputs.end() || it->second.value.empty()) {
        return std::nullopt;
      }
      inputs.push_back(it->first + "=" + it->second.value);
      model::Symbol s;
      s.constant = it->second.floating ? model::Value::of_float(std::stod(it->second.value))
                                       : model::Value::of_int(std::stoll(it->second.value));
      return s;
    };
    std::int64_t value = 0;
    try {
      const auto compiled =
          model::CompiledExpression::compile(model::Expression::parse(trips), resolve, "trips");
      if (trips.empty() || !compiled.is_constant() || compiled.type() != model::ValueType::Int) {
        return false;
      }
      value = compiled.evaluate_int({});
    } catch (const std::exception &) {
      return false; // a name that is not a number of the compile line, or no trip count
    }
    if (inputs.empty() || value > kFoldedTrips) {
      return false;
    }
    std::sort(inputs.begin(), inputs.end());
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    std::string with;
    for (const std::string &i : inputs) {
      with += (with.empty() ? "-D" : ", -D") + i;
    }
    Diagnostic d;
    d.kind = DiagnosticKind::Approximation;
    d.severity = Severity::Note;
    d.function = p_.functions[f].name;
    d.message = "loop '" + node.label + "' runs " + std::to_string(value) +
                (value == 1 ? " iteration" : " iterations") + " per execution with " + with +
                ": timed with its enclosing loop, not apart (a probe pair on each execution "
                "would cost more than its iterations); a prediction at other values of the "
                "compile line keeps its share of the enclosing loop's time";
    const clang::SourceManager &sm = p_.functions[f].context->getSourceManager();
    const clang::PresumedLoc at = sm.getPresumedLoc(sm.getExpansionLoc(node.range.getBegin()));
    if (at.isValid()) {
      d.file = p_.source_file(*p_.functions[f].context, at.getFilename());
      d.line = at.getLine();
      d.column = at.getColumn();
    }
    p_.diagnostics.push_back(std::move(d));
    return true;
  }

  void analyse_loops(StructIndex n, StructIndex enclosing_loop, FunctionId f) {
    const StructNode &node = p_.nodes[n];
    StructIndex inner = enclosing_loop;
    if (is_loop(node.kind)) {
      LoopFacts facts;
      facts.parent_loop = enclosing_loop;
      // A loop is timed on its own unless it is the whole body of a loop without
      // communication (a perfect nest is measured by its outer loop), or sits in such a loop
      // and its trip count is not an expression: its time would be a measured constant, the
      // same share of the enclosing loop's own time, and the probe pair around every
      // execution would cost as much as a short loop (FFT bit reversal).
      bool perfect = false;
      bool folded = false;
      if (comm_free_loop(enclosing_loop)) {
        const StructNode &parent = p_.nodes[enclosing_loop];
        const StructNode &body = p_.nodes[parent.children.front()];
        perfect = body.kind == StructKind::Sequence && body.children.size() == 1 &&
                  body.children.front() == n;
        folded = !counted(n, f) || constant_trips(n, f) || few_trips_of_the_compile(n, f);
      }
      facts.timed = !node.interpreted && !perfect && !folded;
      facts.perfect = perfect;
      loops_[n] = facts;
      if (facts.timed && comm_free_loop(enclosing_loop)) {
        loops_[enclosing_loop].imperfect = true;
      }
      inner = n;
    }
    for (StructIndex c : node.children) {
      analyse_loops(c, inner, f);
    }
  }

  void add(ProbeKind kind, StructIndex n) {
    // In functions called only from measured nests, only the cheap counters of opaque loops
    // run: their statistics describe the model, their time is the nest's. A nest that sets
    // what the code after it reads stays in the model (keeps_state), and so do the functions
    // it calls: their opaque branches are counted too, or the model guesses 0.5 where miniMD's
    // `if (nlocal == nmax) growarray();` in addatom(), called for each of 32000 atoms, is
    // true twice (+280 % on its own estimation run).
    const bool counter = (kind == ProbeKind::Trips && p_.nodes[n].opaque) ||
                         (counting_ && (kind == ProbeKind::Branch || kind == ProbeKind::Switch));
    if (!timing_ && !counter) {
      return;
    }
    Probe probe;
    probe.slot = plan_.slots++;
    probe.kind = kind;
    probe.node = p_.nodes[n].model_id;
    plan_.probes.push_back(probe);
    a_.probe_sites.push_back({probe.slot, static_cast<std::uint8_t>(kind), n, nullptr});
    if (timing_ && quiet_ &&
        (kind == ProbeKind::Block || kind == ProbeKind::Fragment || kind == ProbeKind::Function)) {
      a_.probe_sites.back().quiet = true;
    }
    if (kind == ProbeKind::Fragment && calls_quiet(n)) {
      a_.probe_sites.back().quiets = true;
    }
  }

  // Is the function body straight-line code: blocks and returns, no branch, loop or call?
  bool straight_line(StructIndex body) const {
    if (body == kNoStruct) {
      return false;
    }
    std::vector<StructIndex> stack{body};
    while (!stack.empty()) {
      const StructNode &node = p_.nodes[stack.back()];
      stack.pop_back();
      if (node.kind != StructKind::Sequence && node.kind != StructKind::Block &&
          node.kind != StructKind::Return) {
        return false;
      }
      stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
    return true;
  }

  // Does the subtree call a quiet function, or a function measured inside nests that leads to
  // one?
  bool calls_quiet(StructIndex n) const {
    std::vector<StructIndex> stack{n};
    while (!stack.empty()) {
      const StructNode &node = p_.nodes[stack.back()];
      stack.pop_back();
      if (node.kind == StructKind::UserCall && leads_to_quiet_.contains(node.callee)) {
        return true;
      }
      stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
    return false;
  }

  void walk(StructIndex n, StructIndex enclosing_loop, FunctionId f) {
    StructNode &node = p_.nodes[n];
    if (node.model_id == 0) {
      return;
    }
    switch (node.kind) {
    case StructKind::Block:
    case StructKind::ExternalCall:
      // A block in a loop without communication is part of the loop's own time, which the
      // loop's probes measure whole: probing it too would only split that time (the model is
      // the same) at the cost of a probe pair per iteration.
      if ((!node.stmts.empty() || node.in_condition) && !node.zero_time &&
          !comm_free_loop(enclosing_loop)) {
        add(ProbeKind::Block, n);
        if (timing_ && node.kind == StructKind::ExternalCall && !node.in_condition) {
          add_sized(n, f);
        }
      } else if (!node.stmts.empty() && timing_ && node.kind == StructKind::ExternalCall &&
                 allocation_call(node) && !sized_bytes(n, f).empty()) {
        // An allocation or a free in a measured loop: its cost changes with the size
        // (an munmap of a large block follows its pages), so it is timed and priced apart
        // from the loop; it costs far more than its probe. Copies stay in the loop's time:
        // in a hot loop they are small and a probe per call would cost more than they do.
        // So do allocations whose size is data (miniAMR's 8 million `free`s of 88-byte rows):
        // priced at the estimation's size only, they would gain nothing from a probe pair per
        // call, which costs as much as they do and inflated their price 2.7x.
        add(ProbeKind::Block, n);
        add_sized(n, f);
      }
      return;
    case StructKind::Reduced:
      add(ProbeKind::Function, n);
      return;
    case StructKind::UserCall:
      if (timing_ && !comm_free_loop(enclosing_loop) && node.callee != kNoFunction) {
        call_sites_[node.callee].push_back(n);
      }
      return;
    // An opaque condition in a loop without communication is measured with the loop (the
    // nest becomes one block and the condition leaves the model): a counter per evaluation
    // there would only cost time.
    // A loop that sets what the rest of the program reads (an option parser writing its
    // inputs, CoMD's force loop setting the neighbour count its inner loop runs to, HPCCG
    // counting its external columns) stays in the model, and so do its conditions: they are
    // counted, or the model would guess 0.5 for `strcmp(argv[i], "--nx")` or `nIBox == 0`.
    // A branch that returns stays in the model with its loop, which cannot become one block (a
    // return leaves the function): counted, or the model draws 0.5 and LLNL/Quicksilver's
    // `while (true) { ... if (!retry) return nearest_facet; }` (MCT.cc:565) ran 2 iterations
    // of its measured time per iteration where the run ran some 200.
    case StructKind::If:
    case StructKind::IfElse:
      if (node.opaque &&
          (!comm_free_loop(enclosing_loop) || keeps_state(enclosing_loop) || returns_within(n))) {
        add(ProbeKind::Branch, n);
      }
      break;
    case StructKind::Switch:
      if (node.opaque && (!comm_free_loop(enclosing_loop) || keeps_state(enclosing_loop))) {
        add(ProbeKind::Switch, n);
      }
      break;
    case StructKind::For:
    case StructKind::While:
    case StructKind::DoWhile: {
      const LoopFacts &facts = loops_.at(n);
      PlannedLoop loop;
      loop.node = node.model_id;
      loop.communicates = node.interpreted; // not reducible as one fragment
      loop.timed = facts.timed;
      if (node.kind == StructKind::For && !node.opaque) {
        if (node.range_for && node.counter != kNoVar) {
          loop.trips = a_.writer->name(node.uses.front());
        } else if (node.omp_chunk) {
          const LoopShape shape = loop_shape(p_, *a_.writer, node.stmt, f);
          if (shape.canonical && shape.step == "1" && !shape.decreasing) {
            loop.trips = static_chunk_trips("(" + shape.start + ")", "(" + shape.end + ")");
          }
        } else {
          const LoopShape shape = loop_shape(p_, *a_.writer, node.stmt, f);
          loop.trips = shape.trips;
          if (!shape.trips.empty()) {
            loop.variable = shape.variable;
            loop.final_value = "(" + shape.start + ") " + (shape.decreasing ? "-" : "+") + " (" +
                               shape.trips + ") * (" + shape.step + ")";
          }
        }
      }
      if (node.omp_loop && !node.interpreted) {
        // Its probes cannot enclose it (the pragma must stay next to it): each thread times its
        // iterations, and what is inside is measured with them.
        loop.timed = true;
        loop.by_iterations = true;
        if (timing_) {
          add(ProbeKind::Iterations, n);
          // A count the model cannot compute (`for (i = 0; i < nlocal; i++)` over miniMD's
          // atoms) is counted by each thread over its chunk, after the loop; without it the
          // loop had no time at all.
          if (loop.trips.empty()) {
            add(ProbeKind::Trips, n);
          }
          plan_.loops.push_back(loop);
          counted_inner_loop(n, f);
        }
        const bool saved = timing_;
        timing_ = false;
        for (StructIndex c : node.children) {
          walk(c, n, f);
        }
        timing_ = saved;
        return;
      }
      // A loop folded into an enclosing measured loop (not timed, not part of its perfect
      // chain) leaves the model with it: its trip count is never read.
      const bool folded = comm_free_loop(enclosing_loop) && !facts.timed && !facts.perfect;
      // A loop that communicates is counted too when its count is data (opaque) or follows
      // data decisions (steered_loops.hpp): its counts per rank go into the model.
      if ((!node.interpreted || node.opaque || steered_[n]) && !folded) {
        add(ProbeKind::Trips, n);
        if (timing_ || node.opaque) {
          plan_.loops.push_back(loop);
        }
      }
      if (loop.timed) {
        add(ProbeKind::Fragment, n);
        if (has_inner_loop(n)) {
          add(ProbeKind::Iterations, n);
        }
      }
      for (StructIndex c : node.children) {
        walk(c, n, f);
      }
      return;
    }
    default:
      break;
    }
    for (StructIndex c : node.children) {
      walk(c, enclosing_loop, f);
    }
  }

  // Does the loop set a program input or a variable the model keeps (so that reducing it to a
  // block would lose the value)? Memoised per loop.
  // Does a return lie in `n`'s subtree (within its function)?
  bool returns_within(StructIndex n) const {
    std::vector<StructIndex> stack{n};
    while (!stack.empty()) {
      const StructNode &node = p_.nodes[stack.back()];
      stack.pop_back();
      if (node.kind == StructKind::Return) {
        return true;
      }
      stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
    return false;
  }

  bool keeps_state(StructIndex loop) {
    if (const auto it = keeps_state_.find(loop); it != keeps_state_.end()) {
      return it->second;
    }
    bool keeps = false;
    std::vector<StructIndex> stack{loop};
    while (!stack.empty() && !keeps) {
      const StructNode &node = p_.nodes[stack.back()];
      stack.pop_back();
      // Any definition that reaches a control use: a loop that sets what the code after it
      // reads cannot be reduced to a block, so its conditions stay in the model and must be
      // counted, or they stay at a silent 0.5 (HPCCG's `if (start_row <= cur_ind && ...)`
      // counting its external columns). A variable declared inside the loop is not read after
      // it: its control uses are the loop's own, which leave the model with the nest.
      for (const Effect &e : node.effects) {
        if (e.kept &&
            (e.kind == Effect::Kind::Input || (e.var != kNoVar && !declared_inside(e.var, loop)))) {
          keeps = true;
        }
      }
      stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
    keeps_state_[loop] = keeps;
    return keeps;
  }

  // Is `v` a local variable declared in the loop's statement (its body or its for-init)? Its
  // lifetime ends with the loop, so no code after the loop reads what the loop wrote in it
  // (minisweep's `const int iu = iu_base + sweeper_thread_u;` in the sweep kernel's innermost
  // loops, whose counted `if (... iu < NU)` cost 84 million counter updates per run).
  bool declared_inside(VarId v, StructIndex loop) const {
    const Variable &var = p_.variables[v];
    const auto *decl = llvm::dyn_cast_or_null<clang::VarDecl>(var.decl);
    const StructNode &node = p_.nodes[loop];
    if (var.scope != VarScope::Local || decl == nullptr || !decl->isLocalVarDecl() ||
        decl->isStaticLocal() || node.stmt == nullptr || node.function == kNoFunction) {
      return false;
    }
    const clang::SourceManager &sm = p_.functions[node.function].context->getSourceManager();
    const clang::SourceLocation at = sm.getExpansionLoc(decl->getLocation());
    const clang::SourceLocation begin = sm.getExpansionLoc(node.stmt->getBeginLoc());
    const clang::SourceLocation end = sm.getExpansionLoc(node.stmt->getEndLoc());
    return at.isValid() && begin.isValid() && end.isValid() &&
           sm.isBeforeInTranslationUnit(begin, at) && sm.isBeforeInTranslationUnit(at, end);
  }

  // Functions called only from inside loop nests measured as a whole (stencil kernels,
  // lambdas, accessors): probing them would measure the probes, and their time is in the nest's.
  void find_nest_only_functions() {
    std::map<FunctionId, std::vector<std::pair<FunctionId, bool>>> sites; // caller, in nest
    std::map<FunctionId, std::set<FunctionId>> &callees = callees_;
    std::function<void(StructIndex, FunctionId, bool, bool)> collect =
        [&](StructIndex n, FunctionId f, bool in_nest, bool in_kept) {
          const StructNode &node = p_.nodes[n];
          if (node.kind == StructKind::UserCall && node.callee != kNoFunction) {
            sites[node.callee].emplace_back(f, in_nest);
            callees[f].insert(node.callee);
            if (in_kept) {
              kept_nest_callees_.insert(node.callee);
            }
          }
          const bool loop = is_loop(node.kind) && !node.interpreted;
          const bool kept = in_kept || (loop && !in_nest && keeps_state(n));
          for (StructIndex c : node.children) {
            collect(c, f, in_nest || loop, kept);
          }
        };
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body != kNoStruct) {
        collect(p_.functions[f].body, f, false, false);
      }
    }
    // What those functions call runs in the model too.
    std::vector<FunctionId> work(kept_nest_callees_.begin(), kept_nest_callees_.end());
    while (!work.empty()) {
      const FunctionId f = work.back();
      work.pop_back();
      for (FunctionId c : callees[f]) {
        if (kept_nest_callees_.insert(c).second) {
          work.push_back(c);
        }
      }
    }
    bool changed = true;
    while (changed) {
      changed = false;
      for (const auto &[callee, list] : sites) {
        if (nest_only_.contains(callee) || callee == a_.entry) {
          continue;
        }
        const bool only = std::all_of(list.begin(), list.end(), [&](const auto &site) {
          return site.second || nest_only_.contains(site.first);
        });
        if (only && !list.empty()) {
          nest_only_.insert(callee);
          changed = true;
        }
      }
    }
    // Functions called from measured nests and from other places are timed for the other
    // places; inside a nest their probes stay silent (PJ_QBEGIN), or every call of a hot
    // accessor in an innermost loop runs them and the nest's time is the probes'.
    for (const auto &[callee, list] : sites) {
      if (nest_only_.contains(callee) || callee == a_.entry) {
        continue;
      }
      if (std::any_of(list.begin(), list.end(), [&](const auto &site) {
            return site.second || nest_only_.contains(site.first);
          })) {
        // Straight-line code (an accessor computing an address) costs its other callers
        // nanoseconds, less than a probe: measured in the nests alone, it is left unprobed (a
        // silent probe still costs a test and a branch in every call of an innermost loop).
        (straight_line(p_.functions[callee].body) ? nest_only_ : quiet_functions_).insert(callee);
      }
    }
    // A nest quiets them through the functions it calls: those measured inside nests only,
    // down to a quiet one.
    leads_to_quiet_ = quiet_functions_;
    changed = true;
    while (changed) {
      changed = false;
      for (FunctionId f : nest_only_) {
        if (leads_to_quiet_.contains(f)) {
          continue;
        }
        const auto it = callees_.find(f);
        if (it != callees_.end() &&
            std::any_of(it->second.begin(), it->second.end(),
                        [&](FunctionId c) { return leads_to_quiet_.contains(c); })) {
          leads_to_quiet_.insert(f);
          changed = true;
        }
      }
    }
  }

  // The model text of a size argument when every variable it reads is kept by the model (a
  // control variable, a parameter or a builtin), else "".
  std::string size_text(const clang::Expr *e, FunctionId f) {
    const WriteResult r = a_.writer->write(e, f);
    if (!r.ok) {
      return {};
    }
    if (kept_names_.empty()) {
      for (const Variable &v : p_.variables) {
        if (!v.control) {
          dropped_names_.insert(v.model_name);
        } else {
          kept_names_.insert(v.model_name);
        }
      }
    }
    try {
      for (const auto &name : model::Expression::parse(r.text).names()) {
        if (dropped_names_.contains(name)) {
          return {};
        }
      }
    } catch (const std::exception &) {
      return {};
    }
    return r.text;
  }

  // The bytes a freed pointer was allocated with: the size of the allocation in the same
  // function that assigned the pointer's variable (`p = malloc(n)`, `double *p = malloc(n)`).
  std::string freed_bytes(const clang::Expr *pointer, FunctionId f) {
    const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(pointer->IgnoreParenImpCasts());
    const auto *var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    if (var == nullptr) {
      return {};
    }
    for (const auto &[site, text] : allocations_) {
      const StructNode &node = p_.nodes[site];
      if (node.function != f || node.stmts.empty()) {
        continue;
      }
      const clang::Stmt *s = node.stmts.front();
      bool assigns = false;
      if (const auto *ds = llvm::dyn_cast<clang::DeclStmt>(s)) {
        for (const clang::Decl *d : ds->decls()) {
          assigns = assigns || d == var;
        }
      } else if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(s)) {
        const auto *lhs = llvm::dyn_cast<clang::DeclRefExpr>(bo->getLHS()->IgnoreParenImpCasts());
        assigns = bo->isAssignmentOp() && lhs != nullptr && lhs->getDecl() == var;
      }
      if (assigns) {
        return text;
      }
    }
    return {};
  }

  static bool allocation_call(const StructNode &node) {
    SizedCall call;
    return sized_call(node.call, call) && (call.allocates || call.callee == "free");
  }

  // The bytes a sized call touches as model text ("" when its size is data).
  std::string sized_bytes(StructIndex n, FunctionId f) {
    SizedCall call;
    if (!sized_call(p_.nodes[n].call, call)) {
      return {};
    }
    if (!call.sizes.empty()) {
      std::string product;
      for (const clang::Expr *e : call.sizes) {
        const std::string text = size_text(e, f);
        if (text.empty()) {
          return {};
        }
        product += (product.empty() ? "(" : " * (") + text + ")";
      }
      return product;
    }
    return call.pointer != nullptr ? freed_bytes(call.pointer, f) : std::string();
  }

  void add_sized(StructIndex n, FunctionId f) {
    const StructNode &node = p_.nodes[n];
    SizedCall call;
    if (!sized_call(node.call, call)) {
      return;
    }
    Probe probe;
    probe.slot = plan_.slots++;
    probe.kind = ProbeKind::Sized;
    probe.node = node.model_id;
    probe.callee = call.callee;
    probe.allocates = call.allocates;
    probe.bytes = sized_bytes(n, f);
    if (call.allocates && !call.sizes.empty() && !probe.bytes.empty()) {
      allocations_.emplace_back(n, probe.bytes);
    }
    plan_.probes.push_back(probe);
    a_.probe_sites.push_back({probe.slot, static_cast<std::uint8_t>(ProbeKind::Sized), n, nullptr});
  }

  // A constructor whose member initialisers construct class-type members or bases (vectors
  // allocated and filled before the body runs): their time is in no statement of the model.
  static bool costly_initialisers(const clang::FunctionDecl *decl) {
    const auto *ctor = llvm::dyn_cast_or_null<clang::CXXConstructorDecl>(decl);
    if (ctor == nullptr) {
      return false;
    }
    for (const clang::CXXCtorInitializer *init : ctor->inits()) {
      const auto *construct =
          llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init->getInit()->IgnoreImplicit());
      if (construct != nullptr && construct->getConstructor() != nullptr &&
          !construct->getConstructor()->isTrivial()) {
        return true;
      }
    }
    return false;
  }

  // Prologue probes: each constructor with costly initialisers, timed from a mark at its
  // call sites (statements outside measured nests) to the top of its body.
  void plan_prologues() {
    for (const auto &[callee, sites] : call_sites_) {
      const FunctionInfo &fn = p_.functions[callee];
      if (fn.body == kNoStruct || p_.nodes[fn.body].model_id == 0 ||
          !costly_initialisers(fn.decl)) {
        continue;
      }
      Probe probe;
      probe.slot = plan_.slots++;
      probe.kind = ProbeKind::Prologue;
      probe.node = p_.nodes[fn.body].model_id;
      plan_.probes.push_back(probe);
      const auto kind = static_cast<std::uint8_t>(ProbeKind::Prologue);
      a_.probe_sites.push_back({probe.slot, kind, fn.body, nullptr});
      for (StructIndex site : sites) {
        a_.probe_sites.push_back({probe.slot, kind, site, nullptr});
      }
    }
  }

  // The one loop of a work-sharing loop's body, when the model computes its count (UoB-HPC/
  // flow's rows under `omp parallel for`, each a `#pragma omp simd` loop over the columns): its
  // executions are counted, so the estimation scales the time per outer iteration with its
  // count (estimates_loops.cpp, reduce_by_iterations). Without it another nx left that time as
  // the estimation measured it: 2x the cells predicted 2x faster than they ran, without a word.
  void counted_inner_loop(StructIndex n, FunctionId f) {
    if (p_.nodes[n].children.empty() || p_.nodes[n].omp_collapsed) {
      return;
    }
    const StructNode &body = p_.nodes[p_.nodes[n].children.front()];
    if (body.kind != StructKind::Sequence || body.children.size() != 1) {
      return;
    }
    const StructIndex inner = body.children.front();
    const StructNode &node = p_.nodes[inner];
    if (node.kind != StructKind::For || node.opaque || node.interpreted || node.range_for) {
      return;
    }
    const LoopShape shape = loop_shape(p_, *a_.writer, node.stmt, f);
    if (shape.trips.empty()) {
      return;
    }
    PlannedLoop loop;
    loop.node = node.model_id;
    loop.trips = shape.trips;
    add(ProbeKind::Trips, inner);
    plan_.loops.push_back(loop);
  }

  bool has_inner_loop(StructIndex n) const {
    for (StructIndex c : p_.nodes[n].children) {
      if (is_loop(p_.nodes[c].kind) || has_inner_loop(c)) {
        return true;
      }
    }
    return false;
  }

  AnalysedSources &a_;
  Program &p_;
  std::vector<bool> steered_; // communicating loops whose count follows data decisions
  EstimationPlan plan_;
  std::map<StructIndex, LoopFacts> loops_;
  std::set<FunctionId> nest_only_;
  std::set<FunctionId> quiet_functions_; // called from measured nests and from other places
  std::set<FunctionId> leads_to_quiet_;  // quiet, or measured in nests and calling one
  std::map<FunctionId, std::set<FunctionId>> callees_;
  bool quiet_ = false;                     // walking a quiet function
  std::set<FunctionId> kept_nest_callees_; // called inside a nest that keeps state
  bool counting_ = false;                  // walking one of those: count its opaque branches
  std::map<StructIndex, bool> keeps_state_;
  std::map<FunctionId, std::vector<StructIndex>> call_sites_;    // user calls outside nests
  std::vector<std::pair<StructIndex, std::string>> allocations_; // allocation, its bytes
  std::set<std::string> kept_names_;
  std::set<std::string> dropped_names_;
  bool timing_ = true;
};

} // namespace

EstimationPlan plan_probes(AnalysedSources &sources, const model::Model &model) {
  sources.probe_sites.clear();
  (void)model; // the plan follows the analysed structure, whose ids the model carries
  return Planner(sources).run();
}

} // namespace parjava::frontend
