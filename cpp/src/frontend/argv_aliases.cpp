#include "argv_aliases.hpp"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <map>
#include <set>

namespace parjava::frontend {

namespace {

const clang::Decl *canonical_ref(const clang::Expr *e) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *var = ref != nullptr ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  return var != nullptr ? var->getCanonicalDecl() : nullptr;
}

// The variables a body changes (assigned, stepped, or passed by address), and the locals
// initialised from one expression (`char **argv = *argv_p;`).
class Writes : public clang::RecursiveASTVisitor<Writes> {
public:
  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    if (op->isAssignmentOp()) {
      add(op->getLHS());
    }
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator *op) {
    if (op->isIncrementDecrementOp()) {
      add(op->getSubExpr());
    }
    return true;
  }
  bool VisitVarDecl(clang::VarDecl *decl) {
    if (!llvm::isa<clang::ParmVarDecl>(decl) && decl->hasInit() &&
        decl->getType()->isPointerType()) {
      inits[decl->getCanonicalDecl()] = decl->getInit();
    }
    return true;
  }
  std::set<const clang::Decl *> changed;
  std::map<const clang::Decl *, const clang::Expr *> inits;

private:
  void add(const clang::Expr *e) {
    if (const clang::Decl *d = canonical_ref(e)) {
      changed.insert(d);
    }
  }
};

enum class Holds : std::uint8_t { Argv, PointerToArgv, Other };

// The record an argument passes, by address or by pointer (`&args`, `args`), when it has a
// `char **` field that can hold the command line.
const clang::RecordDecl *command_line_record(const clang::Expr *e) {
  clang::QualType t = e->IgnoreParenImpCasts()->getType();
  if (t->isPointerType()) {
    t = t->getPointeeType();
  }
  const clang::RecordDecl *record = t->getAsRecordDecl();
  if (record == nullptr || record->getDefinition() == nullptr) {
    return nullptr;
  }
  record = record->getDefinition();
  const bool table =
      std::any_of(record->field_begin(), record->field_end(), [](const clang::FieldDecl *field) {
        const clang::QualType f = field->getType();
        return f->isPointerType() && f->getPointeeType()->isPointerType() &&
               f->getPointeeType()->getPointeeType()->isCharType();
      });
  return table ? record : nullptr;
}

// Every call of a program function in the live functions' bodies, with its caller.
template <typename Visit>
void each_live_user_call(const Program &program, const CallClassifier &calls, Visit visit) {
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    const FunctionInfo &fn = program.functions[f];
    if (!program.live(f) || fn.decl->getBody() == nullptr) {
      continue;
    }
    for (const clang::Expr *call : calls_in(fn.decl->getBody())) {
      const ClassifiedCall c = calls.classify(call, *fn.context);
      if (c.kind == CallClass::User && c.user != kNoFunction) {
        visit(f, c);
      }
    }
  }
}

// program.argv_records: a live call passing argv (or an alias) and such a record fills it.
void find_argv_records(Program &program, const CallClassifier &calls) {
  each_live_user_call(program, calls, [&](FunctionId, const ClassifiedCall &c) {
    const bool argv = std::any_of(c.args.begin(), c.args.end(), [&](const clang::Expr *a) {
      const clang::Decl *d = canonical_ref(a);
      return d != nullptr && program.argv_aliases.contains(d);
    });
    if (!argv) {
      return;
    }
    for (const clang::Expr *a : c.args) {
      if (const clang::RecordDecl *record = command_line_record(a)) {
        if (std::string usr = usr_of(record); !usr.empty()) {
          program.argv_records.insert(std::move(usr));
        }
      }
    }
  });
}

} // namespace

void find_argv_aliases(Program &program, const CallClassifier &calls) {
  std::set<const clang::Decl *> argv;     // always main's argv
  std::set<const clang::Decl *> pointers; // always &argv
  std::vector<Writes> writes(program.functions.size());
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    const FunctionInfo &fn = program.functions[f];
    if (!program.live(f) || fn.decl->getBody() == nullptr) {
      continue;
    }
    writes[f].TraverseStmt(fn.decl->getBody());
    if (fn.decl->isMain() && fn.decl->getNumParams() >= 2 &&
        !writes[f].changed.contains(fn.decl->getParamDecl(1)->getCanonicalDecl())) {
      argv.insert(fn.decl->getParamDecl(1)->getCanonicalDecl());
    }
  }
  if (argv.empty()) {
    return;
  }
  const auto holds = [&](const clang::Expr *e) {
    e = e->IgnoreParenImpCasts();
    if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      if (u->getOpcode() == clang::UO_AddrOf && argv.contains(canonical_ref(u->getSubExpr()))) {
        return Holds::PointerToArgv;
      }
      if (u->getOpcode() == clang::UO_Deref && pointers.contains(canonical_ref(u->getSubExpr()))) {
        return Holds::Argv;
      }
      return Holds::Other;
    }
    const clang::Decl *d = canonical_ref(e);
    if (argv.contains(d)) {
      return Holds::Argv;
    }
    return pointers.contains(d) ? Holds::PointerToArgv : Holds::Other;
  };
  // Grow the two sets to a fixed point: each round may find a helper's helper.
  for (bool grew = true; grew;) {
    grew = false;
    std::map<const clang::Decl *, std::set<Holds>> passed;
    each_live_user_call(program, calls, [&](FunctionId, const ClassifiedCall &c) {
      const clang::FunctionDecl *callee = program.functions[c.user].decl;
      for (unsigned i = 0; i < callee->getNumParams(); ++i) {
        const clang::Decl *param = callee->getParamDecl(i)->getCanonicalDecl();
        passed[param].insert(i < c.args.size() ? holds(c.args[i]) : Holds::Other);
      }
    });
    for (FunctionId f = 0; f < program.functions.size(); ++f) {
      if (program.live(f) && program.functions[f].decl->getBody() != nullptr) {
        for (const auto &[local, init] : writes[f].inits) {
          passed[local].insert(holds(init));
        }
      }
    }
    for (FunctionId f = 0; f < program.functions.size(); ++f) {
      if (!program.live(f) || program.functions[f].decl->getBody() == nullptr) {
        continue;
      }
      const auto add = [&](const clang::Decl *d) {
        const auto it = passed.find(d);
        if (it == passed.end() || it->second.size() != 1 || writes[f].changed.contains(d)) {
          return;
        }
        const Holds h = *it->second.begin();
        auto &set = h == Holds::Argv ? argv : pointers;
        if (h != Holds::Other && set.insert(d).second) {
          grew = true;
        }
      };
      const clang::FunctionDecl *decl = program.functions[f].decl;
      for (unsigned i = 0; i < decl->getNumParams(); ++i) {
        add(decl->getParamDecl(i)->getCanonicalDecl());
      }
      for (const auto &[local, init] : writes[f].inits) {
        add(local);
      }
    }
  }
  program.argv_aliases = std::move(argv);
  find_argv_records(program, calls);
}

} // namespace parjava::frontend
