// The effects of calls (effects.hpp): out-arguments and option tables, pointer cells copied
// in and out, MPI service calls and Cartesian topologies.
#include "effects.hpp"

#include "hidden_writes.hpp"
#include "input_reads.hpp"
#include "keyed_inputs.hpp"
#include "record_pointers.hpp"
#include "shared_fields.hpp"
#include "vector_sizes.hpp"

#include <algorithm>
#include <cctype>

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Analysis/Analyses/ExprMutationAnalyzer.h>
#include <clang/Basic/SourceManager.h>

#include <functional>
#include <optional>
#include <set>

namespace parjava::frontend {

namespace {

// The variable whose address an argument passes (&x), kNoVar otherwise.
VarId address_of(const clang::Expr *arg, VariableResolver &vars) {
  arg = arg->IgnoreParenImpCasts();
  if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(arg)) {
    if (unary->getOpcode() == clang::UO_AddrOf) {
      return vars.lvalue(unary->getSubExpr());
    }
  }
  return kNoVar;
}

// The scalar an MPI out-argument writes: `&x`, or a pointer parameter whose target is known
// (`void sizeOf(MPI_Comm c, int *size) { MPI_Comm_size(c, size); }`, Quicksilver's checked
// wrappers): the variable every call passes, or the cell a caller's local is copied through.
VarId written_through(const clang::Expr *arg, VariableResolver &vars) {
  if (const VarId direct = address_of(arg, vars); direct != kNoVar) {
    return direct;
  }
  const auto target = vars.pointer_target(arg);
  if (target && target->aggregate == kNoAggregate && target->scalar != kNoVar) {
    return target->scalar;
  }
  return kNoVar;
}

// The copies between a caller's array and the array cell of the callee's pointer parameter
// (aliases.cpp): into the cell before the call, back into the caller's array after it.
void array_cell_copies(const clang::Expr *arg, const AliasTarget &cell, VariableResolver &vars,
                       bool into_cell, std::vector<Effect> &out) {
  const auto source = vars.pointer_target(arg);
  if (!source || source->aggregate == kNoAggregate) {
    return;
  }
  const Program &program = vars.program();
  const Aggregate &from = program.aggregates[source->aggregate];
  const Aggregate &to = program.aggregates[cell.aggregate];
  for (std::uint64_t k = 0; k < to.elements.size() && source->offset + k < from.elements.size();
       ++k) {
    const VarId caller = from.elements[source->offset + k];
    Effect copy;
    copy.kind = Effect::Kind::Copy;
    copy.var = into_cell ? to.elements[k] : caller;
    copy.source = into_cell ? caller : to.elements[k];
    copy.uses = {copy.source};
    copy.location = arg->getBeginLoc();
    if (!into_cell) {
      copy.text = program.variables[caller].source_name;
    }
    out.push_back(std::move(copy));
  }
}

// Writes through non-const reference or pointer parameters of a call the model does not follow.
// With `how` set, the written variables are program inputs read there (issue 12): a value the
// call reads from a file or the command line, or an option table entry (`registration`) whose
// value arrives later; otherwise they become data.
void out_arguments(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out,
                   const std::string &why, const std::string &how = {}, bool registration = false) {
  const OptionLiterals literals = registration ? option_literals(call.args) : OptionLiterals{};
  Program &program = vars.program();
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const clang::Expr *arg = call.args[i];
    // A user function whose pointer parameter always receives the same target writes that
    // target itself (its own effects model it); a caller's local goes through the cell.
    const clang::ParmVarDecl *param = call.callee != nullptr && i < call.callee->getNumParams()
                                          ? call.callee->getParamDecl(static_cast<unsigned>(i))
                                          : nullptr;
    if (call.kind == CallClass::User && param != nullptr && how.empty()) {
      const FunctionInfo &callee = program.functions[call.user];
      const clang::ParmVarDecl *own = i < callee.decl->getNumParams()
                                          ? callee.decl->getParamDecl(static_cast<unsigned>(i))
                                          : nullptr;
      // A struct's fields written through the pointer come back through the cells
      // (record_pointer_copies, after this).
      if (own != nullptr && program.record_pointer_params.contains(own)) {
        continue;
      }
      const auto alias = own ? program.pointer_aliases.find(own->getCanonicalDecl())
                             : program.pointer_aliases.end();
      if (alias != program.pointer_aliases.end()) {
        if (alias->second.cell && alias->second.aggregate != kNoAggregate) {
          // Back out through a pointer or a reference to non-const; a std::array passed by
          // value is the callee's copy.
          const clang::QualType type = own->getType();
          if ((type->isPointerType() || type->isLValueReferenceType()) &&
              !type->getPointeeType().isConstQualified()) {
            array_cell_copies(arg, alias->second, vars, false, out);
          }
        } else if (alias->second.cell) {
          // `&x` for a pointer, `x` for a reference (a const one is never written back).
          const bool reference = is_scalar_reference(own->getType());
          const VarId target = reference ? vars.lvalue(arg) : address_of(arg, vars);
          if (target != kNoVar &&
              !(reference && own->getType().getNonReferenceType().isConstQualified())) {
            Effect copy;
            copy.kind = Effect::Kind::Copy;
            copy.var = target;
            copy.source = alias->second.scalar;
            copy.uses = {alias->second.scalar};
            copy.location = arg->getBeginLoc();
            // How the caller spells the variable (a program input read by a helper, e.g.
            // StrToInt(argv[i + 1], &opts->its), is named and measured through it).
            const clang::Expr *named =
                reference
                    ? arg
                    : llvm::cast<clang::UnaryOperator>(arg->IgnoreParenImpCasts())->getSubExpr();
            copy.text = source_text(named->IgnoreParens(), vars.context(), 200);
            out.push_back(std::move(copy));
          }
        }
        continue;
      }
    }
    // An array passed by pointer: every element may be written (unless the pointee is const).
    if (address_of(arg, vars) == kNoVar) {
      const auto target = vars.pointer_target(arg);
      const bool constant_pointee = param != nullptr && param->getType()->isPointerType() &&
                                    param->getType()->getPointeeType().isConstQualified();
      if (target && target->aggregate != kNoAggregate && !constant_pointee) {
        const Aggregate &agg = program.aggregates[target->aggregate];
        for (std::uint64_t k = target->offset; k < agg.elements.size(); ++k) {
          const VarId element = agg.elements[k];
          if (how.empty()) {
            out.push_back(havoc(element, why, arg->getBeginLoc()));
          } else {
            out.push_back(input(vars, element, how, call.name + "()",
                                "(" + source_text(arg, vars.context(), 200) + ")[" +
                                    std::to_string(k - target->offset) + "]",
                                arg->getBeginLoc()));
          }
        }
        continue;
      }
    }
    // An element chosen at run time (`iparams + j`): a read under a table of option prefixes
    // is one input per entry; any other write makes every element data (it may be any).
    if (address_of(arg, vars) == kNoVar && !vars.pointer_target(arg)) {
      if (const DynamicElement d = dynamic_element(arg, vars); d.aggregate != kNoAggregate) {
        const Aggregate &agg = program.aggregates[d.aggregate];
        const std::vector<std::string> prefixes = how == "argv" && !call.args.empty()
                                                      ? prefix_table(call.args.front(), d.index)
                                                      : std::vector<std::string>{};
        const std::string base = source_text(arg->IgnoreParenCasts(), vars.context(), 200);
        for (std::uint64_t k = d.offset; k < agg.elements.size(); ++k) {
          const std::uint64_t entry = k - d.offset;
          const auto option =
              entry < prefixes.size() ? prefix_option(prefixes[entry]) : std::nullopt;
          if (option) {
            Effect e = input(vars, agg.elements[k], how, call.name + "()",
                             program.variables[agg.elements[k]].source_name, arg->getBeginLoc());
            InputSite &site = program.inputs[e.input];
            site.options = {option->first};
            site.name = option->second;
            site.table = true;
            site.doc = "'" + program.variables[agg.elements[k]].source_name + "' read by " +
                       call.name + "() after the option prefix '" + prefixes[entry] + "'";
            out.push_back(std::move(e));
          } else if (!how.empty() && how != "argv") {
            // A file or a library read into one element per call: an input of each element.
            Effect e = input(vars, agg.elements[k], how, call.name + "()",
                             program.variables[agg.elements[k]].source_name, arg->getBeginLoc());
            program.inputs[e.input].element = true;
            out.push_back(std::move(e));
          } else {
            out.push_back(havoc(agg.elements[k],
                                "written by " + call.name + "() through '" + base +
                                    "', an element known only at run time",
                                arg->getBeginLoc()));
          }
        }
        continue;
      }
    }
    VarId var = address_of(arg, vars);
    const clang::Expr *named = nullptr;
    if (var != kNoVar && how.empty() && param != nullptr && param->getType()->isPointerType() &&
        param->getType()->getPointeeType().isConstQualified()) {
      // `&x` for a `const int *`: read, not written (minisweep's Env_send_i(env,
      // &dims.ncell_x, ...) sends the local width, and made every object's ncell_x data).
      continue;
    }
    if (var != kNoVar) {
      named = llvm::cast<clang::UnaryOperator>(arg->IgnoreParenImpCasts())->getSubExpr();
    } else if (call.callee != nullptr && i < call.callee->getNumParams()) {
      const clang::QualType pt = call.callee->getParamDecl(static_cast<unsigned>(i))->getType();
      if (pt->isReferenceType() && !pt.getNonReferenceType().isConstQualified()) {
        var = vars.lvalue(arg);
        named = arg;
      }
    }
    if (var == kNoVar) {
      // A vector passed to be filled (miniFE's get_ids(..., all_ids, ...)): the callee's
      // push_back()s change a size that, for a parameter, the callee does not keep.
      const VarId size = written_vector_size(arg, param, vars);
      if (size == kNoVar) {
        continue;
      }
      // A user function's vector parameter with a cell: the size it leaves is the cell's (the
      // callee's resize()s set it, and its loops to u.size() read it).
      const auto cell =
          call.kind == CallClass::User && i < program.functions[call.user].decl->getNumParams()
              ? program.vector_size_cells.find(program.functions[call.user]
                                                   .decl->getParamDecl(static_cast<unsigned>(i))
                                                   ->getCanonicalDecl())
              : program.vector_size_cells.end();
      if (cell != program.vector_size_cells.end()) {
        Effect copy;
        copy.kind = Effect::Kind::Copy;
        copy.var = size;
        copy.source = cell->second;
        copy.uses = {cell->second};
        copy.location = arg->getBeginLoc();
        out.push_back(std::move(copy));
        continue;
      }
      out.push_back(havoc(size, "the size of a vector " + why, arg->getBeginLoc()));
      continue;
    }
    if (how.empty()) {
      out.push_back(havoc(var, why, arg->getBeginLoc()));
      continue;
    }
    // A macro argument spells the macro's whole use; the variable's name says it better.
    const std::string spelling = how == "annotation"
                                     ? vars.program().variables[var].source_name
                                     : source_text(named->IgnoreParens(), vars.context(), 200);
    Effect e = input(vars, var, how, how == "annotation" ? "PARJAVA_PARAM" : call.name + "()",
                     spelling, arg->getBeginLoc());
    InputSite &site = vars.program().inputs[e.input];
    site.registration = registration;
    site.options = literals.options;
    site.doc = literals.doc;
    out.push_back(std::move(e));
  }
}

