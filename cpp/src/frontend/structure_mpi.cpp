// MPI leaves of the walk (structure_walk.hpp): communication calls with their arguments as
// expressions, communicator ranks and sizes, communicator names that copy an element of an
// array or stand for a function's MPI_Comm parameter, and groups.
#include "structure_walk.hpp"

#include "mpi_calls.hpp"
#include <clang/AST/ExprCXX.h>

namespace parjava::frontend {

void StructureWalk::emit_mpi_leaf(Seq &seq, const ClassifiedCall &c) {
  const MpiFunction &mpi = *c.mpi;
  if (mpi.role == MpiRole::PersistentInit) {
    record_persistent_init(c);
    return;
  }
  if (mpi.role == MpiRole::Start) {
    emit_start(seq, c);
    return;
  }
  if (mpi.role != MpiRole::Communication) {
    emit_comm_query_leaf(seq, c);
    return;
  }
  if ((c.name == "MPI_Comm_group" || c.name == "PMPI_Comm_group") && c.args.size() == 2) {
    program_.made_groups.insert(group_text(c.args[1]));
  }
  emit_operation(seq, c, mpi, c);
}

void StructureWalk::emit_operation(Seq &seq, const ClassifiedCall &c, const MpiFunction &mpi,
                                   const ClassifiedCall &site) {
  StructNode n = make(StructKind::Communication, site.expr->getSourceRange());
  n.call = site.expr;
  n.operation = std::string(mpi.operation);
  n.callee_name = site.name;
  n.label = site.name;
  const auto arg = [&](int i) -> const clang::Expr * {
    return i >= 0 && static_cast<std::size_t>(i) < c.args.size()
               ? c.args[static_cast<std::size_t>(i)]
               : nullptr;
  };
  for (const MpiArg &a : mpi.args) {
    const clang::Expr *e = arg(a.index);
    if (e == nullptr) {
      continue;
    }
    CommArg ca;
    ca.name = std::string(a.model_name);
    switch (a.kind) {
    case MpiArg::Kind::Expr:
      ca.expr = e;
      vars_.uses(e, ca.uses);
      break;
    case MpiArg::Kind::Bytes:
    case MpiArg::Kind::PeerBytes:
      ca.count = e;
      ca.datatype = arg(a.aux);
      ca.substitute_peer = a.kind == MpiArg::Kind::PeerBytes;
      vars_.uses(ca.count, ca.uses);
      vars_.uses(ca.datatype, ca.uses);
      break;
    case MpiArg::Kind::Comm:
    case MpiArg::Kind::NewComm:
    case MpiArg::Kind::Request:
    case MpiArg::Kind::RequestArray:
      ca.expr = e;
      ca.is_name = true;
      if (a.kind == MpiArg::Kind::Request) {
        vars_.uses(e, ca.uses); // the index of &reqs[k]
      } else if (const CommElement element = comm_element(e); element.valid()) {
        vars_.uses(element.index, ca.uses); // the element of comms[k]
      }
      break;
    case MpiArg::Kind::Status:
      for (const char *field : {"MPI_SOURCE", "MPI_TAG"}) {
        const VarId var = vars_.status_field(e, field);
        if (var != kNoVar) {
          CommArg st;
          st.name = std::string(field) == "MPI_SOURCE" ? "status_source" : "status_tag";
          st.is_name = true;
          st.var = var;
          n.comm_args.push_back(st);
        }
      }
      continue;
    case MpiArg::Kind::Flag:
    case MpiArg::Kind::Index: {
      const clang::Expr *inner = e->IgnoreParenImpCasts();
      if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
        if (u->getOpcode() == clang::UO_AddrOf) {
          ca.var = vars_.lvalue(u->getSubExpr());
        }
      }
      if (ca.var == kNoVar) {
        continue;
      }
      ca.is_name = true;
      break;
    }
    }
    n.comm_args.push_back(std::move(ca));
  }
  n.effects = tagged(call_effects(c, vars_), site.expr);
  for (const auto &a : n.comm_args) {
    for (VarId v : a.uses) {
      n.uses.push_back(v);
    }
  }
  add_child(seq, program_.add(std::move(n)));
}

