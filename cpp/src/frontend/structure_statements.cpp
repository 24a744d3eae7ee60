// Statements of the walk (structure_walk.hpp): if / if-else, for / while / do-while / range-for
// (loops whose condition calls a modelled function are rotated), switch, break / continue /
// return leaves, their conditions, and the member initialisers of constructors.
#include "array_copies.hpp"
#include "record_copies.hpp"
#include "structure_walk.hpp"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace parjava::frontend {

// Leaves for the calls inside a condition or returned value (evaluated before it).
void StructureWalk::emit_condition_calls(Seq &seq, const clang::Stmt *s) {
  if (s == nullptr) {
    return;
  }
  const bool outer = value_used_;
  value_used_ = true;
  emit_leaves(seq, leaf_calls(s), s);
  value_used_ = outer;
}

// Is `e` evaluated whenever `cond` is (not on the right of && or ||, not in a branch of ?:)?
static bool always_evaluated(const clang::Expr *e, const clang::Expr *cond,
                             clang::ASTContext &context) {
  const clang::Stmt *child = e;
  for (int depth = 0; depth < 64 && child != cond; ++depth) {
    const auto parents = context.getParents(*child);
    if (parents.empty()) {
      return false;
    }
    const auto *parent = parents[0].get<clang::Stmt>();
    if (parent == nullptr) {
      return false;
    }
    if (const auto *b = llvm::dyn_cast<clang::BinaryOperator>(parent);
        b != nullptr && b->isLogicalOp() && b->getRHS() == child) {
      return false;
    }
    if (const auto *c = llvm::dyn_cast<clang::AbstractConditionalOperator>(parent);
        c != nullptr && c->getCond() != child) {
      return false;
    }
    child = parent;
  }
  return child == cond;
}

// External calls in the condition of an if or a switch (`if (nanosleep(&ts, &rem) == EINTR)`,
// the whole of Ember's compute step): leaves of their own before the statement, timed around
// the call expression, or their time would be outside every probe (coverage 0 %). Calls that
// only some evaluations make (right of && / ||, a branch of ?:) stay unmeasured: a leaf would
// run on every evaluation. Their effects stay with the condition (check_condition_effects).
void StructureWalk::emit_condition_externals(Seq &seq, const clang::Expr *cond) {
  if (cond == nullptr) {
    return;
  }
  for (const clang::Expr *call : calls_in(cond)) {
    const ClassifiedCall c = calls_.classify(call, context_);
    const bool external =
        c.kind == CallClass::External || (c.kind == CallClass::Indirect && c.targets.empty());
    if (!external || !llvm::isa<clang::CallExpr>(call) || !always_evaluated(call, cond, context_)) {
      continue;
    }
    flush(seq);
    StructNode n = make(StructKind::ExternalCall, call->getSourceRange());
    n.call = call;
    n.callee_name = c.name;
    n.label = c.name + " (in a condition)";
    n.in_condition = true;
    add_child(seq, program_.add(std::move(n)));
  }
}

bool StructureWalk::has_leaf_calls(const clang::Stmt *s) {
  return s != nullptr && !leaf_calls(s).empty();
}

void StructureWalk::set_condition(StructIndex idx, const clang::Expr *cond) {
  StructNode &n = program_.nodes[idx];
  n.cond = cond;
  if (cond != nullptr) {
    std::vector<VarId> uses;
    vars_.uses(cond, uses);
    program_.nodes[idx].uses = std::move(uses);
  }
}