// A call that registers a variable's address under an option name, as table-driven command-line
// parsers do (`addArg("nSteps", 'N', 1, 'i', &cmd.nSteps, 0, "number of time steps")`).
bool registers_option(const ClassifiedCall &call, VariableResolver &vars) {
  bool address = false;
  for (const clang::Expr *arg : call.args) {
    address = address || address_of(arg, vars) != kNoVar;
  }
  return address && !option_literals(call.args).first_word.empty();
}

// `block.getValue<int>("nSteps", sp.nSteps)` (LLNL/Quicksilver's input-file blocks): a program
// function given a key literal and one variable by non-const reference, every other reference
// or pointer parameter const, reads a configuration value into the variable: an input read
// there (issue 12, program inputs), named after the variable and measured by the estimation.
bool keyed_getter(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out,
                  clang::SourceLocation where) {
  if (call.callee == nullptr || call.args.size() != call.callee->getNumParams()) {
    return false;
  }
  std::string key;
  VarId var = kNoVar;
  const clang::Expr *named = nullptr;
  for (unsigned i = 0; i < call.callee->getNumParams(); ++i) {
    const clang::QualType type = call.callee->getParamDecl(i)->getType();
    // `"nSteps"` given for a `const std::string &` is a temporary string constructed from it.
    const clang::Expr *arg = call.args[i]->IgnoreImplicit()->IgnoreParens();
    if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(arg);
        construct != nullptr && construct->getNumArgs() >= 1) {
      arg = construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
    }
    if (const auto *literal = llvm::dyn_cast<clang::StringLiteral>(arg)) {
      const std::string text = literal->getString().str();
      const bool word =
          !text.empty() && text.size() <= 40 && std::all_of(text.begin(), text.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
          });
      if (!word || !key.empty()) {
        return false;
      }
      key = text;
      continue;
    }
    const bool by_reference = type->isReferenceType() || type->isPointerType();
    if (!by_reference || type->getPointeeType().isConstQualified()) {
      continue;
    }
    if (var != kNoVar || !type->isLValueReferenceType()) {
      return false; // two written arguments, or one through a pointer: not a getter
    }
    var = vars.lvalue(call.args[i]);
    named = call.args[i];
    if (var == kNoVar) {
      return false;
    }
  }
  if (key.empty() || var == kNoVar) {
    return false;
  }
  Effect e = input(vars, var, "file", call.name + "(\"" + key + "\")",
                   source_text(named, vars.context(), 200), where);
  vars.program().inputs[e.input].keyed = true;
  out.push_back(std::move(e));
  return true;
}

