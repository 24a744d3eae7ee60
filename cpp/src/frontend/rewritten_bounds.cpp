#include "rewritten_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include "calls.hpp"

namespace parjava::frontend {

namespace {

// One name for a declaration across the program: fields and globals with external linkage are
// seen through a different declaration in every unit (issue 12, whole programs), so they are
// keyed by their USR; anything else by its canonical declaration.
std::string key_of(const clang::ValueDecl *decl, const Program &p) {
  const auto *d = llvm::cast<clang::ValueDecl>(decl->getCanonicalDecl());
  const auto *var = llvm::dyn_cast<clang::VarDecl>(d);
  const bool wide =
      llvm::isa<clang::FieldDecl>(d) || (var != nullptr && var->hasGlobalStorage() &&
                                         !var->isStaticLocal() && var->isExternallyVisible());
  if (wide) {
    const std::string usr = usr_of(d);
    if (!usr.empty()) {
      return "u" + p.representative_usr(usr);
    }
  }
  return "p" + std::to_string(reinterpret_cast<std::uintptr_t>(d));
}

// The declaration an lvalue (or a read) names: the field of a member access -- one per field,
// as the model's fields are -- else the variable under subscripts and dereferences.
const clang::ValueDecl *root_of(const clang::Expr *e) {
  while (e != nullptr) {
    e = e->IgnoreParenImpCasts();
    if (const auto *m = llvm::dyn_cast<clang::MemberExpr>(e)) {
      const clang::ValueDecl *d = m->getMemberDecl();
      return llvm::isa<clang::FieldDecl>(d) || llvm::isa<clang::VarDecl>(d) ? d : nullptr;
    }
    if (const auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
      e = a->getBase();
      continue;
    }
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      if (u->getOpcode() != clang::UO_Deref) {
        return nullptr;
      }
      e = u->getSubExpr();
      continue;
    }
    if (const auto *o = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
      if ((o->getOperator() != clang::OO_Subscript && o->getOperator() != clang::OO_Star) ||
          o->getNumArgs() == 0) {
        return nullptr;
      }
      e = o->getArg(0);
      continue;
    }
    if (const auto *d = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      return llvm::isa<clang::VarDecl>(d->getDecl()) ? d->getDecl() : nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

struct Write {
  std::string name;
  FunctionId function = kNoFunction;
  clang::SourceLocation location;
  int param = -1;     // a parameter of `function`: its position (the caller's argument is meant)
  bool local = false; // a local of `function`: nothing outside it sees the write
};

using Writes = std::map<std::string, Write>;

struct Call {
  FunctionId callee = kNoFunction;
  const clang::CallExpr *expr = nullptr;
};

// The writes and user calls of a statement subtree.
struct Summary {
  Writes writes;
  std::vector<Call> calls;
};

class WriteFinder : public clang::RecursiveASTVisitor<WriteFinder> {
public:
  WriteFinder(const Program &p, FunctionId f, Summary &out) : p_(p), f_(f), out_(out) {}

  bool VisitBinaryOperator(clang::BinaryOperator *b) {
    if (b->isAssignmentOp()) {
      write(b->getLHS(), b->getOperatorLoc());
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *u) {
    if (u->isIncrementDecrementOp()) {
      write(u->getSubExpr(), u->getOperatorLoc());
    }
    return true;
  }
  // `blocks.push_back(b)`: a non-const member function rewrites its object.
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr *c) {
    const auto *method = c->getMethodDecl();
    if (method != nullptr && !method->isConst() && p_.callee_of(method) == kNoFunction) {
      write(c->getImplicitObjectArgument(), c->getExprLoc());
    }
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *c) {
    const clang::FunctionDecl *fd = c->getDirectCallee();
    const FunctionId callee = fd != nullptr ? p_.callee_of(fd) : kNoFunction;
    if (callee != kNoFunction && p_.functions[callee].decl != nullptr) {
      out_.calls.push_back({callee, c});
      return true;
    }
    if (llvm::isa<clang::CXXMemberCallExpr>(c) || llvm::isa<clang::CXXOperatorCallExpr>(c)) {
      return true;
    }
    // An external call writes what it is given the address of (`MPI_Allreduce(.., &n, ..)`,
    // `memcpy(dst, ..)`); a pointer to const it only reads.
    for (const clang::Expr *arg : c->arguments()) {
      const clang::Expr *a = arg->IgnoreParenImpCasts();
      if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(a);
          u != nullptr && u->getOpcode() == clang::UO_AddrOf) {
        write(u->getSubExpr(), c->getExprLoc());
        continue;
      }
      const clang::QualType t = arg->IgnoreParens()->getType();
      if (t->isPointerType() && !t->getPointeeType().isConstQualified()) {
        write(a, c->getExprLoc());
      }
    }
    return true;
  }

private:
  void write(const clang::Expr *lhs, clang::SourceLocation at) {
    const clang::ValueDecl *d = root_of(lhs);
    if (d == nullptr) {
      return;
    }
    Write w;
    w.name = d->getNameAsString();
    w.function = f_;
    w.location = at;
    if (const auto *param = llvm::dyn_cast<clang::ParmVarDecl>(d)) {
      w.param = static_cast<int>(param->getFunctionScopeIndex());
    } else if (const auto *var = llvm::dyn_cast<clang::VarDecl>(d)) {
      w.local = var->isLocalVarDecl();
    }
    out_.writes.try_emplace(key_of(d, p_), std::move(w));
  }

  const Program &p_;
  FunctionId f_;
  Summary &out_;
};

// Declarations a condition reads.
class ReadFinder : public clang::RecursiveASTVisitor<ReadFinder> {
public:
  explicit ReadFinder(std::vector<const clang::ValueDecl *> &out) : out_(out) {}
  bool VisitDeclRefExpr(clang::DeclRefExpr *d) {
    if (llvm::isa<clang::VarDecl>(d->getDecl())) {
      out_.push_back(d->getDecl());
    }
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr *m) {
    if (llvm::isa<clang::FieldDecl>(m->getMemberDecl())) {
      out_.push_back(m->getMemberDecl());
    }
    return true;
  }

private:
  std::vector<const clang::ValueDecl *> &out_;
};

class Finder {
public:
  explicit Finder(const Program &p)
      : p_(p), direct_(p.functions.size()), all_(p.functions.size()), reach_(p.functions.size()),
        parent_(p.nodes.size(), kNoStruct) {}

  std::vector<RewrittenBound> run() {
    for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
      for (StructIndex c : p_.nodes[n].children) {
        parent_[c] = n;
      }
    }
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      const clang::FunctionDecl *decl = p_.functions[f].decl;
      if (decl != nullptr && decl->getBody() != nullptr) {
        WriteFinder(p_, f, direct_[f]).TraverseStmt(decl->getBody());
      }
    }
    close();
    std::vector<StructIndex> loops;
    for (StructIndex n = 0; n < p_.nodes.size(); ++n) {
      if (is_loop(p_.nodes[n].kind) && p_.nodes[n].stmt != nullptr) {
        loops.push_back(n);
      }
    }
    std::map<StructIndex, Summary> summaries; // of loops that may enclose an opaque one
    const auto summary_of = [&](StructIndex e) -> const Summary & {
      auto it = summaries.find(e);
      if (it == summaries.end()) {
        Summary s;
        WriteFinder(p_, p_.nodes[e].function, s)
            .TraverseStmt(const_cast<clang::Stmt *>(
                p_.nodes[e].stmt)); // NOLINT(cppcoreguidelines-pro-type-const-cast): read-only walk
        for (const Call &c : s.calls) {
          for (const auto &[key, w] : all_[c.callee]) {
            add_through_call(s.writes, key, w, c);
          }
        }
        it = summaries.emplace(e, std::move(s)).first;
      }
      return it->second;
    };
    std::vector<RewrittenBound> out;
    for (StructIndex l : loops) {
      const StructNode &loop = p_.nodes[l];
      if (!loop.opaque || loop.cond == nullptr) {
        continue;
      }
      const std::map<std::string, std::string> reads = bound_reads(l);
      if (reads.empty()) {
        continue;
      }
      // The nearest enclosing loop of the same function, then loops of other functions that
      // reach this one, smallest first.
      std::vector<StructIndex> candidates;
      for (StructIndex a = parent_[l]; a != kNoStruct; a = parent_[a]) {
        if (is_loop(p_.nodes[a].kind) && p_.nodes[a].stmt != nullptr) {
          candidates.push_back(a);
        }
      }
      std::vector<StructIndex> outside;
      for (StructIndex e : loops) {
        if (p_.nodes[e].function != loop.function && reaches(loop.function, summary_of(e))) {
          outside.push_back(e);
        }
      }
      std::sort(outside.begin(), outside.end(),
                [&](StructIndex a, StructIndex b) { return extent(a) < extent(b); });
      candidates.insert(candidates.end(), outside.begin(), outside.end());
      for (StructIndex e : candidates) {
        const Writes &w = summary_of(e).writes;
        const auto hit = std::find_if(reads.begin(), reads.end(),
                                      [&](const auto &r) { return w.contains(r.first); });
        if (hit != reads.end()) {
          const Write &where = w.at(hit->first);
          out.push_back({l, hit->second, where.function, where.location, e});
          break;
        }
      }
    }
    return out;
  }

private:
  // What a condition reads that the model does not compute and the loop does not write itself.
  std::map<std::string, std::string> bound_reads(StructIndex l) {
    const StructNode &loop = p_.nodes[l];
    std::vector<const clang::ValueDecl *> decls;
    ReadFinder(decls).TraverseStmt(const_cast<clang::Expr *>(loop.cond)); // NOLINT: read-only
    Summary own;
    WriteFinder(p_, loop.function, own)
        .TraverseStmt(const_cast<clang::Stmt *>(loop.stmt)); // NOLINT: read-only walk
    std::map<std::string, std::string> reads;
    for (const clang::ValueDecl *d : decls) {
      if (d->getType().isConstQualified() || computed(d)) {
        continue;
      }
      std::string key = key_of(d, p_);
      if (!own.writes.contains(key)) {
        reads.emplace(std::move(key), d->getNameAsString());
      }
    }
    return reads;
  }

