#include "measured_definitions.hpp"

#include "inputs.hpp"
#include "parjava/model/expression.hpp"
#include "variables.hpp"

#include <clang/AST/Expr.h>
#include <clang/Basic/SourceManager.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace parjava::frontend {

namespace {

struct DataAssignment {
  FunctionId function = kNoFunction;
  StructIndex node = kNoStruct;
  std::size_t effect = 0;
  std::string why;
};

// The nodes of a function in preorder with each one's parent.
struct FunctionTree {
  std::vector<StructIndex> order;
  std::map<StructIndex, StructIndex> parent;
};

FunctionTree tree_of(const Program &p, FunctionId f) {
  FunctionTree t;
  std::vector<StructIndex> stack;
  if (p.functions[f].body != kNoStruct) {
    stack.push_back(p.functions[f].body);
  }
  while (!stack.empty()) {
    const StructIndex n = stack.back();
    stack.pop_back();
    t.order.push_back(n);
    for (StructIndex c : p.nodes[n].children) {
      t.parent[c] = n;
      stack.push_back(c);
    }
  }
  return t;
}

bool reads(const std::vector<VarId> &uses, VarId v) {
  return std::find(uses.begin(), uses.end(), v) != uses.end();
}

// A loop around the assignment runs it more than once; its last value is the one the measured
// input keeps, which is right only if nothing in the loop reads the variable for control but
// its own updates (`for (i...) n += counts[i];`), and no call there can.
bool loop_only_accumulates(const Program &p, StructIndex loop, VarId v) {
  std::vector<StructIndex> stack{loop};
  while (!stack.empty()) {
    const StructNode &node = p.nodes[stack.back()];
    stack.pop_back();
    if (node.kind == StructKind::UserCall || node.dispatch != kNoFunction || reads(node.uses, v)) {
      return false;
    }
    for (const auto *list : {&node.effects, &node.init, &node.update}) {
      for (const Effect &e : *list) {
        if (e.var != v && reads(e.uses, v)) {
          return false;
        }
      }
    }
    stack.insert(stack.end(), node.children.begin(), node.children.end());
  }
  return true;
}

// Set-up code: a function no loop calls, and loops around the assignment that only build the
// value.
bool in_setup(const Program &p, const FunctionTree &t, const DataAssignment &d, VarId v) {
  if (d.function < p.looped_functions.size() && p.looped_functions[d.function]) {
    return false;
  }
  for (auto it = t.parent.find(d.node); it != t.parent.end(); it = t.parent.find(it->second)) {
    const StructNode &up = p.nodes[it->second];
    if (up.kind == StructKind::TaskGroup ||
        (is_loop(up.kind) && !loop_only_accumulates(p, it->second, v))) {
      return false;
    }
  }
  return true;
}

// The statement of a block that holds the assignment, and the variable as it writes it.
std::pair<const clang::Stmt *, std::string> statement_of(const Program &p, const DataAssignment &d,
                                                         const Effect &e) {
  const clang::ASTContext &ctx = *p.functions[d.function].context;
  const clang::SourceManager &sm = ctx.getSourceManager();
  for (const clang::Stmt *s : p.nodes[d.node].stmts) {
    const auto *op = llvm::dyn_cast<clang::BinaryOperator>(s);
    if (op == nullptr || !op->isAssignmentOp() ||
        !sm.isPointWithin(e.location, s->getBeginLoc(), s->getEndLoc())) {
      continue;
    }
    const clang::Expr *lhs = op->getLHS()->IgnoreParenImpCasts();
    if (lhs->getBeginLoc().isMacroID() || lhs->getEndLoc().isMacroID()) {
      return {nullptr, {}};
    }
    return {s, source_text(lhs, ctx, 200)};
  }
  return {nullptr, {}};
}

std::string place(const Program &p, FunctionId f, clang::SourceLocation at) {
  const clang::SourceManager &sm = p.functions[f].context->getSourceManager();
  const auto ploc = sm.getPresumedLoc(sm.getExpansionLoc(at));
  if (ploc.isInvalid()) {
    return {};
  }
  return p.source_file(*p.functions[f].context, ploc.getFilename()) + ":" +
         std::to_string(ploc.getLine());
}

std::string file_line(const std::string &where) {
  const std::size_t slash = where.rfind('/');
  return slash == std::string::npos ? where : where.substr(slash + 1);
}

std::string parameter_name(const Program &p, const Variable &v) {
  const std::string base = parameter_base_name(v);
  std::set<std::string> taken;
  for (const Variable &other : p.variables) {
    taken.insert(other.model_name);
  }
  for (const ProgramParameter &param : p.parameters) {
    taken.insert(param.name);
  }
  std::string name = base;
  for (int i = 2; taken.contains(name) || !model::is_valid_variable_name(name); ++i) {
    name = base + "_" + std::to_string(i);
  }
  return name;
}

} // namespace