// A variable passed to a reference parameter the callee only reads inputs into
// (reference_inputs.hpp) holds a program input when the call returns, not data.
void reference_inputs(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out,
                      clang::SourceLocation where) {
  Program &program = vars.program();
  const clang::FunctionDecl *own = program.functions[call.user].decl;
  for (std::size_t i = 0; i < call.args.size() && i < own->getNumParams(); ++i) {
    const auto read = program.input_references.find(
        own->getParamDecl(static_cast<unsigned>(i))->getCanonicalDecl());
    const VarId var = read != program.input_references.end() ? vars.lvalue(call.args[i]) : kNoVar;
    if (var == kNoVar) {
      continue;
    }
    std::erase_if(out,
                  [&](const Effect &e) { return e.kind == Effect::Kind::Havoc && e.var == var; });
    const std::string spelling = source_text(call.args[i], vars.context(), 200);
    out.push_back(
        input(vars, var, "helper", call.name + "() (" + read->second.text + ")", spelling, where));
    program.inputs.back().options = read->second.names;
  }
}

bool reads_file(const std::string &name) {
  static const std::set<std::string> readers = {"fscanf", "scanf",  "vfscanf", "vscanf",
                                                "fread",  "read",   "fgets",   "getline",
                                                "pread",  "sscanf", "vsscanf"};
  return readers.contains(name);
}

} // namespace

