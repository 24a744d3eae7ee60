#include "reference_inputs.hpp"

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "input_reads.hpp"
#include "variables.hpp"

namespace parjava::frontend {

namespace {

using Key = const clang::Decl *; // a parameter's canonical declaration
using Read = ReferenceRead;

// Does the function strip the dashes of an option before comparing it (miniXyce's
// `parm_name.substr(parm_name.find_first_not_of('-'))`)? Then a name "tstop" is given as
// -tstop or --tstop.
class DashStripping : public clang::RecursiveASTVisitor<DashStripping> {
public:
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr *call) {
    const clang::CXXMethodDecl *m = call->getMethodDecl();
    if (m != nullptr && (m->getName() == "find_first_not_of") && call->getNumArgs() >= 1) {
      const clang::Expr *arg = call->getArg(0)->IgnoreParenImpCasts();
      const auto *c = llvm::dyn_cast<clang::CharacterLiteral>(arg);
      const auto *text = llvm::dyn_cast<clang::StringLiteral>(arg);
      found = found || (c != nullptr && c->getValue() == '-') ||
              (text != nullptr && text->getCharByteWidth() == 1 && text->getString() == "-");
    }
    return true;
  }
  bool found = false;
};

bool arithmetic_reference(const clang::ParmVarDecl *p) {
  const clang::QualType t = p->getType();
  return t->isLValueReferenceType() && !t.getNonReferenceType().isConstQualified() &&
         t.getNonReferenceType()->isArithmeticType();
}

const clang::ParmVarDecl *named_param(const clang::Expr *e, const std::set<Key> &params) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParens());
  const auto *p = ref != nullptr ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  return p != nullptr && params.contains(p->getCanonicalDecl()) ? p : nullptr;
}

// Every use of the candidate parameters in one function body, sorted into the kinds a parsing
// helper makes: reads, number reads into them, constants, passing them on by reference.
class Uses : public clang::RecursiveASTVisitor<Uses> {
public:
  Uses(const std::set<Key> &params, const CallClassifier &calls, clang::ASTContext &ctx)
      : params_(params), calls_(calls), ctx_(ctx) {}

  bool VisitDeclRefExpr(clang::DeclRefExpr *ref) {
    if (const auto *p = named_param(ref, params_)) {
      all.insert(ref);
      (void)p;
    }
    return true;
  }
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr *cast) {
    if (cast->getCastKind() == clang::CK_LValueToRValue) {
      mark(cast->getSubExpr());
    }
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator *op) {
    const clang::ParmVarDecl *p = named_param(op->getLHS(), params_);
    if (p == nullptr || op->getOpcode() != clang::BO_Assign) {
      return true; // a compound assignment stays unclassified: not a plain input
    }
    clang::Expr::EvalResult constant;
    if (is_input_conversion(op->getRHS(), calls_, ctx_)) {
      read_into(p, op->getRHS(), op);
      mark(op->getLHS());
    } else if (op->getRHS()->IgnoreParenCasts()->EvaluateAsRValue(constant, ctx_)) {
      mark(op->getLHS());
    }
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *call) {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    // `in >> t_stop` from a stream (an input file's `infile >> nx >> ny`).
    if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
        op != nullptr && op->getOperator() == clang::OO_GreaterGreater && op->getNumArgs() == 2 &&
        is_input_stream(op->getArg(0))) {
      if (const clang::ParmVarDecl *p = named_param(op->getArg(1), params_)) {
        read_into(p, call);
        mark(op->getArg(1));
      }
      return true;
    }
    // `fscanf(f, "%d", &n)`, `sscanf(text, "%lf", &t_stop)`.
    const bool scans = callee != nullptr && !callee->isCXXClassMember() &&
                       calls_.user_function(callee) == kNoFunction &&
                       scanners().contains(callee->getNameAsString());
    for (unsigned i = 0; scans && i < call->getNumArgs(); ++i) {
      const auto *addr =
          llvm::dyn_cast<clang::UnaryOperator>(call->getArg(i)->IgnoreParenImpCasts());
      const clang::ParmVarDecl *p = addr != nullptr && addr->getOpcode() == clang::UO_AddrOf
                                        ? named_param(addr->getSubExpr(), params_)
                                        : nullptr;
      if (p != nullptr) {
        read_into(p, call);
        mark(addr->getSubExpr());
      }
    }
    for (unsigned i = 0; i < call->getNumArgs(); ++i) {
      const clang::ParmVarDecl *p = named_param(call->getArg(i), params_);
      if (p == nullptr || callee == nullptr || i >= callee->getNumParams()) {
        continue;
      }
      const clang::ParmVarDecl *to = callee->getParamDecl(i);
      if (!to->getType()->isReferenceType()) {
        mark(call->getArg(i)); // by value: a read
        continue;
      }
      if (to->getType().getNonReferenceType().isConstQualified()) {
        mark(call->getArg(i));
        continue;
      }
      const FunctionId f = calls_.user_function(callee);
      if (f != kNoFunction) {
        passed.emplace_back(p->getCanonicalDecl(), std::make_pair(f, i));
        mark(call->getArg(i));
      }
    }
    return true;
  }

  std::set<const clang::Expr *> all;
  std::set<const clang::Expr *> classified;
  std::map<Key, Read> reads;
  std::vector<std::pair<Key, std::pair<FunctionId, unsigned>>> passed;