// `once`: the condition of an if, evaluated once where it stands; a program input read
// there (`if (fscanf(f, "%d", &n) != 1)`) is an input like any other, set by `statement`.
void StructureWalk::check_condition_effects(const clang::Expr *cond, bool once,
                                            const clang::Stmt *statement) {
  if (cond == nullptr) {
    return;
  }
  // Calls that became leaves carry their own effects (out-arguments).
  std::set<const clang::Expr *> leaves;
  for (const auto &c : leaf_calls(cond)) {
    leaves.insert(c.expr);
  }
  for (const Effect &e : statement_effects(cond, vars_, calls_, &leaves)) {
    if (e.kind == Effect::Kind::Input && once) {
      pending_havoc_.push_back(tagged({e}, statement).front());
      continue;
    }
    if (e.kind == Effect::Kind::Havoc) {
      pending_havoc_.push_back(e); // data already, with its own reason
      continue;
    }
    if (e.kind != Effect::Kind::Operation) {
      diag(DiagnosticKind::Unsupported, Severity::Note, e.location,
           "an assignment inside a condition is not modelled; the variable it writes is "
           "treated as data");
      Effect h = e;
      h.kind = Effect::Kind::Havoc;
      h.text = "assigned inside a condition";
      pending_havoc_.push_back(h);
    }
  }
}

// Build a statement into a child node (a sequence unless it is a single structured node).
StructIndex StructureWalk::build_child(const clang::Stmt *s) {
  Seq seq = open_sequence(s);
  append(seq, s);
  return close_sequence(seq);
}

void StructureWalk::append_if(Seq &seq, const clang::IfStmt *ifs) {
  if (ifs->getInit() != nullptr) {
    append(seq, ifs->getInit());
  }
  if (const clang::DeclStmt *cv = ifs->getConditionVariableDeclStmt()) {
    append_simple(seq, cv);
  }
  flush(seq);
  emit_condition_calls(seq, ifs->getCond());
  emit_condition_externals(seq, ifs->getCond());
  check_condition_effects(ifs->getCond(), /*once=*/true, ifs);
  flush_havoc(seq, ifs->getSourceRange());
  const bool has_else = ifs->getElse() != nullptr;
  StructNode n = make(has_else ? StructKind::IfElse : StructKind::If, ifs->getSourceRange());
  n.stmt = ifs;
  n.label = "if " + source_text(ifs->getCond(), context_, 40);
  const StructIndex idx = program_.add(std::move(n));
  set_condition(idx, ifs->getCond());
  const StructIndex then_branch = build_child(ifs->getThen());
  program_.nodes[idx].children.push_back(then_branch);
  if (has_else) {
    const StructIndex else_branch = build_child(ifs->getElse());
    program_.nodes[idx].children.push_back(else_branch);
  }
  add_child(seq, idx);
}

void StructureWalk::flush_havoc(Seq &seq, clang::SourceRange range) {
  if (!pending_havoc_.empty()) {
    add_effects(seq, std::move(pending_havoc_), range);
    pending_havoc_.clear();
  }
}

void StructureWalk::append_for(Seq &seq, const clang::ForStmt *fors) {
  flush(seq);
  if (append_iterator_for(seq, fors)) {
    return;
  }
  if (has_leaf_calls(fors->getCond()) || has_leaf_calls(fors->getInc())) {
    // for (init; cond-with-calls; inc) body  ==>  init; calls; while (cond) {body; inc; calls}
    if (fors->getInit() != nullptr) {
      append(seq, fors->getInit());
    }
    append_rotated_loop(seq, fors, fors->getCond(), fors->getInc(), fors->getBody());
    return;
  }
  StructNode n = make(StructKind::For, fors->getSourceRange());
  n.stmt = fors;
  n.loop_body = fors->getBody();
  if (fors->getInit() != nullptr) {
    if (has_leaf_calls(fors->getInit())) {
      append(seq, fors->getInit());
      flush(seq);
    } else {
      n.init = statement_effects(fors->getInit(), vars_, calls_);
    }
  }
  if (fors->getInc() != nullptr) {
    n.update = statement_effects(fors->getInc(), vars_, calls_);
  }
  n.label = "for " + source_text(fors->getCond(), context_, 40);
  check_condition_effects(fors->getCond());
  flush_havoc(seq, fors->getSourceRange());
  const StructIndex idx = program_.add(std::move(n));
  set_condition(idx, fors->getCond());
  frames_.push_back({idx, true});
  const StructIndex body = build_child(fors->getBody());
  frames_.pop_back();
  program_.nodes[idx].children.push_back(body);
  add_child(seq, idx);
}