VarId comm_query_output(const ClassifiedCall &call, VariableResolver &vars) {
  const MpiFunction *mpi = call.mpi;
  if (call.kind != CallClass::Mpi || mpi == nullptr ||
      (mpi->role != MpiRole::CommRank && mpi->role != MpiRole::CommSize) || call.args.size() < 2 ||
      is_comm_world(call.args[0], vars.context())) {
    return kNoVar;
  }
  return written_through(call.args[1], vars);
}

namespace {

// The `count` element variables an array argument points at, or none.
std::vector<VarId> array_elements(const clang::Expr *arg, std::uint64_t count,
                                  VariableResolver &vars) {
  if (arg == nullptr || count == 0) {
    return {};
  }
  const auto target = vars.pointer_target(arg);
  if (!target || target->aggregate == kNoAggregate) {
    return {};
  }
  const Aggregate &agg = vars.program().aggregates[target->aggregate];
  if (target->offset + count > agg.elements.size()) {
    return {};
  }
  const auto first = agg.elements.begin() + static_cast<std::ptrdiff_t>(target->offset);
  return {first, first + static_cast<std::ptrdiff_t>(count)};
}

std::optional<std::int64_t> constant_int(const clang::Expr *e, const clang::ASTContext &ctx) {
  clang::Expr::EvalResult r;
  if (e == nullptr || e->isValueDependent() || !e->EvaluateAsInt(r, ctx)) {
    return std::nullopt;
  }
  return r.Val.getInt().getExtValue();
}

// A dimension count: a constant, or a local initialised to one that its function never changes
// (`int ndims = 3;` as SimpleMOC's init.c passes it); the grid arrays' lengths follow from it.
std::optional<std::int64_t> dimension_count(const clang::Expr *e, VariableResolver &vars) {
  if (auto value = constant_int(e, vars.context())) {
    return value;
  }
  const auto *ref =
      e != nullptr ? llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
  const auto *local = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  if (local == nullptr || !local->hasLocalStorage() || llvm::isa<clang::ParmVarDecl>(local) ||
      local->getInit() == nullptr) {
    return std::nullopt;
  }
  const auto value = constant_int(local->getInit(), vars.context());
  const clang::FunctionDecl *function = vars.program().functions[vars.function()].decl;
  const clang::Stmt *body = function != nullptr ? function->getBody() : nullptr;
  if (!value || body == nullptr ||
      clang::ExprMutationAnalyzer(*body, vars.context()).isMutated(local)) {
    return std::nullopt;
  }
  return value;
}

Effect topology(VarId var, Effect::Grid grid, VariableResolver &vars, clang::SourceLocation at) {
  Effect e;
  e.kind = Effect::Kind::Topology;
  e.var = var;
  e.location = at;
  for (const auto *list : {&grid.dims, &grid.periods, &grid.coords}) {
    e.uses.insert(e.uses.end(), list->begin(), list->end());
  }
  vars.uses(grid.value, e.uses);
  vars.uses(grid.disp, e.uses);
  e.grid = std::move(grid);
  return e;
}

// MPI_Dims_create, Cart_coords, Cart_shift and Cart_rank (MPI 4.0 §8.5) as formulas of the
// grid; anything the model cannot see (the grid of an unknown communicator, a direction known
// only at run time, an array it does not track) makes what they write data.
void cartesian(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out) {
  const auto arg = [&](std::size_t i) -> const clang::Expr * {
    return i < call.args.size() ? call.args[i] : nullptr;
  };
  Program &program = vars.program();
  const clang::SourceLocation at = call.expr->getBeginLoc();
  const auto data = [&](VarId v) {
    if (v != kNoVar) {
      out.push_back(
          havoc(v, "written by " + call.name + "() for a grid the model does not know", at));
    }
  };
  const auto grid_of = [&](const clang::Expr *comm) -> const Program::Cartesian * {
    const VarId v = comm != nullptr ? vars.lvalue(comm) : kNoVar;
    const auto it = program.cartesian.find(v);
    return it == program.cartesian.end() ? nullptr : &it->second;
  };
  switch (call.mpi->role) {
  case MpiRole::DimsCreate: {
    const auto ndims = dimension_count(arg(1), vars);
    const std::vector<VarId> dims =
        ndims ? array_elements(arg(2), static_cast<std::uint64_t>(*ndims), vars)
              : std::vector<VarId>{};
    if (dims.empty()) {
      const auto target = vars.pointer_target(arg(2));
      if (target && target->aggregate != kNoAggregate) {
        for (VarId v : program.aggregates[target->aggregate].elements) {
          data(v);
        }
      }
      return;
    }
    // The entries on entry decide which dimensions MPI fills: copy them first.
    std::vector<VarId> entry;
    for (std::size_t l = 0; l < dims.size(); ++l) {
      const VarId t = program.synthetic("dims-entry:" + std::to_string(dims[l]) + ":" +
                                            std::to_string(at.getRawEncoding()),
                                        VarType::Integer, VarScope::Local, vars.function());
      program.variables[t].source_name = program.variables[dims[l]].source_name + "@entry";
      Effect copy;
      copy.kind = Effect::Kind::Copy;
      copy.var = t;
      copy.source = dims[l];
      copy.uses = {dims[l]};
      copy.location = at;
      out.push_back(std::move(copy));
      entry.push_back(t);
    }
    for (std::size_t i = 0; i < dims.size(); ++i) {
      Effect::Grid g;
      g.formula = Effect::Grid::Formula::Dims;
      g.coords = entry;
      g.value = arg(0);
      g.axis = i;
      out.push_back(topology(dims[i], std::move(g), vars, at));
    }
    return;
  }
  case MpiRole::CartCoords: {
    const Program::Cartesian *grid = grid_of(arg(0));
    const std::vector<VarId> coords =
        array_elements(arg(3), grid != nullptr ? grid->dims.size() : 0, vars);
    if (grid == nullptr || coords.empty()) {
      for (VarId v : array_elements(arg(3), 1, vars)) {
        data(v);
      }
      return;
    }
    for (std::size_t k = 0; k < coords.size(); ++k) {
      Effect::Grid g;
      g.formula = Effect::Grid::Formula::Coord;
      g.dims = grid->dims;
      g.value = arg(1);
      g.axis = k;
      out.push_back(topology(coords[k], std::move(g), vars, at));
    }
    return;
  }
  case MpiRole::CartShift: {
    const Program::Cartesian *grid = grid_of(arg(0));
    const auto axis = constant_int(arg(1), vars.context());
    const VarId source = arg(3) ? address_of(arg(3), vars) : kNoVar;
    const VarId dest = arg(4) ? address_of(arg(4), vars) : kNoVar;
    if (grid == nullptr || !axis || *axis < 0 ||
        static_cast<std::size_t>(*axis) >= grid->dims.size() || grid->periods.empty()) {
      data(source);
      data(dest);
      return;
    }
    for (const auto &[var, formula] : {std::pair{source, Effect::Grid::Formula::ShiftSource},
                                       std::pair{dest, Effect::Grid::Formula::ShiftDest}}) {
      if (var == kNoVar) {
        continue;
      }
      Effect::Grid g;
      g.formula = formula;
      g.dims = grid->dims;
      g.periods = grid->periods;
      g.disp = arg(2);
      g.axis = static_cast<std::uint64_t>(*axis);
      out.push_back(topology(var, std::move(g), vars, at));
    }
    return;
  }
  case MpiRole::CartRank: {
    const Program::Cartesian *grid = grid_of(arg(0));
    const VarId rank = arg(2) ? address_of(arg(2), vars) : kNoVar;
    const std::vector<VarId> coords =
        array_elements(arg(1), grid != nullptr ? grid->dims.size() : 0, vars);
    if (grid == nullptr || coords.empty()) {
      data(rank);
      return;
    }
    if (rank != kNoVar) {
      Effect::Grid g;
      g.formula = Effect::Grid::Formula::Rank;
      g.dims = grid->dims;
      g.coords = coords;
      out.push_back(topology(rank, std::move(g), vars, at));
    }
    return;
  }
  default:
    return;
  }
}

} // namespace