// MPI_Comm_rank / MPI_Comm_size of a communicator other than world: a leaf whose operation
// writes the variable with this rank's value in that communicator.
void StructureWalk::emit_comm_query_leaf(Seq &seq, const ClassifiedCall &c) {
  const bool rank = c.mpi->role == MpiRole::CommRank;
  StructNode n = make(StructKind::Communication, c.expr->getSourceRange());
  n.call = c.expr;
  n.operation = rank ? "MPI_Comm_rank" : "MPI_Comm_size";
  n.callee_name = c.name;
  n.label = c.name;
  CommArg comm;
  comm.name = "comm";
  comm.expr = c.args[0];
  comm.is_name = true;
  if (const CommElement element = comm_element(comm.expr); element.valid()) {
    vars_.uses(element.index, comm.uses);
  }
  CommArg out;
  out.name = rank ? "rank" : "size";
  out.is_name = true;
  out.var = comm_query_output(c, vars_);
  n.uses = comm.uses;
  n.comm_args = {std::move(comm), std::move(out)};
  n.effects = tagged(call_effects(c, vars_), c.expr);
  add_child(seq, program_.add(std::move(n)));
}

// `MPI_Comm c = comms[k];` / `c = comms[k];`: a communicator variable that copies an element
// of a communicator array is a communicator name of its own, set per rank by a comm_assign
// leaf (the element differs between ranks and over time, so no static name fits).
// `pkg->comm = comm;`: a communicator field is one variable for every record (notes 000 §3.5),
// and records are filled in several functions from their own communicator parameters (hypre's
// comm packages, LLNL/AMG). A static name would be one of those parameters, which exists only
// while its function runs, so every assignment of a field is a comm_assign leaf: the field
// holds, per rank, the communicator it was last given.
bool StructureWalk::append_comm_copy(Seq &seq, const clang::Stmt *s) {
  const clang::ValueDecl *target = nullptr;
  const clang::Expr *source = nullptr;
  if (const auto *decl = llvm::dyn_cast<clang::DeclStmt>(s)) {
    const auto *var =
        decl->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(decl->getSingleDecl()) : nullptr;
    if (var != nullptr && var->hasInit()) {
      target = var;
      source = var->getInit();
    }
  } else if (const auto *e = llvm::dyn_cast<clang::Expr>(s)) {
    const auto *assign = llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
    if (assign != nullptr && assign->getOpcode() == clang::BO_Assign) {
      target = named_decl(assign->getLHS()->IgnoreParenImpCasts());
      source = assign->getRHS();
    }
  }
  if (target == nullptr || source == nullptr || contains_call(source) ||
      !(comm_element(source).valid() || llvm::isa<clang::FieldDecl>(target))) {
    return false;
  }
  const VarId var = vars_.declare(target);
  if (var == kNoVar || program_.variables[var].type != VarType::Comm) {
    return false;
  }
  flush(seq);
  StructNode n = make(StructKind::Communication, s->getSourceRange());
  n.operation = "comm_assign";
  n.callee_name = "the copy of " + source_text(source, context_, 40);
  n.label = "comm_assign";
  CommArg comm;
  comm.name = "comm";
  comm.expr = source;
  comm.is_name = true;
  if (const CommElement element = comm_element(source); element.valid()) {
    vars_.uses(element.index, comm.uses);
  }
  CommArg newcomm;
  newcomm.name = "newcomm";
  newcomm.is_name = true;
  newcomm.var = var;
  n.uses = comm.uses;
  n.comm_args = {std::move(comm), std::move(newcomm)};
  Effect named;
  named.kind = Effect::Kind::Operation; // the variable names the leaf's newcomm
  named.var = var;
  named.location = s->getBeginLoc();
  n.effects.push_back(named);
  add_child(seq, program_.add(std::move(n)));
  return true;
}