void StructureWalk::append_rotated_loop(Seq &seq, const clang::Stmt *loop, const clang::Expr *cond,
                                        const clang::Stmt *update, const clang::Stmt *body_stmt) {
  emit_condition_calls(seq, cond);
  flush(seq);
  StructNode n = make(StructKind::While, loop->getSourceRange());
  n.stmt = loop;
  n.loop_body = body_stmt;
  n.label = "while " + source_text(cond, context_, 40);
  const StructIndex idx = program_.add(std::move(n));
  set_condition(idx, cond);
  frames_.push_back({idx, true, cond, update});
  Seq body = open_sequence(body_stmt);
  append(body, body_stmt);
  if (update != nullptr) {
    append(body, update);
  }
  emit_condition_calls(body, cond);
  frames_.pop_back();
  // Built first: it adds nodes, which may move program_.nodes.
  const StructIndex built_idx = close_sequence(body);
  program_.nodes[idx].children.push_back(built_idx);
  add_child(seq, idx);
  diag(DiagnosticKind::Approximation, Severity::Note, loop->getBeginLoc(),
       "the loop condition calls functions the model keeps; they are modelled before the "
       "loop and at the end of every iteration");
}

void StructureWalk::append_while(Seq &seq, const clang::WhileStmt *whiles) {
  flush(seq);
  if (const clang::DeclStmt *cv = whiles->getConditionVariableDeclStmt()) {
    diag(DiagnosticKind::Unsupported, Severity::Note, cv->getBeginLoc(),
         "a declaration in a while condition is treated as data");
  }
  if (has_leaf_calls(whiles->getCond())) {
    append_rotated_loop(seq, whiles, whiles->getCond(), nullptr, whiles->getBody());
    return;
  }
  check_condition_effects(whiles->getCond());
  flush_havoc(seq, whiles->getSourceRange());
  StructNode n = make(StructKind::While, whiles->getSourceRange());
  n.stmt = whiles;
  n.loop_body = whiles->getBody();
  n.label = "while " + source_text(whiles->getCond(), context_, 40);
  const StructIndex idx = program_.add(std::move(n));
  set_condition(idx, whiles->getCond());
  frames_.push_back({idx, true});
  const StructIndex body = build_child(whiles->getBody());
  frames_.pop_back();
  program_.nodes[idx].children.push_back(body);
  add_child(seq, idx);
}

void StructureWalk::append_do(Seq &seq, const clang::DoStmt *dos) {
  flush(seq);
  const bool calls_in_cond = has_leaf_calls(dos->getCond());
  check_condition_effects(dos->getCond());
  flush_havoc(seq, dos->getSourceRange());
  StructNode n = make(StructKind::DoWhile, dos->getSourceRange());
  n.stmt = dos;
  n.loop_body = dos->getBody();
  n.label = "do-while " + source_text(dos->getCond(), context_, 40);
  const StructIndex idx = program_.add(std::move(n));
  set_condition(idx, dos->getCond());
  frames_.push_back({idx, true, calls_in_cond ? dos->getCond() : nullptr, nullptr});
  Seq body = open_sequence(dos->getBody());
  append(body, dos->getBody());
  if (calls_in_cond) {
    emit_condition_calls(body, dos->getCond());
  }
  frames_.pop_back();
  // Built first: it adds nodes, which may move program_.nodes.
  const StructIndex built_idx = close_sequence(body);
  program_.nodes[idx].children.push_back(built_idx);
  add_child(seq, idx);
}

