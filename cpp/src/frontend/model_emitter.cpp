#include "model_emitter.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/Basic/SourceManager.h>

#include "compile_time_inputs.hpp"
#include "effects.hpp"
#include "inputs.hpp"
#include "loop_shape.hpp"
#include "parjava/error.hpp"
#include "parjava/model/operation.hpp"
#include "probe_planner.hpp"
#include "rewritten_bounds.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

using model::NodeIndex;
using model::NodeKind;

bool is_integer_literal(const std::string &text) {
  if (text.empty()) {
    return false;
  }
  const std::size_t start = text.front() == '-' ? 1 : 0;
  return start < text.size() && text.find_first_not_of("0123456789", start) == std::string::npos;
}

// count * size, folded when either is a literal 1 or both are integers.
std::string bytes_text(const std::string &count, const std::string &size) {
  if (is_integer_literal(count) && is_integer_literal(size)) {
    return std::to_string(std::stoll(count) * std::stoll(size));
  }
  if (count == "1") {
    return size;
  }
  if (size == "1") {
    return count;
  }
  return count + " * " + size;
}

bool is_literal(const std::string &text) {
  if (text.empty()) {
    return false;
  }
  std::size_t i = text.front() == '-' ? 1 : 0;
  bool digit = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return false;
    }
  }
  return digit;
}

class Emitter {
public:
  explicit Emitter(AnalysedSources &a) : a_(a), p_(a.program), w_(*a.writer) {}

  EmittedModel run() {
    EmittedModel out;
    model::Model &m = out.model;
    m.name = a_.options.name.empty() ? program_name() : a_.options.name;
    m.entry = p_.functions[a_.entry].name;
    for (const auto &f : p_.files) {
      m.files.push_back(f);
    }
    model_ = &m;
    for (const auto &scoped : p_.scoped_loops) {
      subs_[scoped.loop][scoped.outer] = w_.name(scoped.inner);
    }
    for (auto &entry : p_.compile_time_inputs) {
      entry.second.read = false; // what this model reads, not what the analyses wrote
    }
    parameters();
    globals();
    // Functions and their parameters first: calls need the callee's parameter list.
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      model::Function fn;
      fn.name = p_.functions[f].name;
      fn.source = range(f, p_.functions[f].decl->getSourceRange());
      if (f != a_.entry || !p_.functions[f].decl->isMain()) {
        for (VarId param : p_.functions[f].params) {
          if (emitted_param(param)) {
            fn.params.push_back(w_.name(param));
          }
        }
      }
      m.functions.push_back(std::move(fn));
    }
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      if (p_.functions[f].body == kNoStruct) {
        continue;
      }
      const std::vector<NodeIndex> body = emit(p_.functions[f].body, f);
      m.functions[f].body = body.front();
      zero_local_arrays(f, body.front());
    }
    compile_time_parameters();
    m.validate();
    rewritten();
    field_communicators();
    return out;
  }