  // A control variable every definition of which the model evaluates: not data.
  [[nodiscard]] bool computed(const clang::ValueDecl *d) const {
    VarId v = p_.variable_of(d);
    if (v == kNoVar) {
      const std::string usr = usr_of(d->getCanonicalDecl());
      v = usr.empty() ? kNoVar : p_.variable_of_usr(p_.representative_usr(usr));
    }
    return v != kNoVar && p_.variables[v].control && p_.variables[v].representable &&
           p_.variables[v].type != VarType::Other;
  }

  // A callee's write seen at a call: its parameters are the caller's arguments (one call deep),
  // its locals are gone.
  void add_through_call(Writes &into, const std::string &key, const Write &w, const Call &c) {
    if (w.local) {
      return;
    }
    if (w.param < 0) {
      into.try_emplace(key, w);
      return;
    }
    if (static_cast<unsigned>(w.param) >= c.expr->getNumArgs()) {
      return;
    }
    const clang::ValueDecl *d = root_of(c.expr->getArg(static_cast<unsigned>(w.param)));
    if (d != nullptr) {
      Write through = w;
      through.param = -1;
      through.local = false;
      into.try_emplace(key_of(d, p_), std::move(through));
    }
  }

  // Writes and reachable functions of every function, through its calls, to a fixed point.
  void close() {
    for (FunctionId f = 0; f < p_.functions.size(); ++f) {
      all_[f] = direct_[f].writes;
      reach_[f].assign(p_.functions.size(), false);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (FunctionId f = 0; f < p_.functions.size(); ++f) {
        for (const Call &c : direct_[f].calls) {
          if (!reach_[f][c.callee]) {
            reach_[f][c.callee] = true;
            changed = true;
          }
          for (FunctionId g = 0; g < p_.functions.size(); ++g) {
            if (reach_[c.callee][g] && !reach_[f][g]) {
              reach_[f][g] = true;
              changed = true;
            }
          }
          const std::size_t before = all_[f].size();
          const Writes callee = all_[c.callee];
          for (const auto &[key, w] : callee) {
            add_through_call(all_[f], key, w, c);
          }
          changed = changed || all_[f].size() != before;
        }
      }
    }
  }

  bool reaches(FunctionId target, const Summary &s) const {
    return std::any_of(s.calls.begin(), s.calls.end(), [&](const Call &c) {
      return c.callee == target || reach_[c.callee][target];
    });
  }

  // Statements under a loop: the smaller, the nearer to what it encloses.
  [[nodiscard]] std::size_t extent(StructIndex n) const {
    std::size_t size = 1;
    for (StructIndex c : p_.nodes[n].children) {
      size += extent(c);
    }
    return size;
  }

  const Program &p_;
  std::vector<Summary> direct_;
  std::vector<Writes> all_;
  std::vector<std::vector<bool>> reach_;
  std::vector<StructIndex> parent_;
};

} // namespace

std::vector<RewrittenBound> rewritten_bounds(const Program &program) {
  return Finder(program).run();
}

} // namespace parjava::frontend