namespace {

// `v.begin()` / `v.cbegin()` / `v.end()` / `v.cend()` (also converted to a const_iterator): the
// object v, when the method is `which` or its c-form.
const clang::Expr *iterator_of(const clang::Expr *e, const char *which) {
  for (;;) {
    e = e->IgnoreImplicit();
    if (const auto *make = llvm::dyn_cast<clang::CXXConstructExpr>(e);
        make != nullptr && make->getNumArgs() == 1) {
      e = make->getArg(0);
      continue;
    }
    break;
  }
  const auto *call = llvm::dyn_cast<clang::CXXMemberCallExpr>(e);
  const clang::CXXMethodDecl *method = call != nullptr ? call->getMethodDecl() : nullptr;
  if (method == nullptr || call->getNumArgs() != 0) {
    return nullptr;
  }
  const std::string name = method->getNameAsString();
  return name == which || name == std::string("c") + which ? call->getImplicitObjectArgument()
                                                           : nullptr;
}

// The variable an expression names, or null.
const clang::ValueDecl *named(const clang::Expr *e) {
  const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreImplicit());
  return ref != nullptr ? ref->getDecl() : nullptr;
}

// Does the body change the iterator (`it = v.erase(it)`, `++it`, `it += 2`) or pass it on by
// non-const reference?
class IteratorWrites : public clang::RecursiveASTVisitor<IteratorWrites> {
public:
  explicit IteratorWrites(const clang::ValueDecl *it) : it_(it) {}
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr *op) {
    const auto k = op->getOperator();
    const bool writes = k == clang::OO_Equal || k == clang::OO_PlusPlus ||
                        k == clang::OO_MinusMinus || k == clang::OO_PlusEqual ||
                        k == clang::OO_MinusEqual;
    found = found || (writes && op->getNumArgs() >= 1 && named(op->getArg(0)) == it_);
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *call) {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    for (unsigned i = 0; callee != nullptr && i < call->getNumArgs(); ++i) {
      const auto *param = i < callee->getNumParams() ? callee->getParamDecl(i) : nullptr;
      if (named(call->getArg(i)) == it_ && param != nullptr &&
          param->getType()->isReferenceType() &&
          !param->getType().getNonReferenceType().isConstQualified()) {
        found = true;
      }
    }
    return true;
  }
  bool found = false;

private:
  const clang::ValueDecl *it_;
};

} // namespace

bool StructureWalk::append_iterator_for(Seq &seq, const clang::ForStmt *fors) {
  const auto *init = llvm::dyn_cast_or_null<clang::DeclStmt>(fors->getInit());
  const auto *it = init != nullptr && init->isSingleDecl()
                       ? llvm::dyn_cast<clang::VarDecl>(init->getSingleDecl())
                       : nullptr;
  const clang::Expr *container =
      it != nullptr && it->hasInit() ? iterator_of(it->getInit(), "begin") : nullptr;
  const auto *cond =
      fors->getCond() != nullptr
          ? llvm::dyn_cast<clang::CXXOperatorCallExpr>(fors->getCond()->IgnoreImplicit())
          : nullptr;
  const auto *inc =
      fors->getInc() != nullptr
          ? llvm::dyn_cast<clang::CXXOperatorCallExpr>(fors->getInc()->IgnoreImplicit())
          : nullptr;
  if (container == nullptr || cond == nullptr || inc == nullptr ||
      cond->getOperator() != clang::OO_ExclaimEqual || cond->getNumArgs() != 2 ||
      inc->getOperator() != clang::OO_PlusPlus || named(inc->getArg(0)) != it) {
    return false;
  }
  const bool left = named(cond->getArg(0)) == it;
  const clang::Expr *end = iterator_of(cond->getArg(left ? 1 : 0), "end");
  const clang::ValueDecl *object = named(container);
  if ((!left && named(cond->getArg(1)) != it) || end == nullptr || object == nullptr ||
      named(end) != object) {
    return false;
  }
  const VarId size = vars_.container_size(container);
  IteratorWrites writes(it);
  writes.TraverseStmt(const_cast<clang::Stmt *>(fors->getBody()));
  if (size == kNoVar || writes.found) {
    return false;
  }
  append_counted_for(seq, fors, fors->getBody(), container, size,
                     "for " + source_text(fors->getCond(), context_, 40));
  return true;
}

