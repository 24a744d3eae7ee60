#include "effects.hpp"

#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>

#include <cctype>
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

Effect havoc(VarId var, std::string reason, clang::SourceLocation where) {
  Effect e;
  e.kind = Effect::Kind::Havoc;
  e.var = var;
  e.text = std::move(reason);
  e.location = where;
  return e;
}

const clang::Expr *strip(const clang::Expr *e) {
  if (e == nullptr) {
    return nullptr;
  }
  e = e->IgnoreImplicit();
  if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(e)) {
    e = cleanups->getSubExpr();
  }
  if (const auto *list = llvm::dyn_cast<clang::InitListExpr>(e)) {
    if (list->getNumInits() == 1) {
      return strip(list->getInit(0));
    }
  }
  return e;
}

bool is_std_vector_object(const clang::Expr *obj) {
  const auto *record = obj->getType().getNonReferenceType()->getAsCXXRecordDecl();
  return record != nullptr && record->getQualifiedNameAsString() == "std::vector";
}

class EffectCollector : public clang::RecursiveASTVisitor<EffectCollector> {
public:
  EffectCollector(VariableResolver &vars, const CallClassifier &calls, std::vector<Effect> &out,
                  const std::set<const clang::Expr *> *skip)
      : vars_(vars), calls_(calls), out_(out), skip_(skip) {}

  bool shouldTraversePostOrder() const { return true; }
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr *) { return true; }

  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    if (!op->isAssignmentOp()) {
      return true;
    }
    const VarId var = vars_.lvalue(op->getLHS());
    if (var == kNoVar) {
      return true;
    }
    Effect e;
    e.var = var;
    e.location = op->getOperatorLoc();
    e.value = op->getRHS();
    if (op->isCompoundAssignmentOp()) {
      e.kind = Effect::Kind::Compound;
      e.op = clang::BinaryOperator::getOpForCompoundAssignment(op->getOpcode());
      e.uses.push_back(var);
    } else {
      e.kind = Effect::Kind::Assign;
    }
    vars_.uses(op->getRHS(), e.uses);
    out_.push_back(std::move(e));
    return true;
  }

  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (!op->isIncrementDecrementOp()) {
      return true;
    }
    const VarId var = vars_.lvalue(op->getSubExpr());
    if (var == kNoVar) {
      return true;
    }
    Effect e;
    e.kind = op->isIncrementOp() ? Effect::Kind::Increment : Effect::Kind::Decrement;
    e.var = var;
    e.location = op->getOperatorLoc();
    e.uses.push_back(var);
    out_.push_back(std::move(e));
    return true;
  }

  bool VisitVarDecl(clang::VarDecl *decl) {
    if (llvm::isa<clang::ParmVarDecl>(decl) || !decl->hasInit()) {
      return true;
    }
    const clang::Expr *init = strip(decl->getInit());
    if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(init)) {
      // std::vector<T> v(n[, value]): the size is n.
      if (is_std_vector_object(construct) && construct->getNumArgs() >= 1 &&
          construct->getArg(0)->getType()->isIntegralOrEnumerationType()) {
        const VarId size = vars_.container_size_of(decl);
        if (size != kNoVar) {
          Effect e;
          e.kind = Effect::Kind::Assign;
          e.var = size;
          e.value = construct->getArg(0);
          e.location = decl->getLocation();
          vars_.uses(e.value, e.uses);
          out_.push_back(std::move(e));
        }
      }
      return true;
    }
    const VarId var = vars_.declare(decl);
    if (var == kNoVar) {
      return true;
    }
    Effect e;
    e.kind = Effect::Kind::Assign;
    e.var = var;
    e.value = init;
    e.location = decl->getLocation();
    vars_.uses(init, e.uses);
    out_.push_back(std::move(e));
    return true;
  }

  bool VisitCallExpr(clang::CallExpr *call) {
    if (skip_ != nullptr && skip_->contains(call)) {
      return true;
    }
    const ClassifiedCall c = calls_.classify(call, vars_.context());
    for (auto &e : call_effects(c, vars_)) {
      out_.push_back(std::move(e));
    }
    return true;
  }

  bool VisitCXXConstructExpr(clang::CXXConstructExpr *construct) {
    const clang::CXXConstructorDecl *ctor = construct->getConstructor();
    if (ctor == nullptr || ctor->isTrivial() || ctor->isImplicit() ||
        (skip_ != nullptr && skip_->contains(construct))) {
      return true;
    }
    const ClassifiedCall c = calls_.classify(construct, vars_.context());
    for (auto &e : call_effects(c, vars_)) {
      out_.push_back(std::move(e));
    }
    return true;
  }

private:
  VariableResolver &vars_;
  const CallClassifier &calls_;
  std::vector<Effect> &out_;
  const std::set<const clang::Expr *> *skip_;
};