void measure_alternative_definitions(Program &p, const ExpressionWriter &writer) {
  std::map<VarId, std::set<FunctionId>> computed_in;
  std::map<VarId, std::vector<DataAssignment>> data;
  std::vector<FunctionTree> trees(p.functions.size());
  for (FunctionId f = 0; f < p.functions.size(); ++f) {
    if (p.functions[f].body == kNoStruct || p.functions[f].unstructured || !p.live(f)) {
      continue;
    }
    trees[f] = tree_of(p, f);
    for (StructIndex n : trees[f].order) {
      const StructNode &node = p.nodes[n];
      for (std::size_t i = 0; i < node.effects.size(); ++i) {
        const Effect &e = node.effects[i];
        const Variable &v = p.variables[e.var];
        if (!v.representable || v.scope == VarScope::Builtin ||
            (v.type != VarType::Integer && v.type != VarType::Floating)) {
          continue;
        }
        if (e.kind == Effect::Kind::Havoc || e.kind == Effect::Kind::Operation) {
          continue;
        }
        const WriteResult r = writer.effect_value(e, f, {});
        if (r.ok) {
          // A fresh value, not an update of the old one: a counter that another function
          // steps (`nlocal++`) from a start read from data stays data (its start differs by
          // rank, and every step inherits it).
          const bool fresh = e.kind != Effect::Kind::Compound &&
                             e.kind != Effect::Kind::Increment &&
                             e.kind != Effect::Kind::Decrement && !reads(e.uses, e.var);
          if (fresh) {
            computed_in[e.var].insert(f);
          }
        } else if (e.kind == Effect::Kind::Assign || e.kind == Effect::Kind::Compound) {
          data[e.var].push_back({f, n, i, r.why});
        }
      }
    }
  }
  for (const auto &[var, assignments] : data) {
    // The variable is computed by a function that sets it no other way: the data assignments
    // are another path to the same state (a loader, a restart), not how the variable is made.
    std::set<FunctionId> data_functions;
    for (const DataAssignment &d : assignments) {
      data_functions.insert(d.function);
    }
    const auto computed = computed_in.find(var);
    if (computed == computed_in.end() ||
        std::all_of(computed->second.begin(), computed->second.end(),
                    [&](FunctionId f) { return data_functions.contains(f); })) {
      continue;
    }
    std::vector<std::pair<const clang::Stmt *, std::string>> statements;
    bool ok = true;
    for (const DataAssignment &d : assignments) {
      const Effect &e = p.nodes[d.node].effects[d.effect];
      statements.push_back(statement_of(p, d, e));
      ok = ok && in_setup(p, trees[d.function], d, var) && statements.back().first != nullptr;
    }
    if (!ok) {
      continue;
    }
    const Variable &v = p.variables[var];
    std::string computed_at;
    for (FunctionId f : computed->second) {
      if (!data_functions.contains(f)) {
        computed_at += (computed_at.empty() ? "" : ", ") + p.functions[f].name + "()";
      }
    }
    ProgramParameter param;
    param.name = parameter_name(p, v);
    param.input = true;
    param.var = var;
    param.floating = v.type == VarType::Floating;
    param.origin = "measured";
    param.aliases.push_back(v.source_name);
    for (std::size_t k = 0; k < assignments.size(); ++k) {
      const DataAssignment &d = assignments[k];
      Effect &e = p.nodes[d.node].effects[d.effect];
      const std::string where = place(p, d.function, e.location);
      if (k == 0) {
        param.source = where;
        param.doc = "'" + v.source_name + "' as the estimation run sets it from data at " +
                    file_line(where) + " (" + d.why + ")";
      }
      InputSite site;
      site.var = var;
      site.function = d.function;
      site.how = "measured";
      site.what = "an assignment from data";
      site.spelling = statements[k].second;
      site.statement = statements[k].first;
      site.location = e.location;
      site.setup = true;
      site.parameter = param.name;
      e.kind = Effect::Kind::Input;
      e.input = static_cast<std::uint32_t>(p.inputs.size());
      e.uses.clear();
      p.inputs.push_back(std::move(site));
      Diagnostic note;
      note.kind = DiagnosticKind::Parameter;
      note.severity = Severity::Note;
      note.function = p.functions[d.function].name;
      note.message = "'" + v.source_name + "' is computed by " + computed_at +
                     " and set from data here (" + d.why +
                     "): this assignment takes the value the estimation run measures after it "
                     "(parameter '" +
                     param.name + "'), and the variable stays computed where the program " +
                     "computes it";
      const std::size_t colon = where.rfind(':');
      if (colon != std::string::npos) {
        note.file = where.substr(0, colon);
        note.line = static_cast<std::uint32_t>(std::stoul(where.substr(colon + 1)));
      }
      p.diagnostics.push_back(std::move(note));
    }
    p.parameters.push_back(std::move(param));
  }
}

} // namespace parjava::frontend