void StructureWalk::append_range_for(Seq &seq, const clang::CXXForRangeStmt *range) {
  flush(seq);
  append_counted_for(seq, range, range->getBody(), range->getRangeInit(),
                     vars_.container_size(range->getRangeInit()),
                     "for " + source_text(range->getRangeInit(), context_, 40));
}

void StructureWalk::append_counted_for(Seq &seq, const clang::Stmt *loop, const clang::Stmt *body,
                                       const clang::Expr *container, VarId size,
                                       std::string label) {
  StructNode n = make(StructKind::For, loop->getSourceRange());
  n.stmt = loop;
  n.loop_body = body;
  n.range_for = true;
  n.trips_hint = container;
  n.label = std::move(label);
  if (size != kNoVar) {
    const std::string key = "counter:" + std::to_string(reinterpret_cast<std::uintptr_t>(loop));
    n.counter = program_.synthetic(key, VarType::Integer, VarScope::Local, function_);
    program_.variables[n.counter].source_name = "iteration";
    n.uses = {size, n.counter};
  }
  const StructIndex idx = program_.add(std::move(n));
  frames_.push_back({idx, true});
  const StructIndex built = build_child(body);
  frames_.pop_back();
  program_.nodes[idx].children.push_back(built);
  add_child(seq, idx);
}

void StructureWalk::append_switch(Seq &seq, const clang::SwitchStmt *sw) {
  if (sw->getInit() != nullptr) {
    append(seq, sw->getInit());
  }
  flush(seq);
  emit_condition_calls(seq, sw->getCond());
  emit_condition_externals(seq, sw->getCond());
  const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(sw->getBody());
  if (body == nullptr) {
    throw UnstructuredFlow{"a switch whose body is not a compound statement", sw->getBeginLoc()};
  }
  StructNode n = make(StructKind::Switch, sw->getSourceRange());
  n.stmt = sw;
  n.label = "switch " + source_text(sw->getCond(), context_, 40);
  const StructIndex idx = program_.add(std::move(n));
  set_condition(idx, sw->getCond());
  frames_.push_back({idx, false});
  std::optional<Seq> current;
  const auto finish_case = [&]() {
    if (current) {
      // Built first: it adds nodes, which may move program_.nodes.
      const StructIndex built_idx = close_sequence(*current);
      program_.nodes[idx].children.push_back(built_idx);
      current.reset();
    }
  };
  for (const clang::Stmt *child : body->body()) {
    const clang::Stmt *s = child;
    if (llvm::isa<clang::SwitchCase>(s)) {
      finish_case();
      SwitchLabel label;
      while (const auto *sc = llvm::dyn_cast<clang::SwitchCase>(s)) {
        if (const auto *cs = llvm::dyn_cast<clang::CaseStmt>(sc)) {
          const llvm::APSInt lo = cs->getLHS()->EvaluateKnownConstInt(context_);
          std::int64_t hi = lo.getExtValue();
          if (cs->getRHS() != nullptr) {
            hi = cs->getRHS()->EvaluateKnownConstInt(context_).getExtValue();
            if (hi - lo.getExtValue() > 256) {
              throw UnstructuredFlow{"a case range of more than 256 values", cs->getBeginLoc()};
            }
          }
          for (std::int64_t v = lo.getExtValue(); v <= hi; ++v) {
            label.values.push_back(v);
          }
        } else {
          label.is_default = true;
        }
        s = sc->getSubStmt();
      }
      program_.nodes[idx].cases.push_back(label);
      current.emplace(open_sequence(s));
    }
    if (!current) {
      continue; // statements before the first label never run
    }
    append(*current, s);
  }
  finish_case();
  frames_.pop_back();
  if (program_.nodes[idx].cases.empty()) {
    // switch without cases: only the selector is evaluated.
    StructNode &node = program_.nodes[idx];
    node.kind = StructKind::Sequence;
    node.cond = nullptr;
  }
  add_child(seq, idx);
}