// Writes through non-const reference or pointer parameters of a call the model does not follow.
void out_arguments(const ClassifiedCall &call, VariableResolver &vars, std::vector<Effect> &out,
                   const std::string &why) {
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const clang::Expr *arg = call.args[i];
    VarId var = address_of(arg, vars);
    if (var == kNoVar && call.callee != nullptr && i < call.callee->getNumParams()) {
      const clang::QualType pt = call.callee->getParamDecl(static_cast<unsigned>(i))->getType();
      if (pt->isReferenceType() && !pt.getNonReferenceType().isConstQualified()) {
        var = vars.lvalue(arg);
      }
    }
    if (var != kNoVar) {
      out.push_back(havoc(var, why, arg->getBeginLoc()));
    }
  }
}

} // namespace

std::string macro_name(const clang::Expr *expr, const clang::ASTContext &context) {
  if (expr == nullptr) {
    return {};
  }
  const std::string text = source_text(expr, context, 80);
  if (text.rfind("MPI_", 0) != 0) {
    return {};
  }
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return {};
    }
  }
  return text;
}

bool is_comm_world(const clang::Expr *comm, const clang::ASTContext &context) {
  if (macro_name(comm, context) == "MPI_COMM_WORLD") {
    return true;
  }
  const clang::Expr *e = comm->IgnoreParenCasts();
  if (const auto *unary = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    e = unary->getSubExpr()->IgnoreParenCasts();
  }
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    return ref->getDecl()->getNameAsString() == "ompi_mpi_comm_world";
  }
  return false;
}

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
    const auto out_var = [&](int i) { return arg(i) ? address_of(arg(i), vars) : kNoVar; };
    switch (mpi->role) {
    case MpiRole::CommRank:
    case MpiRole::CommSize: {
      const VarId var = out_var(mpi->out_index);
      if (var == kNoVar) {
        break;
      }
      if (arg(mpi->comm_index) && is_comm_world(arg(mpi->comm_index), vars.context())) {
        Effect e;
        e.kind = Effect::Kind::Builtin;
        e.var = var;
        e.text = mpi->role == MpiRole::CommRank ? "rank" : "size";
        e.location = where;
        out.push_back(std::move(e));
      } else {
        // Appending to a named string (not `std::string(...) + "..."`): GCC 12 reports a false
        // -Warray-bounds on the temporary.
        std::string why = mpi->role == MpiRole::CommRank ? "the rank" : "the size";
        why.append(" in a communicator other than MPI_COMM_WORLD (the model knows world ranks "
                   "only)");
        out.push_back(havoc(var, why, where));
      }
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
    case MpiRole::Communication:
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
          if (var != kNoVar) {
            out.push_back(havoc(
                var, "received by " + call.name + " (the model does not transfer data)", where));
          }
        }
      }
      break;
    case MpiRole::Init: // MPI_Init(&argc, &argv) leaves the program's arguments alone
    case MpiRole::Finalize:
    case MpiRole::Wtime:
      break;
    case MpiRole::Local:
      out_arguments(call, vars, out, "written by " + call.name + "()");
      break;
    }
    break;
  }
  case CallClass::User:
    out_arguments(call, vars, out, "written through a pointer or reference by " + call.name + "()");
    break;
  case CallClass::External:
  case CallClass::Indirect: {
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
    if (const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call.expr)) {
      const clang::Expr *obj = member->getImplicitObjectArgument();
      if (obj != nullptr && is_std_vector_object(obj)) {
        const VarId size = vars.container_size(obj);
        if (size != kNoVar) {
          const std::string &m = call.name;
          if (m == "resize" && !call.args.empty()) {
            Effect e;
            e.kind = Effect::Kind::Assign;
            e.var = size;
            e.value = call.args[0];
            e.location = where;
            vars.uses(e.value, e.uses);
            out.push_back(std::move(e));
          } else if (m == "clear") {
            Effect e;
            e.kind = Effect::Kind::Builtin;
            e.var = size;
            e.text = "0";
            e.location = where;
            out.push_back(std::move(e));
          } else if (m == "push_back" || m == "emplace_back" || m == "pop_back" || m == "insert" ||
                     m == "erase" || m == "assign" || m == "swap" || m == "emplace") {
            out.push_back(havoc(size, "the size of a vector changed by " + m + "()", where));
          }
        }
        break;
      }
    }
    out_arguments(call, vars, out, "written by " + call.name + "()");
    break;
  }
  case CallClass::ThreadOp:
  case CallClass::ThreadCreate:
  case CallClass::ThreadJoin:
  case CallClass::ArgvNumber:
  case CallClass::Math:
  case CallClass::ScopedLock:
    break;
  }
  return out;
}

std::vector<Effect> statement_effects(const clang::Stmt *stmt, VariableResolver &vars,
                                      const CallClassifier &calls,
                                      const std::set<const clang::Expr *> *skip_calls) {
  std::vector<Effect> out;
  if (stmt == nullptr) {
    return out;
  }
  EffectCollector collector(vars, calls, out, skip_calls);
  collector.TraverseStmt(const_cast<clang::Stmt *>(stmt));
  return out;
}

} // namespace parjava::frontend