private:
  // Communicator fields the model names per rank (structure_mpi.cpp, append_comm_copy): one
  // variable for every record, so a read can come before the model filled any record.
  void field_communicators() {
    const auto &used = model_->communicator_names();
    for (const Variable &v : p_.variables) {
      if (v.type == VarType::Comm && v.scope == VarScope::Field && !v.handle_name.empty() &&
          v.handle_name == v.model_name &&
          std::find(used.begin(), used.end(), v.handle_name) != used.end()) {
        model_->field_communicators.push_back(v.handle_name);
      }
    }
  }

  // Opaque loops whose bound an enclosing loop rewrites (rewritten_bounds.hpp).
  void rewritten() {
    for (const RewrittenBound &b : rewritten_bounds(p_)) {
      const StructNode &loop = p_.nodes[b.loop];
      if (loop.model_id == 0 || !model_->has_node(loop.model_id)) {
        continue;
      }
      model::RewrittenBound out;
      out.node = loop.model_id;
      out.label = model_->node(loop.model_id).label;
      out.data = b.data;
      out.source = range(loop.function, loop.range);
      out.written = range(b.writer, clang::SourceRange(b.written, b.written));
      out.enclosing = range(p_.nodes[b.enclosing].function, p_.nodes[b.enclosing].range);
      model_->rewritten_bounds.push_back(std::move(out));
    }
  }

  // The elements of a function's local arrays the model keeps start at 0, as the model's
  // variables do, but a model names a local only where it assigns it: an element read before
  // any kept write (an uninitialised array in C) would be an unknown name.
  void zero_local_arrays(FunctionId f, NodeIndex body) {
    std::vector<model::Assignment> zeros;
    for (const Aggregate &agg : p_.aggregates) {
      for (VarId v : agg.elements) {
        const Variable &var = p_.variables[v];
        if (var.scope != VarScope::Local || var.function != f || !var.control ||
            !var.representable) {
          continue;
        }
        zeros.push_back({w_.name(v), parse(var.type == VarType::Floating ? "0.0" : "0",
                                           "local array element")});
      }
    }
    if (zeros.empty() || model_->nodes[body].kind != NodeKind::Sequence) {
      return;
    }
    model::Node n;
    n.id = next_id_++;
    n.kind = NodeKind::Compute;
    n.label = "local arrays";
    n.source = model_->nodes[body].source;
    n.assign = std::move(zeros);
    n.time = model::TimeSpec::constant(0.0);
    const NodeIndex idx = model_->add(std::move(n));
    auto &children = model_->nodes[body].children;
    children.insert(children.begin(), idx);
  }

  // --- model-level facts ------------------------------------------------------------------

  // The program is named after the file holding its entry function (main), not after whichever
  // source the command line or the compilation database happened to list first.
  std::string program_name() const {
    const FunctionInfo &entry = p_.functions[a_.entry];
    const clang::SourceManager &sm = entry.context->getSourceManager();
    const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(entry.decl->getLocation()));
    if (ploc.isValid()) {
      return std::filesystem::path(ploc.getFilename()).stem().string();
    }
    return std::filesystem::path(a_.parsed.commands.front().file).stem().string();
  }

  bool emitted_param(VarId param) const {
    if (param == kNoVar) {
      return false;
    }
    const Variable &v = p_.variables[param];
    return v.scope == VarScope::Parameter &&
           (v.type == VarType::Integer || v.type == VarType::Floating ||
            v.type == VarType::Datatype);
  }

  void parameters() {
    const auto &argv = a_.options.argv;
    const FunctionInfo &entry = p_.functions[a_.entry];
    if (entry.decl->isMain() && entry.decl->getNumParams() >= 1) {
      model::Parameter argc;
      argc.name = "argc";
      argc.value = model::Value::of_int(argv.empty() ? 1 : static_cast<std::int64_t>(argv.size()));
      argc.doc = "number of command-line arguments (argc)";
      model_->parameters.push_back(std::move(argc));
    }
    // Named inputs (issue 12) whose value reaches the model.
    std::set<std::string> used;
    for (const auto &node : p_.nodes) {
      for (const auto *list : {&node.effects, &node.init, &node.update}) {
        for (const Effect &e : *list) {
          if (e.kind == Effect::Kind::Input && e.kept) {
            used.insert(p_.inputs[e.input].parameter);
          }
        }
      }
    }
    // A read passed to a setter (InputSite::call) reaches the model as that call's argument,
    // when the setter's parameter is a control variable.
    for (const auto &site : p_.inputs) {
      if (site.call != nullptr && site.setup && !site.parameter.empty() &&
          p_.variables[site.var].control && p_.variables[site.var].representable) {
        used.insert(site.parameter);
      }
    }
    for (const auto &pp : p_.parameters) {
      if (pp.input) {
        if (used.contains(pp.name)) {
          input_parameter(pp);
        }
        continue;
      }
      model::Parameter param;
      param.name = pp.name;
      param.doc = pp.doc;
      const std::size_t k = std::stoul(pp.name.substr(4));
      const std::string text = k < argv.size() ? argv[k] : std::string();
      // Absent from the command line, a position the program reads only when present keeps
      // the variable's value (InputAnalysis::broadcast_argv).
      const double absent = k >= argv.size() && pp.program_default ? *pp.program_default : 0.0;
      if (pp.floating) {
        param.value = model::Value::of_float(text.empty() ? absent : std::atof(text.c_str()));
      } else {
        param.value = model::Value::of_int(text.empty() ? static_cast<std::int64_t>(absent)
                                                        : std::atoll(text.c_str()));
      }
      if (pp.program_default) {
        param.program_default =
            pp.floating ? model::Value::of_float(*pp.program_default)
                        : model::Value::of_int(static_cast<std::int64_t>(*pp.program_default));
      }
      model_->parameters.push_back(std::move(param));
    }
  }

  // Numbers of the compile line the model reads (compile_time_inputs.hpp), listed once every
  // expression is written: the writer marks them as it meets them.
  void compile_time_parameters() {
    for (const auto &[macro, input] : p_.compile_time_inputs) {
      if (!input.read) {
        continue;
      }
      model::Parameter param;
      param.name = macro;
      param.doc = "-D" + macro + "=" + input.value +
                  " of the compile line; at another value the model assumes the program built "
                  "with it";
      param.origin = "compile-time";
      param.source = input.source;
      param.value = input.floating
                        ? model::Value::of_float(std::strtod(input.value.c_str(), nullptr))
                        : model::Value::of_int(std::strtoll(input.value.c_str(), nullptr, 0));
      param.program_default = param.value;
      param.preprocessor_tests = preprocessor_tests(macro, p_.files);
      model_->parameters.push_back(std::move(param));
    }
  }

  // The value a program input has when the program runs with `options.argv`: what its option
  // says on that command line, else the program's own default, else unknown until the
  // estimation run measures it (a warning says so: a placeholder must never pass silently).
  void input_parameter(const ProgramParameter &pp) {
    model::Parameter param;
    param.name = pp.name;
    param.doc = pp.doc;
    param.options = pp.options;
    param.position = pp.position;
    param.origin = pp.origin;
    param.source = pp.source;
    param.aliases = pp.aliases;
    param.measured_through = pp.measured_through;
    // Only the command line has a "default": a value read from a file or broadcast is unknown
    // whatever the variable held before.
    if (pp.program_default) {
      param.program_default =
          pp.floating ? model::Value::of_float(*pp.program_default)
                      : model::Value::of_int(static_cast<std::int64_t>(*pp.program_default));
    }
    const auto number = [&](const std::string &text) {
      return pp.floating ? model::Value::of_float(std::atof(text.c_str()))
                         : model::Value::of_int(std::atoll(text.c_str()));
    };
    const auto &argv = a_.options.argv;
    std::optional<std::string> given;
    if (pp.flag) {
      // An option without a value: its constant when the command line has it (kept as a
      // number: a text of it would round `1e-9` to 0).
      param.flag = pp.floating ? model::Value::of_float(*pp.flag)
                               : model::Value::of_int(static_cast<std::int64_t>(*pp.flag));
    } else if (!pp.options.empty() && !argv.empty()) {
      given = option_value(argv, pp.options, pp.position);
    }
    const bool flagged =
        pp.flag &&
        std::any_of(argv.begin() + (argv.empty() ? 0 : 1), argv.end(), [&](const auto &a) {
          return std::find(pp.options.begin(), pp.options.end(), a) != pp.options.end();
        });
    // Words that set constants: the last one on the command line decides, unless a value
    // option comes after it (`-m event` then `-m history`: history).
    std::optional<model::Value> chosen;
    std::size_t chosen_at = 0;
    for (const auto &[word, constant] : pp.choices) {
      const model::Value v = pp.floating
                                 ? model::Value::of_float(constant)
                                 : model::Value::of_int(static_cast<std::int64_t>(constant));
      param.choices.emplace_back(word, v);
      for (std::size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == word && i >= chosen_at) {
          chosen = v;
          chosen_at = i;
        }
      }
    }
    const auto after_choice = [&] {
      for (std::size_t i = chosen_at + 1; i < argv.size(); ++i) {
        for (const auto &o : pp.options) {
          if (argv[i] == o || argv[i].rfind(o + "=", 0) == 0) {
            return true;
          }
        }
      }
      return false;
    };
    if (chosen && (pp.flag || !given || !after_choice())) {
      param.value = *chosen;
    } else if (flagged) {
      param.value = *param.flag;
    } else if (given) {
      param.value = number(*given);
    } else if (param.program_default) {
      param.value = *param.program_default;
    } else {
      param.value = pp.floating ? model::Value::of_float(0.0) : model::Value::of_int(0);
      // Another path's data (origin "measured", measured_definitions.hpp) has its note at the
      // assignment, and a prediction that runs it unmeasured names the fragment never executed.
      if (pp.origin != "measured") {
        Diagnostic d;
        d.kind = DiagnosticKind::Parameter;
        d.severity = Severity::Warning;
        d.message = "parameter '" + pp.name + "' (" + pp.doc +
                    ") has no value before the "
                    "estimation run measures it; the model uses 0 until then" +
                    (pp.options.empty()
                         ? std::string()
                         : ", or give the command line (argv=) that sets " + pp.options.front());
        const std::size_t colon = pp.source.rfind(':');
        if (colon != std::string::npos) {
          d.file = pp.source.substr(0, colon);
          d.line = static_cast<std::uint32_t>(std::stoul(pp.source.substr(colon + 1)));
        }
        p_.diagnostics.push_back(std::move(d));
      }
    }
    model_->parameters.push_back(std::move(param));
  }

  void globals() {
    for (VarId v = 0; v < p_.variables.size(); ++v) {
      const Variable &var = p_.variables[v];
      const bool global = var.scope == VarScope::Global || var.scope == VarScope::Field ||
                          var.scope == VarScope::ReturnSlot;
      if (!global || !var.control || !var.representable) {
        continue;
      }
      model::GlobalVariable g;
      g.name = var.model_name;
      std::string init = var.type == VarType::Floating ? "0.0" : "0";
      const clang::Expr *value = nullptr;
      if (const auto *decl = llvm::dyn_cast_or_null<clang::VarDecl>(var.decl)) {
        value = decl->getInit();
      } else if (const auto *field = llvm::dyn_cast_or_null<clang::FieldDecl>(var.decl)) {
        value = field->getInClassInitializer();
      }
      if (value != nullptr && var.decl != nullptr &&
          reads_command_line_macro(value, var.decl->getASTContext())) {
        // `int constexpr nx_glob = _NX;`: the parameter, not the number it had in this build.
        const WriteResult written = w_.constant(value, var.decl->getASTContext());
        if (written.ok) {
          init = written.text;
          value = nullptr;
        }
      }
      if (value != nullptr && var.decl != nullptr) {
        clang::Expr::EvalResult result;
        if (value->EvaluateAsRValue(result, var.decl->getASTContext())) {
          if (result.Val.isInt() && result.Val.getInt().isRepresentableByInt64()) {
            const std::int64_t number = result.Val.getInt().getExtValue();
            // -2^63 has no literal of its own (2^63 is not an integer of the model).
            init = number == std::numeric_limits<std::int64_t>::min() ? "(-9223372036854775807 - 1)"
                                                                      : std::to_string(number);
          } else if (result.Val.isFloat()) {
            init = float_literal(result.Val.getFloat().convertToDouble());
          }
        }
      }
      g.init = model::Expression::parse(init, "global " + g.name);
      model_->globals.push_back(std::move(g));
    }
  }

  model::SourceRange range(FunctionId f, clang::SourceRange r) {
    model::SourceRange out;
    if (r.isInvalid()) {
      return out;
    }
    const clang::SourceManager &sm = p_.functions[f].context->getSourceManager();
    const clang::SourceLocation b = sm.getExpansionLoc(r.getBegin());
    const clang::SourceLocation e = sm.getExpansionLoc(r.getEnd());
    const auto pb = sm.getPresumedLoc(b);
    if (pb.isInvalid()) {
      return out;
    }
    const std::string file = p_.source_file(*p_.functions[f].context, pb.getFilename());
    std::size_t idx = 0;
    for (; idx < model_->files.size(); ++idx) {
      if (model_->files[idx] == file) {
        break;
      }
    }
    if (idx == model_->files.size()) {
      model_->files.push_back(file);
    }
    out.file = static_cast<std::int32_t>(idx);
    out.line = pb.getLine();
    out.column = pb.getColumn();
    const auto pe = sm.getPresumedLoc(e);
    if (pe.isValid()) {
      out.end_line = pe.getLine();
      out.end_column = pe.getColumn();
    }
    return out;
  }

  model::Node node(NodeKind kind, const StructNode &s) {
    model::Node n;
    n.id = next_id_++;
    n.kind = kind;
    n.source = range(s.function, s.range);
    n.label = s.label;
    return n;
  }

  model::Expression parse(const std::string &text, const std::string &where) {
    return model::Expression::parse(text, where);
  }

  std::vector<model::Assignment> assignments(const std::vector<Effect> &effects, FunctionId f,
                                             const WriteOptions &o) {
    std::vector<model::Assignment> out;
    for (const Effect &e : effects) {
      if (!e.kept || e.kind == Effect::Kind::Operation) {
        continue;
      }
      const WriteResult r = w_.effect_value(e, f, o);
      if (!r.ok) {
        continue; // unreachable: kept effects are writable
      }
      model::Assignment as;
      as.variable = w_.name(e.var);
      std::string text = r.text;
      const Variable &var = p_.variables[e.var];
      // The model types variables statically: keep C's type of the variable.
      if (var.type == VarType::Floating && !is_literal(text) && text.rfind("float(", 0) != 0) {
        text = "float(" + text + ")";
      } else if (var.type == VarType::Floating && is_literal(text) &&
                 text.find_first_of(".eE") == std::string::npos) {
        text += ".0";
      }
      as.value = parse(text, "assignment to " + as.variable);
      out.push_back(std::move(as));
    }
    return out;
  }

  const std::map<VarId, std::string> *substitutions(StructIndex n) const {
    const auto it = subs_.find(n);
    return it == subs_.end() ? nullptr : &it->second;
  }

  // --- nodes ----------------------------------------------------------------------------

  std::vector<NodeIndex> emit(StructIndex idx, FunctionId f) {
    StructNode &s = p_.nodes[idx];
    WriteOptions o;
    o.substitutions = substitutions(idx);
    switch (s.kind) {
    case StructKind::Sequence: {
      model::Node n = node(NodeKind::Sequence, s);
      s.model_id = n.id;
      const NodeIndex self = model_->add(std::move(n));
      std::vector<NodeIndex> children;
      for (StructIndex c : std::vector<StructIndex>(s.children)) {
        inherit(idx, c);
        for (NodeIndex k : emit(c, f)) {
          children.push_back(k);
        }
      }
      model_->nodes[self].children = std::move(children);
      return {self};
    }
    case StructKind::If:
    case StructKind::IfElse: {
      model::Node n = node(s.kind == StructKind::If ? NodeKind::If : NodeKind::IfElse, s);
      condition(n, s, f, o, /*loop=*/false);
      s.model_id = n.id;
      const NodeIndex self = model_->add(std::move(n));
      std::vector<NodeIndex> children;
      for (StructIndex c : std::vector<StructIndex>(s.children)) {
        inherit(idx, c);
        children.push_back(emit(c, f).front());
      }
      model_->nodes[self].children = std::move(children);
      return {self};
    }
    case StructKind::Switch: {
      model::Node n = node(NodeKind::Switch, s);
      if (s.opaque) {
        n.opaque.kind = model::Opaque::Kind::Weights;
      } else {
        n.value = parse(w_.write(s.cond, f, o).text, "switch selector");
      }
      for (const SwitchLabel &label : s.cases) {
        model::SwitchCase c;
        c.labels = label.values;
        c.is_default = label.is_default;
        c.weight = s.opaque ? 1.0 : 0.0;
        n.cases.push_back(std::move(c));
      }
      s.model_id = n.id;
      const NodeIndex self = model_->add(std::move(n));
      std::vector<NodeIndex> children;
      for (StructIndex c : std::vector<StructIndex>(s.children)) {
        inherit(idx, c);
        children.push_back(emit(c, f).front());
      }
      model_->nodes[self].children = std::move(children);
      return {self};
    }
    case StructKind::For:
    case StructKind::While:
    case StructKind::DoWhile: {
      const NodeKind kind = s.kind == StructKind::For     ? NodeKind::For
                            : s.kind == StructKind::While ? NodeKind::While
                                                          : NodeKind::DoWhile;
      model::Node n = node(kind, s);
      if (s.kind == StructKind::For) {
        n.init = assignments(s.init, f, o);
        n.update = assignments(s.update, f, o);
        if (s.range_for && s.counter != kNoVar && !s.opaque) {
          const std::string counter = w_.name(s.counter);
          n.init.push_back({counter, parse("0", "range-for counter")});
          n.update.push_back({counter, parse(counter + " + 1", "range-for counter")});
          n.cond = parse(counter + " < " + w_.name(s.uses.front()), "range-for condition");
        }
      }
      if (!s.range_for) {
        condition(n, s, f, o, /*loop=*/true);
      } else if (s.opaque) {
        n.opaque.kind = model::Opaque::Kind::Trips;
        n.opaque.trips_mean = 1.0;
      }
      if (s.omp_chunk) {
        chunk_worksharing_loop(n, s, f, o);
      }
      s.model_id = n.id;
      const NodeIndex self = model_->add(std::move(n));
      inherit(idx, s.children.front());
      model_->nodes[self].children = {emit(s.children.front(), f).front()};
      return {self};
    }
    case StructKind::TaskGroup: {
      model::Node n = node(NodeKind::TaskGroup, s);
      n.team = s.omp_team;
      if (s.tasks_expr != nullptr) {
        const WriteResult r = w_.write(s.tasks_expr, f, o);
        if (r.ok) {
          n.tasks = parse(r.text, "task count");
        } else {
          warn(f, s,
               "the num_threads of this parallel region depends on " + r.why +
                   "; the model gives it the team size of the regions without one",
               Severity::Warning, DiagnosticKind::Opaque);
        }
      } else if (!s.tasks_text.empty()) {
        n.tasks = parse(s.tasks_text, "task count");
      } else if (s.task_loop != nullptr) {
        const LoopShape shape = loop_shape(p_, w_, s.task_loop, f);
        if (!shape.trips.empty()) {
          n.tasks = parse(shape.trips, "task count");
        }
      }
      s.model_id = n.id;
      const NodeIndex self = model_->add(std::move(n));
      if (s.task_var != kNoVar) {
        mark_task_substitution(s.children.front(), s.task_var);
      }
      inherit(idx, s.children.front());
      model_->nodes[self].children = {emit(s.children.front(), f).front()};
      return {self};
    }
    case StructKind::Block: {
      model::Node n = node(NodeKind::Compute, s);
      n.assign = assignments(s.effects, f, o);
      if (n.assign.empty() && s.stmts.empty()) {
        return {};
      }
      s.model_id = n.id;
      return {model_->add(std::move(n))};
    }
    case StructKind::ExternalCall: {
      model::Node n = node(NodeKind::ExternalCall, s);
      n.callee = s.callee_name;
      n.assign = assignments(s.effects, f, o);
      if (s.zero_time) {
        n.time = model::TimeSpec::constant(0.0);
      }
      s.model_id = n.id;
      return {model_->add(std::move(n))};
    }
    case StructKind::UserCall:
      return with_effects(s, f, o, user_call(s, f, o));
    case StructKind::Communication:
      return with_effects(s, f, o, communication(s, f, o));
    case StructKind::Return: {
      std::vector<NodeIndex> out;
      const VarId slot = p_.functions[f].return_slot;
      if (s.return_value != nullptr && slot != kNoVar && p_.variables[slot].control &&
          p_.variables[slot].representable) {
        const WriteResult r = w_.write(s.return_value, f, o);
        if (r.ok) {
          model::Node set = node(NodeKind::Compute, s);
          set.label = "return value";
          std::string text = r.text;
          if (p_.variables[slot].type == VarType::Floating && !is_literal(text)) {
            text = "float(" + text + ")";
          }
          set.assign.push_back({w_.name(slot), parse(text, "returned value")});
          out.push_back(model_->add(std::move(set)));
        }
      }
      model::Node n = node(NodeKind::Return, s);
      s.model_id = n.id;
      out.push_back(model_->add(std::move(n)));
      return out;
    }
    case StructKind::Break:
    case StructKind::Continue: {
      model::Node n = node(s.kind == StructKind::Break ? NodeKind::Break : NodeKind::Continue, s);
      n.target = p_.nodes[s.target].model_id;
      s.model_id = n.id;
      return {model_->add(std::move(n))};
    }
    case StructKind::Reduced: {
      model::Node n = node(NodeKind::Reduced, s);
      n.time = model::TimeSpec::constant(0.0); // replaced by the estimation run
      s.model_id = n.id;
      const NodeIndex rb = model_->add(std::move(n));
      // A function body is a sequence; the reduced block is its only statement.
      model::Node seq;
      seq.id = next_id_++;
      seq.kind = NodeKind::Sequence;
      seq.source = model_->nodes[rb].source;
      seq.children = {rb};
      return {model_->add(std::move(seq))};
    }
    }
    return {};
  }

  // What a call leaf assigns besides the call itself (program inputs that a parser call or a
  // broadcast sets), as a block right after it.
  std::vector<NodeIndex> with_effects(StructNode &s, FunctionId f, const WriteOptions &o,
                                      NodeIndex call) {
    std::vector<NodeIndex> out{call};
    std::vector<model::Assignment> assign = assignments(s.effects, f, o);
    if (!assign.empty()) {
      model::Node n = node(NodeKind::Compute, s);
      n.label = "inputs set by " + s.label;
      n.assign = std::move(assign);
      n.time = model::TimeSpec::constant(0.0);
      out.push_back(model_->add(std::move(n)));
    }
    return out;
  }

  void inherit(StructIndex parent, StructIndex child) {
    const auto it = subs_.find(parent);
    if (it != subs_.end()) {
      for (const auto &[k, v] : it->second) {
        subs_[child].emplace(k, v);
      }
    }
  }

  void mark_task_substitution(StructIndex root, VarId var) { subs_[root][var] = "task"; }

  void condition(model::Node &n, const StructNode &s, FunctionId f, const WriteOptions &o,
                 bool loop) {
    if (!s.cond_text.empty()) {
      n.cond = parse(s.cond_text, "condition");
      return;
    }
    if (s.cond == nullptr) {
      if (n.kind != NodeKind::For) {
        n.cond = parse("1", "condition"); // while (;;)-like forms never reach here
      }
      return;
    }
    if (s.opaque) {
      // Placeholders until the estimation run measures them (samples = 0: not measured).
      if (loop) {
        n.opaque.kind = model::Opaque::Kind::Trips;
        n.opaque.trips_mean = 1.0;
      } else {
        n.opaque.kind = model::Opaque::Kind::Probability;
        n.opaque.probability = 0.5;
      }
      return;
    }
    n.cond = parse(w_.write(s.cond, f, o).text, "condition");
  }

  // `#pragma omp for` with the default static schedule: task t of T runs the t-th contiguous
  // chunk of ceil(n / T) iterations (OpenMP 5.2 §11.5.3).
  void chunk_worksharing_loop(model::Node &n, const StructNode &s, FunctionId f,
                              const WriteOptions &o) {
    const LoopShape shape = loop_shape(p_, w_, s.stmt, f, o.substitutions);
    if (!shape.canonical || shape.step != "1" || shape.decreasing) {
      if (s.opaque && !s.interpreted) {
        // Reduced by its iterations: the estimation measures the count per team and shares it
        // out among the tasks (estimates.cpp, shared_trips).
        return;
      }
      Diagnostic d;
      d.kind = DiagnosticKind::Approximation;
      d.severity = Severity::Warning;
      d.function = p_.functions[f].name;
      d.message = "the OpenMP loop '" + s.label +
                  "' is not of the form for (i = a; i < b; i++): every task runs all its "
                  "iterations in the model";
      p_.diagnostics.push_back(d);
      return;
    }
    const std::string a = "(" + shape.start + ")";
    const std::string b = "(" + shape.end + ")";
    const std::string chunk = "((" + b + " - " + a + " + ntasks - 1) / ntasks)";
    n.init.clear();
    n.init.push_back({shape.variable, parse(a + " + task * " + chunk, "omp chunk start")});
    n.cond = parse(shape.variable + " < min(" + b + ", " + a + " + (task + 1) * " + chunk + ")",
                   "omp chunk end");
    n.opaque = model::Opaque();
  }

  NodeIndex user_call(StructNode &s, FunctionId f, const WriteOptions &o) {
    model::Node n = node(NodeKind::UserCall, s);
    const FunctionInfo &callee = p_.functions[s.callee];
    n.callee = callee.name;
    std::vector<std::string> args;
    bool constant = true;
    for (std::size_t i = 0; i < callee.params.size(); ++i) {
      const VarId param = callee.params[i];
      if (!emitted_param(param)) {
        continue;
      }
      const Variable &pv = p_.variables[param];
      std::string text = pv.type == VarType::Floating ? "0.0" : "0";
      const clang::Expr *arg = i < s.args.size() ? s.args[i] : nullptr;
      if (pv.control && pv.representable && arg != nullptr) {
        const WriteResult r =
            pv.type == VarType::Datatype ? w_.datatype_size(arg, f) : w_.write(arg, f, o);
        if (r.ok) {
          text = r.text;
          if (pv.type == VarType::Floating && !is_literal(text)) {
            text = "float(" + text + ")";
          }
        }
      }
      constant = constant && is_literal(text);
      args.push_back(text);
    }
    // Constant call shapes are calling contexts of the callee (Remark 3.1.8, Def. 3.1.14).
    if (constant && !args.empty()) {
      model::Function &fn = model_->functions[s.callee];
      std::int32_t number = -1;
      for (const auto &ctx : fn.contexts) {
        bool same = ctx.args.size() == args.size();
        for (std::size_t k = 0; same && k < args.size(); ++k) {
          same = ctx.args[k].text() == args[k];
        }
        if (same) {
          number = ctx.number;
        }
      }
      if (number < 0) {
        model::CallingContext ctx;
        ctx.number = static_cast<std::int32_t>(fn.contexts.size());
        for (const auto &t : args) {
          ctx.args.push_back(parse(t, "calling context"));
        }
        number = ctx.number;
        fn.contexts.push_back(std::move(ctx));
      }
      n.context = number;
    } else {
      for (const auto &t : args) {
        n.args.push_back(parse(t, "argument of " + callee.name));
      }
    }
    s.model_id = n.id;
    return model_->add(std::move(n));
  }

  std::string comm_name(const clang::Expr *e, FunctionId f, const StructNode &s) {
    clang::ASTContext &ctx = *p_.functions[f].context;
    if (is_comm_world(e, ctx)) {
      return "world";
    }
    const std::string text = source_text(e, ctx, 40);
    if (text == "MPI_COMM_SELF") {
      return "self";
    }
    VariableResolver vars(p_, ctx, f);
    const VarId v = vars.lvalue(e);
    if (v != kNoVar && !p_.variables[v].handle_name.empty()) {
      if (!p_.variables[v].handle_conflict.empty()) {
        approximate_ = p_.variables[v].handle_conflict;
      }
      return p_.variables[v].handle_name;
    }
    approximate_ = "communicator '" + text + "' of " + s.callee_name +
                   " is not one the model can name (world, or one made by MPI_Comm_split / "
                   "MPI_Comm_dup / MPI_Cart_create / MPI_Comm_create, an element of an array of "
                   "them, or a copy); the model uses world";
    warn(f, s, approximate_);
    return "world";
  }

  void warn(FunctionId f, const StructNode &s, const std::string &message,
            Severity severity = Severity::Warning,
            DiagnosticKind kind = DiagnosticKind::Unsupported) {
    Diagnostic d;
    d.kind = kind;
    d.severity = severity;
    d.function = p_.functions[f].name;
    d.message = message;
    const model::SourceRange r = range(f, s.range);
    if (r.file >= 0) {
      d.file = model_->files[static_cast<std::size_t>(r.file)];
      d.line = r.line;
      d.column = r.column;
    }
    p_.diagnostics.push_back(std::move(d));
  }

  // The model name of a request variable, or of its text when the model has no name for it (a
  // global request array that only MPI calls the model does not post use).
  std::string request_name(VarId v, const clang::Expr *e, const clang::ASTContext &ctx) const {
    std::string name = v != kNoVar ? w_.name(v) : std::string();
    return name.empty() ? identifier(source_text(e, ctx, 30)) : name;
  }

  // A request argument: &req, &reqs[k] or reqs + k.
  void request(model::Node &n, const clang::Expr *e, FunctionId f, const WriteOptions &o,
               const StructNode &s) {
    clang::ASTContext &ctx = *p_.functions[f].context;
    VariableResolver vars(p_, ctx, f);
    const clang::Expr *inner = e->IgnoreParenImpCasts();
    const clang::Expr *base = inner;
    const clang::Expr *index = nullptr;
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
      if (u->getOpcode() == clang::UO_AddrOf) {
        base = u->getSubExpr()->IgnoreParenImpCasts();
      }
    }
    if (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(base)) {
      base = sub->getBase()->IgnoreParenImpCasts();
      index = sub->getIdx();
    } else if (const auto *add = llvm::dyn_cast<clang::BinaryOperator>(base)) {
      if (add->getOpcode() == clang::BO_Add) {
        base = add->getLHS()->IgnoreParenImpCasts();
        index = add->getRHS();
      }
    }
    const VarId v = vars.lvalue(base);
    model::OperationArg req;
    req.name = "request";
    req.kind = model::ArgKind::Request;
    req.text = request_name(v, base, ctx);
    n.op_args.push_back(req);
    if (index != nullptr) {
      // `&req[n++]`: the index is n before the increment (the increment is an effect of the
      // statement, applied after the call).
      if (const auto *post = llvm::dyn_cast<clang::UnaryOperator>(index->IgnoreParenImpCasts())) {
        if (post->isPostfix() && post->isIncrementDecrementOp()) {
          index = post->getSubExpr();
        }
      }
      const WriteResult r = w_.write(index, f, o);
      model::OperationArg idx;
      idx.name = "index";
      idx.kind = model::ArgKind::Expr;
      if (r.ok) {
        idx.expr = parse(r.text, "request index");
      } else {
        idx.expr = parse("0", "request index");
        warn(f, s,
             "the request index '" + source_text(index, ctx, 30) + "' of " + s.callee_name +
                 " depends on " + r.why + "; the model uses index 0");
      }
      if (model::operation_arg(n.op, "index") != nullptr) {
        n.op_args.push_back(std::move(idx));
      }
    }
  }

  NodeIndex communication(StructNode &s, FunctionId f, const WriteOptions &o) {
    model::Node n = node(NodeKind::Communication, s);
    const auto op = model::operation_by_name(s.operation);
    if (!op) {
      throw Error(ErrorKind::Frontend, "internal: unknown operation " + s.operation);
    }
    n.op = *op;
    clang::ASTContext &ctx = *p_.functions[f].context;
    approximate_.clear();
    for (CommArg &a : s.comm_args) {
      const model::ArgSpec *spec = model::operation_arg(n.op, a.name);
      if (spec == nullptr) {
        continue;
      }
      model::OperationArg arg;
      arg.name = a.name;
      arg.kind = spec->kind;
      switch (spec->kind) {
      case model::ArgKind::Expr: {
        std::string text;
        std::string why;
        if (a.count != nullptr) {
          WriteOptions po = o;
          po.rank_as_peer = a.substitute_peer;
          const WriteResult count = w_.write(a.count, f, po);
          const WriteResult size = w_.datatype_size(a.datatype, f);
          if (count.ok && size.ok) {
            text = bytes_text(count.text, size.text);
          } else {
            why = count.ok ? size.why : count.why;
            if (size.ok && !count.ok) {
              value_probes_[n.id].push_back({a.name, size.text, a.count});
            }
          }
        } else if (a.expr != nullptr) {
          const WriteResult r = w_.write(a.expr, f, o);
          if (r.ok) {
            text = r.text;
          } else {
            why = r.why;
            value_probes_[n.id].push_back({a.name, "1", a.expr});
          }
        } else if (!a.elements.empty()) {
          text = group_member_text(a, why);
        } else if (!a.text.empty()) {
          text = a.text;
        }
        if (text.empty() && n.op == model::Operation::SetTeam) {
          text = "nthreads"; // a team of 0 threads is no team
          warn(f, s,
               "the team size of omp_set_num_threads depends on " + why +
                   "; the model uses the mean value the estimation run measures (before "
                   "it, the prediction's threads)",
               Severity::Warning, DiagnosticKind::Opaque);
        }
        if (text.empty()) {
          const bool peer = a.name == "dest" || a.name == "source" || a.name == "root";
          text = a.name == "source" ? "ANY_SOURCE" : "0";
          warn(f, s,
               "argument '" + a.name + "' of " + s.callee_name + " depends on " + why +
                   (peer ? (a.name == "source" ? "; the model receives from ANY_SOURCE"
                                               : "; the model uses 0")
                         : "; the model uses the mean value the estimation run measures"),
               peer ? Severity::Error : Severity::Warning, DiagnosticKind::Opaque);
        }
        arg.expr = parse(text, "argument " + a.name);
        break;
      }
      case model::ArgKind::Comm:
        comm_arg(arg, a, f, o, s);
        break;
      case model::ArgKind::Request:
        if (a.name == "request" && a.expr != nullptr) {
          if (n.op == model::Operation::Waitall || n.op == model::Operation::Waitany ||
              n.op == model::Operation::Testall) {
            VariableResolver vars(p_, ctx, f);
            const VarId v = vars.lvalue(a.expr);
            arg.text = request_name(v, a.expr, ctx);
          } else {
            request(n, a.expr, f, o, s);
            continue;
          }
        }
        break;
      case model::ArgKind::Variable:
        if (a.var == kNoVar || !p_.variables[a.var].control) {
          continue; // an output nobody reads
        }
        arg.text = w_.name(a.var);
        break;
      case model::ArgKind::Lock:
      case model::ArgKind::Choice:
        arg.text = a.text;
        break;
      }
      n.op_args.push_back(std::move(arg));
    }
    n.approximate = !s.approximate.empty() ? s.approximate : approximate_;
    s.model_id = n.id;
    return model_->add(std::move(n));
  }

  // A communicator argument: world, self, a named communicator, or an element of an array of
  // communicators, `comms[level]` -> text "comms", expr "level" (one interpreter slot per
  // element). An element whose index the model cannot compute is named with a warning.
  void comm_arg(model::OperationArg &arg, const CommArg &a, FunctionId f, const WriteOptions &o,
                StructNode &s) {
    if (a.expr == nullptr) {
      // A name the structure builder decided: a communicator variable (`MPI_Comm c =
      // comms[k];`) or a function's communicator parameter (`<function>_<parameter>`).
      arg.text = a.var != kNoVar ? w_.name(a.var) : a.text;
      return;
    }
    if (is_group(a.expr)) {
      group_arg(arg, a, f, s);
      return;
    }
    const CommElement element = comm_element(a.expr);
    if (!element.valid()) {
      arg.text = a.name == "newcomm" ? newcomm_name(a.expr, f) : comm_name(a.expr, f, s);
      return;
    }
    clang::ASTContext &ctx = *p_.functions[f].context;
    std::string why;
    if (element.parameter) {
      why = "'" + element.array->getNameAsString() +
            "' is a parameter, and which array of communicators it points to is not known";
    } else {
      const WriteResult r = w_.write(element.index, f, o);
      if (r.ok) {
        arg.text = comm_array_name(element.array);
        arg.expr = parse(r.text, "communicator index");
        return;
      }
      why = "its index depends on " + r.why;
    }
    const std::string text = source_text(a.expr->IgnoreParenImpCasts(), ctx, 40);
    if (a.name == "newcomm") {
      // A communicator of its own that no other leaf can name: uses of the array get world.
      arg.text = identifier("unindexed_" + text);
      approximate_ = "communicator '" + text + "' made by " + s.callee_name + ": " + why +
                     "; the model cannot tell which element it is, and uses of the array get "
                     "world";
      warn(f, s, approximate_);
      return;
    }
    arg.text = "world";
    approximate_ = "communicator '" + text + "' of " + s.callee_name + ": " + why +
                   "; the model uses world (wrong when the element is a smaller communicator)";
    warn(f, s, approximate_);
  }

  // The model name of an array of communicators: its own name (Record_field for a field), made
  // unique; one per program-wide global or field, one per declaration otherwise.
  std::string comm_array_name(const clang::ValueDecl *decl) {
    std::string key;
    std::string base = decl->getNameAsString();
    if (const auto *field = llvm::dyn_cast<clang::FieldDecl>(decl)) {
      const clang::RecordDecl *record = field->getParent();
      std::string owner = record->getNameAsString();
      if (owner.empty() && record->getTypedefNameForAnonDecl() != nullptr) {
        owner = record->getTypedefNameForAnonDecl()->getNameAsString();
      }
      key = "field " + owner + "::" + base;
      base = owner.empty() ? base : owner + "_" + base;
    } else if (program_wide(decl)) {
      key = "global " + base;
    } else {
      const auto [it, fresh] =
          local_comm_arrays_.try_emplace(decl->getCanonicalDecl(), local_comm_arrays_.size());
      key = "local " + std::to_string(it->second);
      (void)fresh;
    }
    const auto known = comm_array_names_.find(key);
    if (known != comm_array_names_.end()) {
      return known->second;
    }
    std::string name = identifier(base);
    for (int k = 2; used_comm_names_.contains(name); ++k) {
      name = identifier(base) + "_" + std::to_string(k);
    }
    used_comm_names_.insert(name);
    comm_array_names_[key] = name;
    return name;
  }

  static bool is_group(const clang::Expr *e) {
    const clang::Expr *inner = e->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
      if (u->getOpcode() == clang::UO_AddrOf) {
        inner = u->getSubExpr()->IgnoreParenImpCasts();
      }
    }
    return mpi_typedef_name(inner->getType()) == "MPI_Group";
  }

  // A group (MPI_Group) is a communicator name: the one MPI_Comm_group / MPI_Group_incl made
  // under the same source text. A group the model never made (MPI_Group_excl, a group of a
  // window, ...) becomes the whole communicator of the call, with a warning that says so.
  void group_arg(model::OperationArg &arg, const CommArg &a, FunctionId f, StructNode &s) {
    clang::ASTContext &ctx = *p_.functions[f].context;
    const clang::Expr *inner = a.expr->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
      if (u->getOpcode() == clang::UO_AddrOf) {
        inner = u->getSubExpr()->IgnoreParenImpCasts();
      }
    }
    const std::string text = source_text(inner, ctx, 30);
    if (a.name == "newcomm" || p_.made_groups.contains(text)) {
      arg.text = identifier(text);
      if (arg.text == "world" || arg.text == "self") {
        arg.text += "_"; // `MPI_Group world;` is not the communicator world
      }
      return;
    }
    // The group of the call's own communicator (written first) stands in for it.
    std::string fallback = "world";
    for (const CommArg &other : s.comm_args) {
      if (other.name == "comm" && other.expr != nullptr && !is_group(other.expr) &&
          !comm_element(other.expr).valid()) {
        fallback = comm_name(other.expr, f, s);
      }
    }
    s.approximate = "group '" + text + "' of " + s.callee_name +
                    " is not one the model makes (MPI_Comm_group, MPI_Group_incl or "
                    "MPI_Group_range_incl); the model uses all of '" +
                    fallback + "'";
    warn(f, s, s.approximate);
    arg.text = fallback;
  }

  // Group_incl's members (CommArg::elements): a selection over the rank array's element
  // variables, or the one range's first + peer * stride; its count for a range.
  std::string group_member_text(const CommArg &a, std::string &why) const {
    std::vector<std::string> names;
    for (const VarId v : a.elements) {
      if (!p_.variables[v].representable) {
        why = "'" + p_.variables[v].source_name + "', which the model does not compute";
        return {};
      }
      names.push_back(w_.name(v));
    }
    if (a.text == "range") {
      if (a.name == "count") {
        return "(" + names[1] + " - " + names[0] + ") / " + names[2] + " + 1";
      }
      return names[0] + " + peer * " + names[2];
    }
    // A flat sum, not nested ?: (the bytecode bounds the operands pending at once): member
    // `peer` is its element, -1 (an error in the interpreter) past the array.
    std::string text;
    for (std::size_t k = 0; k < names.size(); ++k) {
      text += "(peer == " + std::to_string(k) + ") * " + names[k] + " + ";
    }
    return text + "-(peer >= " + std::to_string(names.size()) + ")";
  }

  std::string newcomm_name(const clang::Expr *e, FunctionId f) {
    clang::ASTContext &ctx = *p_.functions[f].context;
    VariableResolver vars(p_, ctx, f);
    const clang::Expr *inner = e->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
      inner = u->getSubExpr();
    }
    const VarId v = vars.lvalue(inner);
    return v != kNoVar ? w_.name(v) : identifier(source_text(inner, ctx, 30));
  }

public:
  struct ValueProbe {
    std::string argument;
    std::string unit;
    const clang::Expr *expr;
  };
  std::map<model::NodeId, std::vector<ValueProbe>> value_probes_;

private:
  AnalysedSources &a_;
  Program &p_;
  const ExpressionWriter &w_;
  model::Model *model_ = nullptr;
  model::NodeId next_id_ = 1;
  std::map<StructIndex, std::map<VarId, std::string>> subs_;
  std::map<const clang::Decl *, std::size_t> local_comm_arrays_;
  std::map<std::string, std::string> comm_array_names_; // declaration key -> model name
  std::set<std::string> used_comm_names_;
  std::string approximate_; // the communication leaf being written: why it approximates
};

} // namespace

EmittedModel emit_model(AnalysedSources &sources) {
  Emitter emitter(sources);
  EmittedModel out = emitter.run();
  for (const auto &[node, probes] : emitter.value_probes_) {
    for (const auto &v : probes) {
      sources.value_probes.push_back({node, v.argument, v.unit, v.expr});
    }
  }
  out.plan = plan_probes(sources, out.model);
  return out;
}

} // namespace parjava::frontend