void StructureWalk::append_jump(Seq &seq, StructKind kind, clang::SourceRange range) {
  const Frame *target = nullptr;
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (kind == StructKind::Break || it->is_loop) {
      target = &*it;
      break;
    }
  }
  if (target == nullptr) {
    throw UnstructuredFlow{kind == StructKind::Break ? "break outside a loop or switch"
                                                     : "continue outside a loop",
                           range.getBegin()};
  }
  if (kind == StructKind::Continue &&
      (target->rotated_cond != nullptr || target->rotated_update != nullptr)) {
    const Frame frame = *target;
    if (frame.rotated_update != nullptr) {
      append(seq, frame.rotated_update);
    }
    emit_condition_calls(seq, frame.rotated_cond);
  }
  flush(seq);
  StructNode n = make(kind, range);
  n.target = target->node;
  n.label = kind == StructKind::Break ? "break" : "continue";
  add_child(seq, program_.add(std::move(n)));
}

void StructureWalk::append_return(Seq &seq, const clang::ReturnStmt *ret) {
  flush(seq);
  const clang::Expr *value = ret->getRetValue();
  if (value != nullptr) {
    emit_condition_calls(seq, value);
    add_effects(seq, statement_effects(value, vars_, calls_, nullptr), ret->getSourceRange());
    // A std::array returned by value goes to the function's return cell (array_copies.hpp).
    if (const AggregateId cell = returned_array_cell(program_, function_); cell != kNoAggregate) {
      add_effects(seq, whole_array_effects(cell, value, vars_, ret->getBeginLoc()),
                  ret->getSourceRange());
    }
    // A plain struct returned by value goes to the function's return fields (record_copies.hpp).
    if (!record_scalar_fields(program_.functions[function_].decl->getReturnType()).empty()) {
      add_effects(seq,
                  record_copy_effects({RecordTarget::Kind::Returned}, value, vars_, calls_,
                                      ret->getBeginLoc()),
                  ret->getSourceRange());
    }
  }
  StructNode n = make(StructKind::Return, ret->getSourceRange());
  n.stmt = ret;
  n.label = "return";
  n.return_value = value;
  if (value != nullptr) {
    vars_.uses(value, n.uses);
  }
  add_child(seq, program_.add(std::move(n)));
}

void StructureWalk::constructor_initialisers(Seq &seq, const clang::CXXConstructorDecl *ctor) {
  for (const clang::CXXCtorInitializer *init : ctor->inits()) {
    if (!init->isMemberInitializer() || !init->isWritten()) {
      continue;
    }
    const clang::FieldDecl *field = init->getMember();
    const clang::Expr *value = init->getInit();
    if (const AggregateId array = vars_.aggregate(field); array != kNoAggregate) {
      // A std::array member copied from an argument (CloverLeaf's chunk_type(chunkNeighbours,
      // ...)); any other initialiser leaves it data, not its elements' zero.
      add_effects(seq, whole_array_effects(array, value, vars_, init->getSourceLocation()),
                  init->getSourceRange());
      continue;
    }
    if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(value)) {
      // A std::vector member built with a size.
      const VarId size = vars_.container_size_of(field);
      if (size != kNoVar && construct->getNumArgs() >= 1 &&
          construct->getArg(0)->getType()->isIntegralOrEnumerationType()) {
        Effect e;
        e.kind = Effect::Kind::Assign;
        e.var = size;
        e.value = construct->getArg(0);
        e.location = init->getSourceLocation();
        vars_.uses(e.value, e.uses);
        add_effects(seq, {e}, init->getSourceRange());
      }
      continue;
    }
    const VarId var = vars_.declare(field);
    if (var == kNoVar) {
      continue;
    }
    Effect e;
    e.kind = Effect::Kind::Assign;
    e.var = var;
    e.value = value->IgnoreImplicit();
    if (const auto *paren = llvm::dyn_cast<clang::ParenListExpr>(e.value)) {
      if (paren->getNumExprs() == 1) {
        e.value = paren->getExpr(0);
      }
    }
    e.location = init->getSourceLocation();
    vars_.uses(e.value, e.uses);
    add_effects(seq, {e}, init->getSourceRange());
  }
}

} // namespace parjava::frontend