// `comms[k] = comm;`: the element of a communicator array names another communicator, a
// comm_assign leaf (no communication) so that the interpreter knows it per rank.
bool StructureWalk::append_comm_assign(Seq &seq, const clang::Stmt *s) {
  if (append_comm_copy(seq, s)) {
    return true;
  }
  const auto *e = llvm::dyn_cast<clang::Expr>(s);
  const auto *assign =
      e == nullptr ? nullptr : llvm::dyn_cast<clang::BinaryOperator>(e->IgnoreParenImpCasts());
  if (assign == nullptr || assign->getOpcode() != clang::BO_Assign) {
    return false;
  }
  const CommElement target = comm_element(assign->getLHS());
  if (!target.valid() || contains_call(assign->getRHS())) {
    return false; // a call on the right goes the usual way (its leaves, then the effects)
  }
  flush(seq);
  StructNode n = make(StructKind::Communication, s->getSourceRange());
  n.operation = "comm_assign";
  n.callee_name = "the assignment to " + source_text(assign->getLHS(), context_, 40);
  n.label = "comm_assign";
  CommArg comm;
  comm.name = "comm";
  comm.expr = assign->getRHS();
  comm.is_name = true;
  if (const CommElement source = comm_element(comm.expr); source.valid()) {
    vars_.uses(source.index, comm.uses);
  }
  n.comm_args.push_back(std::move(comm));
  CommArg newcomm;
  newcomm.name = "newcomm";
  newcomm.expr = assign->getLHS();
  newcomm.is_name = true;
  vars_.uses(target.index, newcomm.uses);
  n.comm_args.push_back(std::move(newcomm));
  for (const auto &a : n.comm_args) {
    n.uses.insert(n.uses.end(), a.uses.begin(), a.uses.end());
  }
  add_child(seq, program_.add(std::move(n)));
  return true;
}

// A call of a function with MPI_Comm parameters: each parameter is a communicator name of
// its own (`<function>_<parameter>`), set by a comm_assign leaf before every call, so a
// function called with a row communicator here and a column one there (PRK's RING_Bcast),
// or with an element of a communicator array, uses the right one on every call.
void StructureWalk::emit_comm_parameters(Seq &seq, const ClassifiedCall &c,
                                         const std::vector<const clang::Expr *> &args) {
  FunctionInfo &callee = program_.functions[c.user];
  // The callee's parameters from its declaration: a function defined after its caller has
  // no FunctionInfo::params yet (PRK DGEMM's RING_Bcast).
  VariableResolver callee_vars(program_, *callee.context, c.user);
  const auto params = callee.decl->parameters();
  for (std::size_t i = 0; i < params.size() && i < args.size(); ++i) {
    const VarId param = callee_vars.declare(params[i]);
    if (param == kNoVar || program_.variables[param].type != VarType::Comm || args[i] == nullptr ||
        contains_call(args[i])) {
      continue;
    }
    Variable &pv = program_.variables[param];
    if (pv.handle_name.empty()) {
      pv.handle_name = identifier_text(callee.name + "_" + pv.source_name);
    }
    if (c.user == function_) {
      diag(DiagnosticKind::Approximation, Severity::Warning, c.expr->getBeginLoc(),
           callee.name + "() calls itself with communicator parameter '" + pv.source_name +
               "': the model keeps one such communicator per process, so after the inner call "
               "returns, this activation uses the communicator the inner call was given");
    }
    StructNode n = make(StructKind::Communication, args[i]->getSourceRange());
    n.operation = "comm_assign";
    n.callee_name = "the communicator parameter '" + pv.source_name + "' of " + callee.name;
    n.label = "comm_assign";
    CommArg comm;
    comm.name = "comm";
    comm.expr = args[i];
    comm.is_name = true;
    if (const CommElement element = comm_element(args[i]); element.valid()) {
      vars_.uses(element.index, comm.uses);
    }
    CommArg newcomm;
    newcomm.name = "newcomm";
    newcomm.is_name = true;
    newcomm.text = pv.handle_name;
    n.uses = comm.uses;
    n.comm_args = {std::move(comm), std::move(newcomm)};
    flush(seq);
    add_child(seq, program_.add(std::move(n)));
  }
}

