#include "forward_gotos.hpp"

#include <algorithm>

#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace parjava::frontend {

namespace {

// Where each label stands: a statement of which compound, at which position (`L1: L2: s`
// labels one statement twice).
class LabelFinder : public clang::RecursiveASTVisitor<LabelFinder> {
public:
  bool TraverseLambdaExpr(clang::LambdaExpr *) { return true; }
  bool VisitCompoundStmt(clang::CompoundStmt *c) {
    std::size_t i = 0;
    for (const clang::Stmt *s : c->body()) {
      while (const auto *label = llvm::dyn_cast_or_null<clang::LabelStmt>(s)) {
        at[label->getDecl()] = {c, i};
        s = label->getSubStmt();
      }
      ++i;
    }
    return true;
  }
  std::map<const clang::LabelDecl *, std::pair<const clang::CompoundStmt *, std::size_t>> at;
};

// The statement of `block` that holds `s`, by its position; npos when `block` does not.
std::size_t position_in(clang::ASTContext &context, const clang::CompoundStmt *block,
                        const clang::Stmt *s) {
  clang::DynTypedNode node = clang::DynTypedNode::create(*s);
  for (int depth = 0; depth < 10000; ++depth) {
    const auto parents = context.getParents(node);
    if (parents.empty()) {
      return std::string::npos;
    }
    const auto *parent = parents[0].get<clang::Stmt>();
    if (parent == nullptr) {
      return std::string::npos; // reached a declaration: the function (or a lambda)
    }
    if (parent == block) {
      const auto *child = node.get<clang::Stmt>();
      std::size_t i = 0;
      for (const clang::Stmt *c : block->body()) {
        if (c == child) {
          return i;
        }
        ++i;
      }
      return std::string::npos;
    }
    node = parents[0];
  }
  return std::string::npos;
}

} // namespace

GotoPlan plan_gotos(clang::ASTContext &context, const clang::Stmt *body,
                    const std::vector<const clang::GotoStmt *> &gotos) {
  GotoPlan plan;
  if (gotos.empty()) {
    return plan;
  }
  LabelFinder labels;
  labels.TraverseStmt(const_cast<clang::Stmt *>(body)); // NOLINT: a read-only walk
  std::map<const clang::LabelDecl *, GotoBlock> by_label;
  for (const clang::GotoStmt *g : gotos) {
    const clang::LabelDecl *decl = g->getLabel();
    const std::string name = "goto " + decl->getNameAsString();
    const auto it = labels.at.find(decl);
    if (it == labels.at.end()) {
      plan.unstructured = name + " (its label is not a statement of a block)";
      plan.where = g->getGotoLoc();
      return plan;
    }
    const auto [block, label] = it->second;
    const std::size_t from = position_in(context, block, g);
    if (from == std::string::npos || from >= label) {
      plan.unstructured =
          name + (from == std::string::npos ? " (it jumps into a block)" : " (it jumps backwards)");
      plan.where = g->getGotoLoc();
      return plan;
    }
    auto [entry, fresh] = by_label.try_emplace(decl, GotoBlock{from, label, {decl}});
    if (!fresh) {
      entry->second.begin = std::min(entry->second.begin, from);
    }
  }
  for (const auto &[decl, b] : by_label) {
    std::vector<GotoBlock> &list = plan.blocks[labels.at[decl].first];
    // Two labels of one statement leave the same statements.
    const auto same = std::find_if(list.begin(), list.end(), [&](const GotoBlock &o) {
      return o.begin == b.begin && o.end == b.end;
    });
    if (same != list.end()) {
      same->labels.push_back(decl);
    } else {
      list.push_back(b);
    }
  }
  // Crossing ranges (a goto to the later label sits before the earlier label's first goto) are
  // widened to start together, so that the blocks nest.
  for (auto &[block, list] : plan.blocks) {
    for (bool changed = true; changed;) {
      changed = false;
      for (GotoBlock &a : list) {
        for (GotoBlock &b : list) {
          if (a.begin < b.begin && b.begin < a.end && a.end < b.end) {
            b.begin = a.begin;
            changed = true;
          }
        }
      }
    }
  }
  return plan;
}

} // namespace parjava::frontend
