#include "loop_exits.hpp"

#include <algorithm>
#include <set>

namespace parjava::frontend {

LoopExits::LoopExits(const Program &program)
    : program_(program), parent_(program.nodes.size(), kNoStruct) {
  for (StructIndex n = 0; n < program.nodes.size(); ++n) {
    for (const StructIndex c : program.nodes[n].children) {
      parent_[c] = n;
    }
  }
}

bool LoopExits::breaks_to(StructIndex n, StructIndex loop, bool any_communicating) const {
  std::vector<StructIndex> stack(program_.nodes[n].children.begin(),
                                 program_.nodes[n].children.end());
  while (!stack.empty()) {
    const StructNode &node = program_.nodes[stack.back()];
    stack.pop_back();
    if (node.kind == StructKind::Break && node.target != kNoStruct) {
      const StructNode &target = program_.nodes[node.target];
      if (any_communicating ? is_loop(target.kind) && target.communicates : node.target == loop) {
        return true;
      }
    }
    if (!is_loop(node.kind)) { // a break inside a nested loop leaves that loop
      stack.insert(stack.end(), node.children.begin(), node.children.end());
    }
  }
  return false;
}

bool LoopExits::ends_communicating_loop(StructIndex branch) const {
  if (breaks_to(branch, kNoStruct, true)) {
    return true;
  }
  // The variables the branch's sides set.
  std::set<VarId> written;
  std::vector<StructIndex> stack(program_.nodes[branch].children.begin(),
                                 program_.nodes[branch].children.end());
  while (!stack.empty()) {
    const StructNode &node = program_.nodes[stack.back()];
    stack.pop_back();
    for (const Effect &e : node.effects) {
      if (e.var != kNoVar) {
        written.insert(e.var);
      }
    }
    stack.insert(stack.end(), node.children.begin(), node.children.end());
  }
  if (written.empty()) {
    return false;
  }
  // A test in an enclosing communicating loop that reads one of them and leaves that loop.
  for (StructIndex loop = parent_[branch]; loop != kNoStruct; loop = parent_[loop]) {
    const StructNode &l = program_.nodes[loop];
    if (!is_loop(l.kind) || !l.communicates) {
      continue;
    }
    std::vector<StructIndex> tests(l.children.begin(), l.children.end());
    while (!tests.empty()) {
      const StructIndex t = tests.back();
      tests.pop_back();
      const StructNode &test = program_.nodes[t];
      if (is_loop(test.kind)) {
        continue; // its breaks leave the nested loop
      }
      const bool reads = std::any_of(test.uses.begin(), test.uses.end(),
                                     [&](VarId v) { return written.contains(v); });
      if (t != branch && (test.kind == StructKind::If || test.kind == StructKind::IfElse) &&
          reads && breaks_to(t, loop, false)) {
        return true;
      }
      tests.insert(tests.end(), test.children.begin(), test.children.end());
    }
  }
  return false;
}

} // namespace parjava::frontend