std::string StructureWalk::identifier_text(const std::string &text) {
  std::string out;
  for (char ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
      out += ch;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) {
    out = "comm_" + out;
  }
  return out;
}

// MPI_Group_incl(group, n, ranks, &newgroup) and MPI_Group_range_incl(group, 1, ranges,
// &newgroup): an MPI_Group_incl leaf whose member `peer` is ranks[peer] (a small array the
// model keeps, one variable per element) or first + peer * stride. Anything else is a
// comm_assign of the whole group, with a warning (approximate) that says why.
bool StructureWalk::append_group_incl(Seq &seq, const ClassifiedCall &c) {
  const bool range = c.name == "MPI_Group_range_incl" || c.name == "PMPI_Group_range_incl";
  if ((!range && c.name != "MPI_Group_incl" && c.name != "PMPI_Group_incl") || c.args.size() != 4) {
    return false;
  }
  flush(seq);
  StructNode n = make(StructKind::Communication, c.expr->getSourceRange());
  n.call = c.expr;
  n.callee_name = c.name;
  n.label = c.name;
  CommArg base;
  base.name = "comm";
  base.expr = c.args[0];
  base.is_name = true;
  CommArg newgroup;
  newgroup.name = "newcomm";
  newgroup.expr = c.args[3];
  newgroup.is_name = true;
  program_.made_groups.insert(group_text(c.args[3]));
  std::string why;
  const auto target = vars_.pointer_target(c.args[2]);
  const Aggregate *agg = target && target->aggregate != kNoAggregate
                             ? &program_.aggregates[target->aggregate]
                             : nullptr;
  std::optional<std::int64_t> count;
  if (clang::Expr::EvalResult r;
      !c.args[1]->isValueDependent() && c.args[1]->EvaluateAsInt(r, context_)) {
    count = r.Val.getInt().getExtValue();
  }
  if (agg == nullptr) {
    why = "'" + source_text(c.args[2], context_, 40) +
          "' is not a small array the model keeps (one of at most 64 scalars, declared with "
          "its size)";
  } else if (range && (!count || *count != 1)) {
    why = "only one range (a constant count of 1) is followed";
  } else if (range && agg->elements.size() < target->offset + 3) {
    why = "the range array has fewer than 3 entries";
  }
  if (!why.empty()) {
    n.operation = "comm_assign";
    n.approximate = "the members of the group made by " + c.name + ": " + why +
                    "; the model uses the whole group '" + group_text(c.args[0]) + "'";
    diag(DiagnosticKind::Approximation, Severity::Warning, c.expr->getBeginLoc(), n.approximate);
    n.comm_args = {std::move(base), std::move(newgroup)};
    add_child(seq, program_.add(std::move(n)));
    return true;
  }
  n.operation = "MPI_Group_incl";
  CommArg members;
  members.name = "rank";
  members.is_name = false;
  members.text = range ? "range" : "list";
  for (std::uint64_t k = target->offset; k < agg->elements.size(); ++k) {
    members.elements.push_back(agg->elements[k]);
  }
  if (range) {
    members.elements.resize(3); // first, last, stride of ranges[0]
  }
  members.uses = members.elements;
  CommArg count_arg;
  count_arg.name = "count";
  if (range) {
    count_arg.text = "range";
    count_arg.elements = members.elements;
    count_arg.uses = members.elements;
  } else {
    count_arg.expr = c.args[1];
    vars_.uses(c.args[1], count_arg.uses);
  }
  n.uses = members.uses;
  n.uses.insert(n.uses.end(), count_arg.uses.begin(), count_arg.uses.end());
  n.comm_args = {std::move(base), std::move(count_arg), std::move(members), std::move(newgroup)};
  add_child(seq, program_.add(std::move(n)));
  return true;
}

std::string StructureWalk::group_text(const clang::Expr *e) const {
  const clang::Expr *inner = e->IgnoreParenImpCasts();
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
    if (u->getOpcode() == clang::UO_AddrOf) {
      inner = u->getSubExpr()->IgnoreParenImpCasts();
    }
  }
  return source_text(inner, context_, 40);
}

} // namespace parjava::frontend
