// Persistent requests (MPI 4.0 §3.9): `MPI_Recv_init(buf, n, type, src, tag, comm, &r[0])`
// makes a request once, and every `MPI_Start(&r[0])` / `MPI_Startall(2, r)` after it posts that
// operation again (mpi_coverage.c, halo codes that set up their exchanges once). The model has
// no persistent requests: each start is the non-blocking operation the request was made for,
// with the init call's arguments, at the start's line, so MPI_Wait / MPI_Waitall on the request
// find a posted operation as after MPI_Isend / MPI_Irecv. Before, the init and start calls were
// external calls and the model builder failed on the Waitall ("'args.request': '' is not a
// valid name").
#include "mpi_calls.hpp"
#include "structure_walk.hpp"

namespace parjava::frontend {

std::optional<StructureWalk::RequestSlot> StructureWalk::request_slot(const clang::Expr *e) const {
  const clang::Expr *inner = e->IgnoreParenImpCasts();
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(inner)) {
    if (u->getOpcode() == clang::UO_AddrOf) {
      inner = u->getSubExpr()->IgnoreParenImpCasts();
    }
  }
  const clang::Expr *base = inner;
  const clang::Expr *index = nullptr;
  if (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(inner)) {
    base = sub->getBase()->IgnoreParenImpCasts();
    index = sub->getIdx();
  } else if (const auto *add = llvm::dyn_cast<clang::BinaryOperator>(inner)) {
    if (add->getOpcode() == clang::BO_Add) {
      base = add->getLHS()->IgnoreParenImpCasts();
      index = add->getRHS();
    }
  }
  const clang::ValueDecl *decl = nullptr;
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(base)) {
    decl = ref->getDecl();
  } else if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(base)) {
    decl = member->getMemberDecl();
  }
  std::int64_t k = 0;
  if (index != nullptr) {
    clang::Expr::EvalResult r;
    if (index->isValueDependent() || !index->EvaluateAsInt(r, context_)) {
      return std::nullopt;
    }
    k = r.Val.getInt().getExtValue();
  }
  if (decl == nullptr) {
    return std::nullopt;
  }
  return RequestSlot{llvm::cast<clang::ValueDecl>(decl->getCanonicalDecl()), k};
}

void StructureWalk::record_persistent_init(const ClassifiedCall &c) {
  for (const MpiArg &a : c.mpi->args) {
    if (a.kind != MpiArg::Kind::Request || static_cast<std::size_t>(a.index) >= c.args.size()) {
      continue;
    }
    if (const auto slot = request_slot(c.args[static_cast<std::size_t>(a.index)])) {
      persistent_.insert_or_assign(*slot, c);
    } else {
      diag(DiagnosticKind::Unsupported, Severity::Error, c.expr->getBeginLoc(),
           c.name + " makes a persistent request the model cannot name (a request variable or "
                    "an element of a request array at a constant index): the operations its "
                    "MPI_Start calls post are not in the model");
    }
  }
}

void StructureWalk::emit_start(Seq &seq, const ClassifiedCall &c) {
  const bool all = c.args.size() == 2;
  std::int64_t count = 1;
  if (all) {
    clang::Expr::EvalResult r;
    if (c.args[0]->isValueDependent() || !c.args[0]->EvaluateAsInt(r, context_)) {
      diag(DiagnosticKind::Unsupported, Severity::Error, c.expr->getBeginLoc(),
           c.name + "'s count is not a constant: the operations it posts are not in the model "
                    "(a wait on them completes at once)");
      return;
    }
    count = r.Val.getInt().getExtValue();
  }
  if (c.args.empty()) {
    return;
  }
  const auto first = request_slot(c.args.back());
  for (std::int64_t i = 0; i < count; ++i) {
    const auto it =
        first ? persistent_.find(RequestSlot{first->first, first->second + i}) : persistent_.end();
    if (it == persistent_.end()) {
      diag(DiagnosticKind::Unsupported, Severity::Error, c.expr->getBeginLoc(),
           c.name + " starts a persistent request that no MPI_*_init call before it in this "
                    "function made (made in another function, or at an index the model cannot "
                    "compute): the operation is not in the model, and a wait on it completes "
                    "at once");
      continue;
    }
    emit_operation(seq, it->second, *it->second.mpi, c);
  }
}

} // namespace parjava::frontend