std::vector<Effect> call_effects(const ClassifiedCall &call, VariableResolver &vars) {
  std::vector<Effect> out;
  const clang::SourceLocation where = call.expr->getBeginLoc();
  switch (call.kind) {
  case CallClass::Mpi: {
    const MpiFunction *mpi = call.mpi;
    if (mpi == nullptr) {
      out_arguments(call, vars, out,
                    "written by " + call.name +
                        "(), which the model does "
                        "not know");
      break;
    }
    const auto arg = [&](int i) -> const clang::Expr * {
      return i >= 0 && static_cast<std::size_t>(i) < call.args.size()
                 ? call.args[static_cast<std::size_t>(i)]
                 : nullptr;
    };
    const auto out_var = [&](int i) { return arg(i) ? written_through(arg(i), vars) : kNoVar; };
    switch (mpi->role) {
    case MpiRole::CommRank:
    case MpiRole::CommSize: {
      const VarId var = out_var(mpi->out_index);
      if (var == kNoVar) {
        break;
      }
      Effect e;
      e.var = var;
      e.location = where;
      if (arg(mpi->comm_index) && is_comm_world(arg(mpi->comm_index), vars.context())) {
        e.kind = Effect::Kind::Builtin;
        e.text = mpi->role == MpiRole::CommRank ? "rank" : "size";
      } else {
        // Another communicator: the call is a leaf (structure_mpi.cpp) whose operation,
        // MPI_Comm_rank / MPI_Comm_size, gives each rank its value in that communicator.
        e.kind = Effect::Kind::Operation;
      }
      out.push_back(std::move(e));
      break;
    }
    case MpiRole::TypeContiguous:
    case MpiRole::TypeVector:
    case MpiRole::TypeSize: {
      const VarId var = out_var(mpi->out_index);
      if (var == kNoVar) {
        break;
      }
      Effect e;
      e.kind = Effect::Kind::Product;
      e.var = var;
      e.location = where;
      if (mpi->role == MpiRole::TypeContiguous) {
        e.factors = {arg(0)};
        e.datatype = arg(1);
      } else if (mpi->role == MpiRole::TypeVector) {
        e.factors = {arg(0), arg(1)};
        e.datatype = arg(3);
      } else {
        e.datatype = arg(0);
      }
      for (const clang::Expr *f : e.factors) {
        vars.uses(f, e.uses);
      }
      vars.uses(e.datatype, e.uses);
      out.push_back(std::move(e));
      break;
    }
    case MpiRole::GetCount: {
      const VarId var = out_var(mpi->out_index);
      if (var == kNoVar) {
        break;
      }
      out.push_back(havoc(var, "the count of a received message (MPI_Get_count)", where));
      break;
    }
    case MpiRole::Start: // the operation it posts has the effects of its init call
      break;
    case MpiRole::PersistentInit: // what each MPI_Start of the request does (its receive)
    case MpiRole::Communication:
      if (call.name == "MPI_Cart_create" || call.name == "PMPI_Cart_create") {
        const VarId cart = arg(5) ? address_of(arg(5), vars) : kNoVar;
        const auto ndims = dimension_count(arg(1), vars);
        if (cart != kNoVar && ndims && *ndims > 0) {
          Program::Cartesian grid;
          grid.dims = array_elements(arg(2), static_cast<std::uint64_t>(*ndims), vars);
          grid.periods = array_elements(arg(3), static_cast<std::uint64_t>(*ndims), vars);
          if (!grid.dims.empty()) {
            vars.program().cartesian[cart] = std::move(grid);
          }
        }
      }
      for (const MpiArg &a : mpi->args) {
        const clang::Expr *e = arg(a.index);
        if (e == nullptr) {
          continue;
        }
        if (a.kind == MpiArg::Kind::Status) {
          for (const char *field : {"MPI_SOURCE", "MPI_TAG"}) {
            const VarId var = vars.status_field(e, field);
            if (var != kNoVar) {
              Effect eff;
              eff.kind = Effect::Kind::Operation;
              eff.var = var;
              eff.location = where;
              out.push_back(std::move(eff));
            }
          }
        } else if (a.kind == MpiArg::Kind::Flag || a.kind == MpiArg::Kind::Index) {
          const VarId var = address_of(e, vars);
          if (var != kNoVar) {
            Effect eff;
            eff.kind = Effect::Kind::Operation;
            eff.var = var;
            eff.location = where;
            out.push_back(std::move(eff));
          }
        } else if (a.kind == MpiArg::Kind::NewComm) {
          const VarId var = address_of(e, vars);
          if (var != kNoVar) {
            Effect eff;
            eff.kind = Effect::Kind::Operation;
            eff.var = var;
            eff.location = where;
            out.push_back(std::move(eff));
          }
        }
      }
      // Receive buffers that are tracked scalars get data the model does not transfer.
      if (!call.args.empty()) {
        const std::string op(mpi->operation);
        std::vector<int> buffers;
        if (op == "MPI_Recv" || op == "MPI_Irecv" || op == "MPI_Bcast") {
          buffers = {0};
        } else if (op == "MPI_Sendrecv") {
          buffers = {5};
          if (call.name == "MPI_Sendrecv_replace") {
            buffers = {0};
          }
        } else if (op == "MPI_Reduce" || op == "MPI_Allreduce" || op == "MPI_Scan" ||
                   op == "MPI_Exscan") {
          buffers = {1};
        } else if (op == "MPI_Gather" || op == "MPI_Allgather" || op == "MPI_Alltoall" ||
                   op == "MPI_Scatter") {
          buffers = {3};
        }
        for (int b : buffers) {
          const VarId var = out_var(b);
          if (var == kNoVar && arg(b) != nullptr) {
            // An array buffer: each element is received (or, broadcast, an input).
            const auto target = vars.pointer_target(arg(b));
            if (target && target->aggregate != kNoAggregate) {
              const Aggregate &agg = vars.program().aggregates[target->aggregate];
              for (std::uint64_t k = target->offset; k < agg.elements.size(); ++k) {
                const VarId element = agg.elements[k];
                if (op == "MPI_Bcast") {
                  out.push_back(input(vars, element, "broadcast", call.name + "()",
                                      "(" + source_text(arg(b), vars.context(), 200) + ")[" +
                                          std::to_string(k - target->offset) + "]",
                                      where));
                } else {
                  out.push_back(havoc(
                      element, "received by " + call.name + " (the model does not transfer data)",
                      where));
                }
              }
            }
            continue;
          }
          if (var == kNoVar) {
            continue;
          }
          if (op == "MPI_Bcast") {
            // Every rank ends with the root's value: an input the root read, or computed
            // from inputs (issue 12: rank 0 parses and broadcasts).
            const auto *addr = llvm::cast<clang::UnaryOperator>(arg(b)->IgnoreParenImpCasts());
            out.push_back(input(vars, var, "broadcast", call.name + "()",
                                source_text(addr->getSubExpr(), vars.context(), 200), where));
          } else {
            out.push_back(havoc(
                var, "received by " + call.name + " (the model does not transfer data)", where));
          }
        }
      }
      break;
    case MpiRole::DimsCreate:
    case MpiRole::CartCoords:
    case MpiRole::CartShift:
    case MpiRole::CartRank:
      cartesian(call, vars, out);
      break;
    case MpiRole::Group: // groups are names of the model, not variables
    case MpiRole::Init:  // MPI_Init(&argc, &argv) leaves the program's arguments alone
    case MpiRole::Finalize:
    case MpiRole::Wtime:
      break;
    case MpiRole::Local:
      // Committing a datatype readies it for communication; its size, the one thing the model
      // keeps of it, stays (MPI 4.0 §5.1.9). A freed datatype is never used again (§5.1.10), so
      // keeping its size is harmless, and a field's one variable (`MPI_Type_free(&grid.flux)`
      // after the last exchange) stays a size the exchanges can use.
      if (call.name == "MPI_Type_commit" || call.name == "PMPI_Type_commit" ||
          call.name == "MPI_Type_free" || call.name == "PMPI_Type_free") {
        break;
      }
      out_arguments(call, vars, out, "written by " + call.name + "()");
      break;
    }
    break;
  }
  case CallClass::User:
    if (registers_option(call, vars)) {
      out_arguments(call, vars, out, "", "option", /*registration=*/true);
      break;
    }
    if (keyed_getter(call, vars, out, where)) {
      break;
    }
    out_arguments(call, vars, out, "written through a pointer or reference by " + call.name + "()");
    reference_inputs(call, vars, out, where);
    for (Effect &copy : record_pointer_copies(call, vars, false)) {
      out.push_back(std::move(copy));
    }
    break;
  case CallClass::External:
  case CallClass::Indirect: {
    if (call.virtual_call) {
      // One of the program's overriders runs: what it writes is its own effects' business.
      out_arguments(call, vars, out,
                    "written through a pointer or reference by " + call.name + "()");
      break;
    }
    if ((call.name == "sscanf") && call.args.size() == 3) {
      // sscanf(argv[k], "%d", &x): x is the program parameter argv k.
      const clang::Expr *src = call.args[0]->IgnoreParenImpCasts();
      const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(src);
      const VarId var = address_of(call.args[2], vars);
      if (sub != nullptr && var != kNoVar) {
        const auto *base =
            llvm::dyn_cast<clang::DeclRefExpr>(sub->getBase()->IgnoreParenImpCasts());
        const auto *param = base ? llvm::dyn_cast<clang::ParmVarDecl>(base->getDecl()) : nullptr;
        clang::Expr::EvalResult index;
        if (param != nullptr && param->getFunctionScopeIndex() == 1 &&
            sub->getIdx()->EvaluateAsInt(index, vars.context())) {
          Effect e;
          e.kind = Effect::Kind::Builtin;
          e.var = var;
          e.text = "argv" + std::to_string(index.Val.getInt().getExtValue());
          e.location = where;
          out.push_back(std::move(e));
          break;
        }
      }
    }
    if (vector_member_call(call, vars, out, where) || vector_assignment(call, vars, out, where)) {
      break;
    }
    if (call.name == "parjava_param") {
      // PARJAVA_PARAM(var) of parjava/model.h: the user names an input where no idiom fits.
      out_arguments(call, vars, out, "", "annotation");
      break;
    }
    if (registers_option(call, vars)) {
      out_arguments(call, vars, out, "", "option", /*registration=*/true);
      break;
    }
    if (call.name == "free" || call.name == "cfree") {
      break; // releases the storage, writes nothing the model keeps
    }
    std::string how = reads_file(call.name) ? "file" : "external";
    if (how == "file" && !call.args.empty()) {
      const std::string source = source_text(call.args.front(), vars.context(), 60);
      if (source.find("argv") != std::string::npos || source.find("optarg") != std::string::npos) {
        how = "argv"; // sscanf(optarg, "%d", &n), sscanf(argv[i + 1], ...)
      }
    }
    out_arguments(call, vars, out, "written by " + call.name + "()", how);
    if (const FunctionId in_place = vars.program().callee_of(call.callee);
        call.kind == CallClass::External && in_place != kNoFunction) {
      in_place_writes(call, in_place, vars, out);
    }
    if (const clang::RecordDecl *record = call.expr->getType()->getAsRecordDecl();
        record != nullptr && !container_element(call)) {
      returned_record_fields(call, vars, out, record,
                             call.expr->getType().getUnqualifiedType().getAsString(), 0);
    }
    break;
  }
  case CallClass::ThreadOp:
  case CallClass::ThreadCreate:
  case CallClass::ThreadJoin:
  case CallClass::ArgvNumber:
  case CallClass::InputNumber:
  case CallClass::Accessor:
  case CallClass::Math:
  case CallClass::ScopedLock:
    break;
  }
  return out;
}