private:
  // A number read into `p` by `what`, in statement `at`: the read, and the names of the `if`
  // around it.
  void read_into(const clang::ParmVarDecl *p, const clang::Expr *what,
                 const clang::Stmt *at = nullptr) {
    Read &read = reads[p->getCanonicalDecl()];
    read.text = source_text(what, ctx_, 60);
    // The literals name command-line options only where the text read is the command line's
    // (`atof(argv[i].data())`); a file's keys (`if (key == "nx") in >> nx;`) are no options.
    if (read.text.find("argv") == std::string::npos &&
        read.text.find("optarg") == std::string::npos) {
      return;
    }
    for (const std::string &word : names_around(at != nullptr ? at : what)) {
      if (std::find(read.names.begin(), read.names.end(), word) == read.names.end()) {
        read.names.push_back(word);
      }
    }
  }
  static const std::set<std::string> &scanners() {
    static const std::set<std::string> names = {"fscanf",  "scanf",  "sscanf",
                                                "vfscanf", "vscanf", "vsscanf"};
    return names;
  }
  // A std input stream (`std::ifstream`, `std::istringstream`, ..., or what `>>` returns).
  static bool is_input_stream(const clang::Expr *e) {
    const auto *record = e->getType().getNonReferenceType()->getAsCXXRecordDecl();
    if (record == nullptr) {
      return false;
    }
    const std::string name = record->getNameAsString();
    return record->isInStdNamespace() &&
           (name == "basic_istream" || name == "basic_ifstream" || name == "basic_istringstream" ||
            name == "basic_stringstream" || name == "basic_fstream" || name == "basic_iostream");
  }
  // The string literals of the nearest `if` whose branch holds `s` (`if ((parm_name == "tf")
  // || (parm_name == "tstop"))`): the names the helper reads the value under.
  std::vector<std::string> names_around(const clang::Stmt *s) {
    for (int depth = 0; depth < 16; ++depth) {
      const auto parents = ctx_.getParents(*s);
      const auto *up = parents.empty() ? nullptr : parents[0].get<clang::Stmt>();
      if (up == nullptr) {
        break;
      }
      if (const auto *test = llvm::dyn_cast<clang::IfStmt>(up);
          test != nullptr && test->getCond() != s) {
        std::vector<std::string> words;
        literals(test->getCond(), words);
        if (!words.empty()) {
          return words;
        }
      }
      s = up;
    }
    return {};
  }
  static void literals(const clang::Stmt *s, std::vector<std::string> &out) {
    if (const auto *text = llvm::dyn_cast<clang::StringLiteral>(s)) {
      if (text->getCharByteWidth() == 1 && text->getLength() > 0) {
        out.push_back(text->getString().str());
      }
      return;
    }
    for (const clang::Stmt *child : s->children()) {
      if (child != nullptr) {
        literals(child, out);
      }
    }
  }
  void mark(const clang::Expr *e) {
    if (named_param(e, params_) != nullptr) {
      classified.insert(e->IgnoreParens());
    }
  }
  const std::set<Key> &params_;
  const CallClassifier &calls_;
  clang::ASTContext &ctx_;
};

} // namespace

void find_input_references(Program &program, const CallClassifier &calls) {
  struct Candidate {
    bool ok = true;
    Read read; // what the function reads into it, directly or through a callee
    std::vector<std::pair<FunctionId, unsigned>> passed;
  };
  std::map<Key, Candidate> candidates;
  std::map<std::pair<FunctionId, unsigned>, Key> by_place;
  for (FunctionId f = 0; f < program.functions.size(); ++f) {
    const FunctionInfo &fn = program.functions[f];
    if (!program.live(f) || fn.decl->getBody() == nullptr) {
      continue;
    }
    std::set<Key> params;
    for (unsigned i = 0; i < fn.decl->getNumParams(); ++i) {
      const clang::ParmVarDecl *p = fn.decl->getParamDecl(i);
      if (arithmetic_reference(p)) {
        params.insert(p->getCanonicalDecl());
        by_place[{f, i}] = p->getCanonicalDecl();
      }
    }
    if (params.empty()) {
      continue;
    }
    Uses uses(params, calls, *fn.context);
    uses.TraverseStmt(const_cast<clang::Stmt *>(fn.decl->getBody()));
    for (Key p : params) {
      candidates[p];
    }
    for (const clang::Expr *ref : uses.all) {
      if (!uses.classified.contains(ref)) {
        const auto *d = llvm::cast<clang::DeclRefExpr>(ref)->getDecl();
        candidates[d->getCanonicalDecl()].ok = false; // ++t, t += x, &t, t = data...
      }
    }
    DashStripping dashes;
    dashes.TraverseStmt(const_cast<clang::Stmt *>(fn.decl->getBody()));
    for (auto [p, read] : uses.reads) {
      std::vector<std::string> options;
      for (const std::string &word : read.names) {
        if (word.front() == '-' || !dashes.found) {
          options.push_back(word);
        } else {
          options.push_back("-" + word);
          options.push_back("--" + word);
        }
      }
      read.names = std::move(options);
      candidates[p].read = std::move(read);
    }
    for (const auto &[p, place] : uses.passed) {
      candidates[p].passed.push_back(place);
    }
  }
  // Passing a parameter on keeps it an input only if the callee's parameter is one; a read
  // through the callee counts as the function's own.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[p, c] : candidates) {
      for (const auto &place : c.passed) {
        const auto callee = by_place.find(place);
        const Candidate *next = callee != by_place.end() ? &candidates.at(callee->second) : nullptr;
        if (c.ok && (next == nullptr || !next->ok)) {
          c.ok = false;
          changed = true;
        }
        if (c.ok && c.read.text.empty() && !next->read.text.empty()) {
          c.read = next->read;
          changed = true;
        }
      }
    }
  }
  for (const auto &[p, c] : candidates) {
    if (c.ok && !c.read.text.empty()) {
      program.input_references[p] = c.read;
    }
  }
}

} // namespace parjava::frontend