std::vector<Effect> copy_in_effects(const ClassifiedCall &call, VariableResolver &vars) {
  std::vector<Effect> out;
  // An option table entry stores the address; it reads nothing through it.
  if (call.kind != CallClass::User || registers_option(call, vars)) {
    return out;
  }
  out = record_pointer_copies(call, vars, true);
  const Program &program = vars.program();
  const FunctionInfo &callee = program.functions[call.user];
  for (std::size_t i = 0; i < call.args.size() && i < callee.decl->getNumParams(); ++i) {
    const clang::ParmVarDecl *own = callee.decl->getParamDecl(static_cast<unsigned>(i));
    // A vector parameter's size is the size of the vector the call passes.
    if (const auto size = program.vector_size_cells.find(own->getCanonicalDecl());
        size != program.vector_size_cells.end()) {
      const VarId source = vars.container_size(call.args[i]);
      if (source == kNoVar) {
        out.push_back(havoc(size->second,
                            "the size of the vector passed as '" + own->getNameAsString() + "' (" +
                                source_text(call.args[i], vars.context(), 40) + ")",
                            call.args[i]->getBeginLoc()));
        continue;
      }
      Effect copy;
      copy.kind = Effect::Kind::Copy;
      copy.var = size->second;
      copy.source = source;
      copy.uses = {source};
      copy.location = call.args[i]->getBeginLoc();
      out.push_back(std::move(copy));
      continue;
    }
    const auto alias = program.pointer_aliases.find(own->getCanonicalDecl());
    if (alias == program.pointer_aliases.end() || !alias->second.cell) {
      continue;
    }
    if (alias->second.aggregate != kNoAggregate) {
      array_cell_copies(call.args[i], alias->second, vars, true, out);
      continue;
    }
    const VarId source = is_scalar_reference(own->getType()) ? vars.lvalue(call.args[i])
                                                             : address_of(call.args[i], vars);
    if (source == kNoVar) {
      continue;
    }
    Effect copy;
    copy.kind = Effect::Kind::Copy;
    copy.var = alias->second.scalar;
    copy.source = source;
    copy.uses = {source};
    copy.location = call.args[i]->getBeginLoc();
    out.push_back(std::move(copy));
  }
  return out;
}

} // namespace parjava::frontend
